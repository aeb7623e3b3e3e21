"""`Idempotency-Key` for creating requests (design create, compute).

The first request with a key runs in one transaction with the row that remembers its answer, so a
retry (same user, same key, same method, path and body) gets that answer again and creates
nothing; a concurrent twin waits on the key's unique index and then gets the same replay. The same
key with a different request is a 422 (`idempotency_key_reused`). Only successful answers are
remembered: a failed request had no effect and may be retried with the same key. Keys are
remembered for KEY_TTL.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Callable
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone
from rest_framework.request import Request
from rest_framework.response import Response

from engine.inputgate import load_json

from .errors import ApiError
from .models import IdempotencyRecord
from .parsers import JSON_BODY_MAX_DEPTH

HEADER = "Idempotency-Key"
KEY_TTL = timedelta(hours=24)
_KEY = re.compile(r"^[\x21-\x7e]{1,255}$")  # printable ASCII, no spaces
IDEMPOTENCY_KEY_SCHEMA = {"type": "string", "minLength": 1, "maxLength": 255, "pattern": _KEY.pattern}


class _Failed(Exception):
    def __init__(self, response: Response):
        self.response = response


def _fingerprint(request: Request) -> str:
    """Method, path and body; a JSON body counts by its content, not its spacing or key order."""
    body = request.body
    # not JSON: the bytes as sent (a malformed body fails in the handler anyway)
    with contextlib.suppress(ValueError, RecursionError):
        body = json.dumps(
            load_json(body, max_chars=len(body) + 1, max_depth=JSON_BODY_MAX_DEPTH),
            sort_keys=True,
            separators=(",", ":"),
        ).encode()
    h = hashlib.sha256(f"{request.method} {request.path}\n".encode())
    h.update(body)
    return h.hexdigest()


def _replay(record: IdempotencyRecord) -> Response:
    headers = {"Idempotent-Replayed": "true"}
    if record.location:
        headers["Location"] = record.location
    return Response(record.body, status=record.status_code, headers=headers)


def idempotent(request: Request, handler: Callable[[], Response]) -> Response:
    """Run `handler` once per (user, Idempotency-Key); without the header, just run it."""
    key = request.headers.get(HEADER)
    if key is None:
        return handler()
    if not _KEY.match(key):
        raise ApiError(
            400,
            "invalid_idempotency_key",
            f"{HEADER} must be 1-255 printable ASCII characters without spaces.",
            [{"path": HEADER, "message": "1-255 printable ASCII characters without spaces"}],
        )
    fingerprint = _fingerprint(request)
    user = request.user
    # Forget this user's expired keys (few rows: keys live a day).
    IdempotencyRecord.objects.filter(user=user, created_at__lt=timezone.now() - KEY_TTL).delete()
    try:
        with transaction.atomic():
            try:
                with transaction.atomic():
                    record = IdempotencyRecord.objects.create(
                        user=user, key=key, fingerprint=fingerprint, status_code=0, body={}
                    )
            except IntegrityError:
                record = None
            if record is not None:
                response = handler()
                if not 200 <= response.status_code < 300:
                    raise _Failed(response)
                record.status_code = response.status_code
                record.body = response.data
                record.location = response.headers.get("Location", "")
                record.save(update_fields=["status_code", "body", "location"])
                return response
    except _Failed as failed:
        return failed.response
    # Another request holds (held) this key; its transaction has committed by now.
    record = IdempotencyRecord.objects.filter(user=user, key=key).first()
    if record is None or record.status_code == 0:
        raise ApiError(409, "idempotency_key_in_use", f"A request with this {HEADER} is still being processed.")
    if record.fingerprint != fingerprint:
        raise ApiError(
            422,
            "idempotency_key_reused",
            f"This {HEADER} was used for a different request; use a new key for a new request.",
            [{"path": HEADER, "message": "already used with another method, path or body"}],
        )
    return _replay(record)


def forget(request: Request) -> None:
    """Drop the remembered answer of this request's key: what it answered did not happen after all (its job
    could not be queued), so a retry with the same key must run again."""
    key = request.headers.get(HEADER)
    if key is not None:
        IdempotencyRecord.objects.filter(user=request.user, key=key).delete()
