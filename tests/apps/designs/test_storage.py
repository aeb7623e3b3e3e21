"""bulk_insert: COPY on PostgreSQL and executemany elsewhere store exactly the rows they are given."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, transaction

from apps.designs import storage
from apps.designs.adapters import CABLE_DB_COLUMNS, LINK_DB_COLUMNS
from apps.designs.models import CableRecord, LinkRecord, Revision
from apps.designs.storage import bulk_insert
from tests.factories import DesignFactory

pytestmark = pytest.mark.django_db

LINKS = LinkRecord._meta.db_table
CABLES = CableRecord._meta.db_table
# Text COPY escapes tabs, newlines and backslashes; NULL and "" must stay apart; floats must round-trip.
AWKWARD = ["tab\there", "new\nline", "back\\slash", "\\N", "quote'\"", "µ-ünïcødé ✓", "", " padded "]


@pytest.fixture
def revisions():
    design = DesignFactory()
    return [
        Revision.objects.create(
            design=design, number=n, spec={}, spec_hash="", engine_version="", catalog_version="", summary={}
        )
        for n in (1, 2)
    ]


def link_rows(revision_id: int, n: int = 23) -> list[tuple]:
    rows = []
    for i in range(n):
        text = AWKWARD[i % len(AWKWARD)]
        rows.append(
            (
                revision_id,
                i + 1,
                "compute",
                i % 3,
                "leaf-spine",
                400,
                f"DEV-{text}",
                "1/1",
                text,
                None if i % 4 == 0 else i,
                "SPINE",
                text[:32],
                "DC1.A01",
                -1 if i % 5 == 0 else None,
                0.1 + i / 3,
                "fiber-sm" if i % 2 else "",
                text,
                "",
                f"C{i:06d}",
                8,
                "type-b" if i % 2 else "",
                None if i % 3 == 0 else 1e-9 * i,
                -2.5 + i,
                "pass",
                None if i % 4 == 0 else 1 + i % 3,  # a_hall: NULL for the unplaced end above
                2,
            )
        )
    return rows


def cable_rows(revision_id: int, n: int = 9) -> list[tuple]:
    return [
        (
            revision_id,
            i + 1,
            "oob",
            "device-oob",
            "rj45",
            AWKWARD[i % len(AWKWARD)] or "x",
            3.5 + i,
            "A",
            "p1",
            "R1",
            None if i % 2 else i + 1,
            "B",
            "p2",
            "R2",
            40 - i,
            f"lab\tel {i}",
            "L/R",
            " ".join(f"L{j:06d}" for j in range(i)),
            1,
            None if i % 3 == 0 else 7,
        )
        for i in range(n)
    ]


def stored(model, revision, columns) -> list[tuple]:
    key = "link_id" if model is LinkRecord else "cable_id"
    return list(model.objects.filter(revision=revision).order_by(key).values_list(*columns))


def test_it_stores_exactly_the_rows_it_is_given(revisions):
    rev = revisions[0]
    links, cables = link_rows(rev.pk), cable_rows(rev.pk)
    assert bulk_insert(LINKS, LINK_DB_COLUMNS, iter(links)) == len(links)
    assert bulk_insert(CABLES, CABLE_DB_COLUMNS, (r for r in cables)) == len(cables)
    assert stored(LinkRecord, rev, LINK_DB_COLUMNS) == links
    assert stored(CableRecord, rev, CABLE_DB_COLUMNS) == cables


def test_copy_and_executemany_store_identical_rows(revisions):
    if connection.vendor != "postgresql":
        pytest.skip("COPY is PostgreSQL's; elsewhere bulk_insert is executemany, checked above")
    by_copy, by_insert = revisions
    storage._copy(LINKS, LINK_DB_COLUMNS, iter(link_rows(by_copy.pk)), 5000, None)
    storage._executemany(LINKS, LINK_DB_COLUMNS, iter(link_rows(by_insert.pk)), 5000, None)
    copied = [row[1:] for row in stored(LinkRecord, by_copy, LINK_DB_COLUMNS)]
    inserted = [row[1:] for row in stored(LinkRecord, by_insert, LINK_DB_COLUMNS)]
    assert copied == inserted == [row[1:] for row in link_rows(0)]


def test_it_reports_each_batch_and_lets_the_callback_use_the_database(revisions):
    rev = revisions[0]
    seen = []

    def on_batch(n):
        # On PostgreSQL this query runs between two COPYs: inside one it would wait for itself forever.
        seen.append((n, LinkRecord.objects.filter(revision=rev).count()))

    assert bulk_insert(LINKS, LINK_DB_COLUMNS, link_rows(rev.pk, 12), batch=5, on_batch=on_batch) == 12
    assert seen == [(5, 5), (10, 10), (12, 12)]
    assert stored(LinkRecord, rev, LINK_DB_COLUMNS) == link_rows(rev.pk, 12)


def test_it_stores_nothing_from_no_rows(revisions):
    calls = []
    assert bulk_insert(LINKS, LINK_DB_COLUMNS, iter(()), on_batch=calls.append) == 0
    assert calls == [] and not LinkRecord.objects.exists()


def test_it_takes_rows_from_a_generator_as_it_goes(revisions):
    """Rows are consumed while earlier ones are stored, never gathered first (400,000 rows stay out of memory)."""
    rev = revisions[0]
    consumed = []

    def generate():
        for row in link_rows(rev.pk, 7):
            consumed.append(row[1])
            yield row

    progress = []
    assert (
        bulk_insert(LINKS, LINK_DB_COLUMNS, generate(), batch=3, on_batch=lambda n: progress.append((n, len(consumed))))
        == 7
    )
    assert progress == [(3, 3), (6, 6), (7, 7)]


class TestStoringARevisionsRows:
    """store_revision_rows: links, then cables, into partitions of their own on PostgreSQL; the cables on a second
    connection, committed unattached with their indexes and attached last; the engine's second half in a thread
    once every row is sent, while the server builds indexes:

        main thread   COPY links ── attach links (index build) ─────── wait ───────── attach cables ── return
        side thread   (own connection)      └ COPY cables ── build the parent's indexes ┘ commit
        thread 2                                           └ early(), then meanwhile() ┘
    """

    @pytest.fixture
    def events(self, monkeypatch):
        seen: list[str] = []
        copy, insert = storage._copy, storage.bulk_insert

        def recording(load):
            def sent(table, *args, **kwargs):
                n = load(table, *args, **kwargs)
                seen.append(f"sent {table.split('_')[1]}")
                return n

            return sent

        monkeypatch.setattr(storage, "_copy", recording(copy))  # partitions (PostgreSQL)
        monkeypatch.setattr(storage, "bulk_insert", recording(insert))  # one table (SQLite)
        return seen

    @staticmethod
    def loads(rev, seen):
        def cables():
            yield from cable_rows(rev.pk)
            seen.append("cable rows made")

        return [
            storage.RowLoad(LINKS, LINK_DB_COLUMNS, iter(link_rows(rev.pk))),
            storage.RowLoad(CABLES, CABLE_DB_COLUMNS, cables()),
        ]

    @staticmethod
    def no_store_left(rev) -> None:
        """No thread of the store runs on, and (PostgreSQL) no table of it is left unattached."""
        assert not any(t.name in ("store-background", "store-side") for t in threading.enumerate())
        if connection.vendor == "postgresql":
            with connection.cursor() as cur:
                cur.execute(
                    "SELECT relname FROM pg_class WHERE relname LIKE %s AND NOT relispartition",
                    [f"designs_%_r{rev.pk}"],
                )
                assert cur.fetchall() == []

    def test_it_stores_every_row_and_runs_early_then_meanwhile_once_every_row_is_sent(self, revisions, events):
        rev = revisions[0]

        def early():
            events.append("early")

        def meanwhile():
            events.append("meanwhile")
            return "summary"

        timings: dict[str, float] = {}
        counts, extra = storage.store_revision_rows(
            rev.pk, self.loads(rev, events), early=early, meanwhile=meanwhile, timings=timings
        )
        assert counts == [23, 9] and extra == "summary"
        assert stored(LinkRecord, rev, LINK_DB_COLUMNS) == link_rows(rev.pk)
        assert stored(CableRecord, rev, CABLE_DB_COLUMNS) == cable_rows(rev.pk)
        if connection.vendor == "postgresql":  # one thread at a time makes rows or runs the engine
            assert events == ["sent linkrecord", "cable rows made", "sent cablerecord", "early", "meanwhile"]
            assert {
                "designs_linkrecord.index",
                "designs_cablerecord.load beside",
                "designs_cablerecord.index beside",
                "designs_cablerecord.side wait",
                "designs_cablerecord.attach",
                "early.wait",
                "meanwhile.wait",
            } <= set(timings)
        else:
            assert events[-2:] == ["early", "meanwhile"]

    def test_the_last_table_is_loaded_on_a_connection_of_its_own_and_attached_with_its_indexes(
        self, revisions, monkeypatch
    ):
        if connection.vendor != "postgresql":
            pytest.skip("partitions are PostgreSQL's")
        rev = revisions[0]
        backends: dict[str, int] = {}
        copy = storage._copy

        def on_backend(table, *args, **kwargs):
            with connection.cursor() as cur:
                cur.execute("SELECT pg_backend_pid()")
                backends[table] = cur.fetchone()[0]
            return copy(table, *args, **kwargs)

        monkeypatch.setattr(storage, "_copy", on_backend)
        storage.store_revision_rows(rev.pk, self.loads(rev, []))
        assert len(set(backends.values())) == 2
        child = f"{CABLES}_r{rev.pk}"
        with connection.cursor() as cur:
            cur.execute("SELECT count(*) FROM pg_index WHERE indrelid = %s::regclass", [CABLES])
            parent = cur.fetchone()[0]
            cur.execute(
                "SELECT count(*) FROM pg_index i JOIN pg_inherits h ON h.inhrelid = i.indexrelid "
                "WHERE i.indrelid = %s::regclass",
                [child],
            )
            assert cur.fetchone()[0] == parent >= 7  # each the parent's, adopted, none built twice
        self.no_store_left(rev)

    def test_an_error_in_early_fails_the_store_and_leaves_no_thread_or_table(self, revisions, events):
        rev = revisions[0]
        finished = []

        def early():
            raise RuntimeError("invariant broken")

        def meanwhile():
            time.sleep(0.2)
            finished.append("meanwhile")

        with pytest.raises(RuntimeError, match="invariant broken"):
            storage.store_revision_rows(rev.pk, self.loads(rev, events), early=early, meanwhile=meanwhile)
        assert finished == []  # the steps after a failed one do not run
        self.no_store_left(rev)

    def test_an_error_making_the_last_tables_rows_fails_the_store_and_leaves_no_thread_or_table(self, revisions):
        rev = revisions[0]

        def broken():
            yield from cable_rows(rev.pk, 2)
            raise RuntimeError("label template broke")

        loads = [
            storage.RowLoad(LINKS, LINK_DB_COLUMNS, iter(link_rows(rev.pk))),
            storage.RowLoad(CABLES, CABLE_DB_COLUMNS, broken()),
        ]
        with pytest.raises(RuntimeError, match="label template broke"):
            storage.store_revision_rows(rev.pk, loads, early=lambda: None)
        self.no_store_left(rev)

    def test_an_error_in_the_first_table_stops_the_last_before_its_rows(self, revisions, events):
        rev = revisions[0]

        def broken():
            yield from link_rows(rev.pk, 3)
            raise RuntimeError("link rows broke")

        loads = self.loads(rev, events)
        loads[0] = storage.RowLoad(LINKS, LINK_DB_COLUMNS, broken())
        ran = []
        with pytest.raises(RuntimeError, match="link rows broke"), transaction.atomic():  # as the job's
            storage.store_revision_rows(rev.pk, loads, early=lambda: ran.append("early"))
        assert ran == [] and "cable rows made" not in events
        self.no_store_left(rev)

    def test_a_failure_after_the_last_table_was_committed_drops_it(self, revisions, events, monkeypatch):
        if connection.vendor != "postgresql":
            pytest.skip("partitions are PostgreSQL's")
        rev = revisions[0]
        attach = storage.attach_partition

        def last_attach_fails(table, child, revision_id):
            if table == CABLES:
                raise RuntimeError("attach failed")
            attach(table, child, revision_id)

        monkeypatch.setattr(storage, "attach_partition", last_attach_fails)
        with pytest.raises(RuntimeError, match="attach failed"):
            storage.store_revision_rows(rev.pk, self.loads(rev, events))
        assert "sent cablerecord" in events  # it was loaded, committed, then dropped
        self.no_store_left(rev)
