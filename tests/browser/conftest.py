"""Browser tests: Debian's Chromium driven by Playwright, against pytest-django's live server and a
real Celery worker subprocess on the same test database and broker.

Never downloads a browser: Chromium is /usr/bin/chromium (./scripts/test installs it as root);
without it these tests are skipped.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ROOT = Path(__file__).resolve().parents[2]
WORKER_READY_S = 90


def pytest_configure(config):
    """SQLite tests normally run in memory, which a worker process cannot open: use a file instead.

    This runs when this folder is collected, before the test database is created; it changes only
    where the SQLite test database lives, for the whole run. The name is per process, so test runs
    side by side in one checkout never share (or delete) each other's database.
    """
    from django.conf import settings

    db = settings.DATABASES["default"]
    if db["ENGINE"].endswith("sqlite3"):
        name = f"fabricdesign-test-{os.getpid()}.sqlite3"
        db.setdefault("TEST", {})["NAME"] = str(Path(tempfile.gettempdir()) / name)


@pytest.fixture(autouse=True)
def _static_files_without_collectstatic(settings):
    # As in tests/apps: templates resolve static files from the source folders, no manifest needed.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture(scope="module")
def browser():
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(f"{CHROMIUM} is missing: browser tests need Debian's chromium (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop on this thread, which trips Django's async-safety
    # check on every ORM call the test makes; the ORM here runs on plain threads, so allow it.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as p:
            chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            yield chromium
            chromium.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def page(browser):
    """A fresh page; the test fails if the Content-Security-Policy refused anything on it."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    context.set_default_timeout(20_000)
    page = context.new_page()
    violations: list[str] = []
    page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
    yield page
    context.close()
    assert violations == [], f"the page broke its Content-Security-Policy: {violations}"


def _test_database_url() -> str:
    """DATABASE_URL of the test database this process created (test_<name>, or the SQLite file)."""
    from django.db import connection

    s = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{s['NAME']}"  # NAME is absolute: sqlite:////abs/path
    auth = quote(s["USER"] or "", safe="") + (":" + quote(s["PASSWORD"], safe="") if s["PASSWORD"] else "")
    host = f"{auth}@{s['HOST'] or ''}" if auth else s["HOST"] or ""
    port = f":{s['PORT']}" if s["PORT"] else ""
    query = "?" + urlencode(s["OPTIONS"]) if s.get("OPTIONS") else ""
    return f"postgres://{host}{port}/{quote(s['NAME'], safe='')}{query}"


@pytest.fixture
def celery_worker(transactional_db, live_server, settings, tmp_path):
    """A real worker (`celery -A fabricdesign worker --pool solo`) on the test database.

    It consumes a private queue, which this process also sends to, so a development worker on
    the same broker can never take the test's jobs (or the test a developer's).
    """
    from fabricdesign.celery import app as celery_app

    queue = f"browser-test-{uuid.uuid4().hex[:10]}"
    log_path = tmp_path / "worker.log"
    # The live server and the worker share a files artifact store of the test's own (never var/artifacts).
    artifacts = tmp_path / "artifacts"
    if settings.ARTIFACT_STORE == "files":
        settings.STORAGES = {
            **settings.STORAGES,
            "artifacts": {
                "BACKEND": "apps.exports.storage.AtomicFileSystemStorage",
                "OPTIONS": {"location": str(artifacts)},
            },
        }
    env = {
        **os.environ,
        "DATABASE_URL": _test_database_url(),
        "DJANGO_SECRET_KEY": settings.SECRET_KEY,
        "PYTHONUNBUFFERED": "1",
        "ARTIFACT_FILES_DIR": str(artifacts),
    }
    previous_queue = celery_app.conf.task_default_queue
    with open(log_path, "wb") as log:
        worker = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "fabricdesign",
                "worker",
                "--pool",
                "solo",
                "--concurrency",
                "1",
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
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + WORKER_READY_S
        while b" ready." not in log_path.read_bytes():
            if worker.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the Celery worker did not start:\n{log_path.read_text()[-4000:]}")
            time.sleep(0.2)
        celery_app.conf.task_default_queue = queue
        yield log_path
    finally:
        celery_app.conf.task_default_queue = previous_queue
        worker.terminate()
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
        with celery_app.connection_for_write() as conn:
            conn.default_channel.queue_delete(queue)
