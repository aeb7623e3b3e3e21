from celery import shared_task


@shared_task(name="api.prune_rate_counters", ignore_result=True)
def prune_rate_counters() -> int:
    """Hourly: delete the database store's rate-limit rows whose window has ended (one per client that
    ever called the API would otherwise pile up, anonymous addresses above all). Redis keys expire alone."""
    from .ratelimit import prune_database_counters

    return prune_database_counters()
