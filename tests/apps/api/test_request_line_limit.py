"""Every request the schema admits fits gunicorn's request line (gunicorn.conf.py limit_request_line): a longer
one is refused by gunicorn with a 414 no operation declares.

GIVEN docs/openapi.yaml and gunicorn.conf.py
WHEN each operation's longest request line is worked out from its declared parameters (every query parameter
     at its longest, every character percent-encoded, path parameters at their longest)
THEN it fits the limit; and gunicorn itself answers such a request (the BOM download with every spares input at
     its maxLength) with the app's answer, not a 414
"""

from __future__ import annotations

import http.client
import re
import runpy
from pathlib import Path
from urllib.parse import urlencode

import pytest
import yaml

from apps.api.spares_params import SPARES_MAX_LENGTH
from tests.apps.api.gunicorn_server import ROOT, gunicorn_app, shared_database_url

SCHEMA = yaml.safe_load((ROOT / "docs" / "openapi.yaml").read_text())
LIMIT = runpy.run_path(str(ROOT / "gunicorn.conf.py"))["limit_request_line"]
UNBOUNDED_STRING = 10_000  # a string parameter with no maxLength counts as this (and fails)
# A query parameter too long for any request line, left to its owner: the as-built upload's user_map (up to
# 20,000 characters) belongs in the request body (reported to the lead with issue 40).
KNOWN_TOO_LONG = {("revisions_asbuilt_upload", "user_map")}
# Path parameters the schema gives no maxLength: a username (Django's User.username, 150), a configuration file's
# or a preset's name (a few dozen characters; 150 is ample).
PATH_BOUNDS = {"username": 150, "name": 150, "key": 150}


def _longest(schema: dict) -> int:
    """Characters of the longest value a parameter's schema admits, as sent in a URL."""
    if "enum" in schema:
        return 3 * max(len(str(e)) for e in schema["enum"])
    kind = schema.get("type")
    if kind == "integer":
        return max(len(str(schema.get(b, -(2**63)))) for b in ("minimum", "maximum"))
    if kind == "boolean":
        return len("false")
    if schema.get("format") == "uuid":
        return 36
    if schema.get("format") == "date-time":
        return 3 * len("2026-12-04T16:04:05.123456+00:00")
    if "maxLength" in schema:
        return 3 * schema["maxLength"]
    m = re.search(r"\{(?:\d+,)?(\d+)\}\$$", schema.get("pattern", ""))
    return 3 * int(m.group(1)) if m else UNBOUNDED_STRING


def _longest_lines():
    for path, item in SCHEMA["paths"].items():
        for method, op in item.items():
            target, query = path, 0
            for p in op.get("parameters", []):
                if (op["operationId"], p["name"]) in KNOWN_TOO_LONG:
                    continue
                n = _longest(p.get("schema", {}))
                if p["in"] == "path" and p["name"] in PATH_BOUNDS:
                    n = 3 * PATH_BOUNDS[p["name"]]
                if p["in"] == "path":
                    target = target.replace("{" + p["name"] + "}", "x" * n)
                elif p["in"] == "query":
                    query += len(p["name"]) + 2 + n  # & or ?, =
            yield op["operationId"], len(f"{method.upper()} {target} HTTP/1.1") + query


def test_every_operations_longest_request_line_fits_gunicorns_limit():
    lines = dict(_longest_lines())
    too_long = {op: n for op, n in lines.items() if n > LIMIT}
    assert too_long == {}, f"request lines over gunicorn's limit_request_line {LIMIT}"
    assert max(lines.values()) > 4094  # gunicorn's default would refuse some: the raised limit is needed


def _longest_rule(values: tuple[str, ...]) -> str:
    """A valid category:value text of exactly SPARES_MAX_LENGTH characters (":" "," "*" are each sent as 3)."""
    text = "transceiver:" + values[0]
    i = 1
    while len(text) + len(item := f",{'*' if i % 2 else 'fiber'}:{values[i % len(values)]}") <= SPARES_MAX_LENGTH - 5:
        text, i = text + item, i + 1
    return text + "," + "f" * (SPARES_MAX_LENGTH - len(text) - 3) + ":1"


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_gunicorn_answers_a_query_at_every_spares_inputs_maxlength(tmp_path, users):
    if shared_database_url() is None:
        pytest.skip("the test database is in-memory SQLite, which gunicorn's process cannot open")
    from apps.api.auth import token_create
    from apps.designs.services import design_create
    from tests.apps.api.conftest import SMALL_SPEC, compute_now

    design = design_create(user=users.alice, spec=SMALL_SPEC)
    compute_now(design, users.alice)
    _, key = token_create(user=users.alice, name="tests")
    params = {
        "spares_rule": "failure-rate",
        "spares_percent": _longest_rule(("1000.000", "0.125")),
        "spares_afr_percent": _longest_rule(("2.5", "1")),
        "spares_replenish_hours": _longest_rule(("720", "2160")),
        "spares_service_level_percent": _longest_rule(("95", "99.9")),
        "page_size": "letter",
        "csv": "raw",
    }
    assert all(len(v) == SPARES_MAX_LENGTH for k, v in params.items() if k.startswith("spares_") and k != "spares_rule")
    rev = f"/api/v1/designs/{design.pk}/revisions/1/downloads/bom.pdf"
    valid = f"{rev}?{urlencode(params)}"
    # what the schema admits at its longest: every character of the unpatterned inputs sent as 3
    encoded = f"{rev}?{urlencode({**params, **{k: ':,' * (SPARES_MAX_LENGTH // 2) for k in params if k.startswith('spares_') and k not in ('spares_rule', 'spares_percent')}})}"
    assert len(f"GET {encoded} HTTP/1.1") > 4094  # what gunicorn's default refused

    with gunicorn_app(Path(tmp_path)) as (host, port):
        answers = []
        for target in (valid, encoded):
            conn = http.client.HTTPConnection(host, port, timeout=60)
            conn.request("GET", target, headers={"Authorization": f"Token {key}"})
            answer = conn.getresponse()
            answers.append((answer.status, answer.getheader("Content-Type"), answer.read()))
            conn.close()
    (status, _, body), (bad_status, bad_type, bad_body) = answers
    assert status == 200 and body.startswith(b"%PDF"), (status, body[:300])
    assert (bad_status, bad_type) == (400, "application/json"), (bad_status, bad_body[:300])
    assert b"spares_afr_percent" in bad_body
