"""Fixtures for the job tests: real Celery worker processes on the test database.

Workers are `celery -A fabricdesign worker --pool solo --concurrency 1` subprocesses. Each consumes a
queue of its own on the configured broker (filesystem by default, Redis in CI), and this process
sends there while a test runs, so a developer's worker on the same broker never takes a test's
jobs, nor a test a developer's.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest

ROOT = Path(__file__).resolve().parents[3]
WORKER_READY_S = 60

_sqlite_dir: str | None = None


def pytest_configure(config):
    """SQLite tests normally run in memory, which a worker process cannot open: use a file instead.

    This runs when this folder is collected, before the test database is created, and changes only
    where the SQLite test database lives (a folder of its own per run, so parallel runs never share it).
    """
    global _sqlite_dir
    from django.conf import settings

    db = settings.DATABASES["default"]
    if db["ENGINE"].endswith("sqlite3") and not db.get("TEST", {}).get("NAME"):
        _sqlite_dir = tempfile.mkdtemp(prefix="fabricdesign-test-db-")
        db.setdefault("TEST", {})["NAME"] = str(Path(_sqlite_dir) / "test.sqlite3")


def pytest_unconfigure(config):
    if _sqlite_dir:
        shutil.rmtree(_sqlite_dir, ignore_errors=True)  # with the -wal and -shm files SQLite leaves


def worker_database_url() -> str:
    """DATABASE_URL of the test database this process created (test_<name>, or the SQLite file)."""
    from django.db import connection

    s = connection.settings_dict
    if connection.vendor == "sqlite":
        if not Path(str(s["NAME"])).is_absolute():
            pytest.skip("the SQLite test database is in memory, which a worker process cannot open")
        return f"sqlite:///{s['NAME']}"
    auth = quote(s["USER"] or "", safe="") + (":" + quote(s["PASSWORD"], safe="") if s["PASSWORD"] else "")
    host = f"{auth}@{s['HOST'] or ''}" if auth else s["HOST"] or ""
    port = f":{s['PORT']}" if s["PORT"] else ""
    query = "?" + urlencode(s["OPTIONS"]) if s.get("OPTIONS") else ""
    return f"postgres://{host}{port}/{quote(s['NAME'], safe='')}{query}"


class Worker:
    """One worker subprocess and its log."""

    def __init__(self, queue: str, log: Path, env: dict, *, pool: str = "solo", concurrency: int = 1):
        self.queue = queue
        self.log_path = log
        with open(log, "wb") as fh:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "fabricdesign",
                    "worker",
                    "--pool",
                    pool,
                    "--concurrency",
                    str(concurrency),
                    "--queues",
                    queue,
                    "--hostname",
                    f"{queue}@%h",
                    "--loglevel",
                    "info",
                    "--without-gossip",
                    "--without-mingle",
                    "--without-heartbeat",
                ],
                cwd=ROOT,
                env=env,
                stdout=fh,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_ready(self) -> None:
        wait_for(lambda: " ready." in self.log(), timeout=WORKER_READY_S, what="the worker to start", alive=self)

    def wait_log(self, text: str, *, count: int = 1, timeout: float = 30) -> None:
        wait_for(
            lambda: self.log().count(text) >= count, timeout=timeout, what=f"{text!r} in the worker log", alive=self
        )

    def kill(self) -> None:
        """SIGKILL: the worker gets no chance to finish, acknowledge or clean up anything."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def wait_for(predicate, *, timeout: float, what: str, alive: Worker | None = None, every: float = 0.1):
    """Poll until predicate() is truthy and return its value; fail naming `what` (with the worker's log)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if alive is not None and alive.proc.poll() is not None:
            raise AssertionError(f"the worker exited while waiting for {what}:\n{alive.log()[-4000:]}")
        if time.monotonic() > deadline:
            tail = f":\n{alive.log()[-4000:]}" if alive is not None else ""
            raise AssertionError(f"no {what} within {timeout} s{tail}")
        time.sleep(every)


@contextmanager
def sending_to(queue: str):
    """Route this process's tasks (run_job.delay and the reaper's requeue) to `queue` meanwhile."""
    from fabricdesign.celery import app

    previous = app.conf.task_default_queue
    app.conf.task_default_queue = queue
    try:
        yield
    finally:
        app.conf.task_default_queue = previous


def delete_queue(name: str) -> None:
    """Delete a test's queue, with any message left in it or held for a killed worker."""
    from kombu import Exchange, Queue

    from fabricdesign.celery import app

    with app.connection_for_write() as conn:
        channel = conn.default_channel
        # kombu deletes only the bindings this channel knows of: declare them first (as Celery did).
        queue = Queue(name, Exchange(name), routing_key=name, channel=channel)
        queue.declare()
        queue.delete()
        _forget_unacked(channel, name)


def _forget_unacked(channel, queue: str) -> None:
    """Redis keeps a killed worker's unacknowledged message and puts it back in its queue an hour later."""
    key, index = getattr(channel, "unacked_key", None), getattr(channel, "unacked_index_key", None)
    if key is None or index is None:
        return  # not Redis: the filesystem broker moved the message out of the queue when it was taken
    client = channel.client
    for tag, payload in client.hgetall(key).items():
        _message, _exchange, routing_key = json.loads(payload)
        if routing_key == queue:
            client.hdel(key, tag)
            client.zrem(index, tag)


def new_queue() -> str:
    return f"jobs-test-{uuid.uuid4().hex[:12]}"


@pytest.fixture(scope="module")
def start_worker(django_db_setup, django_db_blocker, tmp_path_factory):
    """start_worker(**env) -> a ready Worker on a new private queue (or `queue`, with `pool` and `concurrency`);
    every one is stopped after the module.

    Module-scoped, so tests can share a worker (the `worker` fixture); a test that kills its worker or needs
    other settings starts its own. Heartbeats are fast (1 s, stale after 3 s) so reaping takes seconds.
    """
    from django.conf import settings

    with django_db_blocker.unblock():
        url = worker_database_url()
    started: list[Worker] = []
    base = {
        **os.environ,
        "DATABASE_URL": url,
        "DJANGO_SECRET_KEY": settings.SECRET_KEY,
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "FABRICDESIGN_VAR_DIR": str(settings.VAR_DIR),
        "JOB_HEARTBEAT_INTERVAL_S": "1",
        "JOB_HEARTBEAT_TIMEOUT_S": "3",
        "PYTHONUNBUFFERED": "1",
    }
    base.pop("JOB_TEST_STALL", None)

    def start(*, queue: str | None = None, pool: str = "solo", concurrency: int = 1, **env: str) -> Worker:
        queue = queue or new_queue()
        worker = Worker(
            queue, tmp_path_factory.mktemp("worker") / "worker.log", {**base, **env}, pool=pool, concurrency=concurrency
        )
        started.append(worker)
        worker.wait_ready()
        return worker

    try:
        yield start
    finally:
        for worker in started:
            worker.stop()
            delete_queue(worker.queue)


@pytest.fixture(scope="module")
def worker(start_worker) -> Worker:
    """A plain worker shared by the module's tests."""
    return start_worker()
