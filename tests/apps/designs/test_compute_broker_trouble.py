"""A broker that accepts connections and never answers: the browser's compute and the API's export say the
job could not be queued, quickly, and the job is failed (tests/silent_server.py; the API's compute, with a
worker, is in tests/apps/jobs/test_load_integration.py)."""

from __future__ import annotations

import time

import pytest
from rest_framework.test import APIClient

from apps.jobs.models import Job, JobStatus
from apps.jobs.runner import run_job
from apps.jobs.services import ENQUEUE_FAILED
from tests.factories import DesignFactory
from tests.silent_server import broker_at, silent_server

pytestmark = pytest.mark.django_db(transaction=True)  # the task is sent when the job's transaction commits


def test_the_browser_says_the_compute_could_not_start_and_the_job_is_failed(users, client, settings):
    design = DesignFactory(owner=users.alice)
    client.force_login(users.alice)
    with silent_server() as port, broker_at(f"redis://127.0.0.1:{port}/0"):
        t0 = time.monotonic()
        page = client.post(f"/designs/{design.pk}/compute/", follow=True)
        elapsed = time.monotonic() - t0
    assert elapsed < settings.JOB_PUBLISH_TIMEOUT_S + 1.5
    assert page.redirect_chain[-1][0] == f"/designs/{design.pk}/"
    assert f"Not started: {ENQUEUE_FAILED}" in page.content.decode()
    job = Job.objects.get(design=design)
    assert job.status == JobStatus.FAILED and job.error == ENQUEUE_FAILED
    assert run_job(str(job.pk)) == "duplicate"  # a late delivery runs nothing
    assert Job.objects.get(pk=job.pk).status == JobStatus.FAILED


def test_an_export_that_cannot_be_queued_answers_503_with_the_failed_job(users, settings):
    design = DesignFactory(owner=users.alice)
    # A revision to export, computed in process as a worker would.
    from apps.designs.services import design_compute_request
    from tests.apps.jobs.conftest import delete_queue, new_queue, sending_to

    queue = new_queue()
    try:
        with sending_to(queue):  # a queue of this test's own, so that no developer's worker takes it
            job = design_compute_request(design=design, user=users.alice).job
    finally:
        delete_queue(queue)
    assert run_job(str(job.pk)) == "succeeded"
    api = APIClient()
    api.force_authenticate(user=users.alice)
    with silent_server() as port, broker_at(f"redis://127.0.0.1:{port}/0"):
        response = api.post(f"/api/v1/designs/{design.pk}/revisions/1/exports/", {"kind": "bom.pdf"}, format="json")
    assert response.status_code == 503, response.content
    body = response.json()
    assert body["error"]["code"] == "broker_unavailable" and body["job"]["status"] == "failed"
    assert Job.objects.get(pk=body["job"]["id"]).error == ENQUEUE_FAILED


def test_a_503_is_not_remembered_for_its_idempotency_key(users):
    """GIVEN a compute with an Idempotency-Key answered 503 (silent broker)
    WHEN it is retried with the same key once the broker answers
    THEN the retry queues a new job (202), not a replay of the 503 nor of a job that failed."""
    from tests.apps.jobs.conftest import delete_queue, new_queue, sending_to

    design = DesignFactory(owner=users.alice)
    api = APIClient()
    api.force_authenticate(user=users.alice)
    url = f"/api/v1/designs/{design.pk}/compute/"
    with silent_server() as port, broker_at(f"redis://127.0.0.1:{port}/0"):
        refused = api.post(url, HTTP_IDEMPOTENCY_KEY="po-1")
    assert refused.status_code == 503
    queue = new_queue()
    try:
        with sending_to(queue):
            retried = api.post(url, HTTP_IDEMPOTENCY_KEY="po-1")
            assert retried.status_code == 202 and "Idempotent-Replayed" not in retried
            assert retried.json()["id"] != refused.json()["job"]["id"] and retried.json()["status"] == "queued"
            replay = api.post(url, HTTP_IDEMPOTENCY_KEY="po-1")
            assert replay["Idempotent-Replayed"] == "true" and replay.json()["id"] == retried.json()["id"]
    finally:
        delete_queue(queue)
