"""Bulk loading of link and cable rows: COPY on PostgreSQL, batched executemany elsewhere.

COPY FROM STDIN loads ~140,000 rows/s on a 2-core machine against ~18,000 for ORM bulk_create
(../shared/design/performance-notes.md), and streams: rows are generated as they are sent, so
Python builds rows while PostgreSQL (the other core) parses the ones already sent. A revision's
rows go into partitions of their own (store_revision_rows, apps/designs/partitions.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from itertools import islice
from typing import Any, NamedTuple, TypeVar

from django.db import connection, transaction
from django.db.backends.utils import CursorWrapper

from .partitions import (
    attach_partition,
    create_partition_table,
    drop_unattached,
    hold_store_lock,
    index_like_parent,
    partitioned,
)

OnBatch = Callable[[int], None]
T = TypeVar("T")


def bulk_insert(
    table: str, columns: Sequence[str], rows: Iterable[tuple], *, batch: int = 5000, on_batch: OnBatch | None = None
) -> int:
    """Insert `rows` (tuples in `columns` order) into `table` in the current transaction; returns the count.

    `on_batch(n)` is called after every `batch` rows with the count so far. It may use the database:
    on PostgreSQL each batch is then a COPY of its own (a connection cannot run a query while a COPY is
    open, and would wait for itself forever), otherwise one COPY takes all the rows.
    """
    load = _copy if connection.vendor == "postgresql" else _executemany
    return load(table, columns, iter(rows), batch, on_batch)


class RowLoad(NamedTuple):
    """The rows of one table for one revision (tuples in `columns` order)."""

    table: str
    columns: Sequence[str]
    rows: Iterable[tuple]


def store_revision_rows(
    revision_id: int,
    loads: Sequence[RowLoad],
    *,
    between: Callable[[], None] | None = None,
    early: Callable[[], Any] | None = None,
    meanwhile: Callable[[], T] | None = None,
    timings: dict[str, float] | None = None,
) -> tuple[list[int], T | None]:
    """Store one revision's rows in the current transaction; all or none of them become visible at its commit.

    Returns the row counts per table and what `meanwhile()` returned (None without it).

    On partitioned PostgreSQL tables each table's rows go into a new partition of their own, loaded with no index
    (apps/designs/partitions.py). The last table is loaded beside the others, on a connection of its own: in a
    transaction of its own it makes the table, COPYs the rows (made as they are sent) and builds the parent's
    indexes on it, and commits it unattached. This transaction loads and attaches the other tables meanwhile, and
    attaches the last one last, which adopts its indexes (milliseconds). So the server builds the first table's
    indexes while it takes in the last table's rows, instead of after. One Python thread at a time makes rows or
    runs the engine (threads making rows side by side each wait for the interpreter's lock whenever their socket
    is full, and the server then waits for them): the side's COPY starts once this transaction's last COPY is
    sent, and a thread runs `early()` then `meanwhile()` once the side's is sent, while the server builds indexes.
    Neither may use the database (the thread has no connection of its own to use) nor touch what the rows are
    made of. A store that fails before the last attach drops the side's table on the side's connection; one that
    fails after it (the rollback undoes the attach) must drop it itself (partitions.drop_unattached, as the job
    does); a killed one leaves it to the sweep, which the store lock (partitions.hold_store_lock) keeps off the
    tables of stores still running. Elsewhere rows are bulk-inserted, then `early()` and `meanwhile()` run.
    `between()` runs after each table but the last (a test hook). `timings`, when given, receives the seconds
    spent per table and phase ("<table>.load", "<table>.index"; for the last table "<table>.load beside" and
    "<table>.index beside" on its own connection, which overlap the others, "<table>.side wait" for it to be
    loaded and indexed once the others are, and "<table>.attach"; "early.wait" and "meanwhile.wait" for those
    still running then), as the job's record of where a store's time went.
    """
    clock = _clock(timings)
    if not partitioned(loads[0].table):
        return _insert_in_turn(loads, clock, between, early, meanwhile)
    hold_store_lock(revision_id)
    *mine, last = loads
    side = _Side(last, revision_id, clock)
    steps: list[Callable[[], Any]] = [side.sent.wait, *(s for s in (early, meanwhile) if s is not None)]
    background = None
    attached = False
    counts: list[int] = []
    try:
        for load in mine:
            with clock(load.table, "load"):
                child = create_partition_table(load.table, revision_id)
                counts.append(_copy(child, load.columns, iter(load.rows), 0, None))
            if load is mine[-1]:
                side.go.set()
                background = _Steps(steps)
            with clock(load.table, "index"):
                attach_partition(load.table, child, revision_id)
            if between is not None:
                between()
        if background is None:  # the one table is the side's
            side.go.set()
            background = _Steps(steps)
        with clock(last.table, "side wait"):
            last_count, last_child = side.result()
        result = None
        if early is not None:
            with clock("early", "wait"):
                background.result(1)
        if meanwhile is not None:
            with clock("meanwhile", "wait"):
                result = background.result(len(steps) - 1)
        with clock(last.table, "attach"):
            attach_partition(last.table, last_child, revision_id)
        attached = True
        counts.append(last_count)
        return counts, result
    finally:
        # nothing of this store runs on after it, even when it failed
        side.settle(drop=not attached)
        if background is not None:
            background.join()


class _Side:
    """One table loaded and indexed in a thread on a connection of its own (Django's connections are per thread),
    committed unattached once `go` is set; settle() then closes that connection, first dropping the table unless
    the store attached it."""

    def __init__(
        self, load: RowLoad, revision_id: int, clock: Callable[[str, str], AbstractContextManager[None]]
    ) -> None:
        self._load, self._revision_id, self._clock = load, revision_id, clock
        self.go = threading.Event()  # set: start the COPY
        self.sent = threading.Event()  # set: the COPY is over, sent or failed
        self._stop = threading.Event()  # set: the store failed, stop sending rows
        self._settled = threading.Event()
        self._drop = False
        self._done = threading.Event()
        self._value: tuple[int, str] | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="store-side", daemon=True)
        self._thread.start()

    def _rows(self) -> Iterator[tuple]:
        stop = self._stop.is_set
        for n, row in enumerate(self._load.rows):
            if not n & 4095 and stop():
                raise _Stopped
            yield row

    def _run(self) -> None:
        load = self._load
        try:
            try:
                with transaction.atomic():
                    child = create_partition_table(load.table, self._revision_id)
                    self.go.wait()
                    try:
                        with self._clock(load.table, "load beside"):
                            n = _copy(child, load.columns, self._rows(), 0, None)
                    finally:
                        self.sent.set()
                    with self._clock(load.table, "index beside"):
                        index_like_parent(load.table, child)
                self._value = (n, child)
            except BaseException as exc:  # noqa: BLE001 - handed to the store's thread by result()
                self._error = exc
            self.sent.set()
            self._done.set()
            self._settled.wait()
            if self._drop and self._value is not None:
                drop_unattached(self._revision_id)
        finally:
            connection.close()  # this thread's own

    def result(self) -> tuple[int, str]:
        """The side table's row count and name, once committed; or the exception that stopped it."""
        self._done.wait()
        if self._error is not None:
            raise self._error
        assert self._value is not None
        return self._value

    def settle(self, *, drop: bool) -> None:
        self._drop = drop
        self._stop.set()
        self.go.set()
        self._settled.set()
        self._thread.join()


class _Stopped(Exception):
    """The store failed elsewhere: the side table's rows stop, and its transaction rolls back."""


def _insert_in_turn(
    loads: Sequence[RowLoad],
    clock: Callable[[str, str], AbstractContextManager[None]],
    between: Callable[[], None] | None,
    early: Callable[[], Any] | None,
    meanwhile: Callable[[], T] | None,
) -> tuple[list[int], T | None]:
    """store_revision_rows without partitions: each table's rows inserted, then early() and meanwhile()."""
    counts = []
    for i, load in enumerate(loads):
        with clock(load.table, "load"):
            counts.append(bulk_insert(load.table, load.columns, load.rows))
        if between is not None and i < len(loads) - 1:
            between()
    if early is not None:
        early()
    return counts, (meanwhile() if meanwhile is not None else None)


def _clock(timings: dict[str, float] | None) -> Callable[[str, str], AbstractContextManager[None]]:
    """`with clock(table, phase):` adds the block's wall time to timings["<table>.<phase>"], and the process's
    peak resident memory so far (VmHWM, MB) at the block's end to timings["<table>.<phase> peak MB"]: which phase
    set the job's peak is what sizes the compute job's memory limit (docs/scale-benchmarks.md)."""

    @contextmanager
    def clock(table: str, phase: str) -> Iterator[None]:
        t = time.perf_counter()
        try:
            yield
        finally:
            if timings is not None:
                key = f"{table}.{phase}"
                timings[key] = timings.get(key, 0.0) + time.perf_counter() - t
                timings[f"{key} peak MB"] = peak_mb()

    return clock


class _Steps:
    """Run each of `steps` in turn in one thread; result(k) waits for step k and returns its value, or raises
    its exception (the steps after a failed one do not run).

    early() and meanwhile() run here while the server builds indexes (store_revision_rows).
    """

    def __init__(self, steps: Sequence[Callable[[], Any]]) -> None:
        self._values: list[Any] = [None] * len(steps)
        self._errors: list[BaseException | None] = [None] * len(steps)
        self._done = [threading.Event() for _ in steps]
        self._thread = threading.Thread(target=self._run, args=(steps,), name="store-background", daemon=True)
        self._thread.start()

    def _run(self, steps: Sequence[Callable[[], Any]]) -> None:
        failed: BaseException | None = None
        for k, step in enumerate(steps):
            if failed is None:
                try:
                    self._values[k] = step()
                except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread by result()
                    failed = exc
            self._errors[k] = failed
            self._done[k].set()

    def result(self, k: int) -> Any:
        """Step k's value, handed over once: the steps keep no reference to it (rows made ahead are freed as
        they are sent, not when the store ends)."""
        self._done[k].wait()
        error = self._errors[k]
        if error is not None:
            raise error
        value, self._values[k] = self._values[k], None
        return value

    def join(self) -> None:
        self._thread.join()


def _copy(table: str, columns: Sequence[str], rows: Iterator[tuple], batch: int, on_batch: OnBatch | None) -> int:
    # Binary COPY, told each column's type: psycopg packs every value with that column's dumper (no lookup per
    # value, no text formatting) and the server parses no text. Per link row sent, about a third of the Python
    # instructions of text COPY (callgrind) and a little less server time. Binary integers are not range-checked
    # the way text is: the smallint columns (a plane, at most 2 by the spec schema; fibers per link) stay small.
    sql = f"COPY {_quote(table)} ({_column_list(columns)}) FROM STDIN (FORMAT BINARY)"
    n = 0
    with connection.cursor() as cur:
        types = _column_types(cur, table, columns)
        for chunk in _chunks(rows, batch) if on_batch else (rows,):
            with cur.cursor.copy(sql) as copy:
                copy.set_types(types)
                for row in chunk:
                    copy.write_row(row)
                    n += 1
            if on_batch:
                on_batch(n)
    return n


def _column_types(cur: CursorWrapper, table: str, columns: Sequence[str]) -> list[int]:
    """The type OIDs of `table`'s `columns`, in that order."""
    cur.execute(
        "SELECT attname, atttypid FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0 AND NOT attisdropped",
        [_quote(table)],
    )
    oid_of = dict(cur.fetchall())
    return [oid_of[c] for c in columns]


def _executemany(
    table: str, columns: Sequence[str], rows: Iterator[tuple], batch: int, on_batch: OnBatch | None
) -> int:
    marks = ", ".join(["%s"] * len(columns))
    sql = f"INSERT INTO {_quote(table)} ({_column_list(columns)}) VALUES ({marks})"
    n = 0
    with connection.cursor() as cur:
        for chunk in _chunks(rows, batch):
            cur.executemany(sql, chunk)
            n += len(chunk)
            if on_batch:
                on_batch(n)
    return n


def peak_mb() -> float:
    """This process's peak resident memory so far (VmHWM) in MB; 0.0 where /proc is missing."""
    try:
        with open("/proc/self/status") as fh:
            return next((int(line.split()[1]) / 1024 for line in fh if line.startswith("VmHWM")), 0.0)
    except (OSError, ValueError):
        return 0.0


def _quote(name: str) -> str:
    return connection.ops.quote_name(name)


def _column_list(columns: Sequence[str]) -> str:
    return ", ".join(_quote(c) for c in columns)


def _chunks(it: Iterator[tuple], size: int) -> Iterator[list[tuple]]:
    while chunk := list(islice(it, size)):
        yield chunk
