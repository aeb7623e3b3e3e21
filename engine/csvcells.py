"""CSV cells that spreadsheets read as text, never as formulas: the one helper every CSV writer uses.

A spreadsheet opening a CSV runs a cell that begins with `=`, `+`, `-` or `@` (and, in some, a tab or a
carriage return) as a formula: `=HYPERLINK(...)` in a label template or a part's description would run on
the contractor's machine ("CSV injection", OWASP). Such a text cell is written with a leading `'`, which
spreadsheets show as text and hide. Numbers (ints, floats, and text that is a plain number such as
"-1.5": negative margins and deltas) are left exactly as they are.

The product's own uploads (filled test sheets) strip the prefix again (`strip_prefix`), so a file
exported and brought back reads the same. `raw=True` on the writers, one declared option (browser
`?csv=raw`, API `?csv=raw`, CLI `--csv raw`), writes cells unchanged for tools that want the bytes as
designed. The NetBox import files are neutralized too: NetBox would store a leading `'` verbatim, so
their names are restricted at save (layout.site: letters, digits, - and _) and never get one; only free
text (a site's description, from the design name) can.

Every CSV the app serves is written by `iter_csv` / `csv_text` / `write_csv` here (or by the fast paths of
deliverables/_csv.py, apps/designs/table_csv.py and engine/cable_schedule.py, which give the same
bytes); a file a user uploaded is served back through `neutralize_csv_text`. tests/hostile/test_csv_formulas.py
checks every one.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import IO, Any

TRIGGERS = "=+-@\t\r"
PREFIX = "'"
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def neutralize(cell: Any) -> Any:
    """The cell as written: text beginning with a formula character gets PREFIX; anything else unchanged."""
    if type(cell) is str and cell and cell[0] in TRIGGERS and not _NUMBER.fullmatch(cell):
        return PREFIX + cell
    return cell


def neutralize_row(row: Sequence) -> list:
    return [neutralize(c) for c in row]


def starts_unsafe(text: str) -> bool:
    """Whether a text cell would be prefixed (for fast paths that check shared strings once)."""
    return bool(text) and text[0] in TRIGGERS and not _NUMBER.fullmatch(text)


def line_may_need_neutralizing(line: str) -> bool:
    """Whether any cell of one rendered, unquoted CSV line (no quotes, commas only between cells) begins with a
    formula character. False guarantees none does; True may be a number (the caller checks the cells)."""
    return (
        (line[:1] in TRIGGERS and line[:1] != "")
        or ",=" in line
        or ",+" in line
        or ",-" in line
        or ",@" in line
        or "\t" in line
        or "\r" in line
    )


def strip_prefix(cell: str) -> str:
    """An uploaded cell as it was before `neutralize` (a leading ' before a formula character removed)."""
    if len(cell) > 1 and cell[0] == PREFIX and cell[1] in TRIGGERS:
        return cell[1:]
    return cell


class _Line:
    """A file for csv.writer that hands back what was written."""

    def write(self, text: str) -> str:
        return text


def line_writer() -> Callable[[Sequence], str]:
    """A function giving one row's CSV line as csv.writer writes it ("\n" ends), cells unchanged.

    csv.writer quotes a cell holding a line terminator's characters only: with "\n" ends, a bare carriage
    return stays unquoted and a reader starts a new row there, so "x\r=cmd()" (a design name) would arrive as
    a row beginning "=cmd()", past the neutralizing. A row with a carriage return in a cell is written with
    every cell quoted."""
    plain = csv.writer(_Line(), lineterminator="\n")
    quoted = csv.writer(_Line(), lineterminator="\n", quoting=csv.QUOTE_ALL)

    def write(row: Sequence) -> str:
        return (quoted if any(type(c) is str and "\r" in c for c in row) else plain).writerow(row)

    return write


def iter_csv(rows: Iterable[Sequence], *, raw: bool = False) -> Iterator[str]:
    """Each row as one CSV line (line_writer), text cells neutralized unless `raw`."""
    write = line_writer()
    for row in rows:
        yield write(row if raw else neutralize_row(row))


def csv_text(rows: Iterable[Sequence], *, raw: bool = False) -> str:
    return "".join(iter_csv(rows, raw=raw))


def write_csv(fh: IO[str], rows: Iterable[Sequence], *, raw: bool = False) -> None:
    """Rows into a text file opened with newline=""."""
    for line in iter_csv(rows, raw=raw):
        fh.write(line)


def neutralize_csv_text(text: str) -> str:
    """An uploaded CSV as it may be served back: exactly the text when no cell would run as a formula, else
    every row written again with such cells neutralized (text the csv module cannot read is served as text
    with each line's first character checked, never as it came)."""
    from .inputgate import InputRefused, csv_rows

    try:
        rows = list(csv_rows(text, max_chars=len(text), max_cell=len(text)))  # accepted once already
    except InputRefused:
        return "".join((PREFIX + line if starts_unsafe(line) else line) for line in text.splitlines(keepends=True))
    if not any(starts_unsafe(c) for row in rows for c in row if type(c) is str):
        return text
    return csv_text(rows)


__all__ = [
    "csv_text",
    "iter_csv",
    "line_writer",
    "neutralize_csv_text",
    "write_csv",
    "PREFIX",
    "TRIGGERS",
    "line_may_need_neutralizing",
    "neutralize",
    "neutralize_row",
    "starts_unsafe",
    "strip_prefix",
]
