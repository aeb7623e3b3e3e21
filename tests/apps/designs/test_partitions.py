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
from django.test.utils import CaptureQueriesContext

from apps.designs.models import CableRecord, LinkRecord, Revision
from apps.designs.partitions import (
    ROW_TABLES,
    build_missing_sort_indexes,
    drop_orphan_partitions,
    partition_name,
    sort_index_keys,
)
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


def stored_revision() -> Revision:
    job = JobFactory()
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
    sort_keys = sort_index_keys()
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
        assert len(parent_indexes) >= 7 and parent_indexes <= index_columns(child)
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
    wanted = {f"{link_child}_{suffix}" for suffix in sort_index_keys()[ROW_TABLES[0]]}
    assert not wanted & index_names(link_child)
    hourly_sweep()
    assert wanted <= index_names(link_child)
    assert build_missing_sort_indexes() == 0


def test_partition_keys_leave_the_revision_out_and_text_compares_byte_by_byte():
    """Only the unique (revision_id, link_id) key, which PostgreSQL requires to hold the partition column,
    still names the revision; every varchar column collates "C"."""
    rev = stored_revision()
    for table in ROW_TABLES:
        child = partition_name(table, rev.pk)
        keys = index_columns(child)
        assert sum(k.startswith("btree (revision_id") for k in keys) == 1 and len(keys) >= 7
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
