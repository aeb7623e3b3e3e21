from __future__ import annotations

import logging
import os
from collections.abc import Callable

from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
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
    """Liveness for load balancers and the smoke test: can we reach the DB and the broker?

    Unauthenticated on purpose; it reports only "ok" or the exception class,
    never messages that could name hosts or credentials.
    """
    checks = {"database": _check(_ping_database), "broker": _check(_ping_broker)}
    healthy = all(result == "ok" for result in checks.values())
    return JsonResponse(
        {"status": "ok" if healthy else "error", "checks": checks},
        status=200 if healthy else 503,
    )


def _check(probe: Callable[[], None]) -> str:
    try:
        probe()
    except Exception as exc:  # any failure means unhealthy, whatever raised it
        logger.warning("healthz: %s failed", probe.__name__, exc_info=True)
        return f"error: {type(exc).__name__}"
    return "ok"


def _ping_database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


def _ping_broker() -> None:
    with celery_app.connection_for_write() as conn:
        # One immediate retry, then give up: a health check must answer fast.
        conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0)
        if conn.transport_cls == "filesystem":
            # The filesystem transport "connects" without touching the disk,
            # so check the folder that producers write into.
            folder = conn.transport_options["data_folder_out"]
            if not os.access(folder, os.W_OK):
                raise OSError(f"broker folder not writable: {folder}")
