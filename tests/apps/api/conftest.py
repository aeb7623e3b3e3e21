"""The API's test world: alice owns a computed design, bob gets it shared or not, anonymous has nothing.

Clients authenticate with real personal tokens (`Authorization: Token <key>`), as machines do.
Designs are computed synchronously through the job runner (the same code a worker runs), so the
tests need no broker; tests/apps/api/test_procurement_client.py covers a real worker.
"""

from __future__ import annotations

import os
import uuid

import pytest
from rest_framework.test import APIClient

SMALL_SPEC = {
    "name": "Small H100 fabric",
    "servers": {"model": "dgx-h100", "count": 32},
    "compute_fabric": {"technology": "infiniband", "switch": "qm9700"},
}


@pytest.fixture(autouse=True)
def _private_locmem_cache(settings):
    # CI points the default cache at Redis (REDIS_URL); every test gets a fresh in-process cache
    # instead, so cached results never leak between tests or runs.
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"api-tests-{uuid.uuid4().hex}",
        }
    }


@pytest.fixture(autouse=True)
def _private_rate_limit_counters(settings):
    # Rate-limit counters live in Redis with REDIS_URL (else in the test database, emptied per test):
    # a prefix of its own per test keeps user ids that a later test reuses from inheriting counts.
    settings.API_RATE_LIMIT_KEY_PREFIX = f"fd-test:{uuid.uuid4().hex}:"


@pytest.fixture(autouse=True)
def _answers_as_the_schema_declares(monkeypatch):
    """Every answer of a DRF view in these tests is held against docs/openapi.yaml (tests/apps/api/contract_recorder.py)."""
    from rest_framework.views import APIView

    from tests.apps.api.contract_recorder import violations

    seen: list[str] = []
    finalize = APIView.finalize_response

    def recorded(self, request, response, *args, **kwargs):
        response = finalize(self, request, response, *args, **kwargs)
        seen.extend(violations(request, response))
        return response

    monkeypatch.setattr(APIView, "finalize_response", recorded)
    yield
    assert not seen, "answers the schema does not declare:\n" + "\n".join(sorted(set(seen)))


STORES = [
    "database",
    pytest.param(
        "redis", marks=pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="the Redis store needs REDIS_URL")
    ),
]


@pytest.fixture(params=STORES)
def store(request, settings):
    """Each rate-limit store in turn: the database always, Redis when REDIS_URL is set."""
    settings.API_RATE_LIMIT_STORE = request.param
    return request.param


def token_client(user) -> APIClient:
    from apps.api.auth import token_create

    _, key = token_create(user=user, name="tests")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    client.key = key
    return client


@pytest.fixture
def alice(users):
    return token_client(users.alice)


@pytest.fixture
def bob(users):
    return token_client(users.bob)


@pytest.fixture
def anon():
    return APIClient()


def compute_now(design, user) -> int:
    """Compute a design synchronously, exactly as a worker would; returns the revision number."""
    from apps.designs.services import design_compute_enqueue
    from apps.jobs.models import Job
    from apps.jobs.runner import run_job

    job = design_compute_enqueue(design=design, user=user)
    assert run_job(str(job.pk)) == "succeeded", Job.objects.get(pk=job.pk).error
    return Job.objects.get(pk=job.pk).result["revision"]


@pytest.fixture
def design(users):
    from apps.designs.services import design_create

    return design_create(user=users.alice, spec=SMALL_SPEC)


@pytest.fixture
def computed(design, users):
    """alice's design with one computed revision (r1)."""
    compute_now(design, users.alice)
    return design


def rev_url(design, number: int = 1, tail: str = "") -> str:
    return f"/api/v1/designs/{design.pk}/revisions/{number}/{tail}"


def error_of(response) -> dict:
    body = response.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message", "fields"}, body
    return body["error"]
