"""Counter import benchmark: one ibqueryerrors sweep into a stored revision, then the revision's report.

    DATABASE_URL=postgres://... python bench/bench_counters.py [--sizes 1k,16k] [--errors 1000] [--repeat 3]

Runs against the database DATABASE_URL names (migrated; it adds a design per size and leaves it there): per
size (bench_engine's designs), it computes and stores the design in this process (apps.jobs.runner.run_job),
then `--repeat` times imports a sweep listing `--errors` leaf ports with errors (ibqueryerrors' format) and
reads the report. It prints medians: "match s" the matcher alone (the stored links read back plus a
recomputation of the design for the platform names), "import s" the whole import (parse, match, store),
"report s" the report after the imports (drift, flags, suspects with their populations). No target is set
(issue 29 names none); the machine has 2 vCPUs shared with other work, so expect 15-40 % spread and compare
the calibration line.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fabricdesign.settings")
os.environ.setdefault("DJANGO_DEBUG", "true")

from bench_engine import SIZES, calibrate  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--sizes", default="1k,16k")
    p.add_argument("--errors", type=int, default=1000)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()

    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from apps.counters.selectors import counter_report
    from apps.counters.services import counter_snapshot_create, revision_matcher
    from apps.designs.models import LinkRecord
    from apps.designs.services import design_compute_enqueue, design_create
    from apps.jobs.runner import run_job
    from engine.ifnames import ib_port_number

    print(f"calibration: {calibrate():.2f} s for 400,000 plain rows")
    user, _ = get_user_model().objects.get_or_create(username="bench-counters")
    for size in args.sizes.split(","):
        design = design_create(user=user, spec=SIZES[size])
        job = design_compute_enqueue(design=design, user=user)
        assert run_job(str(job.pk)) == "succeeded"
        rev = design.revisions.order_by("-number").first()
        ports = []
        for lk in LinkRecord.objects.filter(revision=rev, network="compute").order_by("link_id").iterator():
            if lk.a_device.startswith("CF-") and ib_port_number(lk.a_port) is not None:
                ports.append((lk.a_device, ib_port_number(lk.a_port)))
            if len(ports) >= args.errors:
                break
        match_s, import_s = [], []
        t0 = timezone.now() - timedelta(hours=args.repeat + 1)
        for i in range(args.repeat):
            lines = []
            for n, (dev, port) in enumerate(ports):
                lines.append(f'Errors for 0x{n + 1:x} "{dev}"')
                lines.append(f"   GUID 0x{n + 1:x} port {port}: [SymbolErrorCounter == {10 * (i + 1)}]")
            lines.append(f"## Summary: 1 nodes checked, {len(ports)} bad nodes found")
            t = time.perf_counter()
            revision_matcher(rev)
            match_s.append(time.perf_counter() - t)
            t = time.perf_counter()
            snap = counter_snapshot_create(
                revision=rev, user=user, text="\n".join(lines), fmt="ibqueryerrors", taken_at=t0 + timedelta(hours=i)
            )
            import_s.append(time.perf_counter() - t)
            assert snap.matched == len(ports), (snap.matched, len(ports))
        t = time.perf_counter()
        report = counter_report(revision=rev)
        report_s = time.perf_counter() - t
        print(
            f"{size}: {rev.link_count:,} links, {len(ports):,} ports per sweep: match s {statistics.median(match_s):.2f}, "
            f"import s {statistics.median(import_s):.2f} (median of {args.repeat}); report s {report_s:.2f} "
            f"({report['counts']['flagged']:,} flagged, {len(report['groups'])} groups)"
        )


if __name__ == "__main__":
    main()
