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
