"""GET /healthz: the database and the broker, each within HEALTHZ_TIMEOUT_S, and when a worker was last seen.

Failures are real: a port that refuses, and a listener that accepts and never answers (tests/silent_server.py).
"""

import time
from datetime import timedelta

import pytest
from django.db import connections
from django.utils import timezone

from apps.common import views
from apps.jobs.models import WorkerBeat
from tests.silent_server import silent_server


@pytest.fixture(autouse=True)
def _no_probe_left_behind():
    """A probe of a silent server ends when the server closes; the next test must not wait on it."""
    yield
    for pending in list(views._PROBES._running.values()):
        pending.done.wait(10)


def test_it_reports_ok_when_database_and_broker_answer(client, db):
    response = client.get("/healthz")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["status"] == "ok" and body["checks"] == {"database": "ok", "broker": "ok"}


def test_it_needs_no_login(client, db, users):
    # Load balancers call it anonymously; a logged-in session changes nothing.
    assert client.get("/healthz").status_code == 200
    client.force_login(users.alice)
    assert client.get("/healthz").status_code == 200


def test_it_is_never_cached(client, db):
    response = client.get("/healthz")

    assert "no-cache" in response["Cache-Control"]


@pytest.mark.django_db(transaction=True)  # the probe reads on a connection of its own: rows must be committed
def test_it_says_in_its_body_when_no_worker_was_seen_recently_but_stays_200(client, settings):
    settings.WORKER_SEEN_WITHIN_S = 60
    body = client.get("/healthz").json()
    assert body["workers"] == {"status": "no worker seen in the last 60 s", "last_seen": None}

    WorkerBeat.objects.create(hostname="old@host", seen_at=timezone.now() - timedelta(seconds=300))
    response = client.get("/healthz")
    assert response.status_code == 200 and response.json()["status"] == "ok"
    assert response.json()["workers"]["status"] == "no worker seen in the last 60 s"
    assert response.json()["workers"]["last_seen"].startswith(str(timezone.now().year))

    WorkerBeat.objects.create(hostname="w1@host", seen_at=timezone.now() - timedelta(seconds=5))
    assert client.get("/healthz").json()["workers"]["status"] == "ok"


def test_it_returns_503_when_broker_is_unreachable(client, db, monkeypatch):
    # Port 1 on loopback refuses at once: a real failed connection, no mock.
    # Celery reads the env var on every access, ahead of settings.
    monkeypatch.setenv("CELERY_BROKER_URL", "redis://127.0.0.1:1/0")
    monkeypatch.delenv("CELERY_BROKER_WRITE_URL", raising=False)

    response = client.get("/healthz")

    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "error"
    assert body["checks"]["database"] == "ok"
    assert body["checks"]["broker"].startswith("error: ")


@pytest.mark.parametrize("scheme", ["redis", "amqp"])
def test_it_returns_503_within_2_s_when_the_broker_accepts_and_never_answers(client, db, monkeypatch, scheme):
    """GIVEN a broker address where a server accepts connections and never answers (Redis or AMQP)
    WHEN /healthz is asked twice
    THEN each answer is a 503 naming the broker, within 2 s; the database is still ok."""
    with silent_server() as port:
        monkeypatch.setenv(
            "CELERY_BROKER_URL",
            f"{scheme}://127.0.0.1:{port}/0" if scheme == "redis" else f"amqp://guest:guest@127.0.0.1:{port}//",
        )
        monkeypatch.delenv("CELERY_BROKER_WRITE_URL", raising=False)
        for _ in range(2):
            t0 = time.monotonic()
            response = client.get("/healthz")
            elapsed = time.monotonic() - t0
            assert response.status_code == 503, response.content
            assert response.json()["checks"] == {"database": "ok", "broker": "error: timeout"}
            assert elapsed < 2.0


def _postgres_at(port: int) -> dict:
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "fabricdesign",
        "USER": "app",
        "PASSWORD": "secret-password",
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "OPTIONS": {},
        "CONN_MAX_AGE": 0,
        "CONN_HEALTH_CHECKS": False,
        "AUTOCOMMIT": True,
        "ATOMIC_REQUESTS": False,
        "TIME_ZONE": None,
        "TEST": {},
    }


def test_it_returns_503_within_2_s_when_the_database_accepts_and_never_answers(client, db, monkeypatch):
    """GIVEN a database server that accepts connections and never answers (the probe connects afresh, from
    the settings, so the test points them at the silent server; this test's own connection is untouched)
    WHEN /healthz is asked twice
    THEN each is a 503 naming the database within 2 s, and the second does not start another stuck probe."""
    with silent_server() as port:
        monkeypatch.setitem(connections.settings, "default", _postgres_at(port))
        answers = []
        for _ in range(2):
            t0 = time.monotonic()
            response = client.get("/healthz")
            answers.append((response.status_code, response.json(), time.monotonic() - t0))
        first = views._PROBES._running["database"]
        response = client.get("/healthz")
        assert views._PROBES._running["database"] is first  # still waiting: no second thread
    for status, body, elapsed in answers:
        assert status == 503 and elapsed < 2.0
        assert body["checks"] == {"database": "error: timeout", "broker": "ok"}
        assert "workers" not in body  # unknown without the database


def test_it_returns_503_when_the_database_refuses_and_names_no_host(client, db, monkeypatch):
    # Port 1 refuses: psycopg raises OperationalError, whose text names the host; the answer must not.
    monkeypatch.setitem(connections.settings, "default", _postgres_at(1))
    response = client.get("/healthz")

    assert response.status_code == 503
    body = response.json()
    assert body["checks"] == {"database": "error: OperationalError", "broker": "ok"}
    assert "127.0.0.1" not in response.content.decode() and "secret" not in response.content.decode()


def test_it_answers_head_and_rejects_post(client, db):
    # Some load balancers probe with HEAD.
    assert client.head("/healthz").status_code == 200
    assert client.post("/healthz").status_code == 405
