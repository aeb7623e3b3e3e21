"""Request and response examples of the JSON operations, recorded from the server itself.

apps/api/examples.json holds, per operationId, a request body and the answers the API really gave to it: it is
written by tests/apps/api/record_examples.py, which drives the API through its test client against a computed
design (lists cut to their first items, so an example stays readable). Nothing in it is typed by hand, so its
figures are the server's; tests/apps/api/test_api_examples.py validates each one against the schema of the body
it illustrates.
"""

from __future__ import annotations

import json
from pathlib import Path

from drf_spectacular.drainage import warn

EXAMPLES = Path(__file__).with_name("examples.json")
JSON = "application/json"


def load_examples() -> dict:
    return json.loads(EXAMPLES.read_text(encoding="utf-8")) if EXAMPLES.exists() else {}


def _attach(content: dict | None, value, where: str, summary: str, sent=None) -> None:
    if not content or JSON not in content:
        warn(f"examples.json: {where} has no {JSON} body to illustrate")
        return
    example = {"summary": summary, "value": value}
    if sent is not None:
        example["description"] = f"The answer to this body: `{json.dumps(sent)}`"
    content[JSON]["examples"] = {"recorded": example}


def add_examples(result, generator, request, public):
    """POSTPROCESSING_HOOK: each recorded example on its operation's request body or answer."""
    operations = {
        op["operationId"]: op
        for item in result.get("paths", {}).values()
        for op in item.values()
        if "operationId" in op
    }
    for op_id, recorded in load_examples().items():
        op = operations.get(op_id)
        if op is None:
            warn(f"examples.json: no operation {op_id}")
            continue
        if "request" in recorded:
            content = op.get("requestBody", {}).get("content")
            _attach(content, recorded["request"], f"{op_id} request", recorded["summary"])
        for code, answer in recorded.get("responses", {}).items():
            content = op.get("responses", {}).get(code, {}).get("content")
            # an answer to another body than the request example (an error's) says which
            sent = answer.get("request") if answer.get("request") != recorded.get("request") else None
            _attach(content, answer["value"], f"{op_id} {code}", answer["summary"], sent)
    return result
