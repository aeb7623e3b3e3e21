"""The one gate for structured input from outside: YAML, JSON, CSV and line lists, each read here and nowhere else.

Every text a person or a tool hands the app (a spec, a custom part body, a price list, as-built and counter
files, utilization snapshots, measured results; from the browser, the API or the CLI, e.g. `plan --catalog`)
is parsed by one of these functions, which bound it *before* and *while* building it:

- size: the text's length (`max_chars`) is checked before any parsing;
- depth: nesting deeper than `max_depth` is refused (the stdlib's JSON decoder and PyYAML recurse once per
  level; a 200,000-deep document was a RecursionError, a 500, and any deep value later recursed again in
  json.dumps or the database driver);
- aliases: YAML anchors and aliases are refused outright (the "billion laughs": 589 bytes grew to 213 MB), so
  what is built is never bigger than the text;
- nodes: more than `max_nodes` values (maps, lists and scalars) is refused;
- CSV: rows beyond `max_rows` and cells beyond `max_cell` characters are refused with their line; the csv
  module's own errors (a cell over its field limit, a quote it cannot close) are a refusal with the line, not
  an exception.

A refusal is an `InputRefused` (a ValueError) with the message and, where known, the 1-based line and column;
the web layer shows it as a 400 or a form error naming the field, the CLI as a message and a non-zero exit.
tests/hostile/test_input_gate_lint.py fails when yaml.safe_load, yaml.load, json.load(s), csv.reader or
csv.DictReader is called anywhere else but on the app's own shipped data (listed there, with the reason).
"""

from __future__ import annotations

import csv
import io
import json
import threading
from collections.abc import Iterator
from typing import Any

# Deep enough for every format we read (lldpctl's JSON is about 8 levels, NVUE's 7, a spec's 5, a custom part's
# 4); far below the ~1,000 levels at which Python's recursive decoders and encoders fail.
MAX_DEPTH = 64
# Values in one document. With aliases refused a document holds at most one value per two characters, so
# this bounds the built data near 100 bytes a value; callers reading large uploads pass their own.
MAX_NODES = 1_000_000
DEFAULT_MAX_CHARS = 2 * 1024 * 1024
# Uploaded tool output (as-built, counters, utilization) of up to 32 MiB (API_MAX_UPLOAD_BYTES): Prometheus and
# lldpctl JSON run 8-20 characters a value, so a full-size real file holds about 2-4 million.
UPLOAD_MAX_NODES = 4_000_000
# A CSV cell longer than this is no name, number or label anyone writes (device names are 64, rack ids 32).
MAX_CELL = 4096


class InputRefused(ValueError):
    """Input refused at the gate; `line` and `column` are 1-based (None when unknown)."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None):
        self.message, self.line, self.column = message, line, column
        super().__init__(self.describe("not acceptable input"))

    def describe(self, what: str) -> str:
        """`what` at line L, column C: the problem."""
        where = f" at line {self.line}" if self.line is not None else ""
        if self.line is not None and self.column is not None:
            where += f", column {self.column}"
        return f"{what}{where}: {self.message}"


def _text(text: str | bytes, max_chars: int) -> str:
    if isinstance(text, (bytes, bytearray)):
        if len(text) > max_chars:
            raise InputRefused(f"the text is {len(text):,} bytes; the limit is {max_chars:,}")
        try:
            text = bytes(text).decode("utf-8-sig")
        except UnicodeDecodeError:
            raise InputRefused("the text is not UTF-8") from None
    if not isinstance(text, str):
        raise InputRefused("must be text")
    if len(text) > max_chars:
        raise InputRefused(f"the text is {len(text):,} characters; the limit is {max_chars:,}")
    return text


# --- YAML ------------------------------------------------------------------------------------------------


def load_yaml(
    text: str | bytes,
    *,
    max_chars: int = DEFAULT_MAX_CHARS,
    max_depth: int = 32,  # yamlsafe.MAX_DEPTH (that module imports this one)
    max_nodes: int = MAX_NODES,
) -> Any:
    """Plain data (dict, list, str, int, float, bool, None) from YAML or JSON text; InputRefused otherwise.

    No aliases or anchors, only the JSON types' tags, dates kept as text (engine/yamlsafe.py does the YAML)."""
    from .yamlsafe import load_user_yaml

    return load_user_yaml(_text(text, max_chars), max_chars=max_chars, max_depth=max_depth, max_nodes=max_nodes)


# --- JSON ------------------------------------------------------------------------------------------------


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def _decode(text: str) -> Any:
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise InputRefused(f"not JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except ValueError as exc:
        raise InputRefused(f"not JSON: {exc}") from None


def _decode_on_a_fresh_stack(text: str) -> Any:
    """The decoder recurses once per level, so how deep a document it reads depends on how deep the caller's
    stack already is (middleware, DRF, a test client); a new thread starts at the bottom, so every caller gets
    the same budget and a document within `max_depth` is never refused for where it was read."""
    out: dict = {}

    def run() -> None:
        try:
            out["value"] = _decode(text)
        except (RecursionError, InputRefused) as exc:
            out["error"] = exc

    worker = threading.Thread(target=run, name="inputgate-json")
    worker.start()
    worker.join()
    if "error" in out:
        raise out["error"]
    return out["value"]


def check_shape(value: Any, *, max_depth: int, max_nodes: int) -> None:
    """InputRefused when `value` nests deeper than `max_depth` or holds more than `max_nodes` values; iterative,
    so a value of any depth is measured without recursion."""
    stack = [(value, 1)]
    nodes = 0
    while stack:
        v, depth = stack.pop()
        nodes += 1
        if nodes > max_nodes:
            raise InputRefused(f"holds more than {max_nodes:,} values")
        if depth > max_depth:
            raise InputRefused(f"nested deeper than {max_depth} levels")
        if isinstance(v, dict):
            stack.extend((item, depth + 1) for item in v.values())
        elif isinstance(v, list):
            stack.extend((item, depth + 1) for item in v)


def load_json(
    text: str | bytes,
    *,
    max_chars: int = DEFAULT_MAX_CHARS,
    max_depth: int = MAX_DEPTH,
    max_nodes: int = MAX_NODES,
) -> Any:
    """Data from JSON text (NaN and Infinity refused), bounded in size, depth and values; InputRefused otherwise."""
    text = _text(text, max_chars)
    try:
        value = _decode(text)
    except RecursionError:
        # The C decoder gives up near Python's recursion limit at once (a 200,000-deep document costs
        # milliseconds); on a fresh stack it reads anything up to about 1,000 levels, deeper is refused.
        try:
            value = _decode_on_a_fresh_stack(text)
        except RecursionError:
            raise InputRefused(f"nested deeper than {max_depth} levels") from None
    check_shape(value, max_depth=max_depth, max_nodes=max_nodes)
    return value


# --- CSV and line lists ----------------------------------------------------------------------------------


def csv_rows(text: str | bytes, **limits: Any) -> Iterator[list[str]]:
    """The rows of CSV text, each a list of cells; InputRefused (with the line) for a row beyond `max_rows`, a
    cell beyond `max_cell` characters, or text the csv module cannot read (a NUL byte, a cell over its limit).
    Limits: max_chars, max_rows, max_cell."""
    return CsvReader(text, **limits)


class CsvReader:
    """`csv_rows` with the csv module's `line_num` (the physical line the last row ended on), for callers that
    report problems by line."""

    def __init__(self, text: str | bytes, **limits: Any):
        self.line_num = 0
        self._reader = csv.reader(io.StringIO(_text(text, limits.pop("max_chars", DEFAULT_MAX_CHARS)), newline=""))
        self._max_rows: int | None = limits.pop("max_rows", None)
        self._max_cell: int = limits.pop("max_cell", MAX_CELL)
        if limits:
            raise TypeError(f"unknown limits: {', '.join(limits)}")
        self._rows = 0

    def __iter__(self) -> CsvReader:
        return self

    def __next__(self) -> list[str]:
        try:
            row = next(self._reader)
        except csv.Error as exc:
            raise InputRefused(f"not CSV: {exc}", self._reader.line_num or None) from None
        self.line_num = self._reader.line_num
        self._rows += 1
        if self._max_rows is not None and self._rows > self._max_rows:
            raise InputRefused(f"more than {self._max_rows:,} rows", self.line_num)
        for i, cell in enumerate(row):
            if len(cell) > self._max_cell:
                raise InputRefused(
                    f"cell {i + 1} is {len(cell):,} characters; the limit is {self._max_cell:,}", self.line_num
                )
        return row


def text_lines(text: str | bytes, *, max_chars: int = DEFAULT_MAX_CHARS, max_lines: int) -> list[str]:
    """The lines of a line-per-entry list (a price list typed into a box); InputRefused beyond `max_lines`."""
    text = _text(text, max_chars)
    lines = text.splitlines()
    if len(lines) > max_lines:
        raise InputRefused(f"{len(lines):,} lines; the limit is {max_lines:,}", max_lines + 1)
    return lines


__all__ = [
    "DEFAULT_MAX_CHARS",
    "MAX_CELL",
    "MAX_DEPTH",
    "MAX_NODES",
    "UPLOAD_MAX_NODES",
    "CsvReader",
    "InputRefused",
    "check_shape",
    "csv_rows",
    "load_json",
    "load_yaml",
    "text_lines",
]
