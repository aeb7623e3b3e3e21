from celery import shared_task


@shared_task(name="exports.prune_artifacts", ignore_result=True)
def prune_artifacts() -> dict:
    """Size and age retention of the artifact store (settings.ARTIFACT_MAX_BYTES / ARTIFACT_MAX_AGE_DAYS)."""
    from .artifacts import artifact_prune

    return artifact_prune()
