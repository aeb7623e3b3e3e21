from celery import shared_task


@shared_task(name="designs.drop_orphan_partitions", ignore_result=True)
def drop_orphan_partitions() -> int:
    """The hourly partition sweep (PostgreSQL only): drop row partitions left behind by revisions deleted while
    their table was busy, and build the sort indexes a stored revision lacks (its worker stopped between the
    commit and the build, or it was stored before they existed). Returns how many partitions it dropped."""
    from .partitions import build_missing_sort_indexes
    from .partitions import drop_orphan_partitions as drop

    dropped = drop()
    build_missing_sort_indexes()
    return dropped


@shared_task(name="designs.backfill_snapshots", ignore_result=True)
def backfill_snapshots() -> dict:
    """Periodic (settings.SNAPSHOT_BACKFILL_EVERY_S): snapshots for revisions stored before them, oldest first,
    for at most SNAPSHOT_BACKFILL_SECONDS per run so a worker is not held for long."""
    from django.conf import settings

    from .snapshots import snapshot_backfill_all

    return snapshot_backfill_all(seconds=settings.SNAPSHOT_BACKFILL_SECONDS)
