"""A client polling a job exactly every Retry-After seconds keeps its connection: gunicorn's keep-alive
(gunicorn.conf.py) outlasts the wait the API asks for.

GIVEN the app under a real gunicorn with the repo's gunicorn.conf.py, and a job of alice's that stays queued
WHEN a client polls the job on one connection, waiting exactly the answer's Retry-After before each next poll,
     for 24 seconds
THEN every poll is answered on that same connection (no "Server disconnected"); while the same client against a
     gunicorn whose keep-alive is shorter than Retry-After loses the connection at its first wait (the check can
     fail, and did with gunicorn's default of 2 s: issue 40)
"""

from __future__ import annotations

import http.client
import time
from pathlib import Path

import pytest

from tests.apps.api.gunicorn_server import gunicorn_app, shared_database_url

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

POLL_FOR_S = 24


def _poll(host: str, port: int, target: str, key: str, seconds: float) -> int:
    """Polls on one connection for `seconds`, each after the previous answer's Retry-After; returns the polls made.
    Raises (http.client.RemoteDisconnected, ConnectionError) when the server dropped the connection meanwhile."""
    conn = http.client.HTTPConnection(host, port, timeout=30)
    conn.connect()
    local = conn.sock.getsockname()
    polls, end = 0, time.monotonic() + seconds
    try:
        while True:
            conn.request("GET", target, headers={"Authorization": f"Token {key}"})
            answer = conn.getresponse()
            answer.read()
            polls += 1
            assert answer.status == 200, answer.status
            assert conn.sock is not None and conn.sock.getsockname() == local, "the connection was not kept"
            wait = int(answer.getheader("Retry-After"))
            if time.monotonic() + wait > end:
                return polls
            time.sleep(wait)
    finally:
        conn.close()


@pytest.fixture
def queued_job(users):
    if shared_database_url() is None:
        pytest.skip("the test database is in-memory SQLite, which gunicorn's process cannot open")
    from apps.api.auth import token_create
    from apps.designs.services import design_create
    from apps.jobs.models import Job
    from tests.apps.api.conftest import SMALL_SPEC

    design = design_create(user=users.alice, spec=SMALL_SPEC)
    job = Job.objects.create(kind="compute", created_by=users.alice, design=design)  # no worker: stays queued
    _, key = token_create(user=users.alice, name="poller")
    return f"/api/v1/jobs/{job.pk}/", key


def test_polling_at_retry_after_keeps_the_connection(tmp_path, queued_job):
    target, key = queued_job
    with gunicorn_app(Path(tmp_path)) as (host, port):
        polls = _poll(host, port, target, key, POLL_FOR_S)
    assert polls >= 5  # Retry-After is 2 s, and a poll takes up to a second on a busy machine: all on one connection


def test_a_keepalive_shorter_than_retry_after_drops_the_poller(tmp_path, queued_job):
    target, key = queued_job
    with (
        gunicorn_app(Path(tmp_path), GUNICORN_KEEPALIVE="1") as (host, port),
        pytest.raises((http.client.RemoteDisconnected, ConnectionError, AssertionError)),
    ):
        _poll(host, port, target, key, 15)


def test_keepalive_is_above_every_retry_after_the_api_sends():
    import runpy

    from django.conf import settings

    from apps.api.output import JOB_POLL_AFTER_S
    from apps.api.ratelimit import parse_rate
    from tests.apps.api.gunicorn_server import ROOT

    keepalive = runpy.run_path(str(ROOT / "gunicorn.conf.py"))["keepalive"]
    waits = {
        "job poll": JOB_POLL_AFTER_S,
        "job quota": settings.JOB_QUOTA_RETRY_AFTER_S,
        "rate limit window": parse_rate(settings.API_THROTTLE_RATE)[1],
    }
    assert all(keepalive > w for w in waits.values()), (keepalive, waits)
