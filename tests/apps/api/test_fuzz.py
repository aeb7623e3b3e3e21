"""Property-based fuzzing of the whole API against the schema it serves (schemathesis, in-process WSGI).

GIVEN the live schema from /api/schema/, alice's token and the objects of tests/apps/api/schemathesis_world.py
      (a computed design shared with bob, a custom part, a price list, a finished export job, a measurement upload,
      objects of their own for the deletes)
WHEN schemathesis generates requests for every operation (valid and invalid data; three cases in four have every
     path parameter, and the order delta's revisions, pinned to those objects so the success paths run too)
THEN no answer is a server error, and every answer passes every check schemathesis has except positive-data
     acceptance (a rule JSON Schema cannot state may refuse valid data: test_schemathesis_all_checks.py runs that
     one with its allowances): status code, content type, headers, body, negative data refused, required headers,
     methods; and every operation is reached with a 2xx at least once.

Examples per operation are bounded (FUZZ_EXAMPLES) so the run stays well under a minute.
"""

from __future__ import annotations

import hashlib
import os

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import CHECKS as REGISTERED
from schemathesis.checks import not_a_server_error
from schemathesis.core.media_types import YAML_MEDIA_TYPES
from schemathesis.specs.openapi.checks import negative_data_rejection

from tests.apps.api.conftest import token_client
from tests.apps.api.schemathesis_world import REFUSALS, build_world

FUZZ_EXAMPLES = int(os.environ.get("API_FUZZ_EXAMPLES", "12"))  # raise it for a deeper run


# every YAML media type: schemathesis takes the first registered one of the family
@schemathesis.deserializer(*YAML_MEDIA_TYPES)
def yaml_stream(ctx, response):
    """netbox/device-types.yaml is a stream of YAML documents (one per device type, NetBox's device-type import),
    which schemathesis's own YAML reader refuses; the schema declares the file a binary string. Every document must
    still be YAML."""
    import yaml

    text = response.content.decode("utf-8")
    list(yaml.safe_load_all(text))
    return text


def not_a_server_error_but_a_documented_501(ctx, response, case):
    """501 is the documented answer for a deliverable whose renderer this build lacks."""
    if response.status_code == 501 and "501" in case.operation.definition.raw.get("responses", {}):
        return None
    return not_a_server_error(ctx, response, case)


def negative_data_rejection_or_a_precondition(ctx, response, case):
    # a write taking If-Match answers 412 to a stale ETag before it reads the body (schemathesis_world.REFUSALS)
    refusals = REFUSALS.get(case.operation.definition.raw.get("operationId"), ([], ""))[0]
    if response.status_code in refusals:
        return None
    return negative_data_rejection(ctx, response, case)


# every check schemathesis registers but positive_data_acceptance, two of them with the documented exceptions
CHECKS = [
    {
        "not_a_server_error": not_a_server_error_but_a_documented_501,
        "negative_data_rejection": negative_data_rejection_or_a_precondition,
    }.get(check.__name__, check)
    for check in REGISTERED.get_all()
    if check.__name__ != "positive_data_acceptance"
]
# operationId -> the 2xx statuses it answered in this process (test_every_operation_was_reached_with_a_2xx)
REACHED: dict[str, set[int]] = {}
RAN: set[str] = set()


def _live_schema():
    # Loaded at collection: the schema view needs no database. (schemathesis.pytest.from_fixture
    # would load it per test, but its lazy loader does not work with pytest 9.)
    from fabricdesign.wsgi import application

    return schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)


@pytest.fixture
def world(users, settings):
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    settings.API_THROTTLE_RATE = "100000/min"  # the fuzzer is not testing the rate limit
    settings.JOB_MAX_QUEUED_PER_USER = 100000  # nor the job quota (no worker runs the jobs it starts)
    pins = build_world(users.alice, users.bob)
    pins["uploads"] = _real_files(users.alice)
    # The WSGI app runs inside the test's transaction. Django's own test client stops it from
    # closing the connection at the end of each request; calling the WSGI app directly must too.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield {"token": token_client(users.alice).key, **pins}
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def _real_files(user) -> dict:
    """operationId -> (query, body) of a file the field brings, for the world's revision: the operations whose body
    is a tool's output, which generated text never is (an as-built CSV walk, an ibqueryerrors sweep, a filled-in
    test sheet, a utilization snapshot). A positive case of them is sent one of these, so they are reached with 2xx."""
    from apps.designs.models import Revision
    from tests.apps.api.test_utilization import _snapshot
    from tests.apps.counters.helpers import errors_on, ibqueryerrors, switch_links

    rev = Revision.objects.filter(design__owner=user, design__name="fuzz").order_by("pk").first()
    links = list(rev.links.order_by("link_id")[:2])
    walk = "device,port,neighbor_device,neighbor_port\n" + "".join(
        f"{lk.a_device},{lk.a_port},{lk.b_device},{lk.b_port}\n" for lk in links
    )
    snap, *_ = _snapshot(rev)
    return {
        "revisions_asbuilt_upload": ({"format": "csv", "filename": "walk.csv"}, walk),
        "revisions_counters_import": (
            {"format": "ibqueryerrors"},
            errors_on(switch_links(rev, 2), SymbolErrorCounter=5) or ibqueryerrors({}),
        ),
        "revisions_measurements_upload": ({"filename": "otdr.csv"}, b"fiber_id,measured_loss_db\nL000001-F1,0.3\n"),
        "revisions_utilization_import": ({}, {"kind": "counters", "label": "fuzz", "snapshot": snap}),
    }


schema = _live_schema()


def _pinned(case) -> bool:
    # Three cases in four use alice's real ids; the rest keep the generated (mostly missing) ones.
    digest = hashlib.sha256(repr(sorted((case.path_parameters or {}).items())).encode()).digest()
    return digest[0] % 4 != 0


@schema.parametrize()
@settings(max_examples=FUZZ_EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_no_server_error_and_every_answer_matches_the_schema(case, world):
    op = case.operation.definition.raw.get("operationId")
    RAN.add(op)
    # a positive case of an upload carries one of the world's real files (_real_files), on the world's revision
    upload = op in world["uploads"] and case.meta is not None and case.meta.generation.mode.value == "positive"
    if upload or _pinned(case):
        pins = {**world["common"], **world["operations"].get(op, {})}
        for where, values in (("path", case.path_parameters), ("query", case.query)):
            for name in values or {}:
                if f"{where}.{name}" in pins:
                    values[name] = pins[f"{where}.{name}"]
    if upload:
        case.query, case.body = world["uploads"][op]
    response = case.call_and_validate(headers={"Authorization": f"Token {world['token']}"}, checks=CHECKS)
    if 200 <= response.status_code < 300:
        REACHED.setdefault(op, set()).add(response.status_code)


def test_every_operation_was_reached_with_a_2xx():
    """After the fuzz items above (file order): each operation answered a 2xx to one of its cases at least once."""
    operations = {
        op.definition.raw["operationId"] for op in (r.ok() for r in schema.get_all_operations()) if op is not None
    }
    if RAN != operations:
        pytest.skip("the fuzz items did not all run in this process (-k, or split between xdist workers)")
    assert sorted(operations - set(REACHED) - set(NEVER_2XX)) == []


NEVER_2XX = {
    # 403 by design; the browser's session does (test_auth_tokens.py)
    "tokens_create": "a token may not create tokens",
    # schemathesis 4.32 generates only negative cases for its text/csv (binary) body, so no case carries the
    # world's sheet; its 201 is covered by test_downloads.py and the generated-client flow
    "revisions_measurements_upload": "no positive case is generated for a text/csv body",
}
