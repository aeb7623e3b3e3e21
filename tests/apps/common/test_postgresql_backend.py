"""The database backend's health check (apps/common/postgresql): a quiet idle connection needs no round trip; a
connection the server has ended is found unusable, and the next request's query runs on a new one."""

from __future__ import annotations

import time

import pytest
from django.db import connection

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="the PostgreSQL backend's health check")


@pytest.mark.django_db(transaction=True)
def test_a_quiet_idle_connection_is_usable_without_asking_the_server(monkeypatch):
    connection.ensure_connection()
    calls = []
    from django.db.backends.postgresql.base import DatabaseWrapper

    monkeypatch.setattr(DatabaseWrapper, "is_usable", lambda self: calls.append(1) or True)
    assert connection.is_usable() is True
    assert calls == []  # no SELECT 1 was sent


@pytest.mark.django_db(transaction=True)
def test_a_connection_the_server_ended_is_unusable_and_the_next_query_reconnects():
    import psycopg

    connection.ensure_connection()
    pid = connection.connection.info.backend_pid
    params = connection.get_connection_params()
    with psycopg.connect(**{k: v for k, v in params.items() if k != "cursor_factory"}, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", [pid])
    deadline = time.monotonic() + 5
    while connection.is_usable() and time.monotonic() < deadline:
        time.sleep(0.05)  # the server's FATAL message and close arrive asynchronously
    assert connection.is_usable() is False

    # What Django does at a request's first query with CONN_HEALTH_CHECKS: close the dead connection, open anew.
    connection.health_check_enabled, connection.health_check_done = True, False
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        assert cursor.fetchone()[0] != pid


@pytest.mark.django_db(transaction=True)
def test_inside_a_transaction_it_asks_the_server_as_django_does(monkeypatch):
    from django.db import transaction
    from django.db.backends.postgresql.base import DatabaseWrapper

    calls = []
    monkeypatch.setattr(DatabaseWrapper, "is_usable", lambda self: calls.append(1) or True)
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        assert connection.is_usable() is True
    assert calls == [1]
