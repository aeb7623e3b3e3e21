from celery import shared_task


@shared_task(name="designs.drop_orphan_partitions", ignore_result=True)
def drop_orphan_partitions() -> int:
    """Drop row partitions left behind by revisions deleted while their table was busy (PostgreSQL only)."""
    from .partitions import drop_orphan_partitions as drop

    return drop()
