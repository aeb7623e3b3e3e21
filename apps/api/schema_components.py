"""Typed components for the JSON objects the serializers only know as dicts: each built from the engine's own
schema (never a hand-kept copy) and put in place of the free-form object by the schema hook (apps/api/schema.py).

A request component says no more than the server checks before it looks at the catalog and the sizing rules;
what only those can refuse is an allowance (docs/api.md, "Schema conformance").
"""

from __future__ import annotations

from collections.abc import Callable

from engine.qos.schema import qos_policy_json_schema
from engine.spec import spec_json_schema
from engine.summary_schema import summary_json_schema

from .schema_dialect import openapi_schema


def design_spec() -> dict:
    """The published spec schema (docs/spec.schema.json) in OpenAPI's dialect."""
    schema = openapi_schema(spec_json_schema())
    schema.pop("title", None)  # a generator would name the model after it
    schema["description"] = "A design spec: the same rules as the published JSON Schema (GET /api/v1/spec-schema/)."
    return schema


def design_spec_request() -> dict:
    """A spec sent with a design create or update: its `name` may come from the body's `name` instead."""
    schema = design_spec()
    schema["required"] = [r for r in schema["required"] if r != "name"]
    schema["properties"]["name"] = {
        **schema["properties"]["name"],
        "description": "Design name; required unless the request body's `name` gives it.",
    }
    return schema


def _component(json_schema: dict) -> dict:
    schema = openapi_schema(json_schema)
    schema.pop("title", None)  # a generator would name the model after it
    return schema


def revision_summary() -> dict:
    return _component(summary_json_schema())


def qos_policy() -> dict:
    return _component(qos_policy_json_schema(effective=True))


def qos_policy_request() -> dict:
    return _component(qos_policy_json_schema(effective=False))


COMPONENTS: dict[str, Callable[[], dict]] = {
    "DesignSpec": design_spec,
    "DesignSpecRequest": design_spec_request,
    "RevisionSummary": revision_summary,
    "QosPolicy": qos_policy,
    "QosPolicyRequest": qos_policy_request,
}

# (component, property) -> the typed component that replaces its free-form object, and the description it gets
# when its serializer field gives none
TYPED_PROPERTIES: dict[tuple[str, str], tuple[str, str]] = {
    ("DesignDetailOut", "spec"): ("DesignSpec", "The design's spec, normalized: every default filled in."),
    ("PresetDetailOutput", "spec"): ("DesignSpec", "The preset's spec as written (defaults left out)."),
    ("RevisionDetailOutput", "spec"): ("DesignSpec", "The spec this revision was computed from."),
    ("DesignListInputRequest", "spec"): ("DesignSpecRequest", "A spec."),
    ("PatchedDesignDetailInputRequest", "spec"): ("DesignSpecRequest", "Replace the spec."),
    ("QosOut", "policy"): ("QosPolicy", "The effective policy."),
    ("QosOut", "stored"): ("QosPolicyRequest", "What the spec stores."),
    ("DesignQosInputRequest", "policy"): ("QosPolicyRequest", "The new policy."),
}

# operationId -> the typed component of its 200 answer
TYPED_RESPONSES: dict[str, str] = {"revisions_summary": "RevisionSummary"}

_ANNOTATIONS = ("description", "nullable", "readOnly", "writeOnly")


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def add_typed_components(result: dict) -> None:
    """Add COMPONENTS and point TYPED_PROPERTIES and TYPED_RESPONSES at them; a name that no longer exists is
    an error here rather than a silently untyped object."""
    schemas = result["components"]["schemas"]
    for name, build in COMPONENTS.items():
        schemas[name] = build()
    for (component, prop), (target, description) in TYPED_PROPERTIES.items():
        try:
            old = schemas[component]["properties"][prop]
        except KeyError:
            raise LookupError(f"schema hook: no property {component}.{prop} to type as {target}") from None
        kept = {"description": description, **{k: old[k] for k in _ANNOTATIONS if k in old}}
        schemas[component]["properties"][prop] = {"allOf": [_ref(target)], **kept}
    found = set()
    for item in result.get("paths", {}).values():
        for op in item.values():
            target = TYPED_RESPONSES.get(op.get("operationId", ""))
            if target:
                op["responses"]["200"]["content"]["application/json"]["schema"] = _ref(target)
                found.add(op["operationId"])
    missing = set(TYPED_RESPONSES) - found
    if missing:
        raise LookupError(f"schema hook: no operation {sorted(missing)} to type")
