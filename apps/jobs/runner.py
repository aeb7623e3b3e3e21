"""run_job(job_id): claim, dispatch to the kind's service, record success or failure."""
from __future__ import annotations

import logging
import traceback

from django.conf import settings

from engine.errors import SpecError

from .models import Job
from .progress import DbProgress, Heartbeat, JobCancelled
from .services import job_claim, job_fail, job_log, job_mark_cancelled, job_succeed

log = logging.getLogger(__name__)


def _handlers():
    # Imported here: the services import the jobs app, not the other way round.
    from apps.designs.services import design_compute_job

    handlers = {"compute": design_compute_job}
    try:
        from apps.exports.services import export_build_job
    except ImportError:  # exports app not installed
        pass
    else:
        handlers["export"] = export_build_job
    return handlers


def run_job(job_id: str) -> str:
    """Returns what happened: "duplicate", "succeeded", "failed", "cancelled", or "superseded" (the job
    was taken from this run: the reaper requeued or failed it while it ran)."""
    if not job_claim(job_id=job_id):
        log.info("job %s was not queued any more (duplicate delivery or cancelled); skipping", job_id)
        return "duplicate"
    job = Job.objects.get(pk=job_id)
    attempt = job.attempts  # this claim's number; every later update names it (see apps.jobs.services)
    handler = _handlers().get(job.kind)
    if handler is None:
        job_fail(job_id=job_id, attempt=attempt, error=f"unknown job kind {job.kind!r}")
        return "failed"
    try:
        with Heartbeat(job_id, settings.JOB_HEARTBEAT_INTERVAL_S, attempt=attempt):
            result = handler(job=job, progress=DbProgress(job_id, attempt=attempt))
    except JobCancelled as exc:
        if job_mark_cancelled(job_id=job_id, attempt=attempt):
            job_log(job=job, level="info", message=str(exc))
            return "cancelled"
        log.warning("job %s attempt %s stopped: %s", job_id, attempt, exc)
        # Still this run's job only if a handler raised JobCancelled on its own: record that as a failure.
        return "failed" if job_fail(job_id=job_id, attempt=attempt, error=str(exc)) else "superseded"
    except SpecError as exc:
        # A spec the engine cannot build is the user's to fix: show the field messages, no traceback.
        job_fail(job_id=job_id, attempt=attempt, error="; ".join(str(e) for e in exc.errors),
                 result={"errors": [{"field": e.path, "message": e.message} for e in exc.errors]})
        return "failed"
    except Exception as exc:  # noqa: BLE001 - any other failure is recorded on the job, with its traceback in the log
        log.exception("job %s failed", job_id)
        job_fail(job_id=job_id, attempt=attempt, error=f"{type(exc).__name__}: {exc}")
        job_log(job=job, level="error", message=traceback.format_exc())
        return "failed"
    # Handlers that write results mark the job succeeded inside their own transaction (so a result
    # and its job status commit together); this covers handlers that write nothing.
    if not job_succeed(job_id=job_id, attempt=attempt, result=result or {}) and \
            job_mark_cancelled(job_id=job_id, attempt=attempt):
        return "cancelled"  # the user cancelled it while a handler that writes nothing ran
    return "succeeded"
