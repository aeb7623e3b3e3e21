"""The watchdog stops a job past its soft time limit or over its memory ceiling, in process (run_job with a
handler of the test's own; the real-worker versions, hard limit included, are in test_load_integration.py)."""

from __future__ import annotations

import time
from unittest import mock

import pytest

from apps.jobs import runner
from apps.jobs.limits import JobLimitExceeded, resident_mb
from apps.jobs.models import Job, JobStatus
from apps.jobs.runner import run_job
from tests.factories import JobFactory

pytestmark = pytest.mark.django_db


def limits(settings, *, soft=60.0, hard=120.0, memory_mb=100_000):
    settings.JOB_LIMITS = {
        "export": {"soft_time_limit_s": soft, "hard_time_limit_s": hard, "memory_limit_mb": memory_mb}
    }


def running_with(handler):
    return mock.patch.object(runner, "_handlers", return_value={"export": handler})


def test_a_job_past_its_soft_time_limit_is_interrupted_and_fails_naming_it(settings):
    limits(settings, soft=1)
    job = JobFactory(kind="export")

    def busy(job, progress):  # pure Python that never reports progress
        while True:
            time.sleep(0.01)

    t0 = time.monotonic()
    with running_with(busy):
        assert run_job(str(job.pk)) == "failed"
    assert time.monotonic() - t0 < 3
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED
    assert job.error == "The export job ran longer than its time limit of 1 s (JOB_EXPORT_SOFT_TIME_LIMIT_S)."


def test_a_job_over_its_memory_ceiling_is_interrupted_and_fails_naming_it(settings):
    ceiling = int(resident_mb()) + 60
    limits(settings, memory_mb=ceiling)
    job = JobFactory(kind="export")
    held = []

    def hungry(job, progress):
        while True:
            held.append(bytearray(8 * 2**20))  # touched (zeroed) pages: resident
            time.sleep(0.02)

    with running_with(hungry):
        assert run_job(str(job.pk)) == "failed"
    assert len(held) * 8 >= 60 - 8  # it got to the ceiling, not much further
    held.clear()
    error = Job.objects.get(pk=job.pk).error
    assert error.startswith(
        f"The export job needed more memory than its limit of {ceiling} MB (JOB_EXPORT_MEMORY_LIMIT_MB; "
    )


def test_a_handler_that_swallows_the_stop_is_stopped_at_its_next_progress_report(settings):
    limits(settings, soft=0.5)
    job = JobFactory(kind="export")
    swallowed = []

    def stubborn(job, progress):
        while True:
            try:
                time.sleep(0.01)
            except JobLimitExceeded:
                swallowed.append(True)
                progress("export", 1, 2)  # raises it again: the watchdog has decided

    with running_with(stubborn):
        assert run_job(str(job.pk)) == "failed"
    assert swallowed == [True]
    assert "time limit of 0.5 s" in Job.objects.get(pk=job.pk).error


def test_a_job_within_its_limits_is_untouched(settings):
    limits(settings, soft=5)
    job = JobFactory(kind="export")
    with running_with(lambda job, progress: {"file": "x.pdf"}):
        assert run_job(str(job.pk)) == "succeeded"
    assert Job.objects.get(pk=job.pk).result == {"file": "x.pdf"}


@pytest.mark.django_db(transaction=True)  # the watchdog reads the job on a connection of its own
def test_a_handler_tidying_up_after_committing_its_success_is_not_stopped(settings):
    """A compute commits its revision and its job's success together, then builds the revision's sort indexes:
    the watchdog's cancel check sees "succeeded" while the handler still runs, and must leave it be."""
    from apps.jobs.limits import CANCEL_POLL_S
    from apps.jobs.services import job_succeed

    limits(settings, soft=30)
    job = JobFactory(kind="export")
    finished = []

    def commits_then_tidies(job, progress):
        assert job_succeed(job_id=str(job.pk), attempt=job.attempts, result={"file": "x.pdf"})
        time.sleep(2.5 * CANCEL_POLL_S)  # two or three cancel checks while the tidy-up runs
        finished.append(True)
        return {"file": "x.pdf"}

    with running_with(commits_then_tidies):
        assert run_job(str(job.pk)) == "succeeded"
    assert finished == [True]
    assert Job.objects.get(pk=job.pk).status == JobStatus.SUCCEEDED
