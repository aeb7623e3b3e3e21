"""The app under a real gunicorn, configured by the repo's gunicorn.conf.py, against the test database.

For the behaviour that lives in gunicorn, not in Django: the request-line limit and keep-alive. Needs a test
database another process can open (PostgreSQL in CI; pytest-django's in-memory SQLite is not shared), as the
real-worker tests do (tests/apps/api/test_procurement_client.py); the caller skips otherwise.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parents[3]


def shared_database_url() -> str | None:
    s = connection.settings_dict
    if s["ENGINE"].endswith("postgresql"):
        auth = quote(s["USER"] or "")
        if s["PASSWORD"]:
            auth += ":" + quote(s["PASSWORD"])
        return f"postgres://{auth}@{quote(s['HOST'] or '127.0.0.1', safe='')}:{s['PORT'] or 5432}/{s['NAME']}"
    name = str(s["NAME"])
    return f"sqlite:///{name}" if "memory" not in name and Path(name).is_absolute() else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def gunicorn_app(tmp_path: Path, **env_extra: str):
    """Yield (host, port) of gunicorn serving the app with gunicorn.conf.py (one worker, four threads)."""
    url = shared_database_url()
    assert url is not None, "check shared_database_url() first"
    port = _free_port()
    log = tmp_path / f"gunicorn-{port}.log"
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "DATABASE_CONN_MAX_AGE": "0",  # no connection outlives a request: the test database is dropped at the end
        "FABRICDESIGN_VAR_DIR": str(settings.VAR_DIR),
        "WEB_CONCURRENCY": "1",
        "GUNICORN_THREADS": "4",
        **env_extra,
    }
    with open(log, "wb") as fh:
        proc = subprocess.Popen(
            [str(Path(sys.executable).parent / "gunicorn"), "fabricdesign.wsgi", "-b", f"127.0.0.1:{port}"],
            cwd=ROOT,
            env=env,
            stdout=fh,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, log.read_text()
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            assert time.monotonic() < deadline, "gunicorn did not start:\n" + log.read_text()
            time.sleep(0.2)
        yield "127.0.0.1", port
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
