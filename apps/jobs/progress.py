"""The engine's progress callback, persisted: throttled writes, cancellation, heartbeats."""

from __future__ import annotations

import logging
import threading
import time

from .services import job_heartbeat, job_progress

log = logging.getLogger(__name__)


class JobFailed(Exception):
    """A handler's own, expected failure: its text is the job's error as the user reads it (no traceback)."""


class JobCancelled(Exception):
    """Raised inside the engine's run when the job must stop: the user cancelled it, or it is no
    longer this worker's to run (the reaper requeued or failed it)."""


class DbProgress:
    """Engine Progress that writes at most every `interval` seconds and stops a cancelled job.

    The engine's `done / total` maps onto `start .. start + span` percent. A handler never changes that range:
    it hands each part of its work a sub-range of its own (`progress.sub(0.0, 0.7)` for the engine, the rest for
    storing), which shares this object's throttle, watchdog and claim. `attempt` is the worker's claim (see
    apps.jobs.services): a write that finds the job in other hands stops the run.
    """

    def __init__(
        self,
        job_id,
        *,
        interval: float = 0.5,
        start: float = 0.0,
        span: float = 100.0,
        attempt: int | None = None,
        watchdog=None,
    ):
        self.job_id = job_id
        self.interval = interval
        self.start = start
        self.span = span
        self.attempt = attempt
        self.watchdog = watchdog  # apps.jobs.limits.Watchdog: a stop it decided is raised at every report
        self._last: float | None = None

    def __call__(self, stage: str, done: int, total: int) -> None:
        self._report(stage, self.start + self.span * (done / total if total else 1.0), final=done >= total)

    def sub(self, low: float, high: float) -> SubProgress:
        """The part of this range from `low` to `high` (fractions of it, 0 <= low <= high <= 1)."""
        return SubProgress(self, self.start, self.span, low, high)

    def mark(self, stage: str, at: float) -> None:
        """Record that `stage` starts at fraction `at` of this range, unthrottled (a step the user should see),
        and stop the run if the job was cancelled meanwhile."""
        self._report(stage, self.start + self.span * at, final=True)

    def _report(self, stage: str, percent: float, *, final: bool) -> None:
        stop = self.watchdog.stop_reason() if self.watchdog is not None else None
        if stop is not None:
            raise stop
        now = time.monotonic()
        if self._last is not None and now - self._last < self.interval and not final:
            return
        self._last = now
        # One UPDATE both records progress and checks for a cancel request (it matches no row then).
        if not job_progress(job_id=self.job_id, stage=stage, percent=percent, attempt=self.attempt):
            raise JobCancelled("the job was cancelled, or another worker took it over")


class SubProgress:
    """A sub-range of a DbProgress: the same callable, reporting into `low .. high` of its parent's range."""

    def __init__(self, root: DbProgress, start: float, span: float, low: float, high: float):
        if not 0.0 <= low <= high <= 1.0:
            raise ValueError(f"a progress sub-range is 0 <= low <= high <= 1, not {low}..{high}")
        self._root = root
        self.start = start + span * low
        self.span = span * (high - low)

    def __call__(self, stage: str, done: int, total: int) -> None:
        self._root._report(stage, self.start + self.span * (done / total if total else 1.0), final=done >= total)

    def sub(self, low: float, high: float) -> SubProgress:
        return SubProgress(self._root, self.start, self.span, low, high)

    def mark(self, stage: str, at: float) -> None:
        self._root._report(stage, self.start + self.span * at, final=True)


class Heartbeat:
    """A daemon thread that refreshes the job's heartbeat while long work runs without progress calls.

    A failed beat (the database briefly unreachable, or SQLite busy with another writer) is logged and
    retried at the next interval: the thread must outlive it, or the reaper would take a live job for dead.
    """

    def __init__(self, job_id, interval: float, *, attempt: int | None = None):
        self.job_id = job_id
        self.interval = interval
        self.attempt = attempt
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"heartbeat-{job_id}", daemon=True)

    def _run(self) -> None:
        from django.db import connection

        try:
            while not self._stop.wait(self.interval):
                try:
                    job_heartbeat(job_id=self.job_id, attempt=self.attempt)
                except Exception:  # see the class docstring
                    log.warning(
                        "heartbeat of job %s failed; retrying in %s s", self.job_id, self.interval, exc_info=True
                    )
                    connection.close()
        finally:
            connection.close()

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(timeout=5)
        return False
