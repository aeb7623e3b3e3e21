"""Cursor pages for every list: no COUNT, no OFFSET.

Link and cable tables page through apps.designs.tables (keyset on (sort key, id)). The short
lists (designs, revisions, jobs, tokens, parts) page here on their primary key, newest first.
Every page answers {"results": [...], "next_cursor", "next", "previous_cursor", "previous"}.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.db.models import QuerySet
from rest_framework.request import Request

from apps.designs.tables import TableError, _decode, _encode

DEFAULT_LIMIT = 100
MAX_LIMIT = 1000
# A cursor given out is a few dozen characters (a key, or a table row's sort values and id, base64): a longer one is
# none of ours, and a bound keeps every request line within gunicorn's (tests/apps/api/test_request_line_limit.py).
CURSOR_MAX_LENGTH = 512


def page_url(request: Request, cursor: str | None) -> str | None:
    if cursor is None:
        return None
    params = {k: v for k, v in request.query_params.items() if k != "cursor"}
    params["cursor"] = cursor
    return request.build_absolute_uri(request.path) + "?" + urlencode(params)


def page_body(request: Request, results: list, next_cursor: str | None, prev_cursor: str | None) -> dict:
    return {
        "results": results,
        "next_cursor": next_cursor,
        "next": page_url(request, next_cursor),
        "previous_cursor": prev_cursor,
        "previous": page_url(request, prev_cursor),
    }


def id_page(qs: QuerySet, *, cursor: str | None, limit: int, key: str = "pk") -> tuple[list, str | None]:
    """Rows newest first (descending `key`, an integer column) and the cursor of the next page."""
    if not 1 <= limit <= MAX_LIMIT:
        raise TableError("limit", f"must be between 1 and {MAX_LIMIT}")
    if cursor:
        qs = qs.filter(**{f"{key}__lt": _decode(cursor)["id"]})
    rows = list(qs.order_by(f"-{key}")[: limit + 1])
    more = len(rows) > limit
    rows = rows[:limit]
    return rows, (_encode({"id": getattr(rows[-1], key)}) if more else None)
