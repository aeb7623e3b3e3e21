"""Jobs through a real broker and real worker processes, on the test database.

Runs on PostgreSQL and Redis (CI) and on the defaults, SQLite and the filesystem broker (the SQLite
test database is a file: see conftest.py). Workers beat every second and count as dead after 3 s
(JOB_HEARTBEAT_INTERVAL_S / JOB_HEARTBEAT_TIMEOUT_S); JOB_TEST_STALL holds a worker's computation at a
chosen stage so a test can kill or cancel it mid-run.
"""

from __future__ import annotations

import time
import uuid

import pytest
from django.db import transaction

from apps.designs.models import CableRecord, LinkRecord, Revision
from apps.designs.services import design_compute_enqueue
from apps.jobs.models import Job, JobStatus
from apps.jobs.services import job_create, job_reap_stale, job_request_cancel
from apps.jobs.tasks import run_job
from tests.apps.jobs.conftest import delete_queue, sending_to, wait_for
from tests.factories import DesignFactory, JobFactory

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def wait_status(job: Job, status: str, *, worker, timeout: float = 30) -> Job:
    wait_for(
        lambda: Job.objects.filter(pk=job.pk, status=status).exists(),
        timeout=timeout,
        what=f"job {job.pk} {status} (it is {Job.objects.get(pk=job.pk).status})",
        alive=worker,
    )
    job.refresh_from_db()
    return job


def assert_fully_stored(job: Job) -> Revision:
    rev = Revision.objects.get(pk=job.result["revision_id"])
    assert rev.number == job.result["revision"]
    assert LinkRecord.objects.filter(revision=rev).count() == rev.link_count == rev.summary["links_total"] > 0
    assert CableRecord.objects.filter(revision=rev).count() == rev.cable_count == rev.summary["cables_total"] > 0
    return rev


def test_a_worker_computes_a_job_and_a_second_delivery_computes_nothing(worker, users):
    """GIVEN a design and a worker
    WHEN the design's compute job is enqueued (on commit) and the same job id is delivered once more
    THEN one delivery computes and stores revision 1 with every link and cable, the other returns
         "duplicate", and the job's timings are set."""
    design = DesignFactory(owner=users.alice)
    with sending_to(worker.queue):
        job = design_compute_enqueue(design=design, user=users.alice)
        run_job.delay(str(job.pk))

    worker.wait_log("'duplicate'")
    job = wait_status(job, JobStatus.SUCCEEDED, worker=worker)
    log = worker.log()
    assert log.count("'succeeded'") == 1 and log.count("'duplicate'") == 1
    rev = assert_fully_stored(job)
    assert Revision.objects.filter(design=design).count() == 1 and rev.number == 1
    assert job.attempts == 1 and job.percent == 100 and job.stage == "done" and job.error == ""
    assert job.started_at <= job.heartbeat_at and job.started_at < job.finished_at
    assert job.result["seconds"] >= job.result["compute_seconds"] > 0 and job.result["store_seconds"] > 0
    assert rev.compute_seconds > 0


def test_a_job_whose_worker_is_killed_mid_store_is_requeued_within_the_heartbeat_window(
    start_worker, worker, users, settings
):
    """GIVEN a worker holding its job inside the store transaction (links written, cables not yet)
    WHEN the worker is killed (SIGKILL) and the reaper runs
    THEN nothing of the revision exists, the job stays RUNNING only until its heartbeat is 3 s old,
         the reaper requeues it, and another worker computes it (attempt 2): one complete revision."""
    doomed = start_worker(JOB_TEST_STALL="storing:60")
    design = DesignFactory(owner=users.alice)
    with sending_to(doomed.queue):
        job = design_compute_enqueue(design=design, user=users.alice)
    doomed.wait_log("JOB_TEST_STALL")
    assert Job.objects.get(pk=job.pk).status == JobStatus.RUNNING

    doomed.kill()
    killed_at = time.monotonic()
    assert not Revision.objects.filter(design=design).exists()
    assert not LinkRecord.objects.exists() and not CableRecord.objects.exists()

    settings.JOB_HEARTBEAT_TIMEOUT_S = 3
    with sending_to(worker.queue):  # the requeued job goes to the healthy worker
        reaped = wait_for(
            lambda: job_reap_stale()["requeued"], timeout=20, what="the reaper to requeue the job", every=0.25
        )
    assert reaped == [str(job.pk)]
    # Stale 3 s after the last heartbeat, which the killed worker sent at most 1 s before it died.
    assert time.monotonic() - killed_at < 3 + 1 + 2

    job = wait_status(job, JobStatus.SUCCEEDED, worker=worker)
    assert job.attempts == 2
    assert assert_fully_stored(job).number == 1
    assert Revision.objects.filter(design=design).count() == 1


def test_cancelling_a_running_job_stops_it_and_stores_nothing(start_worker, users):
    """GIVEN a job running on a worker (held at the placement stage, reporting progress)
    WHEN the user cancels it
    THEN the worker stops it at its next progress report: cancelled, finished, no revision."""
    slow = start_worker(JOB_TEST_STALL="placement:60")
    design = DesignFactory(owner=users.alice)
    with sending_to(slow.queue):
        job = design_compute_enqueue(design=design, user=users.alice)
    wait_for(
        lambda: Job.objects.filter(pk=job.pk, status=JobStatus.RUNNING, stage="placement").exists(),
        timeout=30,
        what="the job to reach placement",
        alive=slow,
    )

    job = job_request_cancel(job=job)
    assert job.status == JobStatus.RUNNING and job.cancel_requested

    job = wait_status(job, JobStatus.CANCELLED, worker=slow, timeout=10)
    slow.wait_log("'cancelled'")
    assert job.finished_at is not None and job.stage == "cancelled"
    assert not Revision.objects.filter(design=design).exists() and not LinkRecord.objects.exists()


def test_a_job_failing_with_a_spec_error_shows_the_field_messages(worker, users):
    design = DesignFactory(owner=users.alice)
    bad = {**design.spec, "compute_fabric": {**design.spec["compute_fabric"], "switch": "no-such-switch"}}
    job = JobFactory(design=design, params={"spec": bad})
    with sending_to(worker.queue):
        run_job.delay(str(job.pk))

    job = wait_status(job, JobStatus.FAILED, worker=worker)
    assert job.error.startswith("compute_fabric.switch: ") and "no-such-switch" in job.error
    assert "Traceback" not in job.error
    assert [e["field"] for e in job.result["errors"]] == ["compute_fabric.switch"]
    assert not Revision.objects.filter(design=design).exists()


def test_a_job_reaches_the_broker_only_when_its_transaction_commits(users):
    """A rolled-back transaction sends nothing; a committed one sends the job once, at commit."""
    queue = f"jobs-test-{uuid.uuid4().hex[:12]}"
    design = DesignFactory(owner=users.alice)
    try:
        with sending_to(queue):
            with pytest.raises(RuntimeError), transaction.atomic():
                job_create(kind="compute", user=users.alice, design=design)
                raise RuntimeError("roll back")
            assert not Job.objects.exists()
            assert _messages(queue) == 0

            with transaction.atomic():
                job = job_create(kind="compute", user=users.alice, design=design)
                assert _messages(queue) == 0  # not before the commit
            assert _messages(queue) == 1
            assert Job.objects.get().pk == job.pk
    finally:
        delete_queue(queue)


def _messages(queue: str) -> int:
    from fabricdesign.celery import app

    with app.connection_for_write() as conn:
        return conn.default_channel.queue_declare(queue=queue).message_count
