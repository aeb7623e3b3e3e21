"""Job lifecycle: create + enqueue on commit, claim, progress, heartbeat, finish, cancel, reap.

Every state change is a conditional UPDATE on the current status, so a duplicate delivery, a
reaper and a worker racing each other can never both win (healthchecks' sendalerts pattern).

A claim counts the attempt (`attempts`), and a worker passes its attempt number to every later
update. So a worker the reaper gave up on (it stopped sending heartbeats, the job was requeued and
another worker claimed it) can no longer change the job: its updates match no row, and it stops.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Max, Min
from django.utils import timezone

from apps.common.exceptions import ApplicationError

from .models import Job, JobStatus, WorkerBeat

log = logging.getLogger(__name__)

LOG_LIMIT = 200  # log entries kept per job; older ones are dropped first

ENQUEUE_FAILED = "the job could not be queued: the message broker did not answer. Try again later."
NEVER_SENT = "the job was never queued: the request that created it ended before its message was sent. Start it again."
# A job whose message was never confirmed sent is failed this long after it was created (sending takes at
# most JOB_PUBLISH_TIMEOUT_S): its request died in between, and its user was never told it was queued.
NEVER_SENT_AFTER_S = 60

# Advisory lock spaces (first key) on PostgreSQL: one user's job creations (second key: the user id) and the
# workers' claims (second key 0). SQLite serializes every write transaction anyway (BEGIN IMMEDIATE).
_QUOTA_LOCK = 0x6671  # "fq"
_CLAIM_LOCK = 0x6663  # "fc"


class JobQuotaExceeded(ApplicationError):
    """The user has as many queued jobs as JOB_MAX_QUEUED_PER_USER allows; `retry_after` is in seconds."""

    def __init__(self, message: str, *, retry_after: int, queued: int, limit: int):
        super().__init__(message, {"code": "job_quota_exceeded", "queued": queued, "limit": limit})
        self.retry_after = retry_after


class JobNotQueued(ApplicationError):
    """The job's message could not be sent: the job is failed (never run later), and `job` says so."""

    def __init__(self, job: Job):
        super().__init__(job.error or ENQUEUE_FAILED, {"code": "broker_unavailable"})
        self.job = job


def _xact_lock(space: int, key: int) -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s, %s)", [space, key % 2**31])


def job_check_quota(user) -> None:
    """Raise JobQuotaExceeded when `user` may not queue another job. Call inside the creating transaction:
    on PostgreSQL it holds the user's lock until the commit, so concurrent requests count each other."""
    if user is None or not getattr(user, "pk", None):
        return
    _xact_lock(_QUOTA_LOCK, user.pk)
    limit = settings.JOB_MAX_QUEUED_PER_USER
    queued = Job.objects.filter(created_by=user, status=JobStatus.QUEUED).count()
    if queued >= limit:
        raise JobQuotaExceeded(
            f"You already have {queued} jobs waiting to run (the limit is {limit}). "
            "Wait for some of them to finish, or cancel one, then try again.",
            retry_after=settings.JOB_QUOTA_RETRY_AFTER_S,
            queued=queued,
            limit=limit,
        )


def job_create(*, kind: str, user, design=None, params: dict | None = None, idempotency_key: str | None = None) -> Job:
    """Create the job row and send its task once the surrounding transaction commits.

    A transaction that rolls back takes the row with it and sends nothing. Beyond the user's queued-job
    quota it raises JobQuotaExceeded and creates nothing. Once the transaction has committed, call
    job_sent(job): the task is sent by then, or the job failed because the broker did not take it.
    """
    with transaction.atomic():
        job_check_quota(user)
        job = Job.objects.create(
            kind=kind, created_by=user, design=design, params=params or {}, idempotency_key=idempotency_key
        )
        transaction.on_commit(lambda: _enqueue(str(job.id)))
    return job


def job_sent(job: Job) -> Job:
    """The job as it is now, after the commit that sent its task; JobNotQueued when the broker refused it
    (the job is then failed, so it never runs later and nobody is told it is queued)."""
    job.refresh_from_db()
    if job.status == JobStatus.FAILED and job.error == ENQUEUE_FAILED:
        raise JobNotQueued(job)
    return job


def _enqueue(job_id: str) -> bool:
    """Send the job's task. Runs after commit, so a failure can only be recorded on the job, not undone.

    The send gets JOB_PUBLISH_TIMEOUT_S in all: it runs in a thread of its own and is given up on after
    that, whatever the transport's client does meanwhile (redis-py, for one, retries a timed-out command),
    so a request never hangs on a broker in trouble. A job whose task did not go out in time is failed at
    once, while still queued, so neither a worker (its claim needs "queued"), should the message still
    arrive, nor the resender runs it later. A task that did go out records when (heartbeat_at, while
    queued), which tells the resender the message exists.
    """
    sent = threading.Event()
    errors: list[BaseException] = []

    def send() -> None:
        from .tasks import run_job

        try:
            run_job.delay(job_id)  # not retried: task_publish_retry is off (fabricdesign/celery.py)
        except Exception as exc:  # noqa: BLE001 - any broker error is reported below
            errors.append(exc)
        finally:
            sent.set()

    threading.Thread(target=send, name=f"send-{job_id}", daemon=True).start()
    if not sent.wait(settings.JOB_PUBLISH_TIMEOUT_S) or errors:
        log.error(
            "could not enqueue job %s: %s",
            job_id,
            f"{type(errors[0]).__name__}: {errors[0]}"
            if errors
            else f"no answer from the broker within {settings.JOB_PUBLISH_TIMEOUT_S} s",
        )
        Job.objects.filter(pk=job_id, status=JobStatus.QUEUED).update(
            status=JobStatus.FAILED, finished_at=timezone.now(), error=ENQUEUE_FAILED, stage="broker unavailable"
        )
        return False
    Job.objects.filter(pk=job_id, status=JobStatus.QUEUED, heartbeat_at__isnull=True).update(
        heartbeat_at=timezone.now()
    )
    return True


def _mine(job_id, attempt: int | None, **status):
    """The job's row, narrowed to one attempt when the caller names it."""
    qs = Job.objects.filter(pk=job_id, **status)
    return qs if attempt is None else qs.filter(attempts=attempt)


def job_claim(*, job_id) -> bool:
    """Take a queued job for this worker. False means another delivery has it (or it was cancelled)."""
    now = timezone.now()
    return (
        Job.objects.filter(pk=job_id, status=JobStatus.QUEUED).update(
            status=JobStatus.RUNNING,
            started_at=now,
            heartbeat_at=now,
            attempts=F("attempts") + 1,
            stage="starting",
            percent=0,
        )
        == 1
    )


def job_claim_next() -> Job | None:
    """Claim the job that should run next, whichever job's message woke this worker, or None.

    Fairness: among users below JOB_MAX_RUNNING_PER_USER running jobs, the one with the fewest running
    goes first; ties go to the user whose last job started longest ago (never: first), so users take turns
    on a busy worker; then that user's oldest queued job. A message is thus a wake-up, not an address:
    every queued job has sent one, and a worker that finishes a job claims again (apps.jobs.runner), so a
    job left waiting for its user's slot still runs once the slot frees.
    """
    limit = settings.JOB_MAX_RUNNING_PER_USER
    for _ in range(5):  # a claim that loses its row to a concurrent one (not on PostgreSQL) tries again
        with transaction.atomic():
            _xact_lock(_CLAIM_LOCK, 0)
            running = Counter(Job.objects.filter(status=JobStatus.RUNNING).values_list("created_by_id", flat=True))
            queued = Job.objects.filter(status=JobStatus.QUEUED, cancel_requested=False)
            heads = {
                row["created_by_id"]: row["oldest"]
                for row in queued.values("created_by_id").annotate(oldest=Min("created_at")).order_by()
            }
            eligible = [uid for uid in heads if running[uid] < limit]
            if not eligible:
                return None
            users = [uid for uid in eligible if uid is not None]
            last = dict(
                Job.objects.filter(created_by_id__in=users, started_at__isnull=False)
                .values("created_by_id")
                .annotate(last=Max("started_at"))
                .order_by()
                .values_list("created_by_id", "last")
            )
            never = datetime.min.replace(tzinfo=UTC)
            uid = min(eligible, key=lambda u: (running[u], last.get(u) or never, heads[u]))
            mine = queued.filter(created_by_id=uid) if uid is not None else queued.filter(created_by__isnull=True)
            job_id = mine.order_by("created_at", "pk").values_list("pk", flat=True).first()
            if job_id is not None and job_claim(job_id=job_id):
                return Job.objects.get(pk=job_id)
    return None


def job_heartbeat(*, job_id, attempt: int | None = None) -> bool:
    return _mine(job_id, attempt, status=JobStatus.RUNNING).update(heartbeat_at=timezone.now()) == 1


def job_progress(*, job_id, stage: str, percent: float, attempt: int | None = None) -> bool:
    """Record progress (and a heartbeat). False means stop: the job is no longer this worker's to run,
    or the user asked to cancel it."""
    return (
        _mine(job_id, attempt, status=JobStatus.RUNNING, cancel_requested=False).update(
            stage=stage[:64], percent=round(min(100.0, max(0.0, percent)), 1), heartbeat_at=timezone.now()
        )
        == 1
    )


def job_log(*, job: Job, level: str, message: str) -> None:
    entry = {"time": timezone.now().isoformat(timespec="seconds"), "level": level, "message": message[:2000]}
    with transaction.atomic():
        row = Job.objects.select_for_update().only("log").get(pk=job.pk)
        entries = [*(row.log or [])[-(LOG_LIMIT - 1) :], entry]
        Job.objects.filter(pk=job.pk).update(log=entries)


def job_succeed(*, job_id, result: dict | None = None, attempt: int | None = None) -> bool:
    """Mark the job succeeded. False if it is not this worker's any more or the user asked to cancel it:
    a caller writing a result in the same transaction must then roll it back."""
    return (
        _mine(job_id, attempt, status=JobStatus.RUNNING, cancel_requested=False).update(
            status=JobStatus.SUCCEEDED, finished_at=timezone.now(), percent=100, stage="done", result=result or {}
        )
        == 1
    )


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
    return (
        _mine(job_id, attempt, status=JobStatus.RUNNING, cancel_requested=True).update(
            status=JobStatus.CANCELLED, finished_at=timezone.now(), stage="cancelled"
        )
        == 1
    )


def job_request_cancel(*, job: Job) -> Job:
    """Ask a job to stop. A queued job is cancelled at once; a running one stops at its next progress report,
    and never stores a result after the request."""
    Job.objects.filter(pk=job.pk, status__in=(JobStatus.QUEUED, JobStatus.RUNNING)).update(cancel_requested=True)
    Job.objects.filter(pk=job.pk, status=JobStatus.QUEUED).update(
        status=JobStatus.CANCELLED, finished_at=timezone.now(), stage="cancelled"
    )
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
            if (
                stale.update(
                    status=JobStatus.QUEUED,
                    stage="requeued after the worker stopped responding",
                    percent=0,
                    heartbeat_at=timezone.now(),
                )
                == 1
            ):
                requeued.append(str(job.pk))
                transaction.on_commit(lambda jid=str(job.pk): _enqueue(jid))
        elif (
            stale.update(
                status=JobStatus.FAILED,
                finished_at=timezone.now(),
                error=f"the worker stopped responding (no heartbeat for {timeout_s:.0f} s) "
                f"after {job.attempts} attempt(s)",
            )
            == 1
        ):
            failed.append(str(job.pk))
    if requeued or failed or cancelled:
        log.warning("reaped stale jobs: requeued %s, failed %s, cancelled %s", requeued, failed, cancelled)
    return {"requeued": requeued, "failed": failed, "cancelled": cancelled}


def job_resend_unclaimed(*, after_s: float | None = None) -> list[str]:
    """Send again the task of jobs still queued long after their task was sent; returns their ids.

    A worker killed after taking a message but before claiming the job loses that message until the
    broker redelivers it (on Redis: after the visibility timeout, an hour by default). Sending it again
    is harmless: the conditional claim lets exactly one delivery run the job. While a job is queued,
    heartbeat_at records when its task was last sent. A job whose task was never sent (heartbeat_at still
    None: its request ended between the commit and the send) is failed instead, NEVER_SENT_AFTER_S after
    it was created: its user was never told it was queued, so it must not run later.
    """
    after_s = after_s if after_s is not None else settings.JOB_QUEUED_RESEND_S
    now = timezone.now()
    unsent = Job.objects.filter(
        status=JobStatus.QUEUED, heartbeat_at__isnull=True, created_at__lt=now - timedelta(seconds=NEVER_SENT_AFTER_S)
    )
    never_sent = [
        str(pk)
        for pk in unsent.values_list("pk", flat=True)
        if unsent.filter(pk=pk).update(status=JobStatus.FAILED, finished_at=now, error=NEVER_SENT, stage="never sent")
        == 1
    ]
    if never_sent:
        log.warning("failed jobs whose task was never sent: %s", never_sent)
    waiting = Job.objects.filter(status=JobStatus.QUEUED, heartbeat_at__lt=now - timedelta(seconds=after_s))
    resent = []
    for job_id in waiting.values_list("pk", flat=True):
        if waiting.filter(pk=job_id).update(heartbeat_at=now) == 1:
            resent.append(str(job_id))
            transaction.on_commit(lambda jid=str(job_id): _enqueue(jid))
    if resent:
        log.warning("re-sent the tasks of jobs queued for over %.0f s: %s", after_s, resent)
    return resent


def worker_seen(hostname: str) -> None:
    """Record that the worker `hostname` is alive (apps.jobs.workerbeat calls it every WORKER_BEAT_INTERVAL_S)."""
    WorkerBeat.objects.update_or_create(hostname=hostname[:255], defaults={"seen_at": timezone.now()})


def worker_last_seen():
    """When any worker last said it was alive (None: never)."""
    return WorkerBeat.objects.aggregate(last=Max("seen_at"))["last"]
