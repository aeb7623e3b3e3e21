from celery import shared_task


@shared_task(name="jobs.run_job", ignore_result=True)
def run_job(job_id: str) -> str:
    """Run one job by id. The outcome ("succeeded", "duplicate", ...) is not stored, only logged by the worker."""
    from .runner import run_job as run

    return run(job_id)


@shared_task(name="jobs.reap_stale_jobs", ignore_result=True)
def reap_stale_jobs() -> dict:
    from .services import job_reap_stale, job_resend_unclaimed

    return {**job_reap_stale(), "resent": job_resend_unclaimed()}
