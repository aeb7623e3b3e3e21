"""Link and cable tables of a revision: filters and keyset (cursor) pagination.

Keyset pagination on (sort value, row id) answers the first and the last page of 400,000 rows
equally fast: no COUNT and no OFFSET (performance-notes.md: OFFSET at the end of the set costs
55-65 ms against 3-5 ms for keyset). Shared by the HTML table and the REST API.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.db.models import BooleanField, Expression, F, Q, QuerySet, Value
from django.db.models.functions import Coalesce

from engine.columns import CABLE_DB_COLUMNS, LINK_DB_COLUMNS
from engine.inputgate import load_json
from engine.model import NETWORKS
from engine.physical_stage import CABLE_KINDS
from engine.schema import text_problem

from .models import CableRecord, LinkRecord, Revision

MAX_LIMIT = 1000

# The pages' and the API's tables show every stored column but the link's polarity (links.csv has it) and the
# cable ends' U positions (the cable schedule has them), as they always have (docs/openapi.yaml).
LINK_FIELDS = tuple(c for c in LINK_DB_COLUMNS if c not in ("revision_id", "polarity"))
CABLE_FIELDS = tuple(c for c in CABLE_DB_COLUMNS if c not in ("revision_id", "a_u", "b_u"))

LINK_SORTS = ("link_id", "length_m", "loss_db", "margin_db")
CABLE_SORTS = ("cable_id", "length_m", "part")


class TableError(ValueError):
    """A bad filter, sort or cursor; `field` names the query parameter."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class Page:
    rows: list[dict[str, Any]]
    next_cursor: str | None
    prev_cursor: str | None
    order: str


def _encode(payload: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(payload, separators=(",", ":")).encode()).decode().rstrip("=")


# A cursor this module gives out is well under this; anything longer is not one of them.
MAX_CURSOR_CHARS = 1000
# Ids and sort values a database column can hold (bigint); a larger number in a forged cursor would be a
# database error (PostgreSQL) or an OverflowError (SQLite) instead of a 400.
_MAX_INT = 2**63 - 1


def _decode(cursor: str) -> dict:
    try:
        if not isinstance(cursor, str) or len(cursor) > MAX_CURSOR_CHARS:
            raise ValueError
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        data = load_json(raw, max_chars=MAX_CURSOR_CHARS, max_depth=4)
        if not isinstance(data, dict) or not isinstance(data.get("id"), int) or isinstance(data["id"], bool):
            raise ValueError
        if not 0 <= data["id"] <= _MAX_INT or not isinstance(data.get("o", ""), str):
            raise ValueError
        return data
    except (ValueError, binascii.Error, UnicodeDecodeError, RecursionError):
        raise TableError("cursor", "is not a cursor this table gave out") from None


def _cursor_value(v: Any, field) -> Any:
    """The sort value a cursor carries, checked against the sort field: a forged or stale one is a TableError,
    never a database error (a number no column holds, not finite, or text with NUL or lone surrogates)."""
    if field.get_internal_type() in ("CharField", "TextField"):
        ok = isinstance(v, str) and text_problem(v, field.max_length or 256) is None
    else:
        ok = (isinstance(v, int) and not isinstance(v, bool) and abs(v) <= _MAX_INT) or (
            isinstance(v, float) and math.isfinite(v)
        )
    if ok:
        return v
    raise TableError("cursor", "is not a cursor this table gave out")


def _text_filter(key: str, value: Any, max_length: int = 128) -> str:
    """A filter's text, or TableError: NUL and lone surrogates never reach the database."""
    text = str(value)
    problem = text_problem(text, max_length)
    if problem:
        raise TableError(key, problem)
    return text


def _filters(qs: QuerySet, filters: dict, *, is_link: bool) -> QuerySet:  # noqa: C901
    for key, value in filters.items():
        if value in (None, ""):
            continue
        if isinstance(value, str):
            value = _text_filter(key, value)
        if key == "network":
            qs = qs.filter(network=value)
        elif key == "tier":
            qs = qs.filter(tier=value)
        elif key == "rack":
            qs = qs.filter(Q(a_rack=value) | Q(b_rack=value))
        elif key == "device":
            qs = qs.filter(Q(a_device=value) | Q(b_device=value))
        elif key == "part":
            qs = qs.filter(Q(a_part=value) | Q(b_part=value)) if is_link else qs.filter(part=value)
        elif key == "medium" and is_link:
            qs = qs.filter(medium=value)
        elif key == "status" and is_link:
            qs = qs.filter(status=value)
        elif key == "kind" and not is_link:
            qs = qs.filter(kind=value)
        elif key == "plane" and is_link:
            try:
                plane = int(value)
            except (TypeError, ValueError):
                raise TableError("plane", "must be a whole number") from None
            if not 0 <= plane <= 32767:
                raise TableError("plane", "must be between 0 and 32767")
            qs = qs.filter(plane=plane)
        elif key == "q":
            # Search: device-name prefix at either end, or an exact link/cable/rack id.
            text = str(value).strip()
            if not text:
                continue
            cond = Q(a_device__startswith=text) | Q(b_device__startswith=text) | Q(a_rack=text) | Q(b_rack=text)
            ident = text[1:] if text[:1] in ("L", "C", "l", "c") else text
            if ident.isascii() and ident.isdigit() and len(ident) <= 18:  # longer: no id column holds it
                cond |= Q(**{"link_id" if is_link else "cable_id": int(ident)})
            device, sep, port = text.replace(" ", ":", 1).partition(":")
            if sep and device and port:  # "DEVICE PORT" or "DEVICE:PORT": the row at that port, either end
                cond |= Q(a_device=device, a_port=port.strip()) | Q(b_device=device, b_port=port.strip())
            qs = qs.filter(cond)
        else:
            raise TableError(key, "is not a filter of this table")
    return qs


# Nullable sort keys (a copper link has no loss) sort as this value: after every real figure. PostgreSQL's
# sort indexes are built on the same expression (partitions.sort_index_keys reads it from here).
_NULL_SORTS_AS = 1e9


class _RowCompare(Expression):
    """`(a, b) > (x, y)` (or `<`): where a keyset page starts. A btree on (a, b) seeks straight to it; the
    equivalent `a > x OR (a = x AND b > y)` makes PostgreSQL read the index from its start instead, which
    took 75-155 ms for the last page of a 400,000-link revision sorted by length (bench/bench_store.py)."""

    conditional = True

    def __init__(self, left: tuple, op: str, right: tuple):
        super().__init__(output_field=BooleanField())
        if op not in ("<", ">") or len(left) != len(right):
            raise ValueError("a row comparison takes two rows of one size and < or >")
        self.left, self.op, self.right = list(left), op, list(right)

    def get_source_expressions(self) -> list:
        return [*self.left, *self.right]

    def set_source_expressions(self, exprs) -> None:
        n = len(self.left)
        self.left, self.right = list(exprs[:n]), list(exprs[n:])

    def as_sql(self, compiler, connection):  # noqa: ARG002 - Django's expression API
        sqls, params = [], []
        for expr in (*self.left, *self.right):
            sql, p = compiler.compile(expr)
            sqls.append(sql)
            params.extend(p)
        n = len(self.left)
        return f"({', '.join(sqls[:n])}) {self.op} ({', '.join(sqls[n:])})", params


def _page(
    qs: QuerySet, *, id_field: str, fields: tuple, sorts: tuple, order: str, cursor: str | None, limit: int
) -> Page:
    try:
        limit = int(limit)
    except (TypeError, ValueError):
        raise TableError("limit", "must be a whole number") from None
    if not 1 <= limit <= MAX_LIMIT:
        raise TableError("limit", f"must be between 1 and {MAX_LIMIT}")
    order = order or id_field
    desc = order.startswith("-")
    key = order[1:] if desc else order
    if key not in sorts:
        raise TableError("order", f"must be one of {', '.join(sorts)} (prefix - for descending)")
    by_id = key == id_field
    field = qs.model._meta.get_field(key)
    if not by_id:
        default = Value(_NULL_SORTS_AS) if field.null else None
        qs = qs.annotate(_k=Coalesce(F(key), default) if default is not None else F(key))
    backwards = False
    if cursor:
        c = _decode(cursor)
        if c.get("o", order) != order:
            raise TableError("cursor", "belongs to another sort order; start again from the first page")
        backwards = bool(c.get("back"))
        op = "lt" if desc != backwards else "gt"
        if by_id:
            qs = qs.filter(**{f"{id_field}__{op}": c["id"]})
        else:
            v = _cursor_value(c.get("v"), field)
            after = ">" if op == "gt" else "<"
            qs = qs.filter(_RowCompare((F("_k"), F(id_field)), after, (Value(v), Value(c["id"]))))
    step_desc = desc != backwards
    sort = [] if by_id else ["-_k" if step_desc else "_k"]
    sort.append(f"-{id_field}" if step_desc else id_field)
    values = fields if by_id else (*fields, "_k")
    rows = list(qs.order_by(*sort).values(*values)[: limit + 1])
    more = len(rows) > limit
    rows = rows[:limit]
    if backwards:
        rows.reverse()
    next_cursor = prev_cursor = None
    if rows:
        first, last = rows[0], rows[-1]
        if more or backwards:
            next_cursor = _encode({"o": order, "v": last.get("_k"), "id": last[id_field]})
        if cursor and (more or not backwards):
            prev_cursor = _encode({"o": order, "v": first.get("_k"), "id": first[id_field], "back": 1})
    for row in rows:
        row.pop("_k", None)
    return Page(rows=rows, next_cursor=next_cursor, prev_cursor=prev_cursor, order=order)


def link_page(
    *,
    revision: Revision,
    filters: dict | None = None,
    cursor: str | None = None,
    limit: int = 100,
    order: str = "link_id",
) -> Page:
    qs = _filters(LinkRecord.objects.filter(revision=revision), filters or {}, is_link=True)
    return _page(qs, id_field="link_id", fields=LINK_FIELDS, sorts=LINK_SORTS, order=order, cursor=cursor, limit=limit)


def cable_page(
    *,
    revision: Revision,
    filters: dict | None = None,
    cursor: str | None = None,
    limit: int = 100,
    order: str = "cable_id",
) -> Page:
    qs = _filters(CableRecord.objects.filter(revision=revision), filters or {}, is_link=False)
    return _page(
        qs, id_field="cable_id", fields=CABLE_FIELDS, sorts=CABLE_SORTS, order=order, cursor=cursor, limit=limit
    )


_NETWORK_ORDER = {name: i for i, name in enumerate(NETWORKS)}


def link_facets(revision: Revision) -> dict[str, list]:
    """Filter choices from the revision's summary (no scan of the rows)."""
    s = revision.summary or {}
    # PostgreSQL's jsonb keeps no key order, so the engine's order of networks is restored here.
    nets = sorted((s.get("networks") or {}).keys(), key=lambda n: (_NETWORK_ORDER.get(n, len(_NETWORK_ORDER)), n))
    tiers = sorted({t for n in (s.get("networks") or {}).values() for t in (n.get("links") or {})})
    return {
        "network": nets,
        "tier": tiers,
        "status": ["pass", "marginal", "fail", "n/a", "no-medium"],
        "medium": ["fiber-sm", "fiber-mm", "dac", "acc", "aoc", "copper-rj45"],
        "kind": list(CABLE_KINDS),
    }


def table_count(*, revision: Revision, table: str, filters: dict | None = None) -> int:
    """How many rows of the revision's links or cables match the filters (the stored total when there are none:
    counting 400,000 rows to say what the revision row already knows would cost a scan)."""
    if not filters:
        return revision.link_count if table == "links" else revision.cable_count
    model = LinkRecord if table == "links" else CableRecord
    return _filters(model.objects.filter(revision=revision), filters, is_link=table == "links").count()


def table_rows(*, revision: Revision, table: str, filters: dict | None, order: str, columns: tuple) -> Iterator[tuple]:
    """Every row of the filtered table in the page order (null sort keys last, then id), as values_list tuples of
    `columns`, streamed (a server-side cursor on PostgreSQL): what the table's CSV download writes."""
    is_link = table == "links"
    model, id_field = (LinkRecord, "link_id") if is_link else (CableRecord, "cable_id")
    sorts = LINK_SORTS if is_link else CABLE_SORTS
    desc = order.startswith("-")
    key = order[1:] if desc else order
    if key not in sorts:
        raise TableError("order", f"must be one of {', '.join(sorts)} (prefix - for descending)")
    qs = _filters(model.objects.filter(revision=revision), filters or {}, is_link=is_link)
    sort = [F(key).desc(nulls_last=True) if desc else F(key).asc(nulls_last=True)]
    if key != id_field:
        sort.append(F(id_field).desc() if desc else F(id_field).asc())
    return qs.order_by(*sort).values_list(*columns).iterator(chunk_size=5000)
