"""Job kinds, their handlers and their result pages. Feature apps register theirs from AppConfig.ready(), so the
jobs app runs jobs, and a job's page moves on to its result, without importing any feature (tests/test_layering.py
keeps it that way).

A handler is named by its dotted path and imported when a job of its kind first runs: registering at start-up
then costs nothing and cannot form an import cycle with the services that create jobs.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from django.utils.module_loading import import_string

_KINDS: dict[str, str] = {}
_RESULT_PAGES: dict[str, str] = {}


def job_kind_register(kind: str, handler_path: str) -> None:
    """Run jobs of `kind` with the callable at `handler_path` (handler(job=..., progress=...) -> result dict)."""
    known = _KINDS.setdefault(kind, handler_path)
    if known != handler_path:
        raise ValueError(f"job kind {kind!r} is already handled by {known}")


@cache
def _handler(path: str) -> Callable:
    return import_string(path)


def job_handlers() -> dict[str, Callable]:
    """{kind: handler} of every registered kind."""
    return {kind: _handler(path) for kind, path in _KINDS.items()}


def job_result_page_register(kind: str, page_path: str) -> None:
    """Where a succeeded job of `kind` is read: the callable at `page_path`, page(job) -> URL or None (imported on
    first use, as handlers are)."""
    known = _RESULT_PAGES.setdefault(kind, page_path)
    if known != page_path:
        raise ValueError(f"job kind {kind!r} already has its result page at {known}")


def job_result_page(job: Any) -> str | None:
    """The URL of the page a succeeded job's result is read on; None while it runs, when it failed, or for a kind
    without one."""
    path = _RESULT_PAGES.get(job.kind)
    if path is None or job.status != "succeeded":
        return None
    return _handler(path)(job)
