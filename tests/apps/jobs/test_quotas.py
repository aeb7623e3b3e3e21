"""Per-user quotas (queued jobs refused beyond JOB_MAX_QUEUED_PER_USER) and fair claiming (job_claim_next).

In process, on the test database; the real-worker version is in test_load_integration.py.
"""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pytest
from django.utils import timezone

from apps.jobs.models import Job, JobStatus
from apps.jobs.services import JobQuotaExceeded, job_claim, job_claim_next, job_create
from tests.factories import DesignFactory, JobFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_broker():
    with mock.patch("apps.jobs.tasks.run_job.delay"):
        yield


def queued(user, *, age_s: float, **fields) -> Job:
    job = JobFactory(design=DesignFactory(owner=user), **fields)
    Job.objects.filter(pk=job.pk).update(created_at=timezone.now() - timedelta(seconds=age_s))
    return job


def running(user, *, started_s_ago: float = 1) -> Job:
    job = queued(user, age_s=1000)
    assert job_claim(job_id=job.pk)
    Job.objects.filter(pk=job.pk).update(started_at=timezone.now() - timedelta(seconds=started_s_ago))
    return job


# ----- quotas -----------------------------------------------------------------------------------------------


def test_a_user_at_the_queued_limit_gets_no_new_job_and_a_retry_time(users, settings):
    settings.JOB_MAX_QUEUED_PER_USER = 2
    settings.JOB_QUOTA_RETRY_AFTER_S = 42
    design = DesignFactory(owner=users.alice)
    for _ in range(2):
        job_create(kind="compute", user=users.alice, design=design)
    with pytest.raises(JobQuotaExceeded) as refused:
        job_create(kind="compute", user=users.alice, design=design)
    assert refused.value.retry_after == 42
    assert "You already have 2 jobs waiting to run (the limit is 2)" in refused.value.message
    assert Job.objects.filter(created_by=users.alice).count() == 2
    # Bob has a quota of his own; running and finished jobs do not count against it.
    job_create(kind="compute", user=users.bob, design=DesignFactory(owner=users.bob))
    Job.objects.filter(created_by=users.alice).update(status=JobStatus.RUNNING)
    job_create(kind="compute", user=users.alice, design=design)


def test_the_api_answers_429_with_retry_after_and_the_browser_a_message(users, settings, client):
    from rest_framework.test import APIClient

    settings.JOB_MAX_QUEUED_PER_USER = 1
    settings.JOB_QUOTA_RETRY_AFTER_S = 30
    design, other = DesignFactory(owner=users.alice), DesignFactory(owner=users.alice)
    api = APIClient()
    api.force_authenticate(user=users.alice)
    assert api.post(f"/api/v1/designs/{design.pk}/compute/").status_code == 202
    refused = api.post(f"/api/v1/designs/{other.pk}/compute/")
    assert refused.status_code == 429 and refused["Retry-After"] == "30"
    assert refused.json()["error"]["code"] == "job_quota_exceeded"

    client.force_login(users.alice)
    page = client.post(f"/designs/{other.pk}/compute/", follow=True)
    assert page.status_code == 200
    assert "Not started: You already have 1 jobs waiting to run (the limit is 1)." in page.content.decode()
    assert not Job.objects.filter(design=other).exists()


# ----- fair claiming ----------------------------------------------------------------------------------------


def test_the_user_with_fewer_running_jobs_goes_first_even_with_a_newer_job(users, settings):
    settings.JOB_MAX_RUNNING_PER_USER = 2
    running(users.alice)
    alices = queued(users.alice, age_s=100)
    bobs = queued(users.bob, age_s=10)
    assert job_claim_next().pk == bobs.pk
    # Now both have one running: Alice's turn (her last job started longer ago than Bob's).
    assert job_claim_next().pk == alices.pk


def test_a_user_at_the_running_limit_gets_nothing_claimed(users, settings):
    settings.JOB_MAX_RUNNING_PER_USER = 1
    first = running(users.alice)
    waiting = queued(users.alice, age_s=100)
    assert job_claim_next() is None
    assert Job.objects.get(pk=waiting.pk).status == JobStatus.QUEUED
    Job.objects.filter(pk=first.pk).update(status=JobStatus.SUCCEEDED)
    assert job_claim_next().pk == waiting.pk


def test_ties_take_turns_then_each_users_oldest_job(users, settings):
    settings.JOB_MAX_RUNNING_PER_USER = 5
    done = running(users.alice, started_s_ago=5)
    Job.objects.filter(pk=done.pk).update(status=JobStatus.SUCCEEDED)
    a_old, a_new = queued(users.alice, age_s=300), queued(users.alice, age_s=200)
    b_old = queued(users.bob, age_s=100)
    c_old = queued(users.charlie, age_s=50)
    # Nobody runs anything. Bob and Charlie never started a job: they go before Alice; Bob's is older.
    order = []
    for _ in range(4):
        job = job_claim_next()
        order.append(job.pk)
        Job.objects.filter(pk=job.pk).update(status=JobStatus.SUCCEEDED)
    assert order == [b_old.pk, c_old.pk, a_old.pk, a_new.pk]
    assert job_claim_next() is None


def test_cancelled_and_finished_jobs_are_never_claimed(users):
    queued(users.alice, age_s=10, status=JobStatus.CANCELLED)
    queued(users.alice, age_s=10, status=JobStatus.FAILED)
    assert job_claim_next() is None
