"""Row partitions on PostgreSQL: each stored revision's links and cables live in partitions of their own.

    designs_linkrecord (partitioned by revision_id)
    ├── designs_linkrecord_default   rows written without a partition (tests, the ORM)
    ├── designs_linkrecord_r41       revision 41, loaded index-free, indexes built at attach
    └── designs_linkrecord_r42       ...

Each partition holds one revision, so its index keys leave revision_id out, and its text compares byte by byte
(COLLATE "C", migration 0004). Elsewhere (SQLite) the tables are plain and these tests are skipped.
"""

from __future__ import annotations

import importlib
import re

import psycopg
import pytest
from django.conf import settings
from django.db import DatabaseError, connection
from django.db.models import Q
from django.test.utils import CaptureQueriesContext

from apps.designs.models import CableRecord, LinkRecord, Revision
from apps.designs.partitions import (
    ROW_TABLES,
    build_missing_sort_indexes,
    drop_orphan_partitions,
    partition_name,
    sort_index_keys,
)
from apps.designs.selectors import revision_halls
from apps.designs.services import design_compute_job, design_delete
from apps.designs.tables import cable_page, link_page
from apps.jobs.progress import DbProgress
from apps.jobs.services import job_claim
from tests.factories import JobFactory

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(
        not settings.DATABASES["default"]["ENGINE"].endswith("postgresql"),
        reason="row partitions are PostgreSQL's",
    ),
]


# tests/engine/test_site_halls.py's design: pod 2 opens hall 2, spine-core links cross
TWO_HALLS = {
    "name": "two halls",
    "servers": {"model": "dgx-h100", "count": 256},
    "compute_fabric": {"technology": "infiniband", "switch": "qm9700", "scalable_unit": 32, "tiers": 3},
    "site": {"max_racks_per_hall": 50},
}
HALL_SUFFIXES = ("by_a_hall", "by_b_hall", "by_a_hall_length_m", "by_b_hall_length_m", "by_crossing")


def stored_revision(spec: dict | None = None) -> Revision:
    job = JobFactory() if spec is None else JobFactory(design__spec=spec, design__name=spec["name"])
    assert job_claim(job_id=job.pk)
    job.refresh_from_db()
    outcome = design_compute_job(job=job, progress=DbProgress(job.pk, attempt=job.attempts))
    return Revision.objects.get(pk=outcome["revision_id"])


def tables_like(pattern: str) -> set[str]:
    with connection.cursor() as cur:
        cur.execute("SELECT relname FROM pg_class WHERE relkind IN ('r', 'p') AND relname LIKE %s", [pattern])
        return {r[0] for r in cur.fetchall()}


def index_columns(table: str) -> set[str]:
    """The key columns of every index on `table`, as comparable text."""
    with connection.cursor() as cur:
        cur.execute("SELECT regexp_replace(indexdef, '^.* USING ', '') FROM pg_indexes WHERE tablename = %s", [table])
        return {r[0] for r in cur.fetchall()}


def index_names(table: str) -> set[str]:
    with connection.cursor() as cur:
        cur.execute("SELECT indexname FROM pg_indexes WHERE tablename = %s", [table])
        return {r[0] for r in cur.fetchall()}


def test_a_stored_revision_gets_one_partition_per_row_table_with_the_parents_indexes_and_its_sort_indexes():
    rev = stored_revision()
    assert revision_halls(rev) == 1
    sort_keys = sort_index_keys(halls=False)  # one hall: no hall or crossing indexes
    for table, model in zip(ROW_TABLES, (LinkRecord, CableRecord)):
        child = partition_name(table, rev.pk)
        with connection.cursor() as cur:
            cur.execute(f"SELECT count(*) FROM {child}")
            in_child = cur.fetchone()[0]
            cur.execute("SELECT pg_get_expr(relpartbound, oid) FROM pg_class WHERE relname = %s", [child])
            bound = cur.fetchone()[0]
        assert in_child == model.objects.filter(revision=rev).count() > 0
        assert bound == f"FOR VALUES IN ('{rev.pk}')"
        parent_indexes = index_columns(table)
        assert len(parent_indexes) >= 6 and parent_indexes <= index_columns(child)
        assert len(index_columns(child) - parent_indexes) == len(sort_keys[table]) >= 1
        assert {f"{child}_{suffix}" for suffix in sort_keys[table]} <= index_names(child)


def test_a_failed_sort_index_build_keeps_the_revision_and_the_hourly_sweep_builds_them():
    """GIVEN the sort-index build after the commit fails (say, the worker's connection dropped)
    THEN the job still succeeded and its revision is whole, without sort indexes;
    AND the hourly partition sweep builds them, and only once."""
    from unittest import mock

    from apps.designs import services
    from apps.designs.tasks import drop_orphan_partitions as hourly_sweep

    with mock.patch.object(services, "build_sort_indexes", side_effect=DatabaseError("connection lost")):
        rev = stored_revision()
    assert LinkRecord.objects.filter(revision=rev).count() == rev.link_count > 0
    link_child = partition_name(ROW_TABLES[0], rev.pk)
    wanted = {f"{link_child}_{suffix}" for suffix in sort_index_keys(halls=False)[ROW_TABLES[0]]}
    assert not wanted & index_names(link_child)
    hourly_sweep()
    assert wanted <= index_names(link_child)
    assert build_missing_sort_indexes() == 0


def test_the_hall_and_crossing_indexes_are_built_only_for_a_revision_over_several_halls():
    """The hall filter's (hall, id) and (hall, length, id) indexes per end and the crossing filter's partial ones
    serve a revision whose racks stand in two or more halls; a one-hall revision's pages never need them, so the
    twelve builds after its commit are not made, and the hourly sweep does not count them as missing."""
    one, two = stored_revision(), stored_revision(TWO_HALLS)
    assert (revision_halls(one), revision_halls(two)) == (1, 2)
    for table in ROW_TABLES:
        for rev, present in ((one, False), (two, True)):
            child = partition_name(table, rev.pk)
            names = index_names(child)
            assert all((f"{child}_{suffix}" in names) is present for suffix in HALL_SUFFIXES), (rev, table)
            assert {f"{child}_{s}" for s in sort_index_keys(halls=present)[table]} <= names
    assert build_missing_sort_indexes() == 0


def test_partition_keys_leave_the_revision_out_and_text_compares_byte_by_byte():
    """Only the unique (revision_id, link_id) key, which PostgreSQL requires to hold the partition column,
    still names the revision; every varchar column collates "C"."""
    rev = stored_revision()
    for table in ROW_TABLES:
        child = partition_name(table, rev.pk)
        keys = index_columns(child)
        assert sum(k.startswith("btree (revision_id") for k in keys) == 1 and len(keys) >= 6
        with connection.cursor() as cur:
            cur.execute(
                "SELECT DISTINCT coalesce(collation_name, 'default') FROM information_schema.columns "
                "WHERE table_name = %s AND data_type = 'character varying'",
                [child],
            )
            assert cur.fetchall() == [("C",)]


def test_network_and_tier_keys_are_hashed_and_medium_and_status_are_read_from_the_sort_indexes():
    """Migration 0011: int4 keys for the low-cardinality text the attach would otherwise sort slowly, and no
    parent index on medium or status alone (the pages read each partition's (medium, link_id), (status, link_id))."""
    rev = stored_revision()
    links, cables = (index_columns(partition_name(t, rev.pk)) for t in ROW_TABLES)
    assert "btree (hashtext((network)::text), hashtext((tier)::text), link_id)" in links
    assert "btree (hashtext((tier)::text), link_id)" in links
    assert "btree (hashtext((network)::text), hashtext((tier)::text), cable_id)" in cables
    assert not {"btree (medium)", "btree (status)", "btree (network, tier, link_id)"} & links
    assert {"btree (medium, link_id)", "btree (status, link_id)"} <= links


def test_rack_keys_are_hashed_and_the_cable_part_index_is_the_partitions_own():
    """Migration 0012: the rack indexes on hashtext(column), the device ones on the text (the search's prefix); the
    cable part index is no longer built at attach (the parent has none) but after the commit, as a sort index."""
    rev = stored_revision()
    for table in ROW_TABLES:
        child = partition_name(table, rev.pk)
        keys = index_columns(child)
        assert {"btree (hashtext((a_rack)::text))", "btree (hashtext((b_rack)::text))"} <= keys
        assert {"btree (a_device)", "btree (b_device)"} <= keys
        assert not {"btree (a_rack)", "btree (b_rack)"} & keys
    cables = ROW_TABLES[1]
    assert not any("part" in k for k in index_columns(cables))
    child = partition_name(cables, rev.pk)
    assert f"{child}_by_part" in index_names(child) and "btree (part, cable_id)" in index_columns(child)
    with connection.cursor() as cur:
        for table in ROW_TABLES:
            cur.execute(
                "SELECT seqcache FROM pg_sequence WHERE seqrelid = pg_get_serial_sequence(%s, 'id')::regclass", [table]
            )
            assert cur.fetchone()[0] == 1000


def test_migration_0012_rekeys_a_stored_revision_both_ways():
    """GIVEN a revision stored with 0012's indexes, WHEN the migration is reversed THEN its partitions have the
    text rack keys and the parent's (part, cable_id) index again; WHEN it is applied again THEN they are as a new
    store leaves them, and the rack and part pages read the same rows throughout."""
    migration = importlib.import_module("apps.designs.migrations.0012_hashed_rack_indexes_part_after_commit")
    rev = stored_revision()
    cable = CableRecord.objects.filter(revision=rev).order_by("cable_id").first()
    children = [partition_name(t, rev.pk) for t in ROW_TABLES]

    def pages():
        return (
            link_page(revision=rev, filters={"rack": cable.a_rack}, limit=1000).rows,
            cable_page(revision=rev, filters={"q": cable.b_rack}, limit=1000).rows,
            cable_page(revision=rev, filters={"part": cable.part}, order="-part", limit=1000).rows,
        )

    new = [index_columns(c) for c in children]
    rows = pages()
    assert all(rows)
    with connection.cursor() as cur:
        migration.rekey(cur, new=False)
    old = [index_columns(c) for c in children]
    assert "btree (a_rack)" in old[0] and "btree (part, cable_id)" in old[1]
    assert not any("hashtext((a_rack)" in k for k in old[0] | old[1])
    assert f"{children[1]}_by_part" not in index_names(children[1])
    assert "btree (part, cable_id)" in index_columns(ROW_TABLES[1])
    with connection.cursor() as cur:
        migration.rekey(cur, new=True)
    assert [index_columns(c) for c in children] == new
    assert f"{children[1]}_by_part" in index_names(children[1])
    assert pages() == rows


def test_a_rack_page_names_the_hashed_rack_keys_which_the_rack_indexes_serve():
    """The rack filter and the search's exact rack name hashtext(rack) beside the equality at each end
    (tables._HASHED_MATCHES); with sequential scans priced out, the plan shows the hashed index serving such a
    condition; and the rows are the rack's."""
    rev = stored_revision()
    rack = LinkRecord.objects.filter(revision=rev).values_list("b_rack", flat=True).first()
    for filters in ({"rack": rack}, {"q": rack}):
        with CaptureQueriesContext(connection) as queries:
            link_page(revision=rev, filters=filters, limit=50)
        sql = queries.captured_queries[-1]["sql"]
        for end in ("a_rack", "b_rack"):
            assert f"(hashtext(\"{end}\") = hashtext('{rack}') AND \"{end}\" = '{rack}')" in sql
    with connection.cursor() as cur:
        cur.execute("SET LOCAL enable_seqscan = off")
        cur.execute(
            "EXPLAIN SELECT id FROM designs_linkrecord WHERE revision_id = %s AND hashtext(b_rack) = hashtext(%s) "
            "AND b_rack = %s",
            [rev.pk, rack, rack],
        )
        plan = "\n".join(r[0] for r in cur.fetchall())
    assert re.search(r"Index Cond: \(hashtext\(\(b_rack\)::text\) = ", plan), plan
    rows = link_page(revision=rev, filters={"rack": rack}, limit=1000).rows
    expected = LinkRecord.objects.filter(revision=rev).filter(Q(a_rack=rack) | Q(b_rack=rack)).count()
    assert rows and len(rows) == expected and all(rack in (r["a_rack"], r["b_rack"]) for r in rows)


def test_the_attach_builds_its_indexes_with_room_to_sort_in_memory():
    from apps.designs import partitions

    rev = stored_revision()
    child = partition_name(ROW_TABLES[0], rev.pk)
    with connection.cursor() as cur:
        cur.execute(f"ALTER TABLE {ROW_TABLES[0]} DETACH PARTITION {child}")
        cur.execute("RESET maintenance_work_mem")
        partitions.attach_partition(ROW_TABLES[0], child, rev.pk)
        cur.execute("SHOW maintenance_work_mem")
        assert cur.fetchone()[0] == partitions.ATTACH_INDEX_MEMORY


def test_the_sort_indexes_after_the_commit_are_built_with_the_same_room():
    from apps.designs import partitions

    rev = stored_revision()
    with connection.cursor() as cur:
        cur.execute(f"DROP INDEX {partition_name(ROW_TABLES[0], rev.pk)}_by_length_m")
        cur.execute("RESET maintenance_work_mem")
        assert partitions.build_sort_indexes(rev.pk) == 1
        cur.execute("SHOW maintenance_work_mem")
        assert cur.fetchone()[0] == partitions.ATTACH_INDEX_MEMORY


def test_a_device_name_prefix_search_can_use_the_device_index():
    """The table search's device prefix (tables.py: a_device__startswith) is LIKE 'x%', which a btree serves
    only under the "C" collation; with sequential scans priced out, the plan shows whether it can."""
    rev = stored_revision()
    with connection.cursor() as cur:
        cur.execute("SET LOCAL enable_seqscan = off")
        cur.execute(
            "EXPLAIN SELECT id FROM designs_linkrecord WHERE revision_id = %s AND a_device LIKE 'su1%%'", [rev.pk]
        )
        plan = "\n".join(r[0] for r in cur.fetchall())
    assert re.search(r"Index Cond: .*a_device\)::text >= 'su1'", plan), plan


def _plan_of(page_call) -> str:
    """PostgreSQL's plan for the query a table page runs, with sorting and sequential scans priced out:
    a Sort node left in it means no index can give the page's order."""
    with CaptureQueriesContext(connection) as queries:
        page_call()
    sql = queries.captured_queries[-1]["sql"]
    with connection.cursor() as cur:
        cur.execute("SET LOCAL enable_sort = off")
        cur.execute("SET LOCAL enable_seqscan = off")
        cur.execute("EXPLAIN " + sql)
        return "\n".join(r[0] for r in cur.fetchall())


@pytest.mark.parametrize("order", ["length_m", "-length_m", "loss_db", "-margin_db"])
def test_every_link_sort_order_is_read_from_an_index_and_a_later_page_seeks_into_it(order):
    rev = stored_revision()
    first = link_page(revision=rev, order=order, limit=50)
    plan = _plan_of(lambda: link_page(revision=rev, order=order, limit=50))
    assert "Sort" not in plan and "Index Scan" in plan, plan
    later = _plan_of(lambda: link_page(revision=rev, order=order, limit=50, cursor=first.next_cursor))
    assert "Sort" not in later and re.search(r"Index Cond: \(ROW\(", later), later


@pytest.mark.parametrize("order", ["length_m", "-part"])
def test_every_cable_sort_order_is_read_from_an_index(order):
    rev = stored_revision()
    plan = _plan_of(lambda: cable_page(revision=rev, order=order, limit=50))
    assert "Sort" not in plan and "Index Scan" in plan, plan


def test_migration_0004_moves_rows_from_the_default_partition_into_a_partition_of_their_own():
    """GIVEN rows of revision B in the DEFAULT partition (stored before 0003, or by the ORM)
    WHEN the migration's move runs
    THEN B's rows sit in designs_<x>record_r<B>, attached for B, with the DEFAULT partition empty."""
    migration = importlib.import_module("apps.designs.migrations.0004_row_partitions_c_collation_revisionless_indexes")
    a = stored_revision()
    b = Revision.objects.get(pk=a.pk)
    b.pk, b.number = None, a.number + 1
    b.save()
    with connection.cursor() as cur:
        for table in ROW_TABLES:
            columns = ", ".join(c for c in migration._all_columns(cur, table) if c not in ("id", "revision_id"))
            cur.execute(
                f"INSERT INTO {table} (revision_id, {columns}) SELECT %s, {columns} FROM {table} "
                "WHERE revision_id = %s",
                [b.pk, a.pk],
            )
            cur.execute(f"SELECT count(*) FROM {table}_default WHERE revision_id = %s", [b.pk])
            assert cur.fetchone()[0] > 0
            migration._empty_default_partition(cur, table)
            cur.execute(f"SELECT count(*) FROM {table}_default")
            assert cur.fetchone()[0] == 0
            cur.execute(
                "SELECT pg_get_expr(relpartbound, oid) FROM pg_class WHERE relname = %s", [partition_name(table, b.pk)]
            )
            assert cur.fetchone()[0] == f"FOR VALUES IN ('{b.pk}')"
    assert LinkRecord.objects.filter(revision=b).count() == a.link_count
    assert CableRecord.objects.filter(revision=b).count() == a.cable_count


def test_a_failed_store_leaves_no_partition_behind():
    job = JobFactory()
    assert job_claim(job_id=job.pk)
    job.refresh_from_db()
    from unittest import mock

    from apps.designs import adapters

    before = tables_like("designs_%record_r%")
    with (
        mock.patch.object(adapters, "cable_db_rows", side_effect=RuntimeError("disk full")),
        pytest.raises(RuntimeError),
    ):
        design_compute_job(job=job, progress=DbProgress(job.pk, attempt=job.attempts))
    assert tables_like("designs_%record_r%") == before


def test_deleting_a_design_drops_its_partitions_and_keeps_the_others():
    keep, drop = stored_revision(), stored_revision()
    design_delete(design=drop.design)
    names = tables_like("designs_%record_r%")
    assert {partition_name(t, keep.pk) for t in ROW_TABLES} <= names
    assert not {partition_name(t, drop.pk) for t in ROW_TABLES} & names
    assert LinkRecord.objects.filter(revision_id=drop.pk).count() == 0
    assert LinkRecord.objects.filter(revision=keep).count() == keep.link_count


@pytest.mark.django_db(transaction=True)
def test_a_partition_busy_at_delete_time_loses_its_rows_and_the_sweep_drops_it_later():
    """GIVEN a reader holding the link table (an open transaction that read it)
    WHEN a design is deleted
    THEN the drop gives up after its lock timeout, the rows are deleted the ordinary way,
    AND the next sweep, once the reader is gone, drops the empty tables."""
    rev = stored_revision()
    dsn = connection.get_connection_params()
    reader = psycopg.connect(**{k: v for k, v in dsn.items() if k in ("dbname", "user", "host", "port", "password")})
    try:
        reader.execute(f"SELECT count(*) FROM {ROW_TABLES[0]} WHERE revision_id = %s", [rev.pk]).fetchone()
        design_delete(design=rev.design)  # waits DROP_LOCK_TIMEOUT for the parent's lock, then deletes rows
        assert not Revision.objects.filter(pk=rev.pk).exists()
        assert partition_name(ROW_TABLES[0], rev.pk) in tables_like("designs_%record_r%")
        assert LinkRecord.objects.filter(revision_id=rev.pk).count() == 0
    finally:
        reader.close()
    assert drop_orphan_partitions() >= 1
    assert not {partition_name(t, rev.pk) for t in ROW_TABLES} & tables_like("designs_%record_r%")
