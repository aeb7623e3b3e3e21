"""Bulk loading of link and cable rows: COPY on PostgreSQL, batched executemany elsewhere.

COPY FROM STDIN loads ~140,000 rows/s on a 2-core machine against ~18,000 for ORM bulk_create
(../shared/design/performance-notes.md), and streams: rows are generated as they are sent, so a
400,000-row revision is never a list in memory, and Python builds rows while PostgreSQL (the
other core) parses and indexes the ones already sent.
"""
from __future__ import annotations

from itertools import islice
from typing import Callable, Iterable, Iterator, Sequence

from django.db import connection

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
