"""Store benchmark: compute-plus-store of a design through the job runner on PostgreSQL, then table pages.

    python bench/bench_store.py [--repeat 3] [--sizes 16k,128k] [--keep-db] [--no-snapshot]

It creates (and at the end drops) its own database, `bench_fabricdesign` on 127.0.0.1:5432 as user
postgres (set BENCH_DATABASE_URL to use another server), migrates it, then:

1. for each size, `--repeat` times in a fresh subprocess: creates a design and a compute job and runs
   the job exactly as a worker does (apps.jobs.runner.run_job: claim, heartbeat, engine, COPY of
   links and cables, job marked succeeded in the same transaction; then, with the revision visible,
   its sort indexes and ANALYZE). It prints medians: "stored s" is the job's own time from its start
   to the commit of the revision (the target's figure), "min s" its fastest run, "after s" what the
   worker does after that commit (sort indexes, ANALYZE); "compute s" the engine, "store s" the wall
   time from the engine's first half to the commit (the engine's second half, checks and summary,
   runs while the cable indexes build, so the two columns overlap); and the peak RSS of the
   subprocess (VmHWM). Each store loads into emptied row tables. A second line splits the store by
   phase, from the job's result ("store_phases"): each table's COPY ("load"), its index build at
   attach ("index"), the wait for cable rows still being generated when the link indexes were done
   ("rows wait"), the waits for the engine's checks ("early.wait") and for its roll-ups and summary
   ("meanwhile.wait"), and the rest (revision row, summary update). The next gives the process's peak RSS
   (VmHWM) at the end of each phase, from the job's result ("peak_mb"), in rising order: the first phase to
   reach the run's peak set it (docs/scale-benchmarks.md, Stop 47). A last line gives the revision snapshot
   (apps/designs/snapshots.py): its compressed size, the time its encoding took inside the store (it runs
   with the roll-ups, so it counts in "meanwhile.wait" only where it outlasts the cable indexes), and the
   time to read and decode it as a renderer does;
2. for the last 128K revision (or the largest size run): filtered link-table pages through
   tables.link_page, the first page and the last page of each filter, median of 20 calls in ms.

Campus sizes (bench_scale.py: 256k, 512k, 1m) run with the design and job-memory limits lifted for the bench.
Targets (issue 41): 524,288 GPUs in < 60 s, 1,048,576 GPUs in < 120 s and < 3 GB; 128K ≤ 12x calibration;
`--no-pages` skips step 2. Earlier targets (issue "jobs and persistence"): the 131,072-GPU design computes and stores in < 15 s and
< 1.5 GB; a filtered page, first or last, in < 100 ms. The machine has 2 vCPUs shared with other
work: expect 15-40 % run-to-run spread, and compare with the calibration line.
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
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_engine import SIZES, calibrate  # noqa: E402  (same designs and yardstick as the engine bench)
from bench_scale import SIZES as SCALE_SIZES  # noqa: E402  (campus sizes: 256k, 512k, 1m; issue 41)

SIZES = {**SCALE_SIZES, **SIZES}  # 16k and 128k stay the engine bench's designs

DB_NAME = os.environ.get("BENCH_DB_NAME", "bench_fabricdesign")  # one per worktree when several benches share a server
SERVER_URL = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
PAGE_CALLS = 20


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
        # The campus sizes (512k: 1,577,792 links; 1m: 2,462,944) may be above the configured limits; the bench
        # measures what the machine does with them, so it lifts the size and job-memory limits for itself.
        "DESIGN_MAX_LINKS": os.environ.get("DESIGN_MAX_LINKS", "100000000"),
        "DESIGN_MAX_DEVICES": os.environ.get("DESIGN_MAX_DEVICES", "10000000"),
        "JOB_COMPUTE_MEMORY_LIMIT_MB": os.environ.get("JOB_COMPUTE_MEMORY_LIMIT_MB", "16384"),
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


# ----- children (run with DATABASE_URL pointing at the bench database) -------------------------------------------


def _proc_cpu_s(pid: int, *, reaped_children: bool = False) -> float:
    """CPU seconds (user + system) of process `pid` from /proc, or of the children it has reaped."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()  # fields[0] is the state, the third field of stat(5)
    ticks = int(fields[13]) + int(fields[14]) if reaped_children else int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


class _CpuToCommit:
    """The CPU seconds a compute job spends up to its commit, in this process (every thread) and on the server
    (the job's backend, and the parallel index-build workers the postmaster has reaped by then). Their sum over
    the machine's cores bounds the store's wall time from below: it says how much work must go, not just wait.
    The server figure counts every backend that exits meanwhile, so it means something on a quiet server only."""

    def __init__(self, connection: Any) -> None:
        from apps.designs import services

        with connection.cursor() as cur:
            cur.execute("SELECT pg_backend_pid()")
            self._backend = cur.fetchone()[0]
        with open(f"/proc/{self._backend}/stat") as fh:
            self._postmaster = int(fh.read().rsplit(")", 1)[1].split()[1])
        self._services, self._after_store = services, services._after_store
        self._start = self._now()
        self.python_s = self.server_s = 0.0
        services._after_store = self._at_commit

    def _now(self) -> tuple[float, float]:
        server = _proc_cpu_s(self._backend) + _proc_cpu_s(self._postmaster, reaped_children=True)
        return time.process_time(), server

    def _at_commit(self, *args: Any, **kwargs: Any) -> Any:
        python, server = self._now()
        self.python_s, self.server_s = python - self._start[0], server - self._start[1]
        return self._after_store(*args, **kwargs)

    def restore(self) -> None:
        self._services._after_store = self._after_store


def child_store(size: str, keep: bool, snapshot: bool = True) -> dict:
    import django

    django.setup()
    if not snapshot:
        # For an A/B comparison only: the store without the snapshot's encoding (an empty document is stored).
        from apps.designs import services as design_services

        design_services.encode_result = lambda _result: b""
    from django.contrib.auth import get_user_model
    from django.db import connection

    from apps.designs.models import Revision
    from apps.designs.services import design_create, design_delete
    from apps.jobs.models import Job
    from apps.jobs.runner import run_job

    user, _ = get_user_model().objects.get_or_create(username="bench")
    design = design_create(user=user, spec=SIZES[size])
    job = Job.objects.create(kind="compute", created_by=user, design=design, params={"spec": design.spec})
    cpu = _CpuToCommit(connection)
    rss_before = _vm("VmRSS")
    t = time.perf_counter()
    outcome = run_job(str(job.pk))
    seconds = time.perf_counter() - t
    cpu.restore()
    peak = _vm("VmHWM")
    job.refresh_from_db()
    if outcome != "succeeded":
        raise SystemExit(f"job {outcome}: {job.error}")
    rev = Revision.objects.get(pk=job.result["revision_id"])
    out = {
        "seconds": seconds,
        "stored_s": job.result["seconds"],
        "compute_s": rev.compute_seconds,
        "links": rev.link_count,
        "cables": rev.cable_count,
        "phases": job.result.get("store_phases", {}),
        "compute_before_s": job.result.get("compute_before_store_seconds", rev.compute_seconds),
        "peak_rss_mb": peak,
        "rss_before_mb": rss_before,
        "revision_id": rev.pk,
        "snapshot_mb": job.result.get("snapshot_bytes", 0) / 1e6,
        "snapshot_encode_s": job.result.get("snapshot_encode_seconds", 0.0),
        "phase_peaks_mb": job.result.get("peak_mb", {}),
        "cpu_python_s": cpu.python_s,
        "cpu_server_s": cpu.server_s,
    }
    # Reading the snapshot back as a renderer does (apps.designs.snapshots.revision_snapshot: one query and the
    # decode), in a process that has not decoded it before.
    from apps.designs import snapshots

    snapshots._cache.clear()
    t = time.perf_counter()
    try:
        snapshots.revision_snapshot(rev)
        out["snapshot_read_s"] = time.perf_counter() - t
    except snapshots.SnapshotUnavailable:  # a run with the snapshot switched off (an A/B comparison)
        out["snapshot_read_s"] = 0.0
    if not keep:
        # Empty the row tables rather than delete 760,000 rows: every run then loads into the same state, with
        # no dead rows for autovacuum to work on during the next one.
        with connection.cursor() as cur:
            cur.execute("TRUNCATE designs_linkrecord, designs_cablerecord")
        design_delete(design=design)
    return out


def child_pages(revision_id: int) -> dict:
    import django

    django.setup()
    from django.db import connection

    from apps.designs import tables
    from apps.designs.models import LinkRecord, Revision

    rev = Revision.objects.get(pk=revision_id)
    links = LinkRecord.objects.filter(revision=rev)
    busiest_rack = (links.values_list("a_rack", flat=True).order_by("a_rack").distinct()[:1]).get()
    cases = {
        "none": {},
        "network=compute tier=leaf-spine": {"network": "compute", "tier": "leaf-spine"},
        "network=compute tier=spine-core": {"network": "compute", "tier": "spine-core"},
        "tier=node-leaf": {"tier": "node-leaf"},
        f"rack={busiest_rack}": {"rack": busiest_rack},
    }
    results = {}
    for label, filters in cases.items():
        for order in ("link_id", "length_m", "-loss_db"):
            if order != "link_id" and label not in ("none", "network=compute tier=leaf-spine"):
                continue
            first = tables.link_page(revision=rev, filters=filters, order=order)
            # The last page: a cursor just before the final 100 rows of the same filter and order, as the
            # previous page's next_cursor would be.
            qs = tables._filters(links, filters, is_link=True)
            end = _last_cursor(qs, order)
            timings = {}
            for which, cursor in (("first", None), ("last", end)):
                ms = []
                for _ in range(PAGE_CALLS):
                    t = time.perf_counter()
                    page = tables.link_page(revision=rev, filters=filters, order=order, cursor=cursor)
                    ms.append((time.perf_counter() - t) * 1000)
                timings[which] = statistics.median(ms)
                timings[f"{which}_rows"] = len(page.rows)
            if end is not None:
                assert page.next_cursor is None, "the last page has no next page"
            results[f"{label} | order={order}"] = timings
            del first
    with connection.cursor() as cur:
        # Partitioned tables (migration 0003) hold nothing themselves: sum the whole partition tree.
        cur.execute(
            "SELECT (SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('designs_linkrecord')),"
            " (SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('designs_cablerecord'))"
        )
        link_bytes, cable_bytes = cur.fetchone()
    return {
        "pages": results,
        "link_table_mb": float(link_bytes) / 2**20,
        "cable_table_mb": float(cable_bytes) / 2**20,
        "rows": links.count(),
    }


def _last_cursor(qs, order: str) -> str | None:
    from django.db.models import F, Value
    from django.db.models.functions import Coalesce

    from apps.designs import tables

    desc = order.startswith("-")
    key = order.lstrip("-")
    n = qs.count()
    if n <= 100:
        return None
    if key == "link_id":
        ident = qs.order_by("-link_id" if not desc else "link_id").values_list("link_id", flat=True)[100]
        return tables._encode({"v": None, "id": ident})
    field = qs.model._meta.get_field(key)
    expr = Coalesce(F(key), Value(tables._NULL_SORTS_AS)) if field.null else F(key)
    rows = qs.annotate(_k=expr).order_by(*(["_k", "link_id"] if desc else ["-_k", "-link_id"]))
    v, ident = rows.values_list("_k", "link_id")[100]
    return tables._encode({"v": v, "id": ident})


# ----- parent -----------------------------------------------------------------------------------------------------


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sizes", default="16k,128k")
    ap.add_argument("--keep-db", action="store_true", help=f"leave the {DB_NAME} database in place")
    ap.add_argument(
        "--no-snapshot",
        action="store_true",
        help="store without encoding the revision snapshot (to compare with a normal run; such revisions "
        "cannot be rendered)",
    )
    ap.add_argument("--no-pages", action="store_true", help="skip the table pages of the last revision")
    ap.add_argument("--child", choices=("store", "pages"), help=argparse.SUPPRESS)
    ap.add_argument("--size", help=argparse.SUPPRESS)
    ap.add_argument("--keep", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--revision", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child == "store":
        print(json.dumps(child_store(args.size, args.keep, snapshot=not args.no_snapshot)))
        return
    if args.child == "pages":
        print(json.dumps(child_pages(args.revision)))
        return

    cal = statistics.median(calibrate() for _ in range(3))
    with open("/proc/loadavg") as fh:
        load = " ".join(fh.read().split()[:3])
    print(f"calibration: 400,000 plain-Python rows in {cal:.3f} s (median of 3); load {load}")
    _admin(f"DROP DATABASE IF EXISTS {DB_NAME}")
    _admin(f"CREATE DATABASE {DB_NAME}")
    try:
        subprocess.run([sys.executable, str(ROOT / "manage.py"), "migrate", "-v", "0"], env=_env(), check=True)
        print(f"\ncompute + store through the job runner on PostgreSQL ({DB_NAME}), {args.repeat} run(s) each")
        print(
            f"{'size':>6} {'links':>8} {'cables':>8} {'stored s':>9} {'min s':>7} {'after s':>7} "
            f"{'compute s':>9} {'store s':>8} {'peak MB':>8} {'store k rows/s':>14}"
        )
        kept = None
        for size in args.sizes.split(","):
            runs = []
            for i in range(args.repeat):
                last = i == args.repeat - 1
                extra = (["--keep"] if last else []) + (["--no-snapshot"] if args.no_snapshot else [])
                runs.append(_child(["--child", "store", "--size", size, *extra]))
            kept = runs[-1]["revision_id"]
            secs = [r["stored_s"] for r in runs]
            med = statistics.median(secs)
            after = statistics.median(r["seconds"] - r["stored_s"] for r in runs)
            comp = statistics.median(r["compute_s"] for r in runs)
            store = statistics.median(r["stored_s"] - r["compute_before_s"] for r in runs)
            rows = runs[0]["links"] + runs[0]["cables"]
            print(
                f"{size:>6} {runs[0]['links']:>8,} {runs[0]['cables']:>8,} {med:>9.2f} {min(secs):>7.2f} "
                f"{after:>7.2f} {comp:>9.2f} {store:>8.2f} {max(r['peak_rss_mb'] for r in runs):>8.0f} "
                f"{rows / store / 1000:>14.0f}"
            )
            phases = sorted({k for r in runs for k in r["phases"]})
            if phases:
                split = ", ".join(f"{k} {statistics.median(r['phases'].get(k, 0.0) for r in runs):.2f}" for k in phases)
                rest = statistics.median(
                    r["stored_s"] - r["compute_before_s"] - sum(r["phases"].values()) for r in runs
                )
                print(f"{'':>6} store phases, median s: {split}; the rest (revision row, summary) {rest:.2f}")
            peaks = runs[-1]["phase_peaks_mb"]
            if peaks:
                marks = ", ".join(f"{k} {v:.0f}" for k, v in sorted(peaks.items(), key=lambda kv: kv[1]))
                print(f"{'':>6} peak RSS (VmHWM) at the end of each phase, MB, last run: {marks}")
            py, server = (statistics.median(r[k] for r in runs) for k in ("cpu_python_s", "cpu_server_s"))
            cores = os.cpu_count() or 1
            print(
                f"{'':>6} CPU to the commit, median s: python {py:.2f} (all threads), server {server:.2f} (backend "
                f"and parallel workers); together over {cores} cores at least {(py + server) / cores:.2f} s of wall"
            )
            print(
                f"{'':>6} snapshot: {statistics.median(r['snapshot_mb'] for r in runs):.1f} MB, encoded in "
                f"{statistics.median(r['snapshot_encode_s'] for r in runs):.2f} s (inside the store, while the cable "
                f"indexes build), read back and decoded in {statistics.median(r['snapshot_read_s'] for r in runs):.2f} s"
            )
        if kept is not None and not args.no_pages:
            pages = _child(["--child", "pages", "--revision", str(kept)])
            print(
                f"\nlink table pages of the last revision ({pages['rows']:,} links; link table "
                f"{pages['link_table_mb']:.0f} MB, cable table {pages['cable_table_mb']:.0f} MB with indexes), "
                f"100 rows, median of {PAGE_CALLS} calls"
            )
            print(f"{'filter | order':<52} {'first ms':>9} {'last ms':>8} {'rows':>5}")
            for label, t in pages["pages"].items():
                print(f"{label:<52} {t['first']:>9.1f} {t['last']:>8.1f} {t['first_rows']:>5}")
    finally:
        if not args.keep_db:
            _admin(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")


if __name__ == "__main__":
    main()
