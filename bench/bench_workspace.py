"""Revision workspace benchmark: the overview and every section page of a stored revision, as a signed-in browser
asks for them (Django's test client in this process, no network).

    DATABASE_URL=... python bench/bench_workspace.py [--sizes 1k,16k] [--repeat 5]

Runs against the database DATABASE_URL names (migrated; it adds a design per size and leaves it there). Per size
(bench_engine's designs) it computes and stores the design here (apps.jobs.runner.run_job), asks for every page once
to warm the caches a real revision warms on first view, then `--repeat` times more, and prints the median (p50)
milliseconds per page. Issue 39's target: each section under 300 ms for a 16K-GPU revision. The machine has 2 vCPUs
shared with other work, so compare the calibration line.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
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
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()

    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.test.utils import setup_test_environment

    from apps.common.workspace import sections
    from apps.designs.services import design_compute_enqueue, design_create
    from apps.jobs.runner import run_job

    setup_test_environment()  # the test client's host (testserver) and no CSRF checks on GET
    print(f"calibration: {calibrate():.2f} s for 400,000 plain rows")
    user, _ = get_user_model().objects.get_or_create(username="bench-workspace")
    client = Client()
    client.force_login(user)
    for size in args.sizes.split(","):
        design = design_create(user=user, spec=SIZES[size])
        t = time.perf_counter()
        job = design_compute_enqueue(design=design, user=user)
        assert run_job(str(job.pk)) == "succeeded"
        compute_s = time.perf_counter() - t
        rev = design.revisions.order_by("-number").first()
        base = f"/designs/{design.pk}/revisions/{rev.number}/"
        pages = {"overview": base} | {s.key: f"{base}{s.key}/" for s in sections()}
        print(f"{size}: {rev.link_count:,} links (computed and stored in {compute_s:.0f} s)")
        for name, path in pages.items():
            first = time.perf_counter()
            response = client.get(path)
            first = time.perf_counter() - first
            assert response.status_code == 200, (path, response.status_code)
            times = []
            for _ in range(args.repeat):
                t = time.perf_counter()
                client.get(path)
                times.append(time.perf_counter() - t)
            print(
                f"  {name:>14}: p50 {statistics.median(times) * 1000:7.0f} ms  (first {first * 1000:7.0f} ms, "
                f"{len(response.content) / 1024:6.0f} KiB)"
            )


if __name__ == "__main__":
    main()
