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

from django.db import connection
from django.db.models import F, Func, IntegerField, Q, QuerySet, Value

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


# A filter as data: every clause must hold; a clause holds when any of its terms does; a term is (column, op, value)
# conditions that all hold, op "=" or "startswith", or "isnull" (value True), or "=col" / "<>col" (value: another
# column; SQL's comparison, so a NULL on either side never holds). The ORM (counts, CSV) and the page's hand-written
# query read it.
Term = tuple[tuple[str, str, Any], ...]

# The crossing filter (docs/site-model.md, "Filtering the tables by hall"): true, the rows whose two ends stand in
# two different halls (both known); false, every other row, so the two answers always add up to the whole table: an
# end not placed (a NULL hall, or every end of a revision stored before rows recorded halls) is never a crossing.
_CROSSING: list[Term] = [(("a_hall", "<>col", "b_hall"),)]
_NOT_CROSSING: list[Term] = [
    (("a_hall", "isnull", True),),
    (("b_hall", "isnull", True),),
    (("a_hall", "=col", "b_hall"),),
]


def _clauses(filters: dict, *, is_link: bool) -> list[list[Term]]:
    clauses: list[list[Term]] = []
    for key, value in filters.items():
        if value in (None, ""):
            continue
        if isinstance(value, str):
            value = _text_filter(key, value)
        if key in ("network", "tier") or (key in ("medium", "status") and is_link) or (key == "kind" and not is_link):
            clauses.append([((key, "=", value),)])
        elif key == "rack":
            clauses.append(_either("a_rack", "b_rack", value))
        elif key == "device":
            clauses.append(_either("a_device", "b_device", value))
        elif key == "part":
            clauses.append(_either("a_part", "b_part", value) if is_link else [(("part", "=", value),)])
        elif key == "plane" and is_link:
            clauses.append([(("plane", "=", _plane(value)),)])
        elif key == "hall":
            clauses.append(_either("a_hall", "b_hall", _hall(value)))
        elif key == "crossing":
            clauses.append(_CROSSING if _crossing(value) else _NOT_CROSSING)
        elif key == "q":
            terms = _search_terms(str(value).strip(), is_link=is_link)
            if terms:
                clauses.append(terms)
        else:
            raise TableError(key, "is not a filter of this table")
    return clauses


def _either(a: str, b: str, value: Any) -> list[Term]:
    return [((a, "=", value),), ((b, "=", value),)]


def _plane(value: Any) -> int:
    try:
        plane = int(value)
    except (TypeError, ValueError):
        raise TableError("plane", "must be a whole number") from None
    if not 0 <= plane <= 32767:
        raise TableError("plane", "must be between 0 and 32767")
    return plane


# the stored halls' column (PositiveSmallIntegerField) holds no larger number
MAX_HALL = 32767


def _hall(value: Any) -> int:
    if isinstance(value, bool):
        raise TableError("hall", "must be a whole number")
    try:
        hall = int(value)
    except (TypeError, ValueError):
        raise TableError("hall", "must be a whole number") from None
    if not 1 <= hall <= MAX_HALL:
        raise TableError("hall", f"must be between 1 and {MAX_HALL} (halls are numbered from 1)")
    return hall


def _crossing(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no"):
        return False
    raise TableError("crossing", "must be true or false")


def _search_terms(text: str, *, is_link: bool) -> list[Term]:
    """Search: device-name prefix at either end, or an exact link/cable/rack id, or "DEVICE PORT"."""
    if not text:
        return []
    terms: list[Term] = [
        (("a_device", "startswith", text),),
        (("b_device", "startswith", text),),
        *_either("a_rack", "b_rack", text),
    ]
    ident = text[1:] if text[:1] in ("L", "C", "l", "c") else text
    if ident.isascii() and ident.isdigit() and len(ident) <= 18:  # longer: no id column holds it
        terms.append((("link_id" if is_link else "cable_id", "=", int(ident)),))
    device, sep, port = text.replace(" ", ":", 1).partition(":")
    if sep and device and port:  # "DEVICE PORT" or "DEVICE:PORT": the row at that port, either end
        terms.append((("a_device", "=", device), ("a_port", "=", port.strip())))
        terms.append((("b_device", "=", device), ("b_port", "=", port.strip())))
    return terms


def _filters(qs: QuerySet, filters: dict, *, is_link: bool) -> QuerySet:
    hashed = connection.vendor == "postgresql"
    aliases: dict[str, Func] = {}
    conds = []
    for clause in _clauses(filters, is_link=is_link):
        cond = Q()
        for term in clause:
            lookups = {}
            both = Q()
            for col, op, v in term:
                if hashed and op == "=" and col in _HASHED_MATCHES:  # as _where writes it
                    aliases[f"_hashed_{col}"] = _hashtext(F(col))
                    lookups[f"_hashed_{col}"] = _hashtext(Value(v))
                if op == "=col":
                    both &= Q(**{col: F(v)})
                elif op == "<>col":  # neither holds when either side is NULL, as SQL's <>
                    both &= Q(**{f"{col}__lt": F(v)}) | Q(**{f"{col}__gt": F(v)})
                else:
                    lookups[col if op == "=" else f"{col}__{op}"] = v
            cond |= Q(**lookups) & both
        conds.append(cond)
    if aliases:
        qs = qs.alias(**aliases)
    for cond in conds:
        qs = qs.filter(cond)
    return qs


def _hashtext(expr) -> Func:
    return Func(expr, function="hashtext", output_field=IntegerField())


# Nullable sort keys (a copper link has no loss) sort as this value: after every real figure. PostgreSQL's
# sort indexes are built on the same expression (partitions.sort_index_keys reads it from here).
_NULL_SORTS_AS = 1e9


def _where(model, revision_id: int, clauses: list[list[Term]]) -> tuple[list[str], list]:
    """The WHERE conditions of a page of `model`'s rows, as the ORM writes them for _filters (the same LIKE
    operator, cast and escaping on each database), with their parameters."""
    qn, ops = connection.ops.quote_name, connection.ops
    hashed = connection.vendor == "postgresql"
    conds = [f"{qn(model._meta.get_field('revision').column)} = %s"]
    params: list[Any] = [revision_id]
    for clause in clauses:
        ors = []
        for term in clause:
            ands = []
            for col, op, value in term:
                field = model._meta.get_field(col)
                if op in ("=col", "<>col", "isnull"):  # two columns, or a NULL test: no parameter
                    other = "IS NULL" if op == "isnull" else f"{op[:-3]} {qn(model._meta.get_field(value).column)}"
                    ands.append(f"{qn(field.column)} {other}")
                    continue
                lhs = ops.lookup_cast(op if op != "=" else "exact", field.get_internal_type()) % qn(field.column)
                if hashed and op == "=" and col in _HASHED_MATCHES:  # the index's key, then the recheck
                    ands.append(f"hashtext({qn(field.column)}) = hashtext(%s)")
                    params.append(value)
                if op == "=":
                    ands.append(f"{lhs} = %s")
                    params.append(value)
                else:  # startswith
                    # every backend's wrapper defines `operators`; the stubs' base class does not
                    like = connection.operators["startswith"]  # type: ignore[attr-defined]
                    ands.append(f"{lhs} {like % '%s'}")
                    params.append(ops.prep_for_like_query(value) + "%")
            ors.append("(" + " AND ".join(ands) + ")")
        conds.append("(" + " OR ".join(ors) + ")")
    return conds, params


# Equality filters that lead an index whose next column is the row id (partitions.sort_index_keys). One column
# each: a btree ends a scan on a row comparison only when its first column decides it, so `(network, tier) <= (v, w)`
# read on through the rest of the network (121 ms at 524,288 GPUs); network and tier keep `=` and `link_id > last`,
# which their (network, tier, id) index answers directly and PostgreSQL chooses.
_ID_INDEX_PREFIXES = {
    "designs_linkrecord": (("tier",), ("status",), ("medium",)),
    "designs_cablerecord": (("kind",),),
}
# A sorted page whose filters fix the tier reads a (tier, key, id) index (partitions.sort_index_keys): on the
# (key, id) index PostgreSQL walked past every row of the other tiers first, and runs sort by tier (the node-leaf
# cords are the shortest), so the first leaf-spine page by length at 1,048,576 GPUs read a million entries (94 ms,
# the last one 124 ms; bench/bench_store.py).
_SORT_INDEX_PREFIXES = {
    "designs_linkrecord": (("tier",),),
    "designs_cablerecord": (("tier",),),
}


# On PostgreSQL the (network, tier, id) and (tier, id) indexes are keyed on hashtext(column) (migration 0011: an
# int4 key builds in about half the time of a low-cardinality text key, inside the store's transaction). A page in
# id order names those expressions beside the plain equality, which stays as the recheck: two names with one hash
# cost extra index entries, never a wrong row. Sorted pages read the (tier, key, id) indexes on the text.
_HASHED_KEYS = ("network", "tier")
# Since migration 0012 the rack indexes too (hashtext(a_rack), hashtext(b_rack): 15-20 % less of the attach's CPU
# than the text). A rack is only matched whole (the rack filter, the search's exact rack), and every such equality
# names the index's expression beside the plain one, in pages (_where) and counts and files (_filters) alike.
_HASHED_MATCHES = ("a_rack", "b_rack")


def _hashed_terms(clauses: list[list[Term]]) -> list[tuple[str, Any]]:
    """(column, value) of each network or tier the filters fix by equality."""
    return [
        (clause[0][0][0], clause[0][0][2])
        for clause in clauses
        if len(clause) == 1 and len(clause[0]) == 1 and clause[0][0][0] in _HASHED_KEYS and clause[0][0][1] == "="
    ]


def _hashed_conds(model, clauses: list[list[Term]], *, skip: set[str]) -> tuple[list[str], list]:
    """`hashtext(column) = hashtext(%s)` for each network or tier the filters fix by equality, but `skip`'s."""
    qn = connection.ops.quote_name
    terms = [(col, value) for col, value in _hashed_terms(clauses) if col not in skip]
    conds = [f"hashtext({qn(model._meta.get_field(col).column)}) = hashtext(%s)" for col, _ in terms]
    return conds, [value for _, value in terms]


def _equal_prefix(model, clauses: list[list[Term]], prefixes: dict) -> list[tuple[str, Any]]:
    """(column, value) of the first index prefix (of `prefixes`, by table) the filters fix by equality, or none."""
    equal = {
        term[0][0]: term[0][2]
        for clause in clauses
        if len(clause) == 1
        for term in clause
        if len(term) == 1
        if term[0][1] == "="
    }
    for prefix in prefixes.get(model._meta.db_table, ()):
        if all(col in equal for col in prefix):
            return [(col, equal[col]) for col in prefix]
    return []


def _page_query(
    model,
    revision_id: int,
    clauses: list[list[Term]],
    prefix: list[tuple[str, Any]],
    *,
    id_field: str,
    fields: tuple,
    key: str,
    order: str,
    cursor: str | None,
    limit: int,
) -> tuple[str, list]:
    """The SQL of one keyset page of `model`'s rows and its parameters; `prefix`: (column, value) of the filters'
    equalities that lead the index the page reads (_equal_prefix), written as a range of it."""
    qn = connection.ops.quote_name
    desc = order.startswith("-")
    by_id = key == id_field
    field = model._meta.get_field(key)
    id_col = qn(model._meta.get_field(id_field).column)
    c = _decode(cursor) if cursor else None
    backwards = bool(c and c.get("back"))
    # An equality filter that leads an index whose next column is the id (status, medium, kind) is written
    # as a range on that index's key, ordered by it: `status >= 'pass' AND status <= 'pass'`, then the keyset
    # `(status, link_id) > ('pass', 1469848)`, ORDER BY status, link_id. Given `status = 'pass' AND link_id >
    # 1469848` ORDER BY link_id, PostgreSQL walked the id index and filtered, trusting the matches to be spread
    # evenly: the last page of status=pass at 524,288 GPUs, whose last 107,844 links have no medium, read them
    # all (52 ms); with the equality kept beside the row comparison, the btree started at the first 'pass' (263 ms).
    # PostgreSQL's network and tier indexes for pages in id order are keyed on hashtext(column) (_HASHED_KEYS).
    hashed = by_id and connection.vendor == "postgresql"
    in_prefix = {col for col, _ in prefix}
    extra, extra_params = _hashed_conds(model, clauses, skip=in_prefix) if hashed else ([], [])
    # A prefix's equality goes (its range says the same) unless its key is hashed: then it is the recheck.
    fixed = in_prefix - set(_HASHED_KEYS) if hashed else in_prefix
    clauses = [
        cl for cl in clauses if not (len(cl) == 1 and len(cl[0]) == 1 and cl[0][0][0] in fixed and cl[0][0][1] == "=")
    ]
    prefix_cols: list[str] = []
    prefix_marks: list[str] = []
    for col, _ in prefix:
        column = qn(model._meta.get_field(col).column)
        key_hashed = hashed and col in _HASHED_KEYS
        prefix_cols.append(f"hashtext({column})" if key_hashed else column)
        prefix_marks.append("hashtext(%s)" if key_hashed else "%s")
    prefix_values = [value for _, value in prefix]
    conds, params = _where(model, revision_id, clauses)
    conds += extra
    params += extra_params
    # Both bounds on the first page; after a cursor only the far one, beside the keyset: given both, the btree
    # started from the near bound (the first compute leaf-spine link) and read up to the cursor (362 ms at 524,288).
    bounds = [] if not prefix else [">=", "<="] if not cursor else ["<="] if _walks_up(order, cursor) else [">="]
    for op in bounds:
        conds.append(f"({', '.join(prefix_cols)}) {op} ({', '.join(prefix_marks)})")
        params += prefix_values
    select = [qn(model._meta.get_field(f).column) for f in fields]
    key_sql, key_params = "", list[Any]()
    if not by_id:
        key_sql, key_params = (
            (f"COALESCE({qn(field.column)}, %s)", [_NULL_SORTS_AS]) if field.null else (qn(field.column), [])
        )
        select.append(f"{key_sql} AS {qn('_k')}")
    if c is not None:
        after = "<" if desc != backwards else ">"
        if by_id:
            conds.append(f"({', '.join([*prefix_cols, id_col])}) {after} ({', '.join([*prefix_marks, '%s'])})")
            params += [*prefix_values, c["id"]]
        else:
            # `(key, id) > (v, id)`: a btree on (key, id) seeks straight to it; the equivalent `key > v OR (key = v
            # AND id > id)` made PostgreSQL read the index from its start (75-155 ms for the last page of a
            # 400,000-link revision sorted by length, bench/bench_store.py).
            keyset = ", ".join([*prefix_cols, key_sql, id_col])
            conds.append(f"({keyset}) {after} ({', '.join([*prefix_marks, '%s', '%s'])})")
            params += [*key_params, *prefix_values, _cursor_value(c.get("v"), field), c["id"]]
    direction = " DESC" if desc != backwards else ""
    sort = [col + direction for col in prefix_cols] + ([] if by_id else [key_sql + direction]) + [id_col + direction]
    sql = (
        f"SELECT {', '.join(select)} FROM {qn(model._meta.db_table)} WHERE {' AND '.join(conds)} "
        f"ORDER BY {', '.join(sort)} LIMIT {limit + 1}"
    )
    # The sort key's parameter (the NULL stand-in) is written in the SELECT and in the ORDER BY too.
    return sql, [*key_params, *params, *key_params]


def _hall_clause(clauses: list[list[Term]]) -> tuple[int, int] | None:
    """(index, hall) of the hall filter's clause (either end in the hall: _clauses), or None."""
    for i, clause in enumerate(clauses):
        ends = [t[0] for t in clause if len(t) == 1 and t[0][1] == "="]
        if len(clause) == 2 and [e[0] for e in ends] == ["a_hall", "b_hall"] and ends[0][2] == ends[1][2]:
            return i, ends[0][2]
    return None


def _walks_up(order: str, cursor: str) -> bool:
    """True when a page from this cursor reads its index upwards (ascending order forwards, descending backwards)."""
    return order.startswith("-") == bool(_decode(cursor).get("back"))


def _page(
    model,
    revision_id: int,
    clauses: list[list[Term]],
    *,
    id_field: str,
    fields: tuple,
    sorts: tuple,
    order: str,
    cursor: str | None,
    limit: int,
) -> Page:
    """One keyset page in one hand-written query: the ORM built and compiled this query again on every call,
    about 40 % of an API page's CPU (bench/bench_api.py); the SQL is the one it wrote, so the same indexes serve it
    (partitions.sort_index_keys: a nullable key sorts as COALESCE(column, _NULL_SORTS_AS))."""
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
    qn = connection.ops.quote_name
    by_id = key == id_field
    id_col = qn(model._meta.get_field(id_field).column)
    backwards = False
    if cursor:
        c = _decode(cursor)
        if c.get("o", order) != order:
            raise TableError("cursor", "belongs to another sort order; start again from the first page")
        backwards = bool(c.get("back"))
    kw: dict[str, Any] = {"id_field": id_field, "fields": fields, "key": key, "order": order, "cursor": cursor}
    hall = _hall_clause(clauses)
    if hall is None:
        prefix = _equal_prefix(model, clauses, _ID_INDEX_PREFIXES if by_id else _SORT_INDEX_PREFIXES)
        sql, params = _page_query(model, revision_id, clauses, prefix, limit=limit, **kw)
    else:
        # Either end in the hall: one page from each end's (hall, [key,] id) index (partitions.sort_index_keys), each
        # read as the hall's range of it, then the two merged (UNION drops a row with both ends in the hall).
        # One query with `a_hall = 15 OR b_hall = 15` walked the id or sort index past the other halls' rows,
        # whose pods fill the ids in bands: 136 ms for the first page of hall 15 of the 1M revision's cables, 265
        # ms for hall 29 by id; now 0.3 ms (docs/scale-benchmarks.md, Stop 53). The crossing filter needs no
        # rewrite: its partial indexes hold only the rows between halls.
        index, value = hall
        rest = clauses[:index] + clauses[index + 1 :]
        (sql_a, params_a), (sql_b, params_b) = (
            _page_query(model, revision_id, rest, [(end, value)], limit=limit, **kw) for end in ("a_hall", "b_hall")
        )
        direction = " DESC" if desc != backwards else ""
        outer = ([] if by_id else [qn("_k") + direction]) + [id_col + direction]
        sql = (
            f"SELECT * FROM ({sql_a}) AS {qn('_a')} UNION SELECT * FROM ({sql_b}) AS {qn('_b')} "
            f"ORDER BY {', '.join(outer)} LIMIT {limit + 1}"
        )
        params = [*params_a, *params_b]
    with connection.cursor() as cur:
        cur.execute(sql, params)
        found = cur.fetchall()
    names = fields if by_id else (*fields, "_k")
    rows = [dict(zip(names, r, strict=True)) for r in found]
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
    clauses = _clauses(filters or {}, is_link=True)
    return _page(
        LinkRecord,
        revision.pk,
        clauses,
        id_field="link_id",
        fields=LINK_FIELDS,
        sorts=LINK_SORTS,
        order=order,
        cursor=cursor,
        limit=limit,
    )


def cable_page(
    *,
    revision: Revision,
    filters: dict | None = None,
    cursor: str | None = None,
    limit: int = 100,
    order: str = "cable_id",
) -> Page:
    clauses = _clauses(filters or {}, is_link=False)
    return _page(
        CableRecord,
        revision.pk,
        clauses,
        id_field="cable_id",
        fields=CABLE_FIELDS,
        sorts=CABLE_SORTS,
        order=order,
        cursor=cursor,
        limit=limit,
    )


_NETWORK_ORDER = {name: i for i, name in enumerate(NETWORKS)}


def link_facets(revision: Revision) -> dict[str, list]:
    """Filter choices from the revision's summary (no scan of the rows). A revision loaded without its summary
    (a table page's) reads only the summary's networks: the whole summary, BOM included, is tens of KB of JSON
    at 16K GPUs, which every page decoded when it was loaded here (bench/bench_api.py)."""
    if "summary" in revision.get_deferred_fields():
        networks = Revision.objects.filter(pk=revision.pk).values_list("summary__networks", flat=True).first()
        s = {"networks": networks if isinstance(networks, dict) else {}}
    else:
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


def table_count(*, revision: Revision, table: str, filters: dict | None = None, at_most: int | None = None) -> int:
    """How many rows of the revision's links or cables match the filters (the stored total when there are none:
    counting 400,000 rows to say what the revision row already knows would cost a scan). `at_most`: stop
    counting past it (the answer is then at_most + 1): a filter matching most of a 400,000-link revision took
    160-230 ms to count exactly, a page of it 15 ms (bench/bench_tables.py)."""
    if not filters:
        return revision.link_count if table == "links" else revision.cable_count
    model = LinkRecord if table == "links" else CableRecord
    is_link = table == "links"
    qs = _filters(model.objects.filter(revision=revision), filters, is_link=is_link)
    if connection.vendor == "postgresql":
        # as a page in id order does (_HASHED_KEYS): a rare network's count would otherwise read the partition
        for col, value in _hashed_terms(_clauses(filters, is_link=is_link)):
            hashed = {f"_hashed_{col}": Func(F(col), function="hashtext", output_field=IntegerField())}
            qs = qs.alias(**hashed).filter(
                **{f"_hashed_{col}": Func(Value(value), function="hashtext", output_field=IntegerField())}
            )
    if at_most is not None:
        qs = qs.values("pk")[: at_most + 1]
    return qs.count()


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
