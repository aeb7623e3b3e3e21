"""The engine's progress callback, persisted: throttled writes, cancellation, heartbeats."""
from __future__ import annotations

import threading
import time

from .models import Job
from .services import job_heartbeat, job_progress


class JobCancelled(Exception):
    """Raised inside the engine's run when the user asked the job to stop."""


class DbProgress:
    """Engine Progress that writes at most every `interval` seconds and checks for cancellation.

    `weights` maps engine stages to their share of the bar so the percent moves evenly.
    """

    def __init__(self, job_id, *, interval: float = 0.5, start: float = 0.0, span: float = 100.0):
        self.job_id = job_id
        self.interval = interval
        self.start = start
        self.span = span
        self._last = 0.0

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self._last < self.interval and done < total:
            return
        self._last = now
        percent = self.start + self.span * (done / total if total else 1.0)
        if not job_progress(job_id=self.job_id, stage=stage, percent=percent):
            raise JobCancelled("the job is no longer running")
        if Job.objects.filter(pk=self.job_id, cancel_requested=True).exists():
            raise JobCancelled("cancelled by the user")


class Heartbeat:
    """A daemon thread that refreshes the job's heartbeat while long work runs without progress calls."""

    def __init__(self, job_id, interval: float):
        self.job_id = job_id
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"heartbeat-{job_id}", daemon=True)

    def _run(self) -> None:
        from django.db import connection

        try:
            while not self._stop.wait(self.interval):
                job_heartbeat(job_id=self.job_id)
        finally:
            connection.close()

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(timeout=5)
        return False
