"""Jobs whose task message was lost (a worker killed before it claimed the job) are sent again."""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pytest
from django.utils import timezone

from apps.jobs.models import Job, JobStatus
from apps.jobs.services import NEVER_SENT, NEVER_SENT_AFTER_S, job_claim, job_resend_unclaimed
from tests.factories import JobFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def delay():
    with mock.patch("apps.jobs.tasks.run_job.delay") as delay:
        yield delay


def _age(job: Job, seconds: float, *, sent: bool = True) -> None:
    """Make the job `seconds` old; `sent`: its task went out when it was created (heartbeat_at, while queued)."""
    then = timezone.now() - timedelta(seconds=seconds)
    Job.objects.filter(pk=job.pk).update(created_at=then, heartbeat_at=then if sent else None)


def test_a_job_queued_past_the_limit_gets_its_task_sent_again_once(delay, django_capture_on_commit_callbacks):
    job = JobFactory()
    _age(job, 700)
    with django_capture_on_commit_callbacks(execute=True):
        assert job_resend_unclaimed(after_s=600) == [str(job.pk)]
    delay.assert_called_once_with(str(job.pk))
    with django_capture_on_commit_callbacks(execute=True):
        assert job_resend_unclaimed(after_s=600) == []  # sent just now: not again until the limit passes


def test_young_running_and_finished_jobs_are_left_alone(delay):
    young = JobFactory()
    running = JobFactory()
    assert job_claim(job_id=running.pk)
    done = JobFactory(status=JobStatus.SUCCEEDED)
    for job in (running, done):
        _age(job, 7000)
    assert job_resend_unclaimed(after_s=600) == []
    assert young.pk and not delay.called


def test_a_duplicate_delivery_of_a_resent_task_runs_the_job_once(delay):
    job = JobFactory()
    assert job_claim(job_id=job.pk) is True
    assert job_claim(job_id=job.pk) is False


def test_a_job_whose_task_was_never_sent_is_failed_not_sent_late(delay, django_capture_on_commit_callbacks):
    """GIVEN a job committed by a request that ended before it sent the task (heartbeat_at still None)
    WHEN the resender runs a minute later
    THEN the job is failed with a message saying so, and nothing is sent: it must never run late."""
    young = JobFactory()
    _age(young, 30, sent=False)
    lost = JobFactory()
    _age(lost, NEVER_SENT_AFTER_S + 5, sent=False)
    with django_capture_on_commit_callbacks(execute=True):
        assert job_resend_unclaimed(after_s=600) == []
    lost.refresh_from_db()
    young.refresh_from_db()
    assert lost.status == JobStatus.FAILED and lost.error == NEVER_SENT and lost.finished_at
    assert young.status == JobStatus.QUEUED
    assert not delay.called
    assert job_claim(job_id=lost.pk) is False
