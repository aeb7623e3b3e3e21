"""JSON Schema (draft 2020-12, what the engine publishes) said in OpenAPI 3.0's dialect.

The engine's field tree emits one JSON Schema (docs/spec.schema.json); the API serves the same rules as an OpenAPI
component rather than a hand-written copy. OpenAPI 3.0 has no `const`, no `{"type": "null"}` and no empty
`required`, and a generator needs a `type` beside an `enum`: those are the only differences.
"""

from __future__ import annotations

from typing import Any

_NULL = {"type": "null"}
_DROPPED = ("$schema",)


def _enum_type(values: list) -> str | None:
    kinds = {type(v) for v in values}
    if kinds == {str}:
        return "string"
    if kinds == {int}:
        return "integer"
    if kinds <= {int, float}:
        return "number"
    if kinds == {bool}:
        return "boolean"
    return None


def openapi_schema(schema: Any) -> Any:
    """The OpenAPI 3.0 schema accepting exactly what the JSON Schema `schema` accepts."""
    if not isinstance(schema, dict):
        return schema
    out = {k: v for k, v in schema.items() if k not in _DROPPED}
    if "const" in out:
        out["enum"] = [out.pop("const")]
    if "enum" in out and "type" not in out:
        kind = _enum_type(out["enum"])
        if kind:
            out["type"] = kind
    nullable = False
    if "anyOf" in out:
        members = [m for m in out["anyOf"] if m != _NULL]
        nullable = len(members) < len(out["anyOf"])
        members = [openapi_schema(m) for m in members]
        if len(members) == 1:
            # the member's rules, the wrapper's annotations (description, default)
            del out["anyOf"]
            out = {**members[0], **out}
        else:
            out["anyOf"] = members
    for key in ("properties", "patternProperties"):
        if key in out:
            out[key] = {name: openapi_schema(sub) for name, sub in out[key].items()}
    for key in ("additionalProperties", "items"):
        if isinstance(out.get(key), dict):
            out[key] = openapi_schema(out[key])
    if out.get("required") == []:
        del out["required"]
    if nullable:
        _allow_null(out)
    return out


def _allow_null(schema: dict) -> None:
    """OpenAPI 3.0's `nullable` only counts beside a `type`: on the schema if it has one, else on each member
    (a schema with neither already accepts null)."""
    if "type" in schema or "enum" in schema:
        schema["nullable"] = True
        if "enum" in schema and None not in schema["enum"]:
            schema["enum"] = [*schema["enum"], None]
    for member in schema.get("anyOf", []):
        _allow_null(member)
