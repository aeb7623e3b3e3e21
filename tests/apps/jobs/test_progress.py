"""DbProgress throttles the engine's progress calls into job rows and stops cancelled runs; Heartbeat beats."""

from __future__ import annotations

import time
from datetime import timedelta
from types import SimpleNamespace
from unittest import mock

import pytest
from django.db.utils import OperationalError
from django.utils import timezone

from apps.jobs import progress as progress_module
from apps.jobs.models import Job
from apps.jobs.progress import DbProgress, Heartbeat, JobCancelled
from apps.jobs.services import job_claim, job_heartbeat, job_request_cancel
from tests.factories import JobFactory


@pytest.fixture
def job(db) -> Job:
    job = JobFactory()
    job_claim(job_id=job.pk)
    job.refresh_from_db()
    return job


@pytest.fixture
def clock():
    """The monotonic clock DbProgress reads, set by the test."""
    fake = SimpleNamespace(now=1000.0)
    with mock.patch.object(progress_module, "time", SimpleNamespace(monotonic=lambda: fake.now)):
        yield fake


def test_it_writes_the_first_report_and_then_at_most_every_interval(job, clock):
    progress = DbProgress(job.pk, interval=0.5, attempt=job.attempts)
    progress("topology", 0, 6)
    assert Job.objects.get(pk=job.pk).stage == "topology"

    clock.now += 0.2
    progress("placement", 1, 6)  # within the interval: dropped
    assert Job.objects.get(pk=job.pk).stage == "topology"

    clock.now += 0.4
    progress("run-lengths", 2, 6)
    row = Job.objects.get(pk=job.pk)
    assert (row.stage, row.percent) == ("run-lengths", 33.3)


def test_it_always_writes_the_last_report(job, clock):
    progress = DbProgress(job.pk, interval=60)
    progress("topology", 0, 6)
    progress("done", 6, 6)
    row = Job.objects.get(pk=job.pk)
    assert (row.stage, row.percent) == ("done", 100)


def test_it_maps_the_engine_onto_its_part_of_the_bar(job, clock):
    progress = DbProgress(job.pk, start=10, span=50)
    progress("physical", 1, 2)
    assert Job.objects.get(pk=job.pk).percent == 35
    clock.now += 1
    progress("summary", 0, 0)  # no total: the stage is complete
    assert Job.objects.get(pk=job.pk).percent == 60


def test_a_handler_gives_part_of_its_work_a_sub_range_and_keeps_its_own_range(job, clock):
    progress = DbProgress(job.pk, start=0, span=100)
    engine = progress.sub(0.2, 0.9)
    engine("physical", 1, 2)
    assert Job.objects.get(pk=job.pk).percent == 55  # halfway through 20..90
    clock.now += 1
    engine.sub(0.5, 1.0)("summary", 0, 0)  # a sub-range of a sub-range: 55..90, complete
    assert Job.objects.get(pk=job.pk).percent == 90
    assert (progress.start, progress.span) == (0, 100)
    clock.now += 1
    progress("done", 1, 1)
    assert Job.objects.get(pk=job.pk).percent == 100


def test_a_sub_range_shares_the_throttle_of_the_whole_bar(job, clock):
    progress = DbProgress(job.pk, interval=0.5)
    progress.sub(0.0, 0.5)("topology", 0, 6)
    progress.sub(0.5, 1.0)("storing", 1, 6)  # within the interval: dropped
    assert Job.objects.get(pk=job.pk).stage == "topology"


def test_a_marked_step_is_written_at_once_and_stops_a_cancelled_run(job, clock):
    progress = DbProgress(job.pk, interval=60, attempt=job.attempts)
    progress("topology", 0, 6)
    progress.mark("storing", 0.7)  # within the interval, but a step the user should see
    row = Job.objects.get(pk=job.pk)
    assert (row.stage, row.percent) == ("storing", 70)
    job_request_cancel(job=job)
    with pytest.raises(JobCancelled):
        progress.sub(0.7, 1.0).mark("rendering", 0.5)


def test_a_sub_range_outside_the_bar_is_refused(job):
    progress = DbProgress(job.pk)
    with pytest.raises(ValueError, match="sub-range"):
        progress.sub(0.5, 1.2)
    with pytest.raises(ValueError, match="sub-range"):
        progress.sub(0.6, 0.4)


def test_it_stops_the_run_when_the_user_cancels(job, clock):
    progress = DbProgress(job.pk, attempt=job.attempts)
    progress("topology", 0, 6)
    job_request_cancel(job=job)
    clock.now += 1
    with pytest.raises(JobCancelled):
        progress("placement", 1, 6)


def test_it_stops_the_run_when_another_attempt_owns_the_job(job, clock):
    progress = DbProgress(job.pk, attempt=job.attempts - 1)
    with pytest.raises(JobCancelled):
        progress("topology", 0, 6)


def test_it_does_not_query_the_database_for_dropped_reports(job, clock, django_assert_num_queries):
    progress = DbProgress(job.pk)
    progress("topology", 0, 6)
    with django_assert_num_queries(0):
        for i in range(1, 5):
            progress("physical", i, 6)


@pytest.mark.django_db(transaction=True)
def test_the_heartbeat_thread_beats_until_stopped():
    job = JobFactory()
    job_claim(job_id=job.pk)
    old = timezone.now() - timedelta(minutes=5)
    Job.objects.filter(pk=job.pk).update(heartbeat_at=old)
    with Heartbeat(job.pk, 0.05, attempt=1):
        _wait(lambda: Job.objects.get(pk=job.pk).heartbeat_at > old)
    stopped_at = Job.objects.get(pk=job.pk).heartbeat_at
    time.sleep(0.2)
    assert Job.objects.get(pk=job.pk).heartbeat_at == stopped_at


@pytest.mark.django_db(transaction=True)
def test_the_heartbeat_thread_survives_a_failed_beat():
    job = JobFactory()
    job_claim(job_id=job.pk)
    old = timezone.now() - timedelta(minutes=5)
    Job.objects.filter(pk=job.pk).update(heartbeat_at=old)
    beats = [OperationalError("database is locked")]

    def flaky(**kwargs):
        if beats:
            raise beats.pop()
        return job_heartbeat(**kwargs)

    with mock.patch.object(progress_module, "job_heartbeat", side_effect=flaky), Heartbeat(job.pk, 0.05, attempt=1):
        _wait(lambda: Job.objects.get(pk=job.pk).heartbeat_at > old)
    assert beats == []


def _wait(predicate, timeout: float = 5) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not met"
        time.sleep(0.02)
