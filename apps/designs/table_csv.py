"""links.csv and cables.csv from the stored rows, byte for byte as the CLI writes them (engine.outputs): the
engine's column names and order, the public ids (L000001, C000001), floats as Python prints them.

The whole file, the API's download and the browser's filtered table all come from here, so a file reads the
same however it was fetched. On PostgreSQL the server writes the CSV itself (COPY ... TO STDOUT, about 6x the
ORM path in performance-notes.md), with SQL expressions that format ids and floats as Python does; elsewhere
(and for filtered tables) rows come through the ORM and csv.writer.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping

from engine.columns import CABLE_COLUMNS, HALL_COLUMNS, LINK_COLUMNS, LINK_PHYSICAL_COLUMNS
from engine.csvcells import line_writer, neutralize_row

# csv header -> (stored column, how it is written): "id" an L/C-prefixed id, "float" Python's repr, else as stored
_LINK_SOURCES = {
    "id": ("link_id", "L"),
    "run_length_m": ("length_m", "float"),
    "channel": ("cables", ""),
    "loss_db": ("loss_db", "float"),
    "margin_db": ("margin_db", "float"),
}
_CABLE_SOURCES = {"id": ("cable_id", "C"), "type": ("kind", ""), "ordered_length_m": ("length_m", "float")}

LINK_CSV_COLUMNS = tuple(LINK_COLUMNS) + tuple(LINK_PHYSICAL_COLUMNS)
CABLE_CSV_COLUMNS = tuple(CABLE_COLUMNS)


def _spec(columns: Iterable[str], sources: Mapping[str, tuple[str, str]]) -> tuple[tuple[str, str, str], ...]:
    return tuple((name, *sources.get(name, (name, ""))) for name in columns)


LINK_CSV = _spec(LINK_CSV_COLUMNS, _LINK_SOURCES)
CABLE_CSV = _spec(CABLE_CSV_COLUMNS, _CABLE_SOURCES)


# Over several halls both files end with each end's 1-based hall, as the CLI's do (engine.outputs.write_links_csv,
# deliverables' cables.csv); NULL (an unplaced end) is written as nothing.
_HALLS = tuple((name, name, "") for name in HALL_COLUMNS)


def csv_spec(table: str, *, halls: bool = False) -> tuple[tuple[str, str, str], ...]:
    """(CSV header, stored column, how it is written) of each column; `halls`: the revision spans several halls."""
    return (LINK_CSV if table == "links" else CABLE_CSV) + (_HALLS if halls else ())


def stored_columns(table: str, *, halls: bool = False) -> tuple[str, ...]:
    """The stored columns a CSV row is made of, in CSV order (for values_list)."""
    return tuple(col for _name, col, _how in csv_spec(table, halls=halls))


def csv_cells(table: str) -> Callable[[tuple], list]:
    """A function from a values_list row (stored_columns order) to the CSV's cells."""
    prefixes = [(i, how) for i, (_n, _c, how) in enumerate(csv_spec(table)) if how in ("L", "C")]

    def cells(row: tuple) -> list:
        out = list(row)
        for i, prefix in prefixes:
            out[i] = f"{prefix}{out[i]:06d}"
        return out  # csv.writer writes floats with repr(), None as "": as the CLI's csv.writer does

    return cells


def csv_lines(table: str, rows: Iterable[tuple], *, raw: bool = False, halls: bool = False) -> Iterator[str]:
    """Header and CSV lines ("\\n" ends) of values_list rows in stored_columns order; text cells beginning with a
    formula character get a leading ' unless `raw`, as the CLI writes them (engine/csvcells.py)."""

    write = line_writer()
    yield write([name for name, _c, _h in csv_spec(table, halls=halls)])
    cells = csv_cells(table)
    for row in rows:
        yield write(cells(row) if raw else neutralize_row(cells(row)))


# --- PostgreSQL: the same text from SQL -------------------------------------------------------------------------


def _sql_id(column: str, prefix: str) -> str:
    # f"{n:06d}" pads to six digits and never cuts a longer number (lpad would)
    return f"'{prefix}' || CASE WHEN {column} < 1000000 THEN lpad({column}::text, 6, '0') ELSE {column}::text END"


def _sql_float(column: str) -> str:
    # float8 text is the shortest exact form, as Python's repr, except that Python writes whole numbers with
    # ".0" (10.0, -0.0); the figures stored here (metres, dB) are far from where the two switch to exponents.
    return (
        f"CASE WHEN {column} IS NULL THEN NULL WHEN {column} = trunc({column}) THEN "
        f"(CASE WHEN {column}::text LIKE '-%' THEN '-' ELSE '' END) || abs(trunc({column}))::numeric::text "
        f"|| '.0' ELSE {column}::text END"
    )


def _sql_neutralized(expr: str) -> str:
    # engine.csvcells.neutralize in SQL: a leading ' before a formula character; plain numbers ("-1.5") left alone
    return (
        f"CASE WHEN left({expr}, 1) IN ('=', '+', '-', '@', E'\\t', E'\\r') "
        f"AND {expr} !~ '^[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][+-]?[0-9]+)?$' "
        f"THEN '''' || {expr} ELSE {expr} END"
    )


def sql_select_list(
    table: str, quote: Callable[[str], str], text_columns: Collection[str], *, raw: bool = False, halls: bool = False
) -> str:
    """The SELECT list that writes the CSV's columns from the stored ones (`quote` quotes a name). COPY quotes an
    empty string ("") to tell it from NULL, where csv.writer writes nothing: `text_columns` go out as NULL when
    empty, and neutralized unless `raw` (engine/csvcells.py)."""
    parts = []
    for name, column, how in csv_spec(table, halls=halls):
        col = quote(column)
        if how in ("L", "C"):
            expr = _sql_id(col, how)
        elif how == "float":
            expr = _sql_float(col)
        elif column in text_columns:
            expr = f"NULLIF({col}, '')" if raw else _sql_neutralized(f"NULLIF({col}, '')")
        else:
            expr = col
        parts.append(f"{expr} AS {quote(name)}")
    return ", ".join(parts)
