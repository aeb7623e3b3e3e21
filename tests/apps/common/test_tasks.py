import time
import uuid

import pytest
from celery.contrib.testing.worker import start_worker
from celery.signals import task_success

from apps.common.tasks import ping
from fabricdesign.celery import app as celery_app


def test_ping_returns_pong_when_called_directly():
    assert ping() == "pong"


def test_tasks_can_wait_for_the_transaction_to_commit():
    # Celery's Django fixup must have given tasks DjangoTask's delay_on_commit;
    # services rely on it to never enqueue a job row that was rolled back.
    assert callable(ping.delay_on_commit)


@pytest.mark.integration
def test_a_worker_runs_ping_sent_through_the_configured_broker():
    """GIVEN the broker from settings (filesystem by default, Redis in CI)
    WHEN ping is published and an in-process worker consumes its queue
    THEN the worker runs it successfully.

    A private queue keeps a dev worker on the same broker from taking it.
    """
    queue = f"test-{uuid.uuid4().hex}"
    ran = []

    def on_success(sender=None, result=None, **kwargs):
        ran.append(result)

    task_success.connect(on_success, weak=False)
    try:
        with start_worker(celery_app, perform_ping_check=False, queues=[queue]):
            ping.apply_async(queue=queue)
            _wait_for(lambda: ran, timeout=20)
    finally:
        task_success.disconnect(on_success)
        with celery_app.connection_for_write() as conn:
            conn.default_channel.queue_delete(queue)

    assert ran == ["pong"]


def _wait_for(predicate, *, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        time.sleep(0.05)
