"""Row partitions on PostgreSQL: each stored revision's links and cables live in partitions of their own.

    designs_linkrecord (partitioned by revision_id)
    ├── designs_linkrecord_default   rows written without a partition (tests, the ORM)
    ├── designs_linkrecord_r41       revision 41, loaded index-free, indexes built at attach
    └── designs_linkrecord_r42       ...

Elsewhere (SQLite) the tables are plain and these tests are skipped.
"""
from __future__ import annotations

import psycopg
import pytest
from django.conf import settings
from django.db import connection

from apps.designs.models import CableRecord, LinkRecord, Revision
from apps.designs.partitions import ROW_TABLES, drop_orphan_partitions, partition_name
from apps.designs.services import design_compute_job, design_delete
from apps.jobs.progress import DbProgress
from apps.jobs.services import job_claim
from tests.factories import JobFactory

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql",
                       reason="row partitions are PostgreSQL's"),
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


def test_a_stored_revision_gets_one_partition_per_row_table_with_the_parents_indexes():
    rev = stored_revision()
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
        assert len(parent_indexes) >= 7 and index_columns(child) == parent_indexes


def test_a_failed_store_leaves_no_partition_behind():
    job = JobFactory()
    assert job_claim(job_id=job.pk)
    job.refresh_from_db()
    from unittest import mock

    from apps.designs import adapters

    before = tables_like("designs_%record_r%")
    with mock.patch.object(adapters, "cable_db_rows", side_effect=RuntimeError("disk full")):
        with pytest.raises(RuntimeError):
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
