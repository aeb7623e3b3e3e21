"""Conditional requests as the schema declares them: every operation is probed with the validator headers, so a
view that honours one the schema does not declare is found whichever view it is.

GIVEN the schemathesis world (a computed design shared with bob, a stored bom.csv export, a custom part, a price
      list, a measurement upload; destructive operations on objects of their own)
WHEN every GET operation is sent `If-None-Match: *` (any current representation matches), and every write
     `If-Match: "stale"` (an ETag no object has)
THEN exactly the operations that declare If-None-Match and 304 answer 304 (with the ETag the schema declares),
     exactly those that declare If-Match and 412 answer 412, and a conditional read of each declared operation
     with its own ETag answers 304 and with another ETag 200; every answer is also held against the schema by the
     directory's recorder (tests/apps/api/contract_recorder.py)
"""

from __future__ import annotations

import re

import pytest
import yaml

from tests.apps.api.conftest import token_client
from tests.apps.api.contract_recorder import SCHEMA_FILE
from tests.apps.api.schemathesis_world import build_world

pytestmark = pytest.mark.django_db

SCHEMA = yaml.safe_load(SCHEMA_FILE.read_text())


def _operations(methods: tuple[str, ...]):
    for path, item in SCHEMA["paths"].items():
        for method, op in item.items():
            if method in methods:
                yield path, method, op


def _declares(op: dict, header: str, status: str) -> bool:
    return any(p["name"] == header for p in op.get("parameters", [])) and status in op["responses"]


def _url(path: str, op: dict, world: dict) -> tuple[str, dict]:
    pins = {**world["common"], **world["operations"].get(op["operationId"], {})}
    url = re.sub(r"\{(\w+)\}", lambda m: str(pins.get(f"path.{m.group(1)}", 1)), path)  # unpinned: 404
    query = {
        p["name"]: pins[f"query.{p['name']}"]
        for p in op.get("parameters", [])
        if p["in"] == "query" and p.get("required") and f"query.{p['name']}" in pins
    }
    return url, query


def _example_body(op: dict):
    """The operation's recorded request example (apps/api/examples.json): a body it accepts, so only If-Match decides."""
    content = op.get("requestBody", {}).get("content", {}).get("application/json", {})
    examples = list(content.get("examples", {}).values())
    return examples[0]["value"] if examples else {}


@pytest.fixture
def world(users, settings):
    settings.API_THROTTLE_RATE = "100000/min"
    return build_world(users.alice, users.bob)


def test_exactly_the_declared_reads_answer_304_and_the_declared_writes_412(users, world):
    alice = token_client(users.alice)
    answered_304, answered_412 = set(), set()
    for path, _method, op in _operations(("get",)):
        url, query = _url(path, op, world)
        r = alice.get(url, query, HTTP_IF_NONE_MATCH="*")
        if r.status_code == 304:
            answered_304.add(op["operationId"])
            assert r.has_header("ETag"), op["operationId"]
    for path, method, op in _operations(("put", "patch", "delete", "post")):
        url, query = _url(path, op, world)
        if method == "post" and not _declares(op, "If-Match", "412"):
            continue  # a POST that takes no If-Match would create something; none honours it (see below)
        r = getattr(alice, method)(url, _example_body(op), format="json", HTTP_IF_MATCH='"stale"')
        if r.status_code == 412:
            answered_412.add(op["operationId"])

    reads = {op["operationId"] for _, _, op in _operations(("get",)) if _declares(op, "If-None-Match", "304")}
    writes = {
        op["operationId"]
        for _, _, op in _operations(("put", "patch", "delete", "post"))
        if _declares(op, "If-Match", "412")
    }
    assert answered_304 == reads
    assert {"revisions_summary", "revisions_bom", "revisions_links", "revisions_cables", "jobs_file"} <= reads
    assert answered_412 == writes


@pytest.mark.parametrize(
    "op",
    ["revisions_summary", "revisions_bom", "revisions_links", "revisions_cables", "revisions_download", "jobs_file"],
)
def test_a_declared_conditional_read_revalidates_with_its_own_etag(users, world, op):
    alice = token_client(users.alice)
    path, _, declared = next((p, m, o) for p, m, o in _operations(("get",)) if o["operationId"] == op)
    url, query = _url(path, declared, world)
    first = alice.get(url, query)
    assert first.status_code == 200 and first.has_header("ETag"), (op, first.status_code)
    assert "ETag" in declared["responses"]["200"]["headers"] and "ETag" in declared["responses"]["304"]["headers"]
    again = alice.get(url, query, HTTP_IF_NONE_MATCH=first["ETag"])
    other = alice.get(url, query, HTTP_IF_NONE_MATCH='"another"')
    assert (again.status_code, again["ETag"], again.content) == (304, first["ETag"], b"")
    assert other.status_code == 200
