"""Job lifecycle: create + enqueue on commit, claim, progress, heartbeat, finish, cancel, reap.

Every state change is a conditional UPDATE on the current status, so a duplicate delivery, a
reaper and a worker racing each other can never both win (healthchecks' sendalerts pattern).
"""
from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from .models import TERMINAL, Job, JobStatus

log = logging.getLogger(__name__)

LOG_LIMIT = 200  # log entries kept per job; older ones are dropped first


def job_create(*, kind: str, user, design=None, params: dict | None = None, idempotency_key: str | None = None) -> Job:
    """Create the job row and enqueue its task once the surrounding transaction commits."""
    from .tasks import run_job

    with transaction.atomic():
        job = Job.objects.create(kind=kind, created_by=user, design=design, params=params or {},
                                 idempotency_key=idempotency_key)
        transaction.on_commit(lambda: run_job.delay(str(job.id)))
    return job


def job_claim(*, job_id) -> bool:
    """Take a queued job for this worker. False means another delivery has it (or it was cancelled)."""
    now = timezone.now()
    return Job.objects.filter(pk=job_id, status=JobStatus.QUEUED).update(
        status=JobStatus.RUNNING, started_at=now, heartbeat_at=now, attempts=F("attempts") + 1,
        stage="starting", percent=0) == 1


def job_heartbeat(*, job_id) -> bool:
    return Job.objects.filter(pk=job_id, status=JobStatus.RUNNING).update(heartbeat_at=timezone.now()) == 1


def job_progress(*, job_id, stage: str, percent: float) -> bool:
    """Record progress (and a heartbeat); returns False when the job is no longer running."""
    return Job.objects.filter(pk=job_id, status=JobStatus.RUNNING).update(
        stage=stage[:64], percent=round(min(100.0, max(0.0, percent)), 1), heartbeat_at=timezone.now()) == 1


def job_log(*, job: Job, level: str, message: str) -> None:
    entry = {"time": timezone.now().isoformat(timespec="seconds"), "level": level, "message": message[:2000]}
    with transaction.atomic():
        row = Job.objects.select_for_update().only("log").get(pk=job.pk)
        entries = (row.log or [])[-(LOG_LIMIT - 1):] + [entry]
        Job.objects.filter(pk=job.pk).update(log=entries)


def job_succeed(*, job_id, result: dict | None = None) -> bool:
    return Job.objects.filter(pk=job_id, status=JobStatus.RUNNING).update(
        status=JobStatus.SUCCEEDED, finished_at=timezone.now(), percent=100, stage="done",
        result=result or {}) == 1


def job_fail(*, job_id, error: str) -> bool:
    return Job.objects.filter(pk=job_id, status__in=(JobStatus.RUNNING, JobStatus.QUEUED)).update(
        status=JobStatus.FAILED, finished_at=timezone.now(), error=error[:10000]) == 1


def job_mark_cancelled(*, job_id) -> bool:
    return Job.objects.filter(pk=job_id, status__in=(JobStatus.RUNNING, JobStatus.QUEUED)).update(
        status=JobStatus.CANCELLED, finished_at=timezone.now(), stage="cancelled") == 1


def job_request_cancel(*, job: Job) -> Job:
    """Ask a job to stop. A queued job is cancelled at once; a running one stops at its next progress report."""
    Job.objects.filter(pk=job.pk, status__in=(JobStatus.QUEUED, JobStatus.RUNNING)).update(cancel_requested=True)
    Job.objects.filter(pk=job.pk, status=JobStatus.QUEUED).update(
        status=JobStatus.CANCELLED, finished_at=timezone.now(), stage="cancelled")
    job.refresh_from_db()
    return job


def job_reap_stale(*, timeout_s: float | None = None) -> dict:
    """Requeue (or fail, after max_attempts) running jobs whose worker stopped sending heartbeats.

    A broker's own redelivery can take an hour (visibility timeout), so the job row's heartbeat is
    what tells a dead worker from a slow one.
    """
    from .tasks import run_job

    timeout_s = timeout_s if timeout_s is not None else settings.JOB_HEARTBEAT_TIMEOUT_S
    cutoff = timezone.now() - timedelta(seconds=timeout_s)
    requeued, failed = [], []
    for job in Job.objects.filter(status=JobStatus.RUNNING, heartbeat_at__lt=cutoff).only("id", "attempts", "max_attempts"):
        stale = Job.objects.filter(pk=job.pk, status=JobStatus.RUNNING, heartbeat_at__lt=cutoff)
        if job.attempts < job.max_attempts:
            if stale.update(status=JobStatus.QUEUED, stage="requeued after the worker stopped responding") == 1:
                requeued.append(str(job.pk))
                transaction.on_commit(lambda jid=str(job.pk): run_job.delay(jid))
        elif stale.update(status=JobStatus.FAILED, finished_at=timezone.now(),
                          error=f"the worker stopped responding (no heartbeat for {timeout_s:.0f} s) "
                                f"after {job.attempts} attempt(s)") == 1:
            failed.append(str(job.pk))
    if requeued or failed:
        log.warning("reaped stale jobs: requeued %s, failed %s", requeued, failed)
    return {"requeued": requeued, "failed": failed}


def job_is_terminal(job: Job) -> bool:
    return job.status in TERMINAL
