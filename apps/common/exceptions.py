from __future__ import annotations

from typing import Any


class ApplicationError(Exception):
    """An expected failure of a service, with a message fit to show the user.

    `extra` carries structured detail (field paths, limits) for API responses.
    """

    def __init__(self, message: str, extra: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.extra = extra or {}
