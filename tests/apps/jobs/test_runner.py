"""run_job: claim, run the kind's handler, record how it ended. In process, no broker (see test_worker_integration)."""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pytest
from django.utils import timezone

from apps.designs import services as design_services
from apps.designs.models import LinkRecord, Revision
from apps.jobs import runner
from apps.jobs.models import Job, JobStatus
from apps.jobs.progress import JobCancelled
from apps.jobs.runner import run_job
from apps.jobs.services import job_reap_stale, job_request_cancel
from tests.factories import DesignFactory, JobFactory

pytestmark = pytest.mark.django_db


def after_compute(action):
    """Patch the engine call of design_compute_job that precedes the store: run it for real, then `action()`."""
    real = design_services.start_design

    def compute(spec, catalog, progress, *args):
        draft = real(spec, catalog, progress, *args)
        action()
        return draft

    return mock.patch.object(design_services, "start_design", compute)


def test_it_computes_a_job_and_a_second_delivery_does_nothing():
    job = JobFactory()
    assert run_job(str(job.pk)) == "succeeded"
    assert run_job(str(job.pk)) == "duplicate"
    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED and job.attempts == 1
    rev = Revision.objects.get(design=job.design)
    assert job.result["revision"] == rev.number == 1 and job.result["revision_id"] == rev.pk
    assert LinkRecord.objects.filter(revision=rev).count() == rev.link_count == job.result["links"]


def test_a_spec_error_fails_the_job_with_the_field_messages():
    design = DesignFactory()
    spec = design.spec
    job = JobFactory(design=design, params={"spec": {**spec, "servers": {**spec["servers"], "count": 0}}})
    assert run_job(str(job.pk)) == "failed"
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED and job.error.startswith("servers.count: ")
    assert job.result["errors"][0]["field"] == "servers.count" and job.result["errors"][0]["message"]
    assert job.log == []  # the user's to fix: no traceback
    assert not Revision.objects.exists()


def test_an_unknown_kind_fails_the_job():
    job = JobFactory(kind="teleport")
    assert run_job(str(job.pk)) == "failed"
    assert Job.objects.get(pk=job.pk).error == "unknown job kind 'teleport'"


def test_an_unexpected_error_fails_the_job_and_logs_the_traceback():
    job = JobFactory()
    with mock.patch.object(design_services, "start_design", side_effect=RuntimeError("boom")):
        assert run_job(str(job.pk)) == "failed"
    job.refresh_from_db()
    assert job.error == "RuntimeError: boom"
    assert job.log[-1]["level"] == "error" and "Traceback" in job.log[-1]["message"]


def test_a_job_cancelled_while_it_computes_stores_nothing():
    job = JobFactory()
    with after_compute(lambda: job_request_cancel(job=job)):
        assert run_job(str(job.pk)) == "cancelled"
    job.refresh_from_db()
    assert job.status == JobStatus.CANCELLED and job.finished_at and job.stage == "cancelled"
    assert not Revision.objects.exists() and not LinkRecord.objects.exists()


def test_a_run_the_reaper_gave_up_on_stops_and_leaves_the_job_to_the_next_attempt():
    job = JobFactory()

    def reaped():
        Job.objects.filter(pk=job.pk).update(heartbeat_at=timezone.now() - timedelta(minutes=5))
        with mock.patch("apps.jobs.tasks.run_job.delay"):
            assert job_reap_stale(timeout_s=60)["requeued"] == [str(job.pk)]

    with after_compute(reaped):
        assert run_job(str(job.pk)) == "superseded"
    job.refresh_from_db()
    assert job.status == JobStatus.QUEUED and job.error == ""
    assert not Revision.objects.exists()
    assert run_job(str(job.pk)) == "succeeded"  # the requeued delivery
    assert Job.objects.get(pk=job.pk).attempts == 2


def test_a_handler_that_writes_nothing_is_marked_succeeded_by_the_runner():
    job = JobFactory(kind="export")
    with mock.patch.object(runner, "_handlers", return_value={"export": lambda job, progress: {"file": "x.pdf"}}):
        assert run_job(str(job.pk)) == "succeeded"
    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED and job.result == {"file": "x.pdf"}


def test_a_handler_that_writes_nothing_and_was_cancelled_ends_cancelled():
    job = JobFactory(kind="export")

    def handler(job, progress):
        job_request_cancel(job=job)
        return {"file": "x.pdf"}

    with mock.patch.object(runner, "_handlers", return_value={"export": handler}):
        assert run_job(str(job.pk)) == "cancelled"
    assert Job.objects.get(pk=job.pk).status == JobStatus.CANCELLED


def test_a_handler_stopping_on_its_own_fails_the_job():
    job = JobFactory(kind="export")

    def handler(job, progress):
        raise JobCancelled("nothing to export")

    with mock.patch.object(runner, "_handlers", return_value={"export": handler}):
        assert run_job(str(job.pk)) == "failed"
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED and job.error == "nothing to export"
