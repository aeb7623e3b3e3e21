"""The failures a service below the API reports, named by what went wrong rather than by an HTTP status.

Each carries a message fit to show the user, a stable `code` (the API's error code, docs/api.md "Errors") and
`fields`: [{path, message}] (plus `line`/`column` for a text file's rows) naming the input at fault. The API
maps the kinds to statuses (apps/api/errors.py); a browser view shows the message and the fields as form
errors. A service never builds an HTTP answer itself, so the same call serves a page, the API and the CLI.
"""

from __future__ import annotations

from typing import Any

from .exceptions import ApplicationError


class DomainError(ApplicationError):
    """An expected failure of a service. Subclasses say which kind; `code` says which one of that kind."""

    default_code = "invalid"

    def __init__(self, message: str, *, code: str | None = None, fields: list[dict[str, Any]] | None = None) -> None:
        self.code = code or self.default_code
        self.fields = list(fields or [])
        super().__init__(message, {"code": self.code, "fields": self.fields})

    def texts(self) -> list[str]:
        """The message, then each field's problem the message does not already say (for a form's error list)."""
        out = [self.message]
        for f in self.fields:
            text = f.get("message")
            if text and text not in self.message:
                out.append(f"{f['path']}: {text}" if f.get("path") else text)
        return out


class Invalid(DomainError):
    """The input is wrong; `fields` name where."""


class NotFound(DomainError):
    default_code = "not_found"


class Conflict(DomainError):
    """The input is fine but clashes with what is stored (a duplicate key, parts that no longer load)."""

    default_code = "conflict"


class NotReady(Conflict):
    """What was asked for does not exist yet or no longer can (a revision without its snapshot)."""

    default_code = "not_ready"


class PreconditionFailed(DomainError):
    """The caller's copy is stale (an If-Match that no longer matches)."""

    default_code = "precondition_failed"


class TooLarge(DomainError):
    """An upload or body over its size limit."""

    default_code = "payload_too_large"


class StorageFull(DomainError):
    """Where files are kept has no room left (ENOSPC, a quota): nothing was stored; the request may be repeated
    once space is freed (the artifact store's hourly prune, or an administrator)."""

    default_code = "insufficient_storage"


class QuotaExceeded(DomainError):
    """Too many of something for now; `retry_after` seconds is when to try again."""

    default_code = "quota_exceeded"

    def __init__(self, message: str, *, retry_after: int, code: str | None = None) -> None:
        super().__init__(message, code=code)
        self.retry_after = retry_after


__all__ = [
    "Conflict",
    "DomainError",
    "Invalid",
    "NotFound",
    "NotReady",
    "PreconditionFailed",
    "QuotaExceeded",
    "StorageFull",
    "TooLarge",
]
