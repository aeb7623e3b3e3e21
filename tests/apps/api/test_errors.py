"""Bad input never gets a 500: malformed, oversized and mistyped requests get the one JSON error shape.
And the per-token rate limit answers 429 with Retry-After."""

from __future__ import annotations

import pytest

from apps.designs.models import Design
from tests.apps.api.conftest import SMALL_SPEC, error_of, token_client


def _post_raw(client, url, body: bytes | str, content_type="application/json"):
    return client.generic("POST", url, body, content_type=content_type)


@pytest.mark.parametrize(
    "body, code",
    [
        ("{", "malformed_request"),
        ('{"spec": NaN}', "malformed_request"),
        ('{"spec": Infinity}', "malformed_request"),
        ("[" * 100_000 + "]" * 100_000, "malformed_request"),
        (b"\xff\xfe{}", "malformed_request"),
        ("[1, 2]", "invalid"),
        ('"just a string"', "invalid"),
        ("null", "invalid"),
    ],
)
def test_malformed_json_is_a_400(alice, body, code):
    response = _post_raw(alice, "/api/v1/designs/", body)
    assert response.status_code == 400
    assert error_of(response)["code"] == code
    assert not Design.objects.exists()


def test_a_body_over_the_limit_is_a_413(alice, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    big = {"spec": {**SMALL_SPEC, "description": "x" * 2000}}
    response = alice.post("/api/v1/designs/", big, format="json")
    assert response.status_code == 413
    assert error_of(response)["code"] == "payload_too_large"
    assert alice.post("/api/v1/designs/", {"spec": SMALL_SPEC}, format="json").status_code == 201


def test_a_body_over_the_limit_with_an_idempotency_key_is_a_413_too(alice, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = alice.post(
        "/api/v1/designs/", {"spec": {**SMALL_SPEC, "description": "x" * 2000}}, format="json", HTTP_IDEMPOTENCY_KEY="k"
    )
    assert response.status_code == 413


def test_a_body_that_is_not_json_is_a_415(alice):
    response = _post_raw(alice, "/api/v1/designs/", "spec=1", content_type="application/x-www-form-urlencoded")
    assert response.status_code == 415
    assert error_of(response)["code"] == "unsupported_media_type"


def test_unknown_paths_methods_and_huge_ids_are_json_errors(alice, db):
    assert error_of(alice.get("/api/v1/nothing-here/"))["code"] == "not_found"
    assert alice.get("/api/v1/designs/99999999999999999999999/").status_code == 404
    assert alice.get("/api/v1/designs/999999999999999999/").status_code == 404
    assert alice.get("/api/v1/designs/1/revisions/9999999999/").status_code == 404
    response = alice.put("/api/v1/designs/", {}, format="json")
    assert response.status_code == 405 and error_of(response)["code"] == "method_not_allowed"


def test_an_accept_header_never_breaks_the_answer(alice, db):
    response = alice.get("/api/v1/designs/", HTTP_ACCEPT="application/xml")
    assert response.status_code == 200 and response["Content-Type"] == "application/json"


def test_the_rate_limit_answers_429_with_retry_after(users, settings):
    settings.API_THROTTLE_RATE = "3/min"
    first = token_client(users.alice)
    assert [first.get("/api/v1/me/").status_code for _ in range(3)] == [200, 200, 200]
    limited = first.get("/api/v1/me/")
    assert limited.status_code == 429
    assert error_of(limited)["code"] == "throttled"
    assert 1 <= int(limited["Retry-After"]) <= 60
