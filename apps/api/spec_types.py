"""JSON types of a spec sent to the API, checked as its published JSON Schema says (docs/spec.schema.json).

The engine's field tree (engine/spec.py SPEC_FIELDS) also reads the web form and YAML, where a number arrives as
text, so it accepts "3" for 3. A JSON client must send JSON numbers: here "3" and 3.0 for an integer field (and "3"
for a number) are refused with the field's path, as docs/api.md states and the schema declares.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.errors import FieldError, SpecError
from engine.schema import Field
from engine.spec import SPEC_FIELDS


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _scalar(spec: Field, value: Any, path: str) -> list[FieldError]:
    if value is None or (spec.allow_auto and value == "auto"):
        return []
    if spec.kind == "int" and (isinstance(value, bool) or not isinstance(value, int)):
        return [FieldError(path, "must be a JSON integer (not text, not 3.0)")]
    if spec.kind == "float" and (isinstance(value, bool) or not isinstance(value, (int, float))):
        return [FieldError(path, "must be a JSON number (not text)")]
    return []


def _walk(tree: Mapping[str, Field], data: Any, path: str) -> list[FieldError]:
    if not isinstance(data, Mapping):
        return []  # the engine reports the shape
    errors: list[FieldError] = []
    for name, value in data.items():
        spec = tree.get(name)
        if spec is not None:
            errors += _field(spec, value, _join(path, str(name)))
    return errors


def _field(spec: Field, value: Any, path: str) -> list[FieldError]:
    if spec.kind == "object":
        if spec.shorthand and not isinstance(value, Mapping):
            return _field(spec.fields[spec.shorthand], value, path)
        return _walk(spec.fields, value, path)
    if spec.kind == "map" and isinstance(value, Mapping) and spec.values is not None:
        return [e for k, v in value.items() for e in _field(spec.values, v, _join(path, str(k)))]
    if spec.kind in ("int", "float"):
        return _scalar(spec, value, path)
    return []


def spec_json_type_check(spec: Any) -> None:
    """SpecError (400 invalid_spec) at each number field whose JSON value has the wrong type."""
    errors = _walk(SPEC_FIELDS, spec, "")
    if errors:
        raise SpecError(errors)
