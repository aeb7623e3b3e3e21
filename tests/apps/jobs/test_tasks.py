"""The Celery tasks are thin: load by id, call the runner or the reaper. Beat schedules the reaper."""

from __future__ import annotations

import pytest
from django.conf import settings

from apps.jobs.tasks import reap_stale_jobs, run_job
from fabricdesign.celery import app
from tests.factories import JobFactory


@pytest.mark.django_db
def test_the_run_task_returns_what_the_runner_did():
    job = JobFactory()
    assert run_job(str(job.pk)) == "succeeded"
    assert run_job(str(job.pk)) == "duplicate"


@pytest.mark.django_db
def test_the_reaper_task_reports_what_it_reaped():
    assert reap_stale_jobs() == {"requeued": [], "failed": [], "cancelled": [], "resent": []}


def test_beat_runs_the_registered_reaper_task_on_its_schedule():
    entry = settings.CELERY_BEAT_SCHEDULE["reap-stale-jobs"]
    assert entry["task"] == reap_stale_jobs.name in app.tasks
    assert entry["schedule"] == float(settings.JOB_REAP_EVERY_S) < settings.JOB_HEARTBEAT_TIMEOUT_S


def test_tasks_keep_no_result_and_are_acknowledged_after_they_ran():
    assert run_job.ignore_result and reap_stale_jobs.ignore_result
    assert app.conf.task_acks_late and app.conf.task_reject_on_worker_lost
    assert app.conf.worker_prefetch_multiplier == 1
