"""CSV cells that spreadsheets read as text, never as formulas: the one helper every CSV writer uses.

A spreadsheet opening a CSV runs a cell that begins with `=`, `+`, `-` or `@` (and, in some, a tab or a
carriage return) as a formula: `=HYPERLINK(...)` in a label template or a part's description would run on
the contractor's machine ("CSV injection", OWASP). Such a text cell is written with a leading `'`, which
spreadsheets show as text and hide. Numbers (ints, floats, and text that is a plain number such as
"-1.5": negative margins and deltas) are left exactly as they are.

The product's own uploads (filled test sheets) strip the prefix again (`strip_prefix`), so a file
exported and brought back reads the same. `raw=True` on the writers, one declared option (browser
`?csv=raw`, API `?csv=raw`, CLI `--csv raw`), writes cells unchanged for tools that want the bytes as
designed. The NetBox import files are always raw: NetBox stores a leading `'` verbatim, so their
names are instead restricted at save (layout.site: letters, digits, - and _).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

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


__all__ = [
    "PREFIX",
    "TRIGGERS",
    "line_may_need_neutralizing",
    "neutralize",
    "neutralize_row",
    "starts_unsafe",
    "strip_prefix",
]
