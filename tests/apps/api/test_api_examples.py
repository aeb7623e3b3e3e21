"""The schema's examples are real and cannot drift from the schema.

GIVEN docs/openapi.yaml (generated from the code, test_schema.py) with the examples recorded from the server
      (apps/api/examples.json, written by tests/apps/api/record_examples.py)
WHEN each example is validated (jsonschema, draft 2020-12) against the schema of the body it illustrates
THEN every one passes, and every operation with a JSON request body or a JSON answer has an example of it,
     except the answers listed in NO_EXAMPLE with the reason.
"""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest
import yaml

SCHEMA = yaml.safe_load((Path(__file__).resolve().parents[3] / "docs" / "openapi.yaml").read_text())
JSON = "application/json"

# (operationId, answer code) with no example, and why.
NO_EXAMPLE = {
    ("spec_schema_retrieve", "200"): "the answer is docs/spec.schema.json itself, published beside the schema",
}


def _json_schema(node):
    """OpenAPI 3.0's dialect as JSON Schema: `nullable` becomes a null alternative."""
    if isinstance(node, list):
        return [_json_schema(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _json_schema(v) for k, v in node.items() if k not in ("nullable", "example", "examples")}
    if node.get("nullable"):
        if "type" in out and "allOf" not in out and "$ref" not in out:
            out["type"] = [out["type"], "null"]
            if "enum" in out:
                out["enum"] = [*out["enum"], None]
        else:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


COMPONENTS = _json_schema(SCHEMA["components"])


def _validator(schema: dict) -> jsonschema.Draft202012Validator:
    root = {"$schema": "https://json-schema.org/draft/2020-12/schema", "components": COMPONENTS, **_json_schema(schema)}
    return jsonschema.Draft202012Validator(root, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def _bodies():
    """(operationId, 'request' or an answer code, its JSON media type object) for every JSON body."""
    for item in SCHEMA["paths"].values():
        for op in item.values():
            content = op.get("requestBody", {}).get("content", {})
            if JSON in content:
                yield op["operationId"], "request", content
            for code, answer in op["responses"].items():
                if JSON in answer.get("content", {}):
                    yield op["operationId"], code, answer["content"]


EXAMPLES = [
    pytest.param(media["schema"], name, example["value"], id=f"{op_id}-{where}-{name}")
    for op_id, where, content in _bodies()
    for media in [content[JSON]]
    for name, example in media.get("examples", {}).items()
]


def test_there_are_examples_to_check():
    assert len(EXAMPLES) > 60


@pytest.mark.parametrize("schema, name, value", EXAMPLES)
def test_every_example_matches_the_schema_of_its_body(schema, name, value):
    errors = sorted(_validator(schema).iter_errors(value), key=lambda e: list(e.absolute_path))
    assert not errors, [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"[:300] for e in errors[:5]]


def test_every_json_request_and_only_json_success_answer_has_an_example():
    missing = []
    for op_id, where, content in _bodies():
        # error answers share one shape (component Error); a file download's 200 lists JSON among file types
        only_json = set(content) == {JSON}
        if where != "request" and (not where.startswith("2") or not only_json):
            continue
        if not content[JSON].get("examples") and (op_id, where) not in NO_EXAMPLE:
            missing.append(f"{op_id} {where}")
    assert not missing, f"record them (tests/apps/api/record_examples.py) or list why not in NO_EXAMPLE: {missing}"


def test_a_bad_example_would_be_caught():
    schema = {"$ref": "#/components/schemas/JobOut"}
    job = next(v for s, n, v in (p.values for p in EXAMPLES) if s == schema)
    assert not list(_validator(schema).iter_errors(job))
    assert list(_validator(schema).iter_errors({**job, "status": "paused"}))
    assert list(_validator(schema).iter_errors({**job, "percent": "41"}))
