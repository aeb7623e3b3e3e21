"""Each worker process records "alive" in the database every WORKER_BEAT_INTERVAL_S (/healthz reads it).

A thread of the worker's main process writes it, so a worker busy with a long job still counts as seen;
a worker that is stopped, killed or cut off from the database stops being seen.
"""

from __future__ import annotations

import logging
import threading

from celery.signals import worker_ready, worker_shutdown
from django.conf import settings

log = logging.getLogger(__name__)

_stop = threading.Event()


def _beat(hostname: str) -> None:
    from django.db import connection

    from .services import worker_seen

    while True:
        try:
            worker_seen(hostname)
        except Exception:  # the database is away: try again at the next beat
            log.warning("could not record that worker %s is alive", hostname, exc_info=True)
            connection.close()
        if _stop.wait(settings.WORKER_BEAT_INTERVAL_S):
            break
    connection.close()


@worker_ready.connect
def _start(sender=None, **kwargs) -> None:
    hostname = getattr(sender, "hostname", None) or "worker"
    _stop.clear()
    threading.Thread(target=_beat, args=(hostname,), name="worker-beat", daemon=True).start()


@worker_shutdown.connect
def _end(**kwargs) -> None:
    _stop.set()
