"""As-built import benchmark: 400,000 observed links imported in the background, as a worker runs it.

    python bench/bench_asbuilt.py [--repeat 3] [--size 128k] [--keep-db]

It creates (and at the end drops) its own database, `bench_asbuilt` on 127.0.0.1:5432 as user postgres (set
BENCH_DATABASE_URL to use another server), migrates it, computes the design once through the job runner
(bench_engine.SIZES; 128k is 131,072 GPUs, about 400,000 compute links), then `--repeat` times in a fresh
subprocess:

1. writes every compute link of the plan as an as-built CSV the way the tools name the ports (InfiniBand port
   numbers on the switches, `HCA-<n>` on the hosts: engine.asbuilt.matching aliases) with one pair of cables
   crossed, so the import has something to find;
2. `upload s`: asbuilt_import, as the API and the browser call it (validate by parsing, store, queue the job);
3. `job s`: runs the queued "asbuilt" job exactly as a worker does (apps.jobs.runner.run_job): the plan
   read from the revision's stored snapshot, every upload parsed, matched and classified, the fix list and
   counts stored.

It prints every run and the medians, and the peak RSS of the subprocess. The job keeps the plan side (links and
port names) in the cache (REDIS_URL; without it each subprocess has its own empty cache): the first run decodes
the revision's snapshot, later runs of the same revision read it, as a campaign of partial imports does. Target (issue 28):
under a minute from upload to the stored classification. The machine has 2 vCPUs shared with other work: expect
15-40 % run-to-run spread.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_engine import SIZES  # noqa: E402

DB_NAME = "bench_asbuilt"
SERVER_URL = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")


def _db_url(name: str) -> str:
    base, _, _ = SERVER_URL.rpartition("/")
    return f"{base}/{name}"


def _env() -> dict:
    return {
        **os.environ,
        "DATABASE_URL": _db_url(DB_NAME),
        "DJANGO_SECRET_KEY": "bench-only",
        "DJANGO_SETTINGS_MODULE": "fabricdesign.settings",
        "DJANGO_LOG_LEVEL": "WARNING",
        "PYTHONPATH": str(ROOT),
        "API_MAX_UPLOAD_BYTES": str(64 * 2**20),
    }


def _admin(sql: str) -> None:
    import psycopg

    with psycopg.connect(SERVER_URL, autocommit=True) as conn:
        conn.execute(sql)


def _child(args: list[str]) -> dict:
    out = subprocess.run([sys.executable, __file__, *args], env=_env(), check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _vm(key: str) -> float:
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith(key)) / 1024


def child_compute(size: str) -> dict:
    import django

    django.setup()
    from django.contrib.auth import get_user_model

    from apps.designs.services import design_create
    from apps.jobs.models import Job
    from apps.jobs.runner import run_job

    user, _ = get_user_model().objects.get_or_create(username="bench")
    design = design_create(user=user, spec=SIZES[size])
    job = Job.objects.create(kind="compute", created_by=user, design=design, params={"spec": design.spec})
    if run_job(str(job.pk)) != "succeeded":
        job.refresh_from_db()
        raise SystemExit(f"compute failed: {job.error}")
    job.refresh_from_db()
    return {"revision_id": job.result["revision_id"]}


def _asbuilt_csv(revision) -> tuple[bytes, int]:
    from apps.exports.services import revision_result
    from engine.asbuilt.plan import planned_fabric

    fabric = planned_fabric(revision_result(revision=revision))
    lines = ["device,port,neighbor_device,neighbor_port"]

    def name(device: str, port: str) -> str:
        names = fabric.aliases.get((device, port), ())
        tool = [n for n in names if n.isdigit() or n.startswith("HCA-")]
        return tool[0] if tool else port

    compute = [lk for lk in fabric.links if lk.network == "compute"]
    rows = [[lk.a_device, name(lk.a_device, lk.a_port), lk.b_device, name(lk.b_device, lk.b_port)] for lk in compute]
    rows[0][2:], rows[1][2:] = rows[1][2:], rows[0][2:]  # one crossed pair
    lines += [",".join(r) for r in rows]
    return ("\n".join(lines) + "\n").encode(), len(rows)


def child_import(revision_id: int) -> dict:
    import django

    django.setup()
    from apps.commissioning.models import AsBuiltUpload, CommissioningStanding
    from apps.commissioning.services import asbuilt_import
    from apps.designs.models import Revision
    from apps.jobs.runner import run_job

    rev = Revision.objects.select_related("design__owner").get(pk=revision_id)
    AsBuiltUpload.objects.filter(revision=rev).delete()
    CommissioningStanding.objects.filter(revision=rev).delete()
    data, observed = _asbuilt_csv(rev)
    rss_before = _vm("VmHWM")
    t = time.perf_counter()
    _upload, job = asbuilt_import(revision=rev, user=rev.design.owner, fmt="csv", data=data, filename="asbuilt.csv")
    upload_s = time.perf_counter() - t
    t = time.perf_counter()
    outcome = run_job(str(job.pk))
    job_s = time.perf_counter() - t
    job.refresh_from_db()
    if outcome != "succeeded":
        raise SystemExit(f"asbuilt job {outcome}: {job.error}")
    st = CommissioningStanding.objects.get(revision=rev)
    return {
        "observed": observed,
        "bytes": len(data),
        "upload_s": upload_s,
        "job_s": job_s,
        "total_s": upload_s + job_s,
        "counts": st.counts,
        "fixes": len(st.fixes),
        "peak_rss_mb": _vm("VmHWM"),
        "rss_before_mb": rss_before,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--size", default="128k", choices=sorted(SIZES))
    ap.add_argument("--keep-db", action="store_true")
    ap.add_argument("--child", choices=("compute", "import"), help=argparse.SUPPRESS)
    ap.add_argument("--revision", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child == "compute":
        print(json.dumps(child_compute(args.size)))
        return
    if args.child == "import":
        print(json.dumps(child_import(args.revision)))
        return
    _admin(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
    _admin(f"CREATE DATABASE {DB_NAME}")
    try:
        subprocess.run([sys.executable, str(ROOT / "manage.py"), "migrate", "-v", "0"], env=_env(), check=True)
        rev = _child(["--child", "compute", "--size", args.size])["revision_id"]
        runs = [_child(["--child", "import", "--revision", str(rev)]) for _ in range(args.repeat)]
        med = {k: statistics.median(r[k] for r in runs) for k in ("upload_s", "job_s", "total_s", "peak_rss_mb")}
        first = runs[0]
        print(
            f"size {args.size}: {first['observed']:,} observed links ({first['bytes'] / 2**20:.1f} MiB CSV), {args.repeat} runs"
        )
        print(
            f"median upload {med['upload_s']:.1f} s, job {med['job_s']:.1f} s, total {med['total_s']:.1f} s "
            f"(min {min(r['total_s'] for r in runs):.1f}, max {max(r['total_s'] for r in runs):.1f}); "
            f"peak RSS {med['peak_rss_mb']:.0f} MB"
        )
        print(
            "runs (upload + job = total s): "
            + "; ".join(f"{r['upload_s']:.1f} + {r['job_s']:.1f} = {r['total_s']:.1f}" for r in runs)
        )
        print(f"classified: {first['counts']}; fix-list rows {first['fixes']}")
    finally:
        if not args.keep_db:
            _admin(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")


if __name__ == "__main__":
    main()
