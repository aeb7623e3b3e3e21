"""schemathesis with every check (`st run --checks all`) against the live test server.

GIVEN the app on a live server, a user with a token and the objects of tests/apps/api/schemathesis_world.py
      (every path parameter pinned to one of them, so operations answer their success codes too)
WHEN schemathesis's CLI runs all its phases with `--checks all` on the schema the server serves
THEN it ends with 0 failures, no operation saw only 401/403 and only the delete operations ran out of objects.

The allowances (ALLOWANCES) are rules JSON Schema cannot express, each with its reason: they only widen what
`positive_data_acceptance` accepts as an answer to schema-valid data for the operations named. REFUSALS add 412
to the answers `negative_data_rejection` counts as refusing schema-invalid data, for the writes taking If-Match.
Both are listed in docs/api.md ("Schema conformance").

Examples per operation: SCHEMATHESIS_EXAMPLES (default 4; the coverage phase adds its own cases). The run takes
a few minutes on a busy machine; `slow`.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.apps.api.schemathesis_world import REFUSALS, build_world

pytestmark = [pytest.mark.slow, pytest.mark.integration]

EXAMPLES = int(os.environ.get("SCHEMATHESIS_EXAMPLES", "4"))

# operationId -> (extra statuses positive_data_acceptance accepts, why JSON Schema cannot say it)
ALLOWANCES: dict[str, tuple[list[int], str]] = {}


def _allow(ops: list[str], statuses: list[int], why: str) -> None:
    for op in ops:
        previous = ALLOWANCES.get(op, ([], ""))
        ALLOWANCES[op] = (sorted({*previous[0], *statuses}), "; ".join(filter(None, [previous[1], why])))


_allow(
    [
        "designs_update",
        "designs_delete",
        "designs_qos_update",
        "designs_shares_put",
        "designs_shares_delete",
        "parts_replace",
        "parts_delete",
        "price_list_replace",
    ],
    [412],
    "If-Match must name the object's current ETag: state, not syntax",
)
_allow(
    ["designs_create", "designs_compute"],
    [422],
    "an Idempotency-Key already used with another body is a 422: state, not syntax",
)
_allow(
    ["designs_create", "designs_update"],
    [400],
    "a spec must fit the catalog (server, switch keys) and the topology's sizing rules (feasibility), and have a "
    "name: its own or the body's (DesignSpecRequest leaves it optional)",
)
_allow(
    ["designs_qos_update"],
    [400],
    "a QoS policy's cross-field rules (a DSCP in one class, a weight for a DWRR class) and the design's switches",
)
_allow(["parts_create", "parts_replace"], [400], "a part's body must load with the engine's catalog loaders")
_allow(
    ["revisions_measurements_upload"],
    [400],
    "an upload must be UTF-8 CSV with the test sheet's header and at least one valid row",
)
_allow(
    ["designs_list", "revisions_list", "tokens_list", "parts_list", "jobs_list", "revisions_links", "revisions_cables"],
    [400],
    "a cursor is opaque: only one the list gave out is valid",
)
_allow(
    [
        "revisions_links",
        "revisions_cables",
        "revisions_bom",
        "revisions_download",
        "revisions_exports_create",
        "designs_order_delta",
        "designs_change_order_csv",
        "designs_change_order_pdf",
        "revisions_order",
        "revisions_mark_ordered",
        "designs_bom_diff",
    ],
    [400],
    "a row, rack, category or revision number must exist in the design; an option must apply to the file kind",
)
_allow(
    ["designs_lead_times_update", "price_list_replace"],
    [400],
    "part numbers (object keys) of 1-64 characters: OpenAPI 3.0 has no propertyNames",
)

_allow(
    ["revisions_spares"],
    [400],
    "the spares_* inputs are one number or category:value pairs, each value bounded (a pattern cannot bound it)",
)
_allow(
    ["revisions_asbuilt_upload", "revisions_counters_import"],
    [400],
    "the file must be the named tool's output, not empty, naming devices and ports of the design",
)
_allow(
    ["revisions_utilization_import"],
    [400],
    "a snapshot must be the named format's object and name ports of the design",
)
_allow(
    ["alternatives_create"],
    [400],
    "rules across fields: a budget needs a price list, a workload must fit the GPU count, a server model must have"
    " the technology's ports",
)

# operationId -> (extra statuses negative_data_rejection counts as a refusal, why): widen only what counts as
# refusing schema-invalid data, never what counts as accepting it
NEGATIVE_EXPECTED: list = [400, 401, 403, 404, 405, 406, 409, 415, 422, 428, 429, "5xx"]

# tokens_create: a token may not create tokens (403 by design; test_auth_tokens.py covers the browser path)
EXCLUDED = ["tokens_create"]


def _toml(world: dict) -> str:
    def val(v) -> str:
        return json.dumps(v)

    lines = ["[parameters]", *(f'"{k}" = {val(v)}' for k, v in world["common"].items())]
    per_op: dict[str, dict] = {op: {"parameters": params} for op, params in world["operations"].items()}
    for op, (statuses, _why) in ALLOWANCES.items():
        per_op.setdefault(op, {})["statuses"] = statuses
    for op, (statuses, _why) in REFUSALS.items():
        per_op.setdefault(op, {})["refusals"] = statuses
    for op, conf in per_op.items():
        lines += ["", "[[operations]]", f'include-operation-id = "{op}"']
        if "parameters" in conf:
            lines += ["[operations.parameters]", *(f'"{k}" = {val(v)}' for k, v in conf["parameters"].items())]
        if "statuses" in conf:
            expected = ["2xx", "3xx", 401, 403, 404, 409, 429, *conf["statuses"]]
            lines += ["[operations.checks.positive_data_acceptance]", f"expected-statuses = {val(expected)}"]
        if "refusals" in conf:
            refused = [*NEGATIVE_EXPECTED, *conf["refusals"]]
            lines += ["[operations.checks.negative_data_rejection]", f"expected-statuses = {val(refused)}"]
    return "\n".join(lines) + "\n"


def test_schemathesis_with_every_check_finds_nothing(live_server, transactional_db, users, settings, tmp_path):
    from apps.api.auth import token_create

    settings.API_THROTTLE_RATE = "1000000/min"  # the run is not testing the rate limit
    settings.JOB_MAX_QUEUED_PER_USER = 100000  # nor the job quota (no worker runs the computes it starts)
    world = build_world(users.alice, users.bob)
    _, key = token_create(user=users.alice, name="schemathesis")
    config = tmp_path / "schemathesis.toml"
    config.write_text(_toml(world))
    command = [
        str(Path(sys.executable).parent / "st"),
        "--config-file",
        str(config),
        "run",
        f"{live_server.url}/api/schema/?format=json",
        "--checks",
        "all",
        "-H",
        f"Authorization: Token {key}",
        "-n",
        str(EXAMPLES),
        "--generation-deterministic",
        "--no-color",
        "--request-timeout",
        "60",
        *(arg for op in EXCLUDED for arg in ("--exclude-operation-id", op)),
    ]
    run = subprocess.run(command, capture_output=True, text=True, timeout=1500, cwd=tmp_path)
    out = run.stdout + run.stderr
    saved = Path(os.environ.get("SCHEMATHESIS_OUTPUT", tmp_path / "schemathesis.txt"))
    saved.write_text(out)
    summary = out[out.rfind("=== SUMMARY") :] if "=== SUMMARY" in out else out[-4000:]
    print(summary)  # the case counts, for the report
    assert run.returncode == 0, f"schemathesis failed (its whole output: {saved}):\n{out[:20000]}"
    assert re.search(r"\d+ generated", out), summary
    assert "returned only 401/403" not in out, summary
    assert "mostly returned 429" not in out, summary
    missing = re.search(r"Missing test data:.*?\n\n(.*?)\n\n", out, re.S)
    if missing:
        starved = [line for line in missing.group(1).splitlines() if line.strip().startswith("- ")]
        assert all(" DELETE " in f" {line.strip()[2:]}" for line in starved), summary
