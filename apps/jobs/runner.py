"""run_job(job_id): claim the fairest queued job, run it under its limits, record success or failure; repeat."""

from __future__ import annotations

import logging
import traceback

from django.conf import settings
from django.db import InterfaceError, OperationalError, connection

from apps.common.errors import DomainError
from engine.errors import SpecError

from .limits import JobLimitExceeded, Watchdog, as_sentence
from .models import Job, JobStatus
from .progress import DbProgress, Heartbeat, JobCancelled, JobFailed
from .registry import job_handlers
from .services import job_claim_next, job_fail, job_log, job_mark_cancelled, job_succeed

log = logging.getLogger(__name__)


def _driver_errors() -> tuple[type[Exception], ...]:
    """psycopg's own connection errors: what the bulk store's COPY raises (it uses the driver's cursor, which
    Django does not wrap), e.g. AdminShutdown when the backend is terminated mid-COPY."""
    try:
        import psycopg
    except ImportError:  # SQLite-only installs
        return ()
    return (psycopg.OperationalError, psycopg.InterfaceError)


# A dropped connection, a failover or a deadlock mid-store rolls the store back; the job then runs once more
# in the same attempt before it is failed (the handlers are safe to run twice: nothing commits until the end).
TRANSIENT_DB_ERRORS = (OperationalError, InterfaceError, *_driver_errors())
DB_RETRIES = 1


def _handlers():
    return job_handlers()  # registered by the feature apps (apps.jobs.registry)


def run_job(job_id: str | None = None) -> str:
    """Run queued jobs, fairest first (apps.jobs.services.job_claim_next), until none may run now.

    The message's `job_id` only woke this worker: the job it names may run here or on another worker.
    Returns what happened to the first job claimed: "succeeded", "failed", "cancelled", "superseded" (the
    reaper requeued or failed it while it ran), or "duplicate" when there was nothing to claim (a duplicate
    delivery, a cancelled job, or every queued job's user at their running limit).
    """
    first = None
    while True:
        job = job_claim_next()
        if job is None:
            break
        outcome, stop_here = _run_claimed(job)
        first = first or outcome
        if stop_here:
            break  # after a limit (the pool may replace a bloated process) or being superseded
    if first is None:
        log.info(
            "no job to claim for the message of job %s (duplicate delivery, cancelled, or every "
            "waiting user at their running limit)",
            job_id,
        )
        return "duplicate"
    return first


def _run_claimed(job: Job) -> tuple[str, bool]:
    job_id = str(job.pk)
    attempt = job.attempts  # this claim's number; every later update names it (see apps.jobs.services)
    handler = _handlers().get(job.kind)
    if handler is None:
        job_fail(job_id=job_id, attempt=attempt, error=f"unknown job kind {job.kind!r}")
        return "failed", False
    retries = DB_RETRIES
    while True:
        watchdog = Watchdog(job_id, job.kind, attempt)
        try:
            with Heartbeat(job_id, settings.JOB_HEARTBEAT_INTERVAL_S, attempt=attempt), watchdog.guarding():
                result = handler(job=job, progress=DbProgress(job_id, attempt=attempt, watchdog=watchdog))
        except JobCancelled as exc:
            _fresh_connection_after(watchdog)
            if job_mark_cancelled(job_id=job_id, attempt=attempt):
                # Raised by the watchdog, the exception carries no text of its own: its reason is the watchdog's.
                job_log(job=job, level="info", message=str(exc) or watchdog.reason or "cancelled")
                return "cancelled", False
            log.warning("job %s attempt %s stopped: %s", job_id, attempt, exc)
            # Still this run's job only if a handler raised JobCancelled on its own: record that as a failure.
            # Superseded: the reaper took this worker for dead; it claims nothing more on this message.
            if job_fail(job_id=job_id, attempt=attempt, error=str(exc) or watchdog.reason or "stopped"):
                return "failed", False
            return "superseded", True
        except JobLimitExceeded:
            _fresh_connection_after(watchdog)
            reason = watchdog.reason or "the job exceeded a limit"
            if not job_fail(job_id=job_id, attempt=attempt, error=as_sentence(reason)):
                return "superseded", True
            job_log(job=job, level="error", message=reason)
            return "failed", True
        except (JobFailed, DomainError) as exc:
            # An expected failure with a message for the user (a file the job cannot read, a full store): that
            # message is the job's error, without a traceback.
            message = exc.message if isinstance(exc, DomainError) else str(exc)
            job_fail(job_id=job_id, attempt=attempt, error=message)
            job_log(job=job, level="error", message=message)
            return "failed", False
        except SpecError as exc:
            # A spec the engine cannot build is the user's to fix: show the field messages, no traceback.
            job_fail(
                job_id=job_id,
                attempt=attempt,
                error="; ".join(str(e) for e in exc.errors),
                result={"errors": [{"field": e.path, "message": e.message} for e in exc.errors]},
            )
            return "failed", False
        except TRANSIENT_DB_ERRORS as exc:
            connection.close()  # the next query opens a new connection
            if retries and watchdog.reason is None and _still_mine(job_id, attempt):
                retries -= 1
                log.warning("job %s: database error (%s: %s); running it once more", job_id, type(exc).__name__, exc)
                job_log(job=job, level="warning", message=f"database error, retrying once: {type(exc).__name__}: {exc}")
                continue
            return _failed(job, attempt, exc), False
        except Exception as exc:  # noqa: BLE001 - any other failure is recorded on the job, with its traceback
            _fresh_connection_after(watchdog)
            return _failed(job, attempt, exc), False
        break
    # Handlers that write results mark the job succeeded inside their own transaction (so a result
    # and its job status commit together); this covers handlers that write nothing.
    if not job_succeed(job_id=job_id, attempt=attempt, result=result or {}) and job_mark_cancelled(
        job_id=job_id, attempt=attempt
    ):
        return "cancelled", False  # the user cancelled it while a handler that writes nothing ran
    return "succeeded", False


def _failed(job: Job, attempt: int, exc: Exception) -> str:
    log.error("job %s failed", job.pk, exc_info=exc)
    job_fail(job_id=str(job.pk), attempt=attempt, error=f"{type(exc).__name__}: {exc}")
    job_log(job=job, level="error", message="".join(traceback.format_exception(exc)))
    return "failed"


def _still_mine(job_id: str, attempt: int) -> bool:
    try:
        return Job.objects.filter(
            pk=job_id, status=JobStatus.RUNNING, attempts=attempt, cancel_requested=False
        ).exists()
    except TRANSIENT_DB_ERRORS:
        connection.close()
        return False


def _fresh_connection_after(watchdog: Watchdog) -> None:
    """A stop raised by the watchdog may have interrupted the database driver mid-conversation: the records
    that follow use a new connection."""
    if watchdog.reason is not None and not connection.in_atomic_block:
        connection.close()
