"""Job kinds and their handlers. Feature apps register theirs from AppConfig.ready(), so the jobs app runs
jobs without importing any feature (tests/test_layering.py keeps it that way).

A handler is named by its dotted path and imported when a job of its kind first runs: registering at start-up
then costs nothing and cannot form an import cycle with the services that create jobs.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from django.utils.module_loading import import_string

_KINDS: dict[str, str] = {}


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
