"""Link and cable tables: keyset pages forward and backward, sorts (with ties and NULLs), filters, bad input.

Every walk is checked against the same rows ordered and filtered in Python.
"""

from __future__ import annotations

import base64
import json

import pytest

from apps.designs.models import CableRecord, LinkRecord
from apps.designs.services import design_compute_job
from apps.designs.tables import (
    CABLE_FIELDS,
    LINK_FIELDS,
    MAX_LIMIT,
    TableError,
    cable_page,
    link_facets,
    link_page,
    table_count,
    table_rows,
)
from apps.jobs.progress import DbProgress
from apps.jobs.services import job_claim
from tests.factories import JobFactory

pytestmark = pytest.mark.django_db

NULL_LAST = float("inf")


@pytest.fixture
def rev():
    """A stored revision of the small design with its OOB uplinks pinned to multimode, which no catalog part
    offers at 100G QSFP28 with APC cords (the SR4 module needs MPO/UPC cords): links without a medium."""
    from tests.factories import DesignFactory, small_spec

    design = DesignFactory(spec=small_spec(physical={"tiers": {"oob-uplink": {"medium": "multimode"}}}))
    job = JobFactory(design=design)
    job_claim(job_id=job.pk)
    job.refresh_from_db()
    outcome = design_compute_job(job=job, progress=DbProgress(job.pk, attempt=job.attempts))
    from apps.designs.models import Revision

    return Revision.objects.get(pk=outcome["revision_id"])


def all_links(rev) -> list[dict]:
    return list(LinkRecord.objects.filter(revision=rev).values(*LINK_FIELDS))


def all_cables(rev) -> list[dict]:
    return list(CableRecord.objects.filter(revision=rev).values(*CABLE_FIELDS))


def walk(fetch, **kwargs) -> list[list[dict]]:
    """Every page from the first, following next_cursor."""
    pages, cursor = [], None
    while True:
        page = fetch(cursor=cursor, **kwargs)
        pages.append(page.rows)
        assert (page.prev_cursor is None) == (cursor is None)
        if page.next_cursor is None:
            return pages
        cursor = page.next_cursor
        assert len(pages) < 1000


def walk_back(fetch, **kwargs) -> list[list[dict]]:
    """Every page from the last back to the first, following prev_cursor (pages returned first to last)."""
    cursor = None
    while (page := fetch(cursor=cursor, **kwargs)).next_cursor:
        cursor = page.next_cursor
    pages = [page.rows]
    while page.prev_cursor:
        page = fetch(cursor=page.prev_cursor, **kwargs)
        pages.insert(0, page.rows)
    return pages


def ids(pages, key="link_id") -> list[int]:
    return [row[key] for rows in pages for row in rows]


def keyed(rows, field, key="link_id", desc=False):
    """rows in the tables' order: by field (NULL after every value) then id; `desc` reverses both."""

    def k(r):
        v = r[field]
        return (NULL_LAST if v is None else v, r[key])

    return [r[key] for r in sorted(rows, key=k, reverse=desc)]


# ----- keyset pages ---------------------------------------------------------------------------------------------


def test_it_pages_forward_through_every_link_once(rev):
    pages = walk(link_page, revision=rev, limit=50)
    assert [len(p) for p in pages] == [50] * 11 + [31]
    assert ids(pages) == sorted(r["link_id"] for r in all_links(rev))
    assert set(pages[0][0]) == set(LINK_FIELDS)  # the sort key never leaks into rows


def test_it_pages_backward_onto_the_same_pages(rev):
    forward = walk(link_page, revision=rev, limit=50)
    assert walk_back(link_page, revision=rev, limit=50)[1:] == forward[1:]
    assert ids(walk_back(link_page, revision=rev, limit=50)) == ids(forward)


def test_it_pages_in_descending_order(rev):
    pages = walk(link_page, revision=rev, limit=100, order="-link_id")
    assert ids(pages) == sorted((r["link_id"] for r in all_links(rev)), reverse=True)
    assert ids(walk_back(link_page, revision=rev, limit=100, order="-link_id")) == ids(pages)


@pytest.mark.parametrize("order", ["length_m", "-length_m"])
def test_it_pages_through_ties_of_a_sort_key_without_gaps(rev, order):
    rows = all_links(rev)
    assert len({r["length_m"] for r in rows}) < len(rows) / 2  # plenty of ties
    want = keyed(rows, "length_m", desc=order.startswith("-"))
    assert ids(walk(link_page, revision=rev, limit=37, order=order)) == want
    assert ids(walk_back(link_page, revision=rev, limit=37, order=order)) == want


@pytest.mark.parametrize("order", ["loss_db", "-loss_db", "margin_db", "-margin_db"])
def test_links_without_a_figure_sort_after_every_figure(rev, order):
    field = order.lstrip("-")
    rows = all_links(rev)
    assert sum(r[field] is None for r in rows) == 197  # copper and no-medium links
    want = keyed(rows, field, desc=order.startswith("-"))
    pages = walk(link_page, revision=rev, limit=60, order=order)
    assert ids(pages) == want
    assert ids(walk_back(link_page, revision=rev, limit=60, order=order)) == want
    first, last = pages[0][0], pages[-1][-1]
    if order.startswith("-"):
        assert first[field] is None and last[field] is not None
    else:
        assert first[field] is not None and last[field] is None


def test_an_empty_result_has_no_cursors(rev):
    page = link_page(revision=rev, filters={"rack": "no-such-rack"})
    assert page.rows == [] and page.next_cursor is None and page.prev_cursor is None


# ----- filters --------------------------------------------------------------------------------------------------


def _either(field):
    return lambda value: lambda r: value in (r[f"a_{field}"], r[f"b_{field}"])


LINK_FILTERS = [
    ({"network": "inband"}, lambda r: r["network"] == "inband"),
    ({"tier": "leaf-spine"}, lambda r: r["tier"] == "leaf-spine"),
    ({"network": "compute", "tier": "leaf-spine"}, lambda r: (r["network"], r["tier"]) == ("compute", "leaf-spine")),
    ({"rack": "DC1.B05"}, _either("rack")("DC1.B05")),
    ({"device": "CF-SU01-L01"}, _either("device")("CF-SU01-L01")),
    ({"part": "MMA4Z00-NS"}, _either("part")("MMA4Z00-NS")),
    ({"medium": "copper-rj45"}, lambda r: r["medium"] == "copper-rj45"),
    ({"status": "no-medium"}, lambda r: r["status"] == "no-medium"),
    ({"plane": "0", "network": "oob"}, lambda r: r["plane"] == 0 and r["network"] == "oob"),
    ({"q": "CF-SU01-L0"}, lambda r: r["a_device"].startswith("CF-SU01-L0") or r["b_device"].startswith("CF-SU01-L0")),
    ({"q": "DC1.B01"}, _either("rack")("DC1.B01")),
    ({"q": "L000007"}, lambda r: r["link_id"] == 7),
    ({"q": "l42"}, lambda r: r["link_id"] == 42),
    ({"network": "", "tier": None, "q": "  "}, lambda r: True),
]


@pytest.mark.parametrize(("filters", "keep"), LINK_FILTERS, ids=[json.dumps(f[0]) for f in LINK_FILTERS])
def test_link_filters_match_what_they_say(rev, filters, keep):
    want = sorted(r["link_id"] for r in all_links(rev) if keep(r))
    assert want, "the filter should match something"
    assert ids(walk(link_page, revision=rev, filters=filters, limit=40)) == want
    assert ids(walk_back(link_page, revision=rev, filters=filters, limit=40, order="-link_id")) == want[::-1]


def test_a_filter_keeps_its_rows_under_another_sort(rev):
    rows = [r for r in all_links(rev) if r["network"] == "compute"]
    pages = walk(link_page, revision=rev, filters={"network": "compute"}, order="-loss_db", limit=45)
    assert ids(pages) == keyed(rows, "loss_db", desc=True)


CABLE_FILTERS = [
    ({"network": "oob"}, lambda r: r["network"] == "oob"),
    ({"kind": "rj45"}, lambda r: r["kind"] == "rj45"),
    ({"rack": "DC1.B05"}, _either("rack")("DC1.B05")),
    ({"device": "CF-SU01-L02"}, _either("device")("CF-SU01-L02")),
    ({"part": "MFP7E10-N010"}, lambda r: r["part"] == "MFP7E10-N010"),
    ({"q": "C000009"}, lambda r: r["cable_id"] == 9),
]


@pytest.mark.parametrize(("filters", "keep"), CABLE_FILTERS, ids=[json.dumps(f[0]) for f in CABLE_FILTERS])
def test_cable_filters_match_what_they_say(rev, filters, keep):
    want = sorted(r["cable_id"] for r in all_cables(rev) if keep(r))
    assert want
    assert ids(walk(cable_page, revision=rev, filters=filters, limit=40), "cable_id") == want


@pytest.mark.parametrize("order", ["cable_id", "-length_m", "part", "-part"])
def test_cables_page_both_ways_in_every_order(rev, order):
    field = order.lstrip("-")
    want = keyed(all_cables(rev), field, "cable_id", desc=order.startswith("-"))
    assert ids(walk(cable_page, revision=rev, order=order, limit=50), "cable_id") == want
    assert ids(walk_back(cable_page, revision=rev, order=order, limit=50), "cable_id") == want
    assert set(cable_page(revision=rev, order=order).rows[0]) == set(CABLE_FIELDS)


@pytest.mark.parametrize(
    ("filters", "field"),
    [
        ({"colour": "red"}, "colour"),
        ({"kind": "cord"}, "kind"),  # a cable filter, not a link one
        ({"plane": "first"}, "plane"),
    ],
)
def test_a_bad_link_filter_names_its_field(rev, filters, field):
    with pytest.raises(TableError) as err:
        link_page(revision=rev, filters=filters)
    assert err.value.field == field


def test_a_link_only_filter_is_refused_on_cables(rev):
    with pytest.raises(TableError) as err:
        cable_page(revision=rev, filters={"status": "pass"})
    assert err.value.field == "status"


# ----- bad cursors, limits and orders ---------------------------------------------------------------------------


def _b64(obj) -> str:
    raw = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


@pytest.mark.parametrize(
    "cursor",
    [
        "not a cursor!",
        "####",
        _b64(b"\xff\xfe binary"),
        _b64(b"{not json"),
        _b64([1, 2]),
        _b64({"v": 3}),
        _b64({"id": "12"}),
        _b64({"id": True}),
        _b64({"id": 1.5}),
        _b64(b"[" * 5000 + b"]" * 5000),
    ],
)
def test_a_cursor_this_table_did_not_give_out_is_a_table_error(rev, cursor):
    with pytest.raises(TableError) as err:
        link_page(revision=rev, cursor=cursor)
    assert err.value.field == "cursor"


@pytest.mark.parametrize(
    ("order", "value"), [("length_m", "long"), ("length_m", None), ("length_m", True), ("loss_db", [1]), ("part", 3)]
)
def test_a_cursor_whose_sort_value_has_the_wrong_type_is_a_table_error(rev, order, value):
    fetch = cable_page if order == "part" else link_page
    with pytest.raises(TableError) as err:
        fetch(revision=rev, order=order, cursor=_b64({"o": order, "v": value, "id": 5}))
    assert err.value.field == "cursor"


def test_a_cursor_of_another_sort_order_is_a_table_error(rev):
    cursor = link_page(revision=rev, order="length_m", limit=10).next_cursor
    with pytest.raises(TableError) as err:
        link_page(revision=rev, order="link_id", cursor=cursor)
    assert err.value.field == "cursor" and "sort order" in err.value.message
    with pytest.raises(TableError):
        link_page(revision=rev, order="-length_m", cursor=cursor)


@pytest.mark.parametrize("limit", [0, -1, MAX_LIMIT + 1, "ten", None])
def test_a_limit_out_of_range_is_a_table_error(rev, limit):
    with pytest.raises(TableError) as err:
        link_page(revision=rev, limit=limit)
    assert err.value.field == "limit"


def test_a_limit_given_as_text_is_accepted(rev):
    assert len(link_page(revision=rev, limit="25").rows) == 25


@pytest.mark.parametrize("order", ["a_device", "-", "link_id;drop", "--link_id"])
def test_an_unknown_order_is_a_table_error(rev, order):
    with pytest.raises(TableError) as err:
        link_page(revision=rev, order=order)
    assert err.value.field == "order"


def test_facets_come_from_the_summary(rev):
    facets = link_facets(rev)
    assert facets["network"] == ["compute", "inband", "oob"]
    assert "leaf-spine" in facets["tier"] and "pass" in facets["status"]


# ----- the last page, as a client walking the table reaches it --------------------------------------------------


@pytest.mark.parametrize(
    "order, filters",
    [
        ("link_id", {}),
        ("-link_id", {}),
        ("length_m", {}),
        ("-margin_db", {}),
        ("link_id", {"network": "compute"}),
        ("length_m", {"tier": "leaf-spine"}),
        # equality filters leading an index with the id next (status, medium: paged on its key, tables._equal_prefix)
        ("link_id", {"network": "compute", "tier": "leaf-spine"}),
        ("-link_id", {"network": "compute", "tier": "leaf-spine", "status": "pass"}),
        ("-link_id", {"status": "pass"}),
        ("link_id", {"medium": "fiber-mm", "status": "pass"}),
    ],
)
def test_the_last_page_is_the_tail_of_the_order_with_no_next_cursor(rev, order, filters):
    field = order.lstrip("-")
    rows = [r for r in all_links(rev) if all(r[k] == v for k, v in filters.items())]
    want = keyed(rows, field, desc=order.startswith("-"))
    cursors, pages, cursor = [], [], None
    while True:
        page = link_page(revision=rev, order=order, filters=filters, limit=40, cursor=cursor)
        cursors.append(cursor)
        pages.append(page.rows)
        if page.next_cursor is None:
            break
        cursor = page.next_cursor

    assert len(pages) > 1
    assert ids(pages) == want
    assert ids(pages[-1:]) == want[(len(pages) - 1) * 40 :]
    last = link_page(revision=rev, order=order, filters=filters, limit=40, cursor=cursors[-1])  # asked again
    assert last.next_cursor is None and last.rows == pages[-1]


def test_a_page_s_cursor_is_stable_across_equal_sort_keys(rev):
    """Two rows with the same length are ordered by id, so the same cursor always gives the same next page."""
    first = link_page(revision=rev, order="length_m", limit=5)
    again = [link_page(revision=rev, order="length_m", limit=5, cursor=first.next_cursor).rows for _ in range(3)]
    assert again[0] == again[1] == again[2]
    boundary = first.rows[-1]["length_m"]
    assert any(r["length_m"] == boundary for r in all_links(rev) if r["link_id"] not in ids([first.rows]))


def test_a_facet_of_a_revision_loaded_without_its_summary_is_the_same(rev):
    from apps.designs.selectors import revision_get

    bare = revision_get(user=rev.design.owner, design_id=rev.design_id, number=rev.number, bare=True)
    assert "summary" in bare.get_deferred_fields()
    assert link_facets(bare) == link_facets(rev)


def test_a_bounded_count_stops_one_past_its_bound(rev):
    exact = table_count(revision=rev, table="links", filters={"tier": "leaf-spine"})
    assert exact > 3
    assert table_count(revision=rev, table="links", filters={"tier": "leaf-spine"}, at_most=3) == 4
    assert table_count(revision=rev, table="links", filters={"tier": "leaf-spine"}, at_most=exact) == exact


@pytest.mark.parametrize("order", ["cable_id", "-cable_id"])
def test_a_cable_kind_pages_both_ways(rev, order):
    want = sorted((r["cable_id"] for r in all_cables(rev) if r["kind"] == "cord"), reverse=order.startswith("-"))
    assert len(want) > 80
    assert ids(walk(cable_page, revision=rev, filters={"kind": "cord"}, order=order, limit=40), "cable_id") == want
    back = walk_back(cable_page, revision=rev, filters={"kind": "cord"}, order=order, limit=40)
    assert ids(back, "cable_id") == want


@pytest.mark.parametrize("order", ["length_m", "-length_m", "loss_db", "-loss_db", "margin_db", "-margin_db"])
@pytest.mark.parametrize("filters", [{"tier": "leaf-spine"}, {"network": "compute", "tier": "node-leaf"}])
def test_a_tier_s_links_page_both_ways_in_every_sort(rev, order, filters):
    """A filter fixing the tier pages a sorted order on the (tier, key, id) index (tables._SORT_INDEX_PREFIXES):
    the same rows, once each, forwards and backwards, ties and missing figures included."""
    rows = [r for r in all_links(rev) if all(r[k] == v for k, v in filters.items())]
    want = keyed(rows, order.lstrip("-"), desc=order.startswith("-"))
    assert len(want) > 40
    assert ids(walk(link_page, revision=rev, filters=filters, order=order, limit=40)) == want
    assert ids(walk_back(link_page, revision=rev, filters=filters, order=order, limit=40)) == want


@pytest.mark.parametrize("order", ["length_m", "-length_m"])
def test_a_tier_s_cables_page_both_ways_by_length(rev, order):
    rows = [r for r in all_cables(rev) if r["tier"] == "leaf-spine"]
    want = keyed(rows, "length_m", "cable_id", desc=order.startswith("-"))
    assert len(want) > 30
    got = walk(cable_page, revision=rev, filters={"tier": "leaf-spine"}, order=order, limit=30)
    assert ids(got, "cable_id") == want
    back = walk_back(cable_page, revision=rev, filters={"tier": "leaf-spine"}, order=order, limit=30)
    assert ids(back, "cable_id") == want


# ----- pages in id order on the network and tier indexes (hashed keys on PostgreSQL, migration 0011) -------------


@pytest.mark.parametrize("order", ["link_id", "-link_id"])
@pytest.mark.parametrize(
    "filters",
    [{"tier": "leaf-spine"}, {"network": "compute", "tier": "leaf-spine"}, {"network": "oob"}, {"tier": "nowhere"}],
)
def test_a_network_or_tier_s_links_page_both_ways_by_id(rev, order, filters):
    rows = [r for r in all_links(rev) if all(r[k] == v for k, v in filters.items())]
    want = sorted((r["link_id"] for r in rows), reverse=order.startswith("-"))
    assert ids(walk(link_page, revision=rev, filters=filters, order=order, limit=40)) == want
    assert ids(walk_back(link_page, revision=rev, filters=filters, order=order, limit=40)) == want


@pytest.mark.parametrize("order", ["cable_id", "-cable_id"])
@pytest.mark.parametrize("filters", [{"network": "compute", "tier": "leaf-spine"}, {"tier": "leaf-spine"}])
def test_a_network_and_tier_s_cables_page_both_ways_by_id(rev, order, filters):
    rows = [r for r in all_cables(rev) if all(r[k] == v for k, v in filters.items())]
    want = sorted((r["cable_id"] for r in rows), reverse=order.startswith("-"))
    assert len(want) > 30
    assert ids(walk(cable_page, revision=rev, filters=filters, order=order, limit=30), "cable_id") == want
    assert ids(walk_back(cable_page, revision=rev, filters=filters, order=order, limit=30), "cable_id") == want


@pytest.mark.parametrize(
    ("fetch", "filters", "index"),
    [
        (link_page, {"network": "compute", "tier": "leaf-spine"}, "link_net_tier"),
        (link_page, {"tier": "leaf-spine"}, "link_tier"),
        (cable_page, {"network": "compute", "tier": "leaf-spine"}, "cable_net_tier"),
    ],
)
def test_a_page_in_id_order_names_its_index_s_hashed_key(rev, fetch, filters, index):
    """The page query writes the expressions the index is keyed on, or PostgreSQL could not read it (scans are
    switched off: on a revision this small it would rather read the table)."""
    from django.db import connection, transaction
    from django.test.utils import CaptureQueriesContext

    if connection.vendor != "postgresql":
        pytest.skip("the row tables are partitioned, and these indexes hashed, on PostgreSQL only")
    first = fetch(revision=rev, filters=filters, limit=5)
    for cursor in (None, first.next_cursor):
        with CaptureQueriesContext(connection) as q:
            fetch(revision=rev, filters=filters, limit=5, cursor=cursor)
        with transaction.atomic(), connection.cursor() as cur:
            cur.execute("SET LOCAL enable_seqscan = off")
            cur.execute("SET LOCAL enable_bitmapscan = off")
            cur.execute("SET LOCAL enable_sort = off")
            cur.execute(
                "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
                "WHERE i.inhparent = to_regclass(%s)",
                [index],
            )
            names = {r[0] for r in cur.fetchall()}
            assert names, f"{index} is not a partitioned index"
            cur.execute("EXPLAIN " + q.captured_queries[-1]["sql"])
            plan = "\n".join(r[0] for r in cur.fetchall())
        assert any(f"using {name} " in plan.lower() for name in names), plan


@pytest.mark.parametrize("filters", [{"network": "oob"}, {"network": "compute", "tier": "leaf-spine"}])
def test_a_network_s_bounded_count_reads_the_hashed_index(rev, filters):
    from django.db import connection, transaction
    from django.test.utils import CaptureQueriesContext

    exact = sum(all(r[k] == v for k, v in filters.items()) for r in all_links(rev))
    assert table_count(revision=rev, table="links", filters=filters) == exact > 3
    assert table_count(revision=rev, table="links", filters=filters, at_most=3) == 4
    if connection.vendor != "postgresql":
        return
    with CaptureQueriesContext(connection) as q:
        table_count(revision=rev, table="links", filters=filters, at_most=3)
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute("SET LOCAL enable_seqscan = off")
        cur.execute("EXPLAIN " + q.captured_queries[-1]["sql"])
        plan = "\n".join(r[0] for r in cur.fetchall())
    assert "Index Cond: (hashtext" in plan or "Index Cond: ((hashtext" in plan, plan


@pytest.mark.parametrize(("table", "filters"), [("links", {"rack": "DC1.B05"}), ("cables", {"q": "DC1.B05"})])
def test_a_rack_s_count_and_rows_name_the_hashed_rack_keys(rev, table, filters):
    """A rack's count and CSV rows (the ORM path, tables._filters) match the rack at either end, and on PostgreSQL
    they name hashtext(rack) beside each equality, as the rack indexes are keyed there (migration 0012)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    every = all_links(rev) if table == "links" else all_cables(rev)
    id_field = "link_id" if table == "links" else "cable_id"
    want = sorted(r[id_field] for r in every if "DC1.B05" in (r["a_rack"], r["b_rack"]))
    assert want
    with CaptureQueriesContext(connection) as q:
        assert table_count(revision=rev, table=table, filters=filters) == len(want)
        rows = list(table_rows(revision=rev, table=table, filters=filters, order=id_field, columns=(id_field,)))
    assert [r[0] for r in rows] == want
    if connection.vendor == "postgresql":
        for sql in (q.captured_queries[0]["sql"], q.captured_queries[-1]["sql"]):
            for end in ("a_rack", "b_rack"):
                assert f'hashtext("designs_{table[:-1]}record"."{end}") = (hashtext(\'DC1.B05\'))' in sql, sql
