"""What /healthz reads from the layers above common, registered by them from AppConfig.ready(): the jobs app
registers when a worker was last seen, so common imports nothing of it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_worker_last_seen: list[Callable[[], Any]] = []


def register_worker_last_seen(probe: Callable[[], Any]) -> None:
    _worker_last_seen[:] = [probe]


def worker_last_seen() -> Any:
    """The registered probe's answer; None (no worker seen) when no app registered one."""
    return _worker_last_seen[0]() if _worker_last_seen else None
