"""A small declarative schema: one field tree validates specs and emits JSON Schema.

The web form, the REST API and the CLI all feed a plain dict through `normalize()`; the
published `docs/spec.schema.json` is `json_schema()` of the same tree, so the three can
never disagree about what a field accepts.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from .errors import FieldError

REQUIRED = object()
# Each term a positive number: at least one non-zero digit (so "0:1" and "1:0.0" never match).
_TERM = r"(?=[\d.]*[1-9])\d+(?:\.\d+)?"
_RATIO = re.compile(rf"^\s*({_TERM})\s*:\s*({_TERM})\s*$")


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
    fields: Mapping[str, "Field"] = field(default_factory=dict)
    values: "Field | None" = None  # for kind="map": the field every value must satisfy
    shorthand: str | None = None  # object given as a scalar fills this one sub-field

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


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
            errors.append(FieldError(_join(path, str(key)), f"unknown field (known: {', '.join(sorted(tree))})"))
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


def _check(spec: Field, value: Any, path: str) -> tuple[Any, list[FieldError]]:
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
            out[str(k)], errs = _check(spec.values, v, _join(path, str(k)))
            errors += errs
        return out, errors
    if kind == "any":
        return value, []
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
        return value.strip(), []
    if kind == "enum":
        if value not in spec.choices:
            return value, [FieldError(path, f"must be one of {', '.join(map(str, spec.choices))}" + (" or auto" if spec.allow_auto else ""))]
        return value, []
    if kind == "ratio":
        if parse_ratio(value) is None:
            return value, [FieldError(path, 'must be a ratio such as "1:1" or "3:1"')]
        return value.replace(" ", ""), []
    raise AssertionError(f"unknown field kind {kind}")


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


def _field_schema(f: Field) -> dict:
    kind = f.kind
    if kind == "object":
        s = _object_schema(f.fields)
        if f.shorthand:
            inner = _field_schema(f.fields[f.shorthand])
            s = {"anyOf": [s, inner]}
    elif kind == "map":
        s = {"type": "object", "additionalProperties": _field_schema(f.values)}
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
        s = {"type": "string", "minLength": 1}
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
