"""bulk_insert: COPY on PostgreSQL and executemany elsewhere store exactly the rows they are given."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection

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
    """store_revision_rows: links, then cables, into partitions of their own on PostgreSQL, with the Python
    work left over done in threads while the server builds each partition's indexes:

        main thread   COPY links ── attach links (index build) ── COPY cables ── attach cables ── return
        thread 1                  └ early(), then make cable rows ┘
        thread 2                                                  └ meanwhile() ──────────────────┘

    or, when the cable rows are known to fit AHEAD_ROWS (every design up to 128K GPUs):

        main thread   COPY links ── attach links (index build) ── COPY cables ── attach cables ── return
        thread 1                  └ make cable rows, early(), then meanwhile() ───────────────────┘
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

    def test_it_stores_every_row_and_runs_early_then_meanwhile_around_the_last_copy(self, revisions, events):
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
        if connection.vendor == "postgresql":  # early() and rows in one thread, meanwhile() after the last COPY
            assert events.index("sent linkrecord") < events.index("early") < events.index("cable rows made")
            assert events.index("sent cablerecord") < events.index("meanwhile")
            assert {"designs_linkrecord.index", "designs_cablerecord.index", "early.wait", "meanwhile.wait"} <= set(
                timings
            )
        else:
            assert events[-2:] == ["early", "meanwhile"]

    def test_an_error_in_early_fails_the_store_and_no_thread_outlives_it(self, revisions, events):
        rev = revisions[0]
        finished = []

        def early():
            raise RuntimeError("invariant broken")

        def meanwhile():
            time.sleep(0.2)
            finished.append("meanwhile")

        with pytest.raises(RuntimeError, match="invariant broken"):
            storage.store_revision_rows(rev.pk, self.loads(rev, events), early=early, meanwhile=meanwhile)
        # On PostgreSQL early() runs before the cable rows are made: the store fails before their COPY, and
        # meanwhile(), which starts with the last COPY, never starts.
        assert finished == []
        if connection.vendor == "postgresql":
            assert "cable rows made" not in events
        assert not any(t.name == "store-background" for t in threading.enumerate())

    def test_an_error_making_the_next_tables_rows_fails_the_store(self, revisions, events):
        rev = revisions[0]

        def broken():
            yield from cable_rows(rev.pk, 2)
            raise RuntimeError("label template broke")

        loads = [
            storage.RowLoad(LINKS, LINK_DB_COLUMNS, iter(link_rows(rev.pk))),
            storage.RowLoad(CABLES, CABLE_DB_COLUMNS, broken()),
        ]
        ran = []
        with pytest.raises(RuntimeError, match="label template broke"):
            storage.store_revision_rows(rev.pk, loads, early=lambda: ran.append("early"))
        # on PostgreSQL early() ran first, while the link indexes built; elsewhere it runs after every insert
        assert ran == (["early"] if connection.vendor == "postgresql" else [])

    def test_rows_past_those_made_ahead_are_made_as_sent_and_early_runs_before_any(
        self, revisions, events, monkeypatch
    ):
        monkeypatch.setattr(storage, "AHEAD_ROWS", 3)
        rev = revisions[0]
        made = []

        def cables():
            for row in cable_rows(rev.pk):
                made.append(row)
                yield row

        loads = [
            storage.RowLoad(LINKS, LINK_DB_COLUMNS, iter(link_rows(rev.pk))),
            storage.RowLoad(CABLES, CABLE_DB_COLUMNS, cables()),
        ]
        made_by_early = []
        counts, _ = storage.store_revision_rows(rev.pk, loads, early=lambda: made_by_early.append(len(made)))
        assert counts == [23, 9]
        assert stored(CableRecord, rev, CABLE_DB_COLUMNS) == cable_rows(rev.pk)
        if connection.vendor == "postgresql":  # early() ran before the rows made ahead were made
            assert made_by_early == [0]
        else:
            assert made_by_early == [9]

    def test_an_error_in_rows_made_as_sent_fails_the_store_and_no_thread_outlives_it(
        self, revisions, events, monkeypatch
    ):
        monkeypatch.setattr(storage, "AHEAD_ROWS", 2)
        rev = revisions[0]

        def broken():
            yield from cable_rows(rev.pk, 5)
            raise RuntimeError("label template broke")

        loads = [
            storage.RowLoad(LINKS, LINK_DB_COLUMNS, iter(link_rows(rev.pk))),
            storage.RowLoad(CABLES, CABLE_DB_COLUMNS, broken()),
        ]
        with pytest.raises(RuntimeError, match="label template broke"):
            storage.store_revision_rows(rev.pk, loads, early=lambda: time.sleep(0.1))
        assert not any(t.name == "store-background" for t in threading.enumerate())

    def test_rows_known_to_fit_ahead_leave_meanwhile_to_follow_early_beside_the_last_copy(
        self, revisions, events, monkeypatch
    ):
        if connection.vendor != "postgresql":
            pytest.skip("threads and partitions are PostgreSQL's")
        rev = revisions[0]
        loads = self.loads(rev, events)
        loads[1] = loads[1]._replace(expected=9)  # all made ahead: the last COPY only sends them
        started = threading.Event()
        ran_in: dict[str, int] = {}
        copy = storage._copy

        def cables_wait_for_meanwhile(table, *args, **kwargs):
            if "cablerecord" in table:
                started.wait(5)
            return copy(table, *args, **kwargs)

        def meanwhile():
            ran_in["meanwhile"] = threading.get_ident()
            events.append("meanwhile")
            started.set()
            return "summary"

        monkeypatch.setattr(storage, "_copy", cables_wait_for_meanwhile)
        counts, extra = storage.store_revision_rows(
            rev.pk, loads, early=lambda: ran_in.setdefault("early", threading.get_ident()), meanwhile=meanwhile
        )
        assert counts == [23, 9] and extra == "summary"
        assert stored(CableRecord, rev, CABLE_DB_COLUMNS) == cable_rows(rev.pk)
        assert events.index("cable rows made") < events.index("meanwhile") < events.index("sent cablerecord")
        assert ran_in["early"] == ran_in["meanwhile"] != threading.get_ident()

    def test_rows_known_to_fit_ahead_are_made_before_early(self, revisions, events):
        rev = revisions[0]
        loads = self.loads(rev, events)
        loads[1] = loads[1]._replace(expected=9)  # under AHEAD_ROWS: all made ahead, then the checks
        counts, _ = storage.store_revision_rows(rev.pk, loads, early=lambda: events.append("early"))
        assert counts == [23, 9]
        assert events.index("sent linkrecord") < events.index("cable rows made") < events.index("early")
