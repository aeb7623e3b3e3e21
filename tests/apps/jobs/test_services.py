"""Job state changes: conditional claims, attempts, progress, finishing, cancelling, reaping, enqueue on commit."""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pytest
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from apps.jobs.models import Job, JobStatus
from apps.jobs.services import (
    ENQUEUE_FAILED,
    LOG_LIMIT,
    job_claim,
    job_create,
    job_fail,
    job_heartbeat,
    job_log,
    job_mark_cancelled,
    job_progress,
    job_reap_stale,
    job_request_cancel,
    job_succeed,
)
from tests.factories import DesignFactory, JobFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def delay():
    with mock.patch("apps.jobs.tasks.run_job.delay") as delay:
        yield delay


def running(**fields) -> Job:
    """A job a worker has claimed (attempt 1)."""
    job = JobFactory(**fields)
    assert job_claim(job_id=job.pk)
    job.refresh_from_db()
    return job


def make_stale(job: Job, seconds: float = 120) -> None:
    Job.objects.filter(pk=job.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=seconds))


# ----- create and enqueue -------------------------------------------------------------------------------------


def test_it_enqueues_a_new_job_only_when_the_transaction_commits(delay, django_capture_on_commit_callbacks):
    design = DesignFactory()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        created = job_create(kind="compute", user=design.owner, design=design, params={"x": 1})
        delay.assert_not_called()
    assert len(callbacks) == 1
    delay.assert_called_once_with(str(created.pk))
    assert created.status == JobStatus.QUEUED and created.params == {"x": 1}


def test_it_enqueues_nothing_when_the_transaction_rolls_back(delay, django_capture_on_commit_callbacks):
    design = DesignFactory()
    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        job_create(kind="compute", user=design.owner, design=design)
        raise RuntimeError("roll back")
    assert callbacks == []
    delay.assert_not_called()
    assert not Job.objects.exists()


def test_it_fails_the_job_when_the_broker_cannot_take_it(delay, django_capture_on_commit_callbacks):
    delay.side_effect = ConnectionRefusedError("broker down")
    design = DesignFactory()
    with django_capture_on_commit_callbacks(execute=True):
        job = job_create(kind="compute", user=design.owner, design=design)
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED and job.error == ENQUEUE_FAILED and job.finished_at


# ----- claim and attempts -------------------------------------------------------------------------------------


def test_it_claims_a_queued_job_once():
    job = JobFactory()
    assert job_claim(job_id=job.pk) is True
    assert job_claim(job_id=job.pk) is False  # a duplicate delivery
    job.refresh_from_db()
    assert job.status == JobStatus.RUNNING and job.attempts == 1 and job.stage == "starting"
    assert job.started_at == job.heartbeat_at is not None


@pytest.mark.parametrize("status", [JobStatus.RUNNING, JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELLED])
def test_it_claims_no_job_that_is_not_queued(status):
    assert job_claim(job_id=JobFactory(status=status).pk) is False


def test_it_claims_no_job_that_does_not_exist():
    assert job_claim(job_id="00000000-0000-0000-0000-000000000000") is False


def test_an_attempt_the_reaper_gave_up_on_can_no_longer_change_the_job():
    """GIVEN attempt 1 stopped sending heartbeats, was requeued, and attempt 2 claimed the job
    WHEN attempt 1 comes back to life and reports progress, succeeds, fails or stops
    THEN none of it matches the job: attempt 2 owns it."""
    job = running()
    make_stale(job)
    assert job_reap_stale(timeout_s=60)["requeued"] == [str(job.pk)]
    assert job_claim(job_id=job.pk)

    assert not job_heartbeat(job_id=job.pk, attempt=1)
    assert not job_progress(job_id=job.pk, stage="x", percent=50, attempt=1)
    assert not job_succeed(job_id=job.pk, attempt=1)
    assert not job_fail(job_id=job.pk, error="boom", attempt=1)
    Job.objects.filter(pk=job.pk).update(cancel_requested=True)
    assert not job_mark_cancelled(job_id=job.pk, attempt=1)
    job.refresh_from_db()
    assert job.status == JobStatus.RUNNING and job.attempts == 2
    assert job_mark_cancelled(job_id=job.pk, attempt=2)


def test_a_requeued_job_is_not_failed_by_its_previous_attempt():
    job = running()
    make_stale(job)
    job_reap_stale(timeout_s=60)
    assert not job_fail(job_id=job.pk, error="late failure", attempt=1)
    assert Job.objects.get(pk=job.pk).status == JobStatus.QUEUED


# ----- progress -----------------------------------------------------------------------------------------------


def test_progress_is_clamped_rounded_and_refreshes_the_heartbeat():
    job = running()
    make_stale(job)
    assert job_progress(job_id=job.pk, stage="placement", percent=33.333, attempt=1)
    job.refresh_from_db()
    assert (job.stage, job.percent) == ("placement", 33.3)
    assert timezone.now() - job.heartbeat_at < timedelta(seconds=5)
    job_progress(job_id=job.pk, stage="x" * 100, percent=140)
    job.refresh_from_db()
    assert job.percent == 100 and len(job.stage) == 64
    job_progress(job_id=job.pk, stage="x", percent=-3)
    assert Job.objects.get(pk=job.pk).percent == 0


def test_progress_says_stop_once_the_user_asked_to_cancel():
    job = running()
    job_request_cancel(job=job)
    assert job_progress(job_id=job.pk, stage="physical", percent=50) is False


def test_progress_says_stop_for_a_job_that_is_not_running():
    assert job_progress(job_id=JobFactory().pk, stage="x", percent=1) is False


# ----- finish ---------------------------------------------------------------------------------------------------


def test_it_succeeds_a_running_job_with_its_result():
    job = running()
    assert job_succeed(job_id=job.pk, result={"revision": 1}, attempt=1)
    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED and job.result == {"revision": 1}
    assert job.percent == 100 and job.stage == "done" and job.finished_at and job.duration_s >= 0
    assert job.is_terminal
    assert not job_succeed(job_id=job.pk)  # once


def test_it_never_succeeds_a_job_the_user_asked_to_cancel():
    job = running()
    job_request_cancel(job=job)
    assert job_succeed(job_id=job.pk, result={"revision": 1}) is False
    assert job_mark_cancelled(job_id=job.pk, attempt=1)
    job.refresh_from_db()
    assert job.status == JobStatus.CANCELLED and job.result == {} and job.finished_at


def test_it_marks_cancelled_only_a_job_the_user_asked_to_cancel():
    job = running()
    assert job_mark_cancelled(job_id=job.pk) is False
    assert Job.objects.get(pk=job.pk).status == JobStatus.RUNNING


def test_it_fails_a_job_with_a_message_and_structured_detail():
    job = running()
    errors = {"errors": [{"field": "servers.count", "message": "must be at least 1"}]}
    assert job_fail(job_id=job.pk, error="servers.count: must be at least 1", result=errors, attempt=1)
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED and job.error == "servers.count: must be at least 1"
    assert job.result == errors and job.finished_at
    assert not job_fail(job_id=job.pk, error="again")  # a finished job stays as it ended


def test_it_keeps_the_last_log_entries():
    job = JobFactory()
    for i in range(LOG_LIMIT + 5):
        job_log(job=job, level="info", message=f"line {i}")
    log = Job.objects.get(pk=job.pk).log
    assert len(log) == LOG_LIMIT
    assert log[0]["message"] == "line 5" and log[-1]["message"] == f"line {LOG_LIMIT + 4}"
    assert log[-1]["level"] == "info" and log[-1]["time"]


# ----- cancel ---------------------------------------------------------------------------------------------------


def test_cancelling_a_queued_job_cancels_it_at_once():
    job = job_request_cancel(job=JobFactory())
    assert job.status == JobStatus.CANCELLED and job.cancel_requested and job.finished_at
    assert job_claim(job_id=job.pk) is False


def test_cancelling_a_running_job_asks_its_worker_to_stop():
    job = job_request_cancel(job=running())
    assert job.status == JobStatus.RUNNING and job.cancel_requested


def test_cancelling_a_finished_job_changes_nothing():
    job = running()
    job_succeed(job_id=job.pk)
    job = job_request_cancel(job=job)
    assert job.status == JobStatus.SUCCEEDED and not job.cancel_requested


# ----- reaper ---------------------------------------------------------------------------------------------------


def test_the_reaper_requeues_a_stale_job_with_attempts_left(delay, settings, django_capture_on_commit_callbacks):
    settings.JOB_HEARTBEAT_TIMEOUT_S = 30
    job = running(max_attempts=2)
    make_stale(job, seconds=31)
    with django_capture_on_commit_callbacks(execute=True):
        assert job_reap_stale() == {"requeued": [str(job.pk)], "failed": [], "cancelled": []}
    delay.assert_called_once_with(str(job.pk))
    job.refresh_from_db()
    assert job.status == JobStatus.QUEUED and job.attempts == 1 and job.percent == 0
    assert job.stage.startswith("requeued")


def test_the_reaper_fails_a_stale_job_without_attempts_left(delay):
    job = running(max_attempts=1)
    make_stale(job)
    assert job_reap_stale(timeout_s=60) == {"requeued": [], "failed": [str(job.pk)], "cancelled": []}
    delay.assert_not_called()
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED and job.finished_at
    assert job.error == "the worker stopped responding (no heartbeat for 60 s) after 1 attempt(s)"


def test_the_reaper_fails_a_job_after_its_last_attempt(delay):
    job = running(max_attempts=2)
    make_stale(job)
    job_reap_stale(timeout_s=60)
    assert job_claim(job_id=job.pk)  # attempt 2 dies too
    make_stale(job)
    assert job_reap_stale(timeout_s=60)["failed"] == [str(job.pk)]
    assert Job.objects.get(pk=job.pk).attempts == 2


def test_the_reaper_cancels_a_stale_job_the_user_asked_to_cancel(delay):
    job = job_request_cancel(job=running())
    make_stale(job)
    assert job_reap_stale(timeout_s=60)["cancelled"] == [str(job.pk)]
    assert Job.objects.get(pk=job.pk).status == JobStatus.CANCELLED
    delay.assert_not_called()


def test_the_reaper_leaves_live_and_finished_jobs_alone(delay):
    live = running()
    make_stale(live, seconds=10)
    queued = JobFactory()
    done = running()
    job_succeed(job_id=done.pk)
    make_stale(done)
    assert job_reap_stale(timeout_s=60) == {"requeued": [], "failed": [], "cancelled": []}
    assert Job.objects.get(pk=live.pk).status == JobStatus.RUNNING
    assert Job.objects.get(pk=queued.pk).status == JobStatus.QUEUED


def test_the_reaper_loses_the_race_to_a_worker_that_comes_back(delay):
    """A heartbeat landing between the reaper's read and its conditional update keeps the job running."""
    job = running()
    make_stale(job)
    real_update = QuerySet.update

    def beat_first(qs, **fields):
        if fields.get("status") == JobStatus.QUEUED:  # the reaper's requeue of this job
            job_heartbeat(job_id=job.pk)
        return real_update(qs, **fields)

    with mock.patch.object(QuerySet, "update", beat_first):
        assert job_reap_stale(timeout_s=60) == {"requeued": [], "failed": [], "cancelled": []}
    assert Job.objects.get(pk=job.pk).status == JobStatus.RUNNING
    delay.assert_not_called()
