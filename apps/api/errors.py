"""One JSON error shape for every API failure (docs/api.md, "Errors"):

    {"error": {"code": "invalid", "message": "...", "fields": [{"path": "compute_fabric.switch", "message": "..."}]}}

`fields` is present (possibly empty) on every error, each `{path, message}` plus `line` (and `column`, a 1-based
character position) where the input is a text file (CSV uploads). `path` is always the spec's dotted syntax
(`a.b[0].c`); SpecError paths go into it unchanged.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.http import Http404
from rest_framework import exceptions
from rest_framework.response import Response

from apps.common.errors import (
    Conflict,
    DomainError,
    Invalid,
    NotFound,
    PreconditionFailed,
    QuotaExceeded,
    StorageFull,
    TooLarge,
)
from apps.common.exceptions import ApplicationError
from apps.designs.tables import TableError
from apps.jobs.services import JobNotQueued, JobQuotaExceeded
from engine.errors import SpecError

from .output import job_out


class ApiError(exceptions.APIException):
    """An expected failure with its own code and status, raised by API views only (the services below the API raise
    apps.common.errors, mapped by `domain_status`)."""

    def __init__(
        self, status_code: int, code: str, message: str, fields: list[dict] | None = None, headers: dict | None = None
    ):
        super().__init__(message)
        self.status_code = status_code
        self.code = code
        self.message = message
        self.fields = fields or []
        self.headers = headers or {}


def error_body(code: str, message: str, fields: list[dict] | None = None) -> dict:
    return {"error": {"code": code, "message": message, "fields": fields or []}}


def spec_error_fields(exc: SpecError, prefix: str = "") -> list[dict]:
    return [
        {"path": f"{prefix}{e.path}" if prefix and e.path else (e.path or prefix.rstrip(".")), "message": e.message}
        for e in exc.errors
    ]


def _flatten(detail: Any, path: str = "") -> list[dict]:
    """DRF's nested error detail -> [{path, message}] with dotted paths (list items by index)."""
    if isinstance(detail, dict):
        out = []
        for key, value in detail.items():
            key = "" if key in ("non_field_errors",) else str(key)
            out += _flatten(value, f"{path}.{key}" if path and key else (key or path))
        return out
    if isinstance(detail, list):
        if all(isinstance(d, (str, exceptions.ErrorDetail)) for d in detail):
            return [{"path": path, "message": str(d)} for d in detail]
        out = []
        for i, value in enumerate(detail):
            if value:
                out += _flatten(value, f"{path}[{i}]")  # the spec's syntax: a.b[0].c
        return out
    return [{"path": path, "message": str(detail)}]


# The status of each kind of domain error; the first class the error is an instance of wins.
_DOMAIN_STATUS: tuple[tuple[type[DomainError], int], ...] = (
    (Invalid, 400),
    (NotFound, 404),
    (Conflict, 409),  # NotReady included
    (PreconditionFailed, 412),
    (TooLarge, 413),
    (QuotaExceeded, 429),
    (StorageFull, 507),
)


def domain_status(exc: DomainError) -> int:
    return next((status for cls, status in _DOMAIN_STATUS if isinstance(exc, cls)), 400)


_CODES = {
    exceptions.ParseError: "malformed_request",
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.AuthenticationFailed: "authentication_failed",
    exceptions.PermissionDenied: "permission_denied",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.Throttled: "throttled",
}


def api_exception_handler(exc: Exception, context: dict) -> Response | None:  # noqa: C901
    headers: dict[str, str] = {}
    if isinstance(exc, ApiError):
        body, code = error_body(exc.code, exc.message, exc.fields), exc.status_code
        headers.update(exc.headers)
    elif isinstance(exc, SpecError):
        body, code = error_body("invalid_spec", "The spec is not valid.", spec_error_fields(exc)), 400
    elif isinstance(exc, TableError):
        body = error_body("invalid_query", exc.message, [{"path": exc.field, "message": exc.message}])
        code = 400
    elif isinstance(exc, JobQuotaExceeded):
        body, code = error_body("job_quota_exceeded", exc.message), 429
        headers["Retry-After"] = str(exc.retry_after)
    elif isinstance(exc, JobNotQueued):
        # The job exists and is failed: it will not run later. Its representation says so.
        body, code = error_body("broker_unavailable", exc.message), 503
        body["job"] = job_out(context["request"], exc.job)
    elif isinstance(exc, DomainError):
        body, code = error_body(exc.code, exc.message, exc.fields), domain_status(exc)
        if isinstance(exc, QuotaExceeded):
            headers["Retry-After"] = str(exc.retry_after)
    elif isinstance(exc, ApplicationError):
        body, code = error_body(exc.extra.get("code", "invalid"), exc.message, exc.extra.get("fields")), 400
    elif isinstance(exc, RequestDataTooBig):
        body, code = error_body("payload_too_large", str(exc) or "The request body is too large."), 413
    elif isinstance(exc, Http404):
        body, code = error_body("not_found", str(exc) or "Not found."), 404
    elif isinstance(exc, DjangoPermissionDenied):
        body, code = error_body("permission_denied", str(exc) or "Not allowed."), 403
    elif isinstance(exc, exceptions.ValidationError):
        fields = _flatten(exc.detail)
        message = "; ".join(f"{f['path']}: {f['message']}" if f["path"] else f["message"] for f in fields[:5])
        body, code = error_body("invalid", message or "The request is not valid.", fields), 400
    elif isinstance(exc, exceptions.APIException):
        code = exc.status_code
        name = next((c for cls, c in _CODES.items() if isinstance(exc, cls)), None) or str(
            getattr(exc, "default_code", "error")
        )
        body = error_body(name, str(exc.detail) if not isinstance(exc.detail, (list, dict)) else "Request failed.")
        if isinstance(exc, exceptions.Throttled) and exc.wait is not None:
            headers["Retry-After"] = str(max(1, int(exc.wait + 0.999)))
        if getattr(exc, "auth_header", None):
            headers["WWW-Authenticate"] = exc.auth_header
    else:
        return None  # a bug: Django logs it and answers 500
    return Response(body, status=code, headers=headers)


__all__ = ["ApiError", "api_exception_handler", "domain_status", "error_body", "spec_error_fields"]
