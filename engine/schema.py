"""A small declarative schema: one field tree validates specs and emits JSON Schema.

The web form, the REST API and the CLI all feed a plain dict through `normalize()`; the
published `docs/spec.schema.json` is `json_schema()` of the same tree, so the three can
never disagree about what a field accepts.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import FieldError

REQUIRED = object()
# Each term a positive number: at least one non-zero digit (so "0:1" and "1:0.0" never match).
_TERM = r"(?=[\d.]*[1-9])\d+(?:\.\d+)?"
_RATIO = re.compile(rf"^\s*({_TERM})\s*:\s*({_TERM})\s*$")

# Free text fields: the default bound when a field declares none (every str lands in some column or file).
DEFAULT_MAX_LENGTH = 200
# Characters no text field may hold: NUL (PostgreSQL text cannot store it), other C0 controls but tab and
# line breaks, and unpaired surrogates (not encodable as UTF-8, so not storable or sendable).
_BAD_TEXT = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff]")
# Free-form sections (kind "any": physical, qos, workloads): bounds on what they may hold, checked before their
# own parsers read them, so no input can make those parsers, JSON, YAML or the database recurse or balloon.
ANY_MAX_DEPTH = 16
ANY_MAX_NODES = 20_000
ANY_MAX_TEXT = 1_000
ANY_MAX_INT = 2**63 - 1
# Items of one list or mapping there: their entries are tiers, rooms, classes, thresholds and workloads, tens at
# most in any design; a thousand is room to spare and keeps one list from taking the whole ANY_MAX_NODES budget.
ANY_MAX_ITEMS = 1_000


@dataclass(frozen=True)
class Field:
    """One field. `kind` is str | int | float | bool | enum | ratio | object | map | any."""

    kind: str
    default: Any = REQUIRED
    help: str = ""
    choices: tuple = ()
    minimum: float | None = None
    maximum: float | None = None
    allow_auto: bool = False
    nullable: bool = False
    fields: Mapping[str, Field] = field(default_factory=dict)
    values: Field | None = None  # for kind="map": the field every value must satisfy
    shorthand: str | None = None  # object given as a scalar fills this one sub-field
    max_length: int | None = None  # str: characters (no longer than the database column it lands in)
    pattern: str | None = None  # str: a regular expression the whole (stripped) text must match
    pattern_help: str = ""  # str: what `pattern` allows, in words, for the error message

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def map_values(self) -> Field:
        """The field every value of a kind="map" field satisfies; a map declared without one is a schema bug."""
        if self.values is None:
            raise TypeError(f"a {self.kind!r} field declares no `values` field")
        return self.values


def parse_ratio(text: Any) -> tuple[float, float] | None:
    """'3:1' -> (3.0, 1.0); None when the text is not a ratio of two positive numbers."""
    if not isinstance(text, str):
        return None
    m = _RATIO.match(text)
    if not m:
        return None
    a, b = float(m.group(1)), float(m.group(2))
    if a <= 0 or b <= 0:
        return None
    return a, b


def normalize(tree: Mapping[str, Field], data: Any, path: str = "") -> tuple[dict, list[FieldError]]:
    """Check `data` against `tree`; return (data with defaults filled, errors). Never raises."""
    errors: list[FieldError] = []
    if not isinstance(data, Mapping):
        return {}, [FieldError(path, "must be a mapping of fields")]
    out: dict = {}
    for key in data:
        if key not in tree:
            shown = str(key)
            shown = shown if len(shown) <= 64 and not _BAD_TEXT.search(shown) else ascii(shown[:64])
            errors.append(FieldError(_join(path, shown), f"unknown field (known: {', '.join(sorted(tree))})"))
    for name, spec in tree.items():
        p = _join(path, name)
        if name not in data or (data[name] is None and not spec.nullable):
            if spec.required:
                errors.append(FieldError(p, "is required"))
                continue
            if spec.kind == "object" and spec.default is None:
                out[name] = None
                continue
            if spec.kind == "object":
                value, errs = normalize(spec.fields, {} if spec.default is REQUIRED else dict(spec.default or {}), p)
                out[name] = value
                errors += errs
                continue
            out[name] = spec.default
            continue
        value, errs = _check(spec, data[name], p)
        out[name] = value
        errors += errs
    return out, errors


def _check(spec: Field, value: Any, path: str) -> tuple[Any, list[FieldError]]:  # noqa: C901
    if value is None and spec.nullable:
        return None, []
    if spec.allow_auto and value == "auto":
        return "auto", []
    kind = spec.kind
    if kind == "object":
        if spec.shorthand and not isinstance(value, Mapping):
            value = {spec.shorthand: value}
        return normalize(spec.fields, value, path)
    if kind == "map":
        if not isinstance(value, Mapping):
            return value, [FieldError(path, "must be a mapping")]
        out, errors = {}, []
        for k, v in value.items():
            out[str(k)], errs = _check(spec.map_values, v, _join(path, str(k)))
            errors += errs
        return out, errors
    if kind == "any":
        return value, check_plain_data(value, path)
    if kind == "bool":
        if isinstance(value, bool):
            return value, []
        return value, [FieldError(path, "must be true or false")]
    if kind in ("int", "float"):
        if isinstance(value, str):
            try:
                value = int(value) if kind == "int" else float(value)
            except ValueError:
                return value, [FieldError(path, _expected(spec))]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return value, [FieldError(path, _expected(spec))]
        if isinstance(value, float) and not math.isfinite(value):
            return value, [FieldError(path, _expected(spec) if kind == "int" else "must be a finite number")]
        if kind == "int":
            if isinstance(value, float):
                if not value.is_integer():
                    return value, [FieldError(path, _expected(spec))]
                value = int(value)
        else:
            value = float(value)
        # Compare before any float conversion: a huge int must report the bound, not lose precision.
        if spec.minimum is not None and value < spec.minimum:
            return value, [FieldError(path, f"must be at least {_num(spec.minimum)}")]
        if spec.maximum is not None and value > spec.maximum:
            return value, [FieldError(path, f"must be at most {_num(spec.maximum)}")]
        return value, []
    if kind == "str":
        if not isinstance(value, str) or not value.strip():
            return value, [FieldError(path, "must be a non-empty text")]
        value = value.strip()
        problem = text_problem(value, spec.max_length or DEFAULT_MAX_LENGTH)
        if problem is None and spec.pattern and not re.fullmatch(spec.pattern, value):
            problem = spec.pattern_help or f"must match {spec.pattern}"
        return value, [FieldError(path, problem)] if problem else []
    if kind == "enum":
        if value not in spec.choices:
            return value, [
                FieldError(
                    path,
                    f"must be one of {', '.join(map(str, spec.choices))}" + (" or auto" if spec.allow_auto else ""),
                )
            ]
        return value, []
    if kind == "ratio":
        if parse_ratio(value) is None:
            return value, [FieldError(path, 'must be a ratio such as "1:1" or "3:1"')]
        return value.replace(" ", ""), []
    raise AssertionError(f"unknown field kind {kind}")


def text_problem(text: str, max_length: int) -> str | None:
    """What is wrong with a user's text (too long, NUL, control character, lone surrogate), or None."""
    if len(text) > max_length:
        return f"must be at most {max_length} characters (it has {len(text):,})"
    bad = _BAD_TEXT.search(text)
    if bad:
        ch = ord(bad.group())
        what = "a NUL character" if ch == 0 else ("an unpaired surrogate" if ch >= 0xD800 else "a control character")
        return f"must not contain {what} (U+{ch:04X}, at character {bad.start() + 1})"
    return None


def check_plain_data(value: Any, path: str) -> list[FieldError]:  # noqa: C901
    """Errors for a free-form value that is not bounded plain data: nesting deeper than ANY_MAX_DEPTH, more than
    ANY_MAX_NODES values, texts (keys included) that are long or hold NUL / lone surrogates, non-finite or huge
    numbers, or types JSON has not. Iterative, so any depth is measured without recursion; stops at the first."""
    stack = [(value, path, 1)]
    nodes = 0
    while stack:
        v, p, depth = stack.pop()
        nodes += 1
        if nodes > ANY_MAX_NODES:
            return [FieldError(path, f"holds more than {ANY_MAX_NODES:,} values")]
        if depth > ANY_MAX_DEPTH:
            return [FieldError(p, f"is nested deeper than {ANY_MAX_DEPTH} levels")]
        if v is None or isinstance(v, bool):
            continue
        if isinstance(v, int):
            if abs(v) > ANY_MAX_INT:
                return [FieldError(p, "is a number too large")]
        elif isinstance(v, float):
            if not math.isfinite(v):
                return [FieldError(p, "must be a finite number")]
        elif isinstance(v, str):
            problem = text_problem(v, ANY_MAX_TEXT)
            if problem:
                return [FieldError(p, problem)]
        elif isinstance(v, (Mapping, list, tuple)) and len(v) > ANY_MAX_ITEMS:
            return [FieldError(p, f"holds {len(v):,} items; at most {ANY_MAX_ITEMS:,}")]
        elif isinstance(v, Mapping):
            for k, item in v.items():
                if not isinstance(k, str):
                    return [FieldError(p, f"keys must be text, not {type(k).__name__}")]
                problem = text_problem(k, 100)
                if problem:
                    return [FieldError(p, f"a key {problem}")]
                stack.append((item, _join(p, k), depth + 1))
        elif isinstance(v, (list, tuple)):
            for i, item in enumerate(v):
                stack.append((item, f"{p}[{i}]", depth + 1))
        else:
            return [
                FieldError(p, f"must be plain data (text, number, true/false, list, mapping), not {type(v).__name__}")
            ]
    return []


def _expected(spec: Field) -> str:
    word = "a whole number" if spec.kind == "int" else "a number"
    return f"must be {word}" + (' or "auto"' if spec.allow_auto else "")


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def json_schema(tree: Mapping[str, Field], title: str | None = None) -> dict:
    """JSON Schema (draft 2020-12) for a field tree."""
    schema = _object_schema(tree)
    if title:
        schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": title, **schema}
    return schema


def _object_schema(tree: Mapping[str, Field]) -> dict:
    return {
        "type": "object",
        "additionalProperties": False,
        "required": [n for n, f in tree.items() if f.required],
        "properties": {n: _field_schema(f) for n, f in tree.items()},
    }


def _field_schema(f: Field) -> dict:  # noqa: C901
    kind = f.kind
    if kind == "object":
        s = _object_schema(f.fields)
        if f.shorthand:
            inner = _field_schema(f.fields[f.shorthand])
            s = {"anyOf": [s, inner]}
    elif kind == "map":
        s = {"type": "object", "additionalProperties": _field_schema(f.map_values)}
    elif kind == "any":
        s = {}
    elif kind == "bool":
        s = {"type": "boolean"}
    elif kind in ("int", "float"):
        s = {"type": "integer" if kind == "int" else "number"}
        if f.minimum is not None:
            s["minimum"] = f.minimum
        if f.maximum is not None:
            s["maximum"] = f.maximum
    elif kind == "str":
        s = {"type": "string", "minLength": 1, "maxLength": f.max_length or DEFAULT_MAX_LENGTH}
        if f.pattern:
            s["pattern"] = f"^(?:{f.pattern})$"
    elif kind == "enum":
        s = {"enum": list(f.choices)}
    elif kind == "ratio":
        s = {"type": "string", "pattern": _RATIO.pattern}
    else:  # pragma: no cover
        raise AssertionError(kind)
    if f.allow_auto:
        s = {"anyOf": [s, {"const": "auto"}]}
    if f.nullable:
        s = {"anyOf": [s, {"type": "null"}]}
    if f.help:
        s["description"] = f.help
    if not f.required and f.default is not None and f.kind not in ("object", "map"):
        s["default"] = f.default
    return s
