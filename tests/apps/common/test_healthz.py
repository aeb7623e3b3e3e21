from django.db import connection
from django.db.utils import OperationalError


def test_it_reports_ok_when_database_and_broker_answer(client, db):
    response = client.get("/healthz")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json() == {
        "status": "ok",
        "checks": {"database": "ok", "broker": "ok"},
    }


def test_it_needs_no_login(client, db, users):
    # Load balancers call it anonymously; a logged-in session changes nothing.
    assert client.get("/healthz").status_code == 200
    client.force_login(users.alice)
    assert client.get("/healthz").status_code == 200


def test_it_is_never_cached(client, db):
    response = client.get("/healthz")

    assert "no-cache" in response["Cache-Control"]


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


def test_it_returns_503_when_database_fails(client, db, monkeypatch):
    def broken_cursor(*args, **kwargs):
        raise OperationalError("could not connect to server: secret-host")

    # Scoped, so the test database teardown gets its real cursor back.
    with monkeypatch.context() as patch:
        patch.setattr(connection, "cursor", broken_cursor)
        response = client.get("/healthz")

    assert response.status_code == 503
    body = response.json()
    assert body["checks"] == {"database": "error: OperationalError", "broker": "ok"}
    # Error text may name hosts; it goes to the log, not to anonymous callers.
    assert "secret-host" not in response.content.decode()


def test_it_answers_head_and_rejects_post(client, db):
    # Some load balancers probe with HEAD.
    assert client.head("/healthz").status_code == 200
    assert client.post("/healthz").status_code == 405
