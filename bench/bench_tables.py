"""Table-page benchmark: a large stored revision's link and cable pages, API and browser, first and last page.

    DATABASE_URL=postgres://... python bench/bench_tables.py [--size 128k] [--calls 30] [--explain] [--fresh]

Computes and stores one design of bench_engine.SIZES (or --size 512k: 65,536 DGX B300 on Q3400) through
the compute job's service (COPY-loaded row partitions, then the sort indexes and ANALYZE the worker runs after
the commit), reuses it on later runs (--fresh recomputes it), then times, in this process, one client at a
time, each page kind `--calls` times and prints p50 and p99 in ms:

- API: GET /api/v1/designs/<id>/revisions/<n>/links/ and /cables/ with a token;
- browser: the signed-in table pages /designs/<id>/revisions/<n>/links/ and /cables/ (the filter form, the page
  and the "how many rows matched" line, rendered).

Page kinds: the first and the last page (a cursor 100 rows before the end, as a client walking the table would
hold it) of the default order, of each sort order and of the filters the table offers (network and tier, a
rack, a device, the search box, a loss status or a cable kind, a filter with a sort, a hall, a hall with a sort,
the rows between halls). --explain prints
PostgreSQL's EXPLAIN ANALYZE of each page query (API path). Target (issue 41): every page < 100 ms.
Needs PostgreSQL (the row tables are partitioned there); only 127.0.0.1 is contacted.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_engine import SIZES, calibrate  # noqa: E402
from bench_scale import SIZES as SCALE_SIZES  # noqa: E402  (1m: bench_store.py's 1,048,576-GPU design)

SIZES = {
    **SIZES,
    # 524,288 GPUs: 65,536 DGX B300 on Q3400 XDR (3 tiers, about 1.58M links; needs DESIGN_MAX_LINKS raised)
    "512k": {
        "name": "bench 512K",
        "servers": {"model": "dgx-b300", "count": 65536},
        "compute_fabric": {"technology": "infiniband", "switch": "q3400"},
    },
    # 1,048,576 GPUs over several halls (2,462,944 links): the revision `bench_store.py --sizes 1m --keep-db` stores
    # (the same design name), so the pages of the largest design can be read without computing it again.
    "1m": SCALE_SIZES["1m"],
}
TARGET_MS = 100.0


def _setup(size: str, fresh: bool):
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from apps.designs.models import Design, Revision
    from apps.designs.partitions import analyze_partitions, build_sort_indexes
    from apps.designs.services import design_compute_job, design_create
    from apps.jobs.models import Job, JobStatus
    from apps.jobs.progress import DbProgress

    call_command("migrate", verbosity=0)
    spec = SIZES[size]
    user, _ = get_user_model().objects.get_or_create(username="bench")
    design = Design.objects.filter(owner=user, name=spec["name"]).first()
    rev = Revision.objects.filter(design=design).order_by("-number").first() if design else None
    if fresh or rev is None:
        if design is not None:
            design.delete()
        design = design_create(user=user, spec=spec)
        job = Job.objects.create(
            kind="compute", status=JobStatus.RUNNING, design=design, created_by=user, params={"spec": design.spec}
        )
        t0 = time.perf_counter()
        outcome = design_compute_job(job=job, progress=DbProgress(job.pk))
        print(f"computed and stored {spec['name']} in {time.perf_counter() - t0:.1f} s", flush=True)
        rev = Revision.objects.get(pk=outcome["revision_id"])
    # What the worker does once the revision is committed (idempotent: nothing when already done).
    build_sort_indexes(rev.pk)
    analyze_partitions(rev.pk)
    return user, rev


def _last_cursor(rev, table: str, order: str, filters: dict, limit: int = 100) -> str:
    """The cursor a client walking the table forwards holds for its last page: the row `limit` rows before the end."""
    from apps.designs.tables import _NULL_SORTS_AS, _encode, cable_page, link_page

    fetch = link_page if table == "links" else cable_page
    reverse = order[1:] if order.startswith("-") else f"-{order}"
    rows = fetch(revision=rev, filters=filters, order=reverse, limit=limit + 1).rows
    row = rows[-1]
    key = order.lstrip("-")
    id_field = "link_id" if table == "links" else "cable_id"
    value = None if key == id_field else (_NULL_SORTS_AS if row[key] is None else row[key])
    return _encode({"o": order, "v": value, "id": row[id_field]})


def _kinds(rev, table: str) -> list[tuple[str, dict]]:
    """(page kind, query) pairs: first and last page of each order and filter the table offers."""
    from apps.designs.models import CableRecord, LinkRecord

    model = LinkRecord if table == "links" else CableRecord
    id_field = "link_id" if table == "links" else "cable_id"
    # A rack and a device from the middle of the revision (not the first rows' cache-warm pages).
    mid = model.objects.filter(
        revision=rev, **{id_field: (rev.link_count if table == "links" else rev.cable_count) // 2}
    )
    sample = mid.values("a_rack", "a_device", "a_hall").first()
    prefix = sample["a_device"][: max(3, len(sample["a_device"]) - 2)]
    base: list[tuple[str, dict]] = [
        ("default order", {}),
        ("sort length", {"order": "length_m"}),
        ("sort -length", {"order": "-length_m"}),
        ("network+tier", {"network": "compute", "tier": "leaf-spine"}),
        ("rack", {"rack": sample["a_rack"]}),
        ("device", {"device": sample["a_device"]}),
        ("search prefix", {"q": prefix}),
        ("network, sort length", {"network": "compute", "order": "length_m"}),
        # Stop 53: the hall of the middle row (either end), and the rows between halls
        ("hall", {"hall": sample["a_hall"] or 1}),
        ("hall, sort length", {"hall": sample["a_hall"] or 1, "order": "length_m"}),
        ("crossing", {"crossing": "true"}),
    ]
    if table == "links":
        base += [("sort margin", {"order": "margin_db"}), ("status pass", {"status": "pass"})]
    else:
        base += [("sort part", {"order": "part"}), ("kind", {"kind": "aoc"})]
    out = []
    for name, query in base:
        order = query.get("order", id_field)
        filters = {k: v for k, v in query.items() if k != "order"}
        out.append((f"{name}, first", query))
        with contextlib.suppress(IndexError):  # fewer rows than a page: the first page is the last
            out.append((f"{name}, last", {**query, "cursor": _last_cursor(rev, table, order, filters)}))
    return out


def _time(get, url: str, calls: int) -> tuple[float, float, int]:
    get(url)  # a first call outside the figures (connections, compiled templates)
    times = []
    for _ in range(calls):
        t = time.perf_counter()
        resp = get(url)
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    p99 = times[min(len(times) - 1, round(0.99 * (len(times) - 1)))]
    return statistics.median(times), p99, resp.status_code


def _explain(rev, table: str, query: dict) -> str:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from apps.designs.tables import cable_page, link_page

    fetch = link_page if table == "links" else cable_page
    filters = {k: v for k, v in query.items() if k not in ("order", "cursor")}
    order = query.get("order", "link_id" if table == "links" else "cable_id")
    with CaptureQueriesContext(connection) as q:
        fetch(revision=rev, filters=filters, order=order, cursor=query.get("cursor"), limit=100)
    sql = q.captured_queries[-1]["sql"]
    with connection.cursor() as cur:
        cur.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql)
        return "\n".join("      " + r[0] for r in cur.fetchall())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="128k", choices=sorted(SIZES))
    ap.add_argument("--calls", type=int, default=30)
    ap.add_argument("--tables", default="links,cables")
    ap.add_argument("--explain", action="store_true")
    ap.add_argument("--fresh", action="store_true")
    args = ap.parse_args()
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        print("set DATABASE_URL to a PostgreSQL database (the row tables are partitioned there)", file=sys.stderr)
        return 2
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fabricdesign.settings")
    os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only-not-secret")
    os.environ["DJANGO_DEBUG"] = "false"
    os.environ["API_THROTTLE_RATE"] = "100000000/min"
    os.environ.setdefault("DATABASE_CONN_MAX_AGE", "60")
    if args.size in ("512k", "1m"):
        os.environ.setdefault("DESIGN_MAX_LINKS", "2000000")
        os.environ.setdefault("DESIGN_MAX_DEVICES", "400000")
    cal = calibrate()
    user, rev = _setup(args.size, args.fresh)

    from django.conf import settings
    from django.test import Client
    from django.test.utils import override_settings
    from django.urls import reverse

    # The pages name their static files through the manifest that collectstatic writes for a deployment; this
    # process has none, so it names them plainly (the same template work, without the manifest lookup).
    storages = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    override_settings(STORAGES=storages).enable()

    from apps.api.auth import token_create

    _, key = token_create(user=user, name="bench-tables")
    api = Client(HTTP_AUTHORIZATION=f"Token {key}", HTTP_HOST="127.0.0.1")
    browser = Client(HTTP_HOST="127.0.0.1")
    browser.force_login(user)
    with open("/proc/loadavg") as f:
        load = f.read().split()[:3]
    print(
        f"\n{SIZES[args.size]['name']}: {rev.link_count:,} links, {rev.cable_count:,} cables; PostgreSQL; "
        f"one client, in process; {args.calls} calls per page; calibration {cal:.3f} s; load {' '.join(load)}\n"
    )
    print(
        f"{'table':7} {'page kind':34} {'API p50':>8} {'p99':>7} {'browser p50':>12} {'p99':>7}  < {TARGET_MS:.0f} ms"
    )
    ok = True
    from urllib.parse import urlencode

    for table in args.tables.split(","):
        api_base = f"/api/v1/designs/{rev.design_id}/revisions/{rev.number}/{table}/"
        html_base = reverse(f"designs:{table}", args=[rev.design_id, rev.number])
        for name, query in _kinds(rev, table):
            qs = ("?" + urlencode(query)) if query else ""
            a50, a99, a_status = _time(api.get, api_base + qs, args.calls)
            b50, b99, b_status = _time(browser.get, html_base + qs, args.calls)
            met = max(a99, b99) < TARGET_MS and a_status == b_status == 200
            ok &= met
            flag = "yes" if met else f"NO ({a_status}/{b_status})"
            print(f"{table:7} {name:34} {a50:8.1f} {a99:7.1f} {b50:12.1f} {b99:7.1f}  {flag}", flush=True)
            if args.explain:
                print(_explain(rev, table, query))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
