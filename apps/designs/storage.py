"""Bulk loading of link and cable rows: COPY on PostgreSQL, batched executemany elsewhere.

COPY FROM STDIN loads ~140,000 rows/s on a 2-core machine against ~18,000 for ORM bulk_create
(../shared/design/performance-notes.md), and streams: rows are generated as they are sent, so
Python builds rows while PostgreSQL (the other core) parses the ones already sent. A revision's
rows go into partitions of their own (store_revision_rows, apps/designs/partitions.py).
"""
from __future__ import annotations

import threading
from itertools import islice
from typing import Callable, Iterable, Iterator, NamedTuple, Sequence

from django.db import connection

from .partitions import attach_partition, create_partition_table, partitioned

OnBatch = Callable[[int], None]


def bulk_insert(table: str, columns: Sequence[str], rows: Iterable[tuple], *, batch: int = 5000,
                on_batch: OnBatch | None = None) -> int:
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


def store_revision_rows(revision_id: int, loads: Sequence[RowLoad], *,
                        between: Callable[[], None] | None = None) -> list[int]:
    """Store one revision's rows, table after table, in the current transaction; returns the counts.

    On partitioned PostgreSQL tables each table's rows go into a new partition of their own, loaded with no
    index and attached afterwards (apps/designs/partitions.py). While PostgreSQL builds one partition's
    indexes (seconds, on its own core) the next table's rows are generated here in a thread: the wait on
    the server releases the GIL. Elsewhere rows are bulk-inserted. `between()` runs after each table but
    the last (a test hook).
    """
    if not partitioned(loads[0].table):
        counts = []
        for i, load in enumerate(loads):
            counts.append(bulk_insert(load.table, load.columns, load.rows))
            if between is not None and i < len(loads) - 1:
                between()
        return counts
    counts = []
    rows: Iterable[tuple] = loads[0].rows
    for i, load in enumerate(loads):
        child = create_partition_table(load.table, revision_id)
        counts.append(_copy(child, load.columns, iter(rows), 0, None))
        ahead = _Prefetch(loads[i + 1].rows) if i < len(loads) - 1 else None
        try:
            attach_partition(load.table, child, revision_id)
        finally:
            rows = ahead.result() if ahead is not None else ()
        if between is not None and ahead is not None:
            between()
    return counts


class _Prefetch:
    """Materialize an iterable of rows in a background thread (a list: about 450 bytes per cable row)."""

    def __init__(self, rows: Iterable[tuple]) -> None:
        self._rows: list[tuple] = []
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(rows,), name="prefetch-rows", daemon=True)
        self._thread.start()

    def _run(self, rows: Iterable[tuple]) -> None:
        try:
            self._rows.extend(rows)
        except BaseException as exc:  # handed to the caller's thread by result()
            self._error = exc

    def result(self) -> list[tuple]:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._rows


def _copy(table: str, columns: Sequence[str], rows: Iterator[tuple], batch: int, on_batch: OnBatch | None) -> int:
    sql = f"COPY {_quote(table)} ({_column_list(columns)}) FROM STDIN"
    n = 0
    with connection.cursor() as cur:
        for chunk in (_chunks(rows, batch) if on_batch else (rows,)):
            with cur.cursor.copy(sql) as copy:
                for row in chunk:
                    copy.write_row(row)
                    n += 1
            if on_batch:
                on_batch(n)
    return n


def _executemany(table: str, columns: Sequence[str], rows: Iterator[tuple], batch: int,
                 on_batch: OnBatch | None) -> int:
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


def _quote(name: str) -> str:
    return connection.ops.quote_name(name)


def _column_list(columns: Sequence[str]) -> str:
    return ", ".join(_quote(c) for c in columns)


def _chunks(it: Iterator[tuple], size: int) -> Iterator[list[tuple]]:
    while chunk := list(islice(it, size)):
        yield chunk
