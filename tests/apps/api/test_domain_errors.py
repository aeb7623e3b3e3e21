"""Services below the API report failures as domain errors (apps/common/errors.py); the API answers each kind
with its status and the one error shape, the code and fields the service chose (docs/api.md, Errors)."""

from __future__ import annotations

import pytest

from apps.api.errors import api_exception_handler
from apps.common.errors import Conflict, Invalid, NotFound, NotReady, PreconditionFailed, QuotaExceeded, TooLarge


@pytest.mark.parametrize(
    "error, status",
    [
        (Invalid("bad", code="invalid_part", fields=[{"path": "key", "message": "is required"}]), 400),
        (NotFound("gone"), 404),
        (Conflict("taken", fields=[{"path": "key", "message": "already used"}]), 409),
        (NotReady("later"), 409),
        (PreconditionFailed("stale"), 412),
        (TooLarge("big"), 413),
        (QuotaExceeded("slow down", retry_after=7), 429),
    ],
)
def test_each_kind_of_domain_error_gets_its_status_code_and_fields(error, status):
    response = api_exception_handler(error, {})
    assert response is not None and response.status_code == status
    assert response.data == {"error": {"code": error.code, "message": error.message, "fields": error.fields}}


def test_a_quota_error_says_when_to_retry():
    response = api_exception_handler(QuotaExceeded("slow down", retry_after=7), {})
    assert response is not None and response["Retry-After"] == "7"


def test_a_kind_names_its_default_code_and_a_service_may_name_its_own():
    assert (Invalid("x").code, NotReady("x").code, Conflict("x", code="custom_parts_invalid").code) == (
        "invalid",
        "not_ready",
        "custom_parts_invalid",
    )


def test_a_form_shows_the_message_then_each_field_it_does_not_already_say():
    error = Invalid(
        "key is required.", fields=[{"path": "key", "message": "is required"}, {"path": "body", "message": "empty"}]
    )
    assert error.texts() == ["key is required.", "body: empty"]
