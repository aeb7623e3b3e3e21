"""The API rate limit: one budget per user across all of their tokens and their browser session,
counted atomically (Redis with REDIS_URL, else the database), announced on every answer."""

from __future__ import annotations

import os
import time

import pytest
from rest_framework.test import APIClient

from apps.api import ratelimit
from apps.api.models import RateCounter
from tests.apps.api.conftest import error_of, token_client


def session_client(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def test_two_tokens_and_the_browser_session_of_one_user_share_one_budget(users, settings, store):
    settings.API_THROTTLE_RATE = "4/min"
    first, second, browser = token_client(users.alice), token_client(users.alice), session_client(users.alice)
    answers = [
        first.get("/api/v1/me/"),
        second.get("/api/v1/me/"),
        browser.get("/api/v1/me/"),
        second.get("/api/v1/me/"),
        first.get("/api/v1/me/"),
        browser.get("/api/v1/me/"),
    ]
    assert [r.status_code for r in answers] == [200, 200, 200, 200, 429, 429]
    assert [r["X-RateLimit-Remaining"] for r in answers] == ["3", "2", "1", "0", "0", "0"]
    assert {r["X-RateLimit-Limit"] for r in answers} == {"4"}
    assert error_of(answers[-1])["code"] == "throttled"
    assert token_client(users.bob).get("/api/v1/me/").status_code == 200  # bob has a budget of his own


def test_every_answer_carries_the_rate_limit_headers(users, settings, store, design):
    settings.API_THROTTLE_RATE = "100/hour"
    alice = token_client(users.alice)
    now = time.time()
    answers = {
        "ok": alice.get(f"/api/v1/designs/{design.pk}/"),
        "not found": alice.get("/api/v1/designs/999999/"),
        "no endpoint": alice.get("/api/v1/nowhere/"),
        "bad request": alice.post("/api/v1/tokens/", {}, format="json"),
        "anonymous": APIClient().get("/api/v1/me/"),
        "bad token": APIClient(HTTP_AUTHORIZATION="Token fd_wrong").get("/api/v1/me/"),
        "owner only": alice.get(f"/api/v1/designs/{design.pk}/shares/"),
    }
    for name, response in answers.items():
        assert response["X-RateLimit-Limit"] == "100", name
        assert 0 <= int(response["X-RateLimit-Remaining"]) < 100, name
        assert now < int(response["X-RateLimit-Reset"]) <= now + 3602, name
    assert [answers[k].status_code for k in ("not found", "anonymous", "bad token")] == [404, 401, 401]


def test_anonymous_requests_count_per_address(db, settings, store):
    settings.API_THROTTLE_RATE = "2/min"
    here, there = APIClient(REMOTE_ADDR="192.0.2.1"), APIClient(REMOTE_ADDR="192.0.2.2")
    assert [here.get("/api/v1/me/").status_code for _ in range(3)] == [401, 401, 429]
    assert there.get("/api/v1/me/").status_code == 401


def test_a_window_ends_and_the_next_starts_with_a_full_budget(db, settings, store, monkeypatch):
    settings.API_THROTTLE_RATE = "2/min"
    clock = [1_000_000.0]
    monkeypatch.setattr(ratelimit.time, "time", lambda: clock[0])
    key = f"user:test-window-{store}"
    assert [ratelimit.hit(key).allowed for _ in range(3)] == [True, True, False]
    if store == "redis":
        pytest.skip("Redis ends a window by expiring the key, on its own clock")
    first = ratelimit.hit(key)
    assert first.reset_at == 1_000_060.0 and first.retry_after(1_000_030.0) == 30.0
    clock[0] = 1_000_060.0
    renewed = ratelimit.hit(key)
    assert renewed.allowed and renewed.remaining == 1 and renewed.reset_at == 1_000_120.0
    assert ratelimit.prune_database_counters(now=1_000_200.0) == 1
    assert not RateCounter.objects.exists()


def test_the_redis_store_expires_a_window_with_the_period(settings):
    if not os.environ.get("REDIS_URL"):
        pytest.skip("needs REDIS_URL")
    settings.API_RATE_LIMIT_STORE = "redis"
    settings.API_THROTTLE_RATE = "5/s"
    key = f"user:expiry-{os.getpid()}-{time.time()}"
    assert [ratelimit.hit(key).remaining for _ in range(6)] == [4, 3, 2, 1, 0, -1]
    time.sleep(1.2)
    assert ratelimit.hit(key).remaining == 4


def test_the_hourly_task_prunes_ended_windows_only(db, settings, monkeypatch):
    from apps.api.tasks import prune_rate_counters

    settings.API_RATE_LIMIT_STORE = "database"
    settings.API_THROTTLE_RATE = "5/min"
    ratelimit.hit("addr:192.0.2.1")
    monkeypatch.setattr(ratelimit.time, "time", lambda: 0.0)  # a window that ended long ago
    ratelimit.hit("addr:192.0.2.2")
    monkeypatch.undo()
    assert prune_rate_counters() == 1
    assert list(RateCounter.objects.values_list("key", flat=True)) == [
        settings.API_RATE_LIMIT_KEY_PREFIX + "addr:192.0.2.1"
    ]


def test_an_unreachable_redis_lets_requests_through_uncounted(users, settings, monkeypatch):
    logged = []
    monkeypatch.setattr(ratelimit.logger, "exception", lambda message, *args: logged.append(message))
    settings.API_RATE_LIMIT_STORE = "redis"
    settings.REDIS_URL = "redis://127.0.0.1:9/0"  # the discard port: nothing listens
    settings.API_THROTTLE_RATE = "1/min"
    alice = token_client(users.alice)
    answers = [alice.get("/api/v1/me/") for _ in range(2)]
    assert [r.status_code for r in answers] == [200, 200]
    assert "X-RateLimit-Limit" not in answers[0]
    assert len(logged) == 2 and "Redis is unreachable" in logged[0]


def test_the_database_counters_live_in_an_unlogged_table_on_postgresql(db):
    """A counter's update commits without waiting for a WAL flush (migration 0008 says why); what a crash can
    lose is only the current windows' counts."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("UNLOGGED is PostgreSQL's")
    with connection.cursor() as cur:
        cur.execute("SELECT relpersistence FROM pg_class WHERE oid = %s::regclass", [RateCounter._meta.db_table])
        assert cur.fetchone() == ("u",)
