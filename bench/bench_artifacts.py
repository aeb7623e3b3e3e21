"""Artifact store benchmark: first background builds, then serving stored files from gunicorn under load.

    .venv/bin/python bench/bench_artifacts.py [--sizes 16k,128k] [--store database|files] [--duration 15]
                                              [--database-url URL] [--redis-url URL] [--rebuild]
                                              [--kinds KIND,...] [--client curl|asyncio] [--keep-alive]

For each size (16k: 2,048 DGX H100 on QM9700; 128k: 16,384 DGX B300 on Q3400; 16k-roce, not run unless named:
2,048 DGX H100 on SN5600, RoCE), computes and stores the design
once (reused between runs), then times the first build of each large deliverable exactly as a worker runs it
(apps.exports.artifacts.artifact_build: read the revision snapshot, render into a spool file, save to the store,
record the row). Targets: cabling plan < 60 s, labels < 90 s at 128K. configs.zip (the QoS configuration set) is
timed the same way, with the reading of the QoS report out of it.

Then it serves the app with gunicorn as gunicorn.conf.py sets it (what the Dockerfile runs; --workers and
--threads override) and drives it from 127.0.0.1, for each size's revision in turn, by default with one `curl --parallel` process (C, bodies to
/dev/null; --client asyncio uses this script's own client, whose Python CPU on the same two cores shows up in
what it measures), each request on a new connection unless --keep-alive:
- time to first byte of a stored deliverable (the revision's labels.pdf), 20 concurrent clients, each
  reading the whole file; target < 250 ms at p99;
- the BOM JSON, 20 concurrent clients; target p99 < 100 ms; then the same revalidated with its ETag (304);
- /healthz latency every 0.2 s while 8 clients download the largest stored file; target < 1 s.

Defaults to DATABASE_URL (a PostgreSQL database named in it is created when missing) and the database
artifact store (web and workers on different hosts); with REDIS_URL (or --redis-url) the cache and the API's
rate-limit counters are in Redis, as production runs them. Prints medians and p99; the machine's CPU count
and load average are printed first, since other jobs on a shared machine change every figure. Each line also
gives the gunicorn workers' CPU per request (from /proc), which other load changes far less than latency:
with 20 clients on two cores a request waits for the CPU of those ahead of it (the app's, the database's and
the client's).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIZES = {
    "16k": {
        "name": "bench 16K",
        "servers": {"model": "dgx-h100", "count": 2048},
        "compute_fabric": {"technology": "infiniband", "switch": "qm9700", "scalable_unit": 32},
    },
    # RoCE: one QoS configuration file per switch and a headroom row per lossless port (configs.zip's worst case)
    "16k-roce": {
        "name": "bench 16K RoCE",
        "servers": {"model": "dgx-h100", "count": 2048},
        "compute_fabric": {"technology": "ethernet", "switch": "sn5600"},
    },
    "128k": {
        "name": "bench 128K",
        "servers": {"model": "dgx-b300", "count": 16384},
        "compute_fabric": {"technology": "infiniband", "switch": "q3400"},
    },
}
LARGE = ("cabling-plan.pdf", "labels.pdf", "test-sheet.pdf", "configs.zip")


def _ensure_postgres_database(url: str) -> None:
    from urllib.parse import urlsplit

    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin = parts._replace(path="/postgres").geturl().replace("postgres://", "postgresql://", 1)
    with psycopg.connect(admin, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
            conn.execute(f'CREATE DATABASE "{name}"')


def _revision(user, spec: dict):
    from apps.designs.models import Design, Revision
    from apps.designs.services import design_compute_job, design_create
    from apps.jobs.models import Job, JobStatus
    from apps.jobs.progress import DbProgress

    design = Design.objects.filter(owner=user, name=spec["name"]).first()
    rev = Revision.objects.filter(design=design).order_by("-number").first() if design else None
    if rev is None:
        if design is not None:
            design.delete()
        design = design_create(user=user, spec=spec)
        job = Job.objects.create(
            kind="compute", status=JobStatus.RUNNING, design=design, created_by=user, params={"spec": design.spec}
        )
        t0 = time.perf_counter()
        out = design_compute_job(job=job, progress=DbProgress(job.pk))
        print(f"  computed and stored {spec['name']} in {time.perf_counter() - t0:.1f} s")
        rev = Revision.objects.get(pk=out["revision_id"])
    return rev


def _builds(rev, rebuild: bool, kinds=LARGE) -> dict:
    from apps.exports.artifacts import artifact_build, artifact_lookup

    out = {}
    for kind in kinds:
        _key, _full, stored = artifact_lookup(revision=rev, kind=kind, options={})
        if stored is not None and rebuild:
            stored.delete()
            stored = None
        if stored is None:
            t0 = time.perf_counter()
            stored = artifact_build(revision=rev, kind=kind, options={})
            seconds, fresh = time.perf_counter() - t0, True
        else:
            seconds, fresh = stored.build_seconds, False
        out[kind] = stored
        print(
            f"  {kind:18} first build {seconds:7.1f} s  {stored.size / 1e6:8.1f} MB"
            f"{'' if fresh else '  (stored by an earlier run; --rebuild to time it again)'}"
        )
        if kind == "configs.zip":
            # What the QoS pages do once per archive (the worker does it after the build; a page again only when
            # the cache lost it): read the report out of the stored archive.
            from apps.qos.selectors import qos_report_from_artifact

            t0 = time.perf_counter()
            report = qos_report_from_artifact(stored)
            print(
                f"  {'QoS report':18} read out of configs.zip in {time.perf_counter() - t0:.2f} s "
                f"({len(report['files'])} files, {report['lossless_ports']:,} lossless ports)"
            )
    return out


def _gunicorn_shape(args) -> str:
    workers = args.workers or int(os.environ.get("WEB_CONCURRENCY") or len(os.sched_getaffinity(0)))
    threads = args.threads or int(os.environ.get("GUNICORN_THREADS") or 16)
    return f"-w {workers} --worker-class gthread --threads {threads} (gunicorn.conf.py)"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _one(port: int, path: str, key: str | None) -> tuple[float, float, int, int]:
    """(seconds to first byte, seconds in all, status, bytes) of one GET on a new connection."""
    return asyncio.run(_aget(port, path, key))


async def _aget(port: int, path: str, key: str | None) -> tuple[float, float, int, int]:
    t0 = time.perf_counter()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    auth = f"Authorization: Token {key}\r\n" if key else ""
    writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth}Connection: close\r\n\r\n".encode())
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    first = await reader.read(1)  # the first byte of the body (an empty body: EOF)
    ttfb = time.perf_counter() - t0
    n = len(first)
    while True:
        block = await reader.read(256 * 1024)
        if not block:
            break
        n += len(block)
    writer.close()
    return ttfb, time.perf_counter() - t0, status, n


async def _loop(port: int, path: str, key: str | None, until: float, out: list) -> None:
    while time.time() < until:
        out.append(await _aget(port, path, key))


async def _aload(port: int, path: str, key: str, clients: int, seconds: float) -> list:
    out: list = []
    until = time.time() + seconds
    await asyncio.gather(*(_loop(port, path, key, until, out) for _ in range(clients)))
    return out


def _load(port: int, path: str, key: str, clients: int, seconds: float):
    """`clients` concurrent connections from one asyncio process (light on the two shared cores)."""
    return asyncio.run(_aload(port, path, key, clients, seconds))


# curl's time_starttransfer: from the start until the first response byte (what the asyncio client calls TTFB).
_CURL_WRITE_OUT = "%{http_code} %{time_starttransfer} %{time_total} %{size_download}\n"


def _curl_run(
    port: int, path: str, key: str | None, clients: int, count: int | None, seconds: float, keep_alive: bool = False
) -> list:
    """Rows of one curl process driving `clients` transfers at a time (`curl --parallel`, C, single-threaded,
    bodies written to /dev/null), each on a new connection. With `count` it runs that many requests to the end;
    without, it is stopped after `seconds` and only the finished transfers count."""
    import tempfile

    url = f"http://127.0.0.1:{port}{path}"
    with tempfile.NamedTemporaryFile("w", suffix=".curlrc", delete=False) as cfg:
        for _ in range(count or 100_000):
            cfg.write(f'url = "{url}"\noutput = "/dev/null"\n')
    # keep_alive: curl reuses its connections, as HTTP client libraries and browsers do
    headers = [] if keep_alive else ["-H", "Connection: close"]
    for line in (key or "").split("\r\n"):
        if line:
            headers += ["-H", line if ":" in line else f"Authorization: Token {line}"]
    cmd = [
        "curl",
        "-s",
        "--no-progress-meter",
        "--parallel",
        "--parallel-immediate",
        "--parallel-max",
        str(clients),
        *headers,
    ]
    cmd += ["-w", _CURL_WRITE_OUT, "--config", cfg.name]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        if count:
            out, _ = proc.communicate()
        else:
            time.sleep(seconds)
            proc.terminate()
            out, _ = proc.communicate()
    finally:
        os.unlink(cfg.name)
    rows = []
    for line in out.splitlines():
        if len(line.split()) != 4:  # a line cut off by the stop
            continue
        code, first, total, size = line.split()
        rows.append((float(first), float(total), int(code), int(float(size))))
    return rows


def _curl_count(port: int, path: str, key: str | None, clients: int, seconds: float, keep_alive: bool) -> int:
    """How many requests make about `seconds` of load, from the time a short run of `clients` x 5 takes, so the
    timed run can be run to its end and no slow request is cut off by a deadline."""
    n = clients * 5
    t0 = time.perf_counter()
    _curl_run(port, path, key, clients, n, seconds, keep_alive)
    return max(n, int(n / (time.perf_counter() - t0) * seconds))


async def _health_during_downloads(
    port: int, path: str, key: str, seconds: float, curl: bool, keep_alive: bool, clients: int = 8
):
    downloads: list = []
    until = time.time() + seconds
    if curl:
        runner = asyncio.create_task(asyncio.to_thread(_curl_run, port, path, key, clients, None, seconds, keep_alive))
        tasks = [runner]
    else:
        tasks = [asyncio.create_task(_loop(port, path, key, until, downloads)) for _ in range(clients)]
    await asyncio.sleep(1)
    health = []
    while time.time() < until - 0.5:
        health.append(await _aget(port, "/healthz", None))
        await asyncio.sleep(0.2)
    done = await asyncio.gather(*tasks)
    return health, (done[0] if curl else downloads)


def _etag(port: int, path: str, key: str) -> str:
    async def head():
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Token {key}\r\n"
            f"Connection: close\r\n\r\n".encode()
        )
        data = await reader.read()
        writer.close()
        return data

    for line in asyncio.run(head()).split(b"\r\n"):
        if line.lower().startswith(b"etag:"):
            return line.split(b":", 1)[1].strip().decode()
    raise SystemExit("the BOM answered without an ETag")


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


def _server_cpu(pid: int) -> float:
    """CPU seconds gunicorn's workers (the children of `pid`) have used so far; 0 where /proc cannot tell."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        ticks = 0
        for child in children:
            fields = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])  # utime + stime
    except (OSError, IndexError, ValueError):
        return 0.0
    return ticks / os.sysconf("SC_CLK_TCK")


def _measured(pid: int, run) -> tuple[list, float]:
    """`run()`'s rows and the app's CPU per request in ms: unlike latency, it hardly moves with the load other
    work puts on the machine, so a quiet re-run can be compared with it."""
    before = _server_cpu(pid)
    rows = run()
    return rows, (_server_cpu(pid) - before) * 1000 / max(1, len(rows))


def _report(name: str, rows, which: int, target_ms: float, cpu_ms: float | None = None) -> None:
    ms = [r[which] * 1000 for r in rows]
    bad = sum(1 for r in rows if r[2] != 200)
    print(
        f"  {name:44} n={len(rows):5d}  median {statistics.median(ms):7.1f} ms  p99 {_pct(ms, 0.99):7.1f} ms"
        f"  non-200 {bad}  (target p99 < {target_ms:.0f} ms: {'yes' if _pct(ms, 0.99) < target_ms else 'NO'})"
        + (f"  app CPU {cpu_ms:.1f} ms/request" if cpu_ms else "")
    )


def _arguments() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URL") or f"sqlite:///{ROOT / 'var' / 'bench' / 'bench.sqlite3'}",
    )
    ap.add_argument("--sizes", default="16k,128k")
    ap.add_argument("--store", choices=["database", "files"], default="database")
    ap.add_argument("--duration", type=float, default=15, help="seconds of load per measurement")
    ap.add_argument("--workers", type=int, help="gunicorn workers (default: gunicorn.conf.py, one per CPU)")
    ap.add_argument("--threads", type=int, help="gunicorn threads per worker (default: gunicorn.conf.py)")
    ap.add_argument(
        "--redis-url",
        default=os.environ.get("REDIS_URL", ""),
        help="Redis for the cache and the rate-limit counters, as in production (default: REDIS_URL; without it "
        "every API request also writes its rate-limit counter to the database)",
    )
    ap.add_argument(
        "--keep-alive",
        action="store_true",
        help="with curl: each client keeps its connection between requests (default: a new connection per request)",
    )
    ap.add_argument("--rebuild", action="store_true", help="time the first builds again")
    ap.add_argument(
        "--client",
        choices=["curl", "asyncio"],
        default="curl" if shutil.which("curl") else "asyncio",
        help="load generator: one `curl --parallel` process (default when curl is installed) or this script's "
        "asyncio client, whose own Python CPU on the shared cores shows up in the measured latency",
    )
    ap.add_argument(
        "--kinds",
        default=",".join(LARGE),
        help="deliverables whose first build is timed (labels.pdf is always built: it is the file served)",
    )
    ap.add_argument(
        "--download-clients", type=int, default=8, help="clients downloading while /healthz is timed (issue 44: 24)"
    )
    ap.add_argument(
        "--health-only", action="store_true", help="time only /healthz during the downloads (skip TTFB and BOM)"
    )
    return ap.parse_args()


def _environment(args: argparse.Namespace) -> dict[str, str]:
    """The settings the web and worker processes run with (a PostgreSQL database made when missing)."""
    env = {
        **os.environ,
        "DATABASE_URL": args.database_url,
        "DJANGO_SETTINGS_MODULE": "fabricdesign.settings",
        "DJANGO_SECRET_KEY": os.environ.get("DJANGO_SECRET_KEY", "bench-only-not-secret"),
        "DJANGO_DEBUG": "false",
        "API_THROTTLE_RATE": "100000000/min",
        "ARTIFACT_STORE": args.store,
        "DATABASE_CONN_MAX_AGE": os.environ.get("DATABASE_CONN_MAX_AGE", "60"),
    }
    if args.redis_url:  # as production runs: rate-limit counters and the cache in Redis, not in the database
        env["REDIS_URL"] = args.redis_url
    if args.database_url.startswith("postgres"):
        _ensure_postgres_database(args.database_url)
    else:
        (ROOT / "var" / "bench").mkdir(parents=True, exist_ok=True)
    return env


def _gunicorn(args: argparse.Namespace, env: dict[str, str], port: int) -> subprocess.Popen:
    """gunicorn serving the app on `port`, once /healthz answers 200 (SystemExit after 30 s without)."""
    server = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "gunicorn"),
            "fabricdesign.wsgi",
            # gunicorn.conf.py (read from the working directory) sets what production runs: gthread, one
            # worker per CPU, GUNICORN_THREADS threads; --workers/--threads here override it for a comparison.
            *(["-w", str(args.workers)] if args.workers else []),
            *(["--threads", str(args.threads)] if args.threads else []),
            "-b",
            f"127.0.0.1:{port}",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            if _one(port, "/healthz", None)[2] == 200:
                return server
        except OSError:
            pass
        if time.monotonic() > deadline or server.poll() is not None:
            server.terminate()
            raise SystemExit("gunicorn did not start")
        time.sleep(0.2)


def main() -> int:
    args = _arguments()
    keep_alive = args.keep_alive and args.client == "curl"
    sizes = [s for s in args.sizes.split(",") if s]
    env = _environment(args)
    os.environ.update(env)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from apps.api.auth import token_create

    print(
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; store: {args.store}; "
        f"{'PostgreSQL' if args.database_url.startswith('postgres') else 'SQLite'}; "
        f"{'Redis' if args.redis_url else 'no Redis (rate-limit counters in the database)'}"
    )
    call_command("migrate", verbosity=0)
    user, _ = get_user_model().objects.get_or_create(username="bench")
    _, key = token_create(user=user, name="bench")
    revs = {}
    for size in sizes:
        rev = _revision(user, SIZES[size])
        print(f"{size}: {rev.link_count:,} links, {rev.cable_count:,} cables")
        kinds = [k for k in args.kinds.split(",") if k]
        if "labels.pdf" not in kinds:
            kinds.append("labels.pdf")
        revs[size] = (rev, _builds(rev, args.rebuild, kinds))
    from django.db import connections

    connections.close_all()

    port = _free_port()
    server = _gunicorn(args, env, port)
    try:
        print(f"\ngunicorn {_gunicorn_shape(args)}")
        pid = server.pid
        curl = args.client == "curl"
        print(
            f"load from {'one curl --parallel process' if curl else 'one asyncio process'}; "
            f"{'connections kept alive' if keep_alive else 'a new connection per request'}"
        )

        def timed(path: str, clients: int, seconds: float, key: str = key):
            if curl:
                count = _curl_count(port, path, key, clients, seconds, keep_alive)
                return _measured(pid, lambda: _curl_run(port, path, key, clients, count, seconds, keep_alive))
            return _measured(pid, lambda: _load(port, path, key, clients, seconds))

        for size, (rev, built) in revs.items():
            base = f"/api/v1/designs/{rev.design_id}/revisions/{rev.number}"
            labels = f"{base}/downloads/labels.pdf"
            for _ in range(4):
                _one(port, labels, key)
                _one(port, f"{base}/bom/", key)
            mb = built["labels.pdf"].size / 1e6
            print(f"{size} revision")
            if args.health_only:
                health, got = asyncio.run(
                    _health_during_downloads(
                        port, labels, key, args.duration, curl, keep_alive, clients=args.download_clients
                    )
                )
                n, total = len(got), sum(r[3] for r in got) / 1e6
                _report(
                    f"/healthz while {args.download_clients} clients download ({n} files, {total:.0f} MB)",
                    health,
                    1,
                    1000,
                )
                continue
            rows, cpu = timed(labels, 1, min(args.duration, 5))
            _report("stored labels.pdf, 1 client: TTFB", rows, 0, 250, cpu)
            rows, cpu = timed(f"{base}/bom/", 1, min(args.duration, 5))
            _report("BOM JSON, 1 client", rows, 1, 100, cpu)
            rows, cpu = timed(labels, 20, args.duration)
            _report(f"stored labels.pdf ({mb:.1f} MB), 20 clients: TTFB", rows, 0, 250, cpu)
            rows, cpu = timed(f"{base}/bom/", 20, args.duration)
            _report("BOM JSON, 20 clients", rows, 1, 100, cpu)
            etag = _etag(port, f"{base}/bom/", key)
            rows, cpu = timed(f"{base}/bom/", 20, args.duration, key=key + f"\r\nIf-None-Match: {etag}")
            _report("BOM JSON revalidated (304), 20 clients", rows, 1, 100, cpu)

            health, got = asyncio.run(
                _health_during_downloads(
                    port, labels, key, args.duration, curl, keep_alive, clients=args.download_clients
                )
            )
            n, total = len(got), sum(r[3] for r in got) / 1e6
            _report(
                f"/healthz while {args.download_clients} clients download ({n} files, {total:.0f} MB)", health, 1, 1000
            )
        return 0
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
