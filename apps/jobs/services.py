"""Job lifecycle: create + enqueue on commit, claim, progress, heartbeat, finish, cancel, reap.

Every state change is a conditional UPDATE on the current status, so a duplicate delivery, a
reaper and a worker racing each other can never both win (healthchecks' sendalerts pattern).

A claim counts the attempt (`attempts`), and a worker passes its attempt number to every later
update. So a worker the reaper gave up on (it stopped sending heartbeats, the job was requeued and
another worker claimed it) can no longer change the job: its updates match no row, and it stops.
"""
from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from .models import TERMINAL, Job, JobStatus

log = logging.getLogger(__name__)

LOG_LIMIT = 200  # log entries kept per job; older ones are dropped first

ENQUEUE_FAILED = "the job could not be queued: the message broker did not answer. Try again later."


def job_create(*, kind: str, user, design=None, params: dict | None = None, idempotency_key: str | None = None) -> Job:
    """Create the job row and enqueue its task once the surrounding transaction commits.

    A transaction that rolls back takes the row with it and enqueues nothing.
    """
    with transaction.atomic():
        job = Job.objects.create(kind=kind, created_by=user, design=design, params=params or {},
                                 idempotency_key=idempotency_key)
        transaction.on_commit(lambda: _enqueue(str(job.id)))
    return job


def _enqueue(job_id: str) -> None:
    """Send the job's task. Runs after commit, so a failure can only be recorded on the job, not undone."""
    from .tasks import run_job

    try:
        run_job.delay(job_id)
    except Exception:  # noqa: BLE001 - any broker error; the user sees it on the job instead of a queued job forever
        log.exception("could not enqueue job %s", job_id)
        Job.objects.filter(pk=job_id, status=JobStatus.QUEUED).update(
            status=JobStatus.FAILED, finished_at=timezone.now(), error=ENQUEUE_FAILED)


def _mine(job_id, attempt: int | None, **status):
    """The job's row, narrowed to one attempt when the caller names it."""
    qs = Job.objects.filter(pk=job_id, **status)
    return qs if attempt is None else qs.filter(attempts=attempt)


def job_claim(*, job_id) -> bool:
    """Take a queued job for this worker. False means another delivery has it (or it was cancelled)."""
    now = timezone.now()
    return Job.objects.filter(pk=job_id, status=JobStatus.QUEUED).update(
        status=JobStatus.RUNNING, started_at=now, heartbeat_at=now, attempts=F("attempts") + 1,
        stage="starting", percent=0) == 1


def job_heartbeat(*, job_id, attempt: int | None = None) -> bool:
    return _mine(job_id, attempt, status=JobStatus.RUNNING).update(heartbeat_at=timezone.now()) == 1


def job_progress(*, job_id, stage: str, percent: float, attempt: int | None = None) -> bool:
    """Record progress (and a heartbeat). False means stop: the job is no longer this worker's to run,
    or the user asked to cancel it."""
    return _mine(job_id, attempt, status=JobStatus.RUNNING, cancel_requested=False).update(
        stage=stage[:64], percent=round(min(100.0, max(0.0, percent)), 1), heartbeat_at=timezone.now()) == 1


def job_log(*, job: Job, level: str, message: str) -> None:
    entry = {"time": timezone.now().isoformat(timespec="seconds"), "level": level, "message": message[:2000]}
    with transaction.atomic():
        row = Job.objects.select_for_update().only("log").get(pk=job.pk)
        entries = (row.log or [])[-(LOG_LIMIT - 1):] + [entry]
        Job.objects.filter(pk=job.pk).update(log=entries)


def job_succeed(*, job_id, result: dict | None = None, attempt: int | None = None) -> bool:
    """Mark the job succeeded. False if it is not this worker's any more or the user asked to cancel it:
    a caller writing a result in the same transaction must then roll it back."""
    return _mine(job_id, attempt, status=JobStatus.RUNNING, cancel_requested=False).update(
        status=JobStatus.SUCCEEDED, finished_at=timezone.now(), percent=100, stage="done",
        result=result or {}) == 1


def job_fail(*, job_id, error: str, attempt: int | None = None, result: dict | None = None) -> bool:
    """Mark the job failed with a message for the user (`result` may carry structured detail)."""
    fields = {"status": JobStatus.FAILED, "finished_at": timezone.now(), "error": error[:10000]}
    if result is not None:
        fields["result"] = result
    # A worker (attempt given) fails only its own running attempt, never a job the reaper requeued.
    statuses = (JobStatus.RUNNING,) if attempt is not None else (JobStatus.RUNNING, JobStatus.QUEUED)
    return _mine(job_id, attempt, status__in=statuses).update(**fields) == 1


def job_mark_cancelled(*, job_id, attempt: int | None = None) -> bool:
    """A running job stopped because the user asked it to (a queued one is cancelled by job_request_cancel)."""
    return _mine(job_id, attempt, status=JobStatus.RUNNING, cancel_requested=True).update(
        status=JobStatus.CANCELLED, finished_at=timezone.now(), stage="cancelled") == 1


def job_request_cancel(*, job: Job) -> Job:
    """Ask a job to stop. A queued job is cancelled at once; a running one stops at its next progress report,
    and never stores a result after the request."""
    Job.objects.filter(pk=job.pk, status__in=(JobStatus.QUEUED, JobStatus.RUNNING)).update(cancel_requested=True)
    Job.objects.filter(pk=job.pk, status=JobStatus.QUEUED).update(
        status=JobStatus.CANCELLED, finished_at=timezone.now(), stage="cancelled")
    job.refresh_from_db()
    return job


def job_reap_stale(*, timeout_s: float | None = None) -> dict:
    """Requeue (or fail, after max_attempts) running jobs whose worker stopped sending heartbeats.

    A broker's own redelivery can take an hour (visibility timeout), so the job row's heartbeat is
    what tells a dead worker from a slow one. A stale job the user asked to cancel is cancelled.
    """
    timeout_s = timeout_s if timeout_s is not None else settings.JOB_HEARTBEAT_TIMEOUT_S
    cutoff = timezone.now() - timedelta(seconds=timeout_s)
    requeued, failed, cancelled = [], [], []
    stale_jobs = Job.objects.filter(status=JobStatus.RUNNING, heartbeat_at__lt=cutoff)
    for job in stale_jobs.only("id", "attempts", "max_attempts", "cancel_requested"):
        # The same conditions again, and the attempt: a worker that came back to life in between wins.
        stale = stale_jobs.filter(pk=job.pk, attempts=job.attempts)
        if job.cancel_requested:
            if stale.update(status=JobStatus.CANCELLED, finished_at=timezone.now(), stage="cancelled") == 1:
                cancelled.append(str(job.pk))
        elif job.attempts < job.max_attempts:
            # heartbeat_at doubles as "last sent" while queued (see job_resend_unclaimed).
            if stale.update(status=JobStatus.QUEUED, stage="requeued after the worker stopped responding",
                            percent=0, heartbeat_at=timezone.now()) == 1:
                requeued.append(str(job.pk))
                transaction.on_commit(lambda jid=str(job.pk): _enqueue(jid))
        elif stale.update(status=JobStatus.FAILED, finished_at=timezone.now(),
                          error=f"the worker stopped responding (no heartbeat for {timeout_s:.0f} s) "
                                f"after {job.attempts} attempt(s)") == 1:
            failed.append(str(job.pk))
    if requeued or failed or cancelled:
        log.warning("reaped stale jobs: requeued %s, failed %s, cancelled %s", requeued, failed, cancelled)
    return {"requeued": requeued, "failed": failed, "cancelled": cancelled}


def job_resend_unclaimed(*, after_s: float | None = None) -> list[str]:
    """Send again the task of jobs still queued long after their task was sent; returns their ids.

    A worker killed after taking a message but before claiming the job loses that message until the
    broker redelivers it (on Redis: after the visibility timeout, an hour by default). Sending it again
    is harmless: the conditional claim lets exactly one delivery run the job. While a job is queued,
    heartbeat_at records when its task was last sent (None: when it was created).
    """
    after_s = after_s if after_s is not None else settings.JOB_QUEUED_RESEND_S
    now = timezone.now()
    cutoff = now - timedelta(seconds=after_s)
    waiting = Job.objects.filter(status=JobStatus.QUEUED).filter(
        Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at__isnull=True, created_at__lt=cutoff))
    resent = []
    for job_id in waiting.values_list("pk", flat=True):
        if waiting.filter(pk=job_id).update(heartbeat_at=now) == 1:
            resent.append(str(job_id))
            transaction.on_commit(lambda jid=str(job_id): _enqueue(jid))
    if resent:
        log.warning("re-sent the tasks of jobs queued for over %.0f s: %s", after_s, resent)
    return resent


def job_is_terminal(job: Job) -> bool:
    return job.status in TERMINAL
