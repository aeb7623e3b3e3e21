"""Bulk loading of link and cable rows: COPY on PostgreSQL, batched executemany elsewhere.

COPY FROM STDIN loads ~140,000 rows/s on a 2-core machine against ~18,000 for ORM bulk_create
(../shared/design/performance-notes.md), and streams: rows are generated as they are sent.
"""
from __future__ import annotations

from itertools import islice
from typing import Iterable, Sequence

from django.db import connection


def bulk_insert(table: str, columns: Sequence[str], rows: Iterable[tuple], *, batch: int = 5000,
                on_batch=None) -> int:
    cols = ", ".join(connection.ops.quote_name(c) for c in columns)
    n = 0
    it = iter(rows)
    with connection.cursor() as cur:
        if connection.vendor == "postgresql":
            with cur.cursor.copy(f"COPY {connection.ops.quote_name(table)} ({cols}) FROM STDIN") as copy:
                for row in it:
                    copy.write_row(row)
                    n += 1
                    if on_batch and n % batch == 0:
                        on_batch(n)
        else:
            marks = ", ".join(["%s"] * len(columns))
            sql = f"INSERT INTO {connection.ops.quote_name(table)} ({cols}) VALUES ({marks})"
            while True:
                chunk = list(islice(it, batch))
                if not chunk:
                    break
                cur.executemany(sql, chunk)
                n += len(chunk)
                if on_batch:
                    on_batch(n)
    return n
