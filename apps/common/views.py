from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from datetime import datetime

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from fabricdesign.celery import app as celery_app

logger = logging.getLogger(__name__)


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html")


@require_safe
@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """Readiness for load balancers and the smoke test: do the database and the broker answer?

    Unauthenticated on purpose; it reports only "ok" or the exception class, never messages that could
    name hosts or credentials. Both are asked at once, each in a thread of its own, and whatever has not
    answered within HEALTHZ_TIMEOUT_S counts as "error: timeout": a server that accepts connections and
    never answers must not hold the request (and the web worker) until the proxy gives up. A probe still
    waiting from an earlier request is not started again, so a hung server cannot pile threads up.

    `workers` says when a worker last recorded that it is alive (apps.jobs.workerbeat). No worker seen
    within WORKER_SEEN_WITHIN_S is reported in the body, not as a 503: the web app still serves pages,
    and a load balancer must not take it out of rotation for that.
    """
    deadline = time.monotonic() + settings.HEALTHZ_TIMEOUT_S
    probes = {"database": _probe_database, "broker": _ping_broker}
    results = {name: _PROBES.start(name, probe) for name, probe in probes.items()}
    checks, found = {}, {}
    for name, pending in results.items():
        outcome = pending.wait(max(0.0, deadline - time.monotonic()))
        checks[name] = outcome if isinstance(outcome, str) else "ok"
        if isinstance(outcome, dict):
            found.update(outcome)
    healthy = all(result == "ok" for result in checks.values())
    body = {"status": "ok" if healthy else "error", "checks": checks}
    if "worker_last_seen" in found:
        body["workers"] = _workers(found["worker_last_seen"])
    return JsonResponse(body, status=200 if healthy else 503)


def _workers(last_seen: datetime | None) -> dict:
    within = settings.WORKER_SEEN_WITHIN_S
    age = (timezone.now() - last_seen).total_seconds() if last_seen else None
    recent = age is not None and age <= within
    return {
        "status": "ok" if recent else f"no worker seen in the last {within} s",
        "last_seen": last_seen.isoformat(timespec="seconds") if last_seen else None,
    }


class _Pending:
    """One probe running in its own thread; `wait` gives its result (a dict: ok with findings; a string:
    "error: ...") or "error: timeout"."""

    def __init__(self, name: str, probe: Callable[[], dict | None]):
        self.name = name
        self.done = threading.Event()
        self.result: dict | str = "error: timeout"
        self.thread = threading.Thread(target=self._run, args=(probe,), name=f"healthz-{name}", daemon=True)

    def _run(self, probe: Callable[[], dict | None]) -> None:
        try:
            self.result = probe() or {}
        except Exception as exc:  # any failure means unhealthy, whatever raised it
            logger.warning("healthz: %s failed", self.name, exc_info=True)
            self.result = f"error: {type(exc).__name__}"
        finally:
            self.done.set()

    def wait(self, timeout: float) -> dict | str:
        if not self.done.wait(timeout):
            logger.warning("healthz: %s did not answer within the health check's timeout", self.name)
            return "error: timeout"
        return self.result


class _Probes:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: dict[str, _Pending] = {}

    def start(self, name: str, probe: Callable[[], dict | None]) -> _Pending:
        with self._lock:
            pending = self._running.get(name)
            if pending is not None and not pending.done.is_set():
                return pending  # still waiting on the server since an earlier request: wait for that one
            pending = self._running[name] = _Pending(name, probe)
            pending.thread.start()
            return pending


_PROBES = _Probes()


def _probe_database() -> dict:
    """SELECT 1 on a connection of its own (closed after), then when a worker was last seen."""
    from django.db import DEFAULT_DB_ALIAS, connections

    from .health import worker_last_seen

    try:
        with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        return {"worker_last_seen": worker_last_seen()}
    finally:
        connections.close_all()  # this thread's connections: the thread ends here


def _ping_broker() -> None:
    # The connection times out after JOB_PUBLISH_TIMEOUT_S (settings); the request stops waiting sooner.
    with celery_app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0)
        if conn.transport_cls == "filesystem":
            # The filesystem transport "connects" without touching the disk,
            # so check the folder that producers write into.
            folder = (conn.transport_options or {})["data_folder_out"]
            if not os.access(folder, os.W_OK):
                raise OSError(f"broker folder not writable: {folder}")
