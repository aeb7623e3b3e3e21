from celery import shared_task


@shared_task(name="jobs.run_job", ignore_result=True)
def run_job(job_id: str) -> None:
    from .runner import run_job as run

    run(job_id)


@shared_task(name="jobs.reap_stale_jobs", ignore_result=True)
def reap_stale_jobs() -> None:
    from .services import job_reap_stale

    job_reap_stale()
