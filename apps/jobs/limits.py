"""Time and memory limits of one job, and its cancel request, enforced inside the process that runs it.

Celery's own limits do not fit: its time limits need the prefork pool and apply per task (ours is one
task for every kind), and `worker_max_memory_per_child` acts only after a task has ended. So a watchdog
thread watches the running job:

- past the kind's soft time limit, over its memory ceiling (the process's resident memory), or once the
  user asked to cancel, it stops the job: it raises JobLimitExceeded (or JobCancelled) in the thread
  running the job, which unwinds the engine and rolls back the store's transaction. The same exception
  is raised by the job's next progress report (DbProgress asks `stop_reason`), for code that swallowed
  the first one;
- a job that is still running at the hard time limit, or JOB_KILL_GRACE_S after any other stop (stuck in
  a C call that never returns to Python), is marked failed (or cancelled) from this thread and the process
  exits at once: the pool replaces it, and the broker's redelivery of its message finds the job finished.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass

from django.conf import settings

from .progress import JobCancelled

log = logging.getLogger(__name__)

POLL_S = 0.2  # how often the watchdog looks at the clock and the memory
CANCEL_POLL_S = 1.0  # how often it asks the database whether the job was cancelled
EXIT_CODE = 70  # the process ends with this after a hard stop (EX_SOFTWARE)


class JobLimitExceeded(Exception):
    """The job ran past its time limit or over its memory ceiling; the message names the limit."""


def as_sentence(reason: str) -> str:
    """A reason as the job's error message: "The compute job ran longer than ... (SETTING)."."""
    return reason[:1].upper() + reason[1:] + ("" if reason.endswith(".") else ".")


@dataclass(frozen=True)
class JobLimits:
    soft_time_limit_s: float
    hard_time_limit_s: float
    memory_limit_mb: int

    @classmethod
    def for_kind(cls, kind: str) -> JobLimits:
        limits = settings.JOB_LIMITS.get(kind) or settings.JOB_LIMITS["compute"]
        return cls(
            float(limits["soft_time_limit_s"]), float(limits["hard_time_limit_s"]), int(limits["memory_limit_mb"])
        )


def resident_mb() -> float:
    """This process's resident memory (VmRSS) in MB; 0 where /proc is missing (the ceiling is then off)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return 0.0


def _raise_in(thread_id: int, exc_type: type[BaseException]) -> None:
    """Raise exc_type in another thread at its next Python instruction (CPython's async exception)."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), ctypes.py_object(exc_type))


class Watchdog:
    """Guards one run of a job (see the module docstring). `reason` is why the job must stop, or None."""

    def __init__(self, job_id, kind: str, attempt: int, *, limits: JobLimits | None = None):
        self.job_id = job_id
        self.kind = kind
        self.attempt = attempt
        self.limits = limits or JobLimits.for_kind(kind)
        self.kill_grace_s = float(settings.JOB_KILL_GRACE_S)
        self.reason: str | None = None
        self.cancelled = False
        self._stop_at: float | None = None  # monotonic time of the hard stop once the job was told to stop
        self._lock = threading.Lock()
        self._active = False
        self._done = threading.Event()
        self._target: int | None = None
        self._started = 0.0
        self._thread: threading.Thread | None = None

    # --- the job's side ---------------------------------------------------------------------------------

    def stop_reason(self) -> BaseException | None:
        """The exception the job's next progress report raises, if it must stop."""
        if self.reason is None:
            return None
        return JobCancelled(self.reason) if self.cancelled else JobLimitExceeded(self.reason)

    @contextmanager
    def guarding(self):
        """Watch the calling thread while the body runs. Whatever the watchdog raises in it is raised
        inside this block (leaving it waits for the watchdog's lock), so the caller's handlers see it."""
        self._target = threading.get_ident()
        self._started = time.monotonic()
        self._active = True
        self._thread = threading.Thread(target=self._run, name=f"watchdog-{self.job_id}", daemon=True)
        self._thread.start()
        try:
            yield self
        finally:
            with self._lock:
                self._active = False
            self._done.set()
            self._thread.join(timeout=5)

    # --- the watchdog thread ------------------------------------------------------------------------------

    def _run(self) -> None:
        from django.db import connection

        next_cancel_check = time.monotonic() + CANCEL_POLL_S
        try:
            while not self._done.wait(POLL_S):
                now = time.monotonic()
                if self._stop_at is not None:
                    if now >= self._stop_at:
                        self._hard_stop()
                    continue
                if now - self._started >= self.limits.hard_time_limit_s:
                    self._hard_stop()  # no soft stop first when the soft limit was skipped (a stalled poll)
                    continue
                reason = None
                if now - self._started >= self.limits.soft_time_limit_s:
                    reason = (
                        f"the {self.kind} job ran longer than its time limit of "
                        f"{self.limits.soft_time_limit_s:g} s (JOB_{self.kind.upper()}_SOFT_TIME_LIMIT_S)"
                    )
                    grace = self.limits.hard_time_limit_s - (now - self._started)
                else:
                    rss = resident_mb()
                    if rss > self.limits.memory_limit_mb:
                        reason = (
                            f"the {self.kind} job needed more memory than its limit of "
                            f"{self.limits.memory_limit_mb} MB (JOB_{self.kind.upper()}_MEMORY_LIMIT_MB; "
                            f"{rss:.0f} MB in use)"
                        )
                        grace = self.kill_grace_s
                    elif now >= next_cancel_check:
                        next_cancel_check = now + CANCEL_POLL_S
                        if self._cancel_requested():
                            reason, grace = "the job was cancelled, or another worker took it over", self.kill_grace_s
                            self.cancelled = True
                if reason is not None:
                    self._stop(reason, grace)
        finally:
            connection.close()

    def _cancel_requested(self) -> bool:
        from .models import Job, JobStatus

        try:
            row = Job.objects.filter(pk=self.job_id).values_list("status", "attempts", "cancel_requested").first()
        except Exception:  # the database is briefly away: the progress writes will tell
            log.warning("watchdog of job %s could not read the job", self.job_id, exc_info=True)
            from django.db import connection

            connection.close()
            return False
        # No row (deleted with its design, or not visible to this connection yet): progress writes decide.
        if row is None:
            return False
        status, attempts, cancel = row
        if attempts != self.attempt:
            return True  # the reaper gave the job to another worker
        if status == JobStatus.SUCCEEDED:
            # This run's own result is committed (handlers mark success in their transaction) and the handler is
            # tidying up after it (a large revision's sort indexes and ANALYZE): nothing left to cancel.
            return False
        return status != JobStatus.RUNNING or cancel

    def _stop(self, reason: str, grace: float) -> None:
        self.reason = reason
        self._stop_at = time.monotonic() + max(grace, 0.0)
        log.warning("job %s: %s; stopping it", self.job_id, reason)
        with self._lock:
            if self._active and self._target is not None:
                _raise_in(self._target, JobCancelled if self.cancelled else JobLimitExceeded)

    def _hard_stop(self) -> None:
        """The job did not stop: record why, and end this process (the pool starts a new one)."""
        from .services import job_fail, job_mark_cancelled

        with self._lock:
            if not self._active:
                return
            if self.cancelled:
                reason = self.reason
            else:
                reason = (
                    f"the {self.kind} job did not stop: it was ended at its hard time limit of "
                    f"{self.limits.hard_time_limit_s:g} s (JOB_{self.kind.upper()}_HARD_TIME_LIMIT_S)"
                    if self.reason is None or "time limit" in self.reason
                    else f"{self.reason}; it did not stop within {self.kill_grace_s:g} s and was ended"
                )
            log.error("job %s: %s; this worker process exits so that a fresh one takes its place", self.job_id, reason)
            try:
                if not (self.cancelled and job_mark_cancelled(job_id=self.job_id, attempt=self.attempt)):
                    job_fail(job_id=self.job_id, attempt=self.attempt, error=as_sentence(reason))
            except Exception:  # exit anyway; the reaper fails the job once its heartbeat is stale
                log.exception("could not record the hard stop of job %s", self.job_id)
            for stream in (sys.stdout, sys.stderr):
                # whatever a broken stream raises, the process exits next
                with contextlib.suppress(Exception):
                    stream.flush()
            os._exit(EXIT_CODE)
