"""Bulk loading of link and cable rows: COPY on PostgreSQL, batched executemany elsewhere.

COPY FROM STDIN loads ~140,000 rows/s on a 2-core machine against ~18,000 for ORM bulk_create
(../shared/design/performance-notes.md), and streams: rows are generated as they are sent, so
Python builds rows while PostgreSQL (the other core) parses the ones already sent. A revision's
rows go into partitions of their own (store_revision_rows, apps/designs/partitions.py).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from functools import partial
from itertools import chain, islice
from typing import Any, NamedTuple, TypeVar

from django.db import connection
from django.db.backends.utils import CursorWrapper

from .partitions import attach_partition, create_partition_table, partitioned

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
    # How many rows, when known beforehand: more than AHEAD_ROWS (or unknown) runs early() before them.
    expected: int | None = None


def store_revision_rows(
    revision_id: int,
    loads: Sequence[RowLoad],
    *,
    between: Callable[[], None] | None = None,
    early: Callable[[], Any] | None = None,
    meanwhile: Callable[[], T] | None = None,
    timings: dict[str, float] | None = None,
) -> tuple[list[int], T | None]:
    """Store one revision's rows, table after table, in the current transaction.

    Returns the row counts per table and what `meanwhile()` returned (None without it).

    On partitioned PostgreSQL tables each table's rows go into a new partition of their own, loaded with no
    index and attached afterwards (apps/designs/partitions.py). The Python work left runs in threads while
    the server builds those indexes (seconds each; a wait on the server releases the GIL): one thread,
    started once the first table is loaded, makes each later table's rows (the first AHEAD_ROWS of them; the
    rest are made as the COPY sends them) and runs `early()`, first when the rows are more than that; a second
    runs `meanwhile()` once the last table is loaded. So the server rarely waits for Python, and Python's
    work is not split between two threads while a COPY makes the rows the server is waiting for. When every
    later table's rows are known to be made ahead (RowLoad.expected), no COPY makes any: `meanwhile()` then
    follows `early()` in the first thread, beside the last COPY, rather than waiting for it to end.
    Neither may use the database (the threads have no connection of their own to use) nor touch what the rows
    are made of; `early()` must be done with anything `meanwhile()` reads before it starts: the two may
    overlap. Elsewhere rows are bulk-inserted, then `early()` and `meanwhile()` run.
    `between()` runs after each table but the last (a test hook). `timings`, when given, receives the
    seconds spent per table and phase ("<table>.load", "<table>.index", "<table>.rows wait" for rows still
    being generated when the previous table's indexes were done, "early.wait" and "meanwhile.wait" for
    those still running when the last table's were), as the job's record of where a store's time went.
    """
    clock = _clock(timings)
    if not partitioned(loads[0].table):
        return _insert_in_turn(loads, clock, between, early, meanwhile)
    counts = []
    rows: Iterable[tuple] = loads[0].rows
    # When a later table has more rows than are made ahead, early() runs first, then the rows: the checks' peak
    # (about 195 bytes per link, ~600 MB at 1,048,576 GPUs) is over before the rows made ahead are, and they run
    # while the server builds the first table's indexes instead of beside the next COPY, which then makes its
    # rows past AHEAD_ROWS itself. Otherwise (every design up to 128K GPUs) the rows come first, all made ahead,
    # and early() runs after them, partly while their COPY waits on the server.
    ahead_steps: list[Callable[[], Any]] = [partial(_ahead, load.rows, AHEAD_ROWS) for load in loads[1:]]
    made_ahead = all(load.expected is not None and load.expected <= AHEAD_ROWS for load in loads[1:])
    first = early_step = 0
    if early is not None:
        first = int(not made_ahead)
        early_step = 0 if first else len(ahead_steps)
        ahead_steps.insert(early_step, early)
    # With every later row made ahead, a COPY only sends them (the server parsing them is the slow side), and the
    # thread would idle from early()'s end to the last COPY's; meanwhile() follows early() in it instead, beside
    # that COPY. Otherwise it keeps to after the last COPY, not beside rows being made for the server.
    together = False
    if meanwhile is not None and made_ahead:
        ahead_steps.append(meanwhile)
        together = True
    ahead = tail = None
    try:
        for i, load in enumerate(loads):
            last = i == len(loads) - 1
            with clock(load.table, "load"):
                child = create_partition_table(load.table, revision_id)
                counts.append(_copy(child, load.columns, iter(rows), 0, None))
                rows = ()  # what was made ahead is sent: nothing holds it past its COPY
            if ahead is None and ahead_steps:
                ahead = _Steps(ahead_steps)
            if last and meanwhile is not None and not together:
                tail = _Steps([meanwhile])
            with clock(load.table, "index"):
                attach_partition(load.table, child, revision_id)
            if not last:
                assert ahead is not None  # a later table means ahead_steps has its rows, so ahead started
                with clock(loads[i + 1].table, "rows wait"):
                    rows = ahead.result(first + i)
                if between is not None:
                    between()
        if early is not None:
            assert ahead is not None  # early is one of ahead_steps, so ahead started
            with clock("early", "wait"):
                ahead.result(early_step)
        if meanwhile is None:
            return counts, None
        with clock("meanwhile", "wait"):
            if tail is not None:
                return counts, tail.result(0)
            assert ahead is not None  # together: meanwhile is the last of ahead_steps
            return counts, ahead.result(len(ahead_steps) - 1)
    finally:
        for thread in (ahead, tail):  # nothing of this store runs on after it, even when it failed
            if thread is not None:
                thread.join()


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


# How many of a later table's rows are made ahead, while the server builds the previous table's indexes; the
# rest are made as they are sent. A cable row for COPY is about 415 bytes (bench/bench_memory.py), so making all
# of them ahead held 1.2 GB at 1,048,576 GPUs (2.95 million cables) on top of the engine's own peak, and the
# invariant checks ran beside that list (docs/scale-benchmarks.md, Stop 47). 600,000 rows (~250 MB) are all the
# cables of a 128K-GPU design (510,964), which keeps its store as fast as before.
AHEAD_ROWS = 600_000


def _ahead(rows: Iterable[tuple], n: int) -> Iterator[tuple]:
    """The first `n` of `rows` made now, each released once sent, then the rest made as they are asked for."""
    it = iter(rows)
    made = deque(islice(it, n))
    return _drain(made) if len(made) < n else chain(_drain(made), it)


def _drain(made: deque) -> Iterator[tuple]:
    pop = made.popleft
    while made:
        yield pop()


class _Steps:
    """Run each of `steps` in turn in one thread; result(k) waits for step k and returns its value, or raises
    its exception (the steps after a failed one do not run).

    A later table's rows are partly made here while the server is busy (_ahead, AHEAD_ROWS).
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
