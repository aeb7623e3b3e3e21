import logging

from celery import shared_task

logger = logging.getLogger(__name__)


@shared_task
def ping() -> str:
    """Round trip through the broker and a worker; used by the smoke test."""
    logger.info("pong")
    return "pong"
