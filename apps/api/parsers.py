"""Body parsers with size limits: 413 over the limit, 400 for anything malformed, never a 500.

DRF reads the body stream itself, which skips Django's DATA_UPLOAD_MAX_MEMORY_SIZE check, so
the limit is enforced here, on the declared Content-Length and on the bytes actually read.
"""

from __future__ import annotations

import json
import threading

from django.conf import settings
from rest_framework import parsers
from rest_framework.exceptions import ParseError

from .errors import ApiError


def read_limited(stream, request_meta: dict, limit: int, what: str) -> bytes:
    try:
        declared = int(request_meta.get("CONTENT_LENGTH") or 0)
    except ValueError:
        raise ParseError("Content-Length is not a number.") from None
    too_big = ApiError(413, "payload_too_large", f"The {what} is larger than the limit of {limit} bytes.")
    if declared > limit:
        raise too_big
    data = stream.read(limit + 1) if stream is not None else b""
    if len(data) > limit:
        raise too_big
    return data


class LimitedJSONParser(parsers.JSONParser):
    """JSON bodies up to DATA_UPLOAD_MAX_MEMORY_SIZE bytes; NaN/Infinity and deep nesting are a 400."""

    def parse(self, stream, media_type=None, parser_context=None):
        request = (parser_context or {}).get("request")
        meta = request.META if request is not None else {}
        raw = read_limited(stream, meta, settings.DATA_UPLOAD_MAX_MEMORY_SIZE, "JSON body")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ParseError("The JSON body is not UTF-8.") from None
        try:
            try:
                return json.loads(text, parse_constant=_reject_constant)
            except RecursionError:
                return _loads_on_a_fresh_stack(text)
        except RecursionError:
            raise ParseError("The JSON body is nested too deeply.") from None
        except ValueError as exc:
            raise ParseError(f"The body is not valid JSON: {exc}") from None


def _loads_on_a_fresh_stack(text: str):
    """json.loads in a new thread. The decoder recurses once per nesting level, so how deep a body it can read
    depends on how deep the request's own call stack already is (middleware, DRF, a test client); a new thread
    starts at the bottom, so every request gets the same budget and the spec's own, iterative depth check
    (engine.schema, ANY_MAX_DEPTH) can name the field instead of the parser refusing the whole body."""
    out: dict = {}

    def run() -> None:
        try:
            out["value"] = json.loads(text, parse_constant=_reject_constant)
        except (RecursionError, ValueError) as exc:
            out["error"] = exc

    worker = threading.Thread(target=run, name="json-deep-body")
    worker.start()
    worker.join()
    if "error" in out:
        raise out["error"]
    return out["value"]


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


class CSVUploadParser(parsers.BaseParser):
    """A raw `text/csv` body up to API_MAX_UPLOAD_BYTES bytes, returned as text."""

    media_type = "text/csv"

    def parse(self, stream, media_type=None, parser_context=None):
        request = (parser_context or {}).get("request")
        meta = request.META if request is not None else {}
        raw = read_limited(stream, meta, settings.API_MAX_UPLOAD_BYTES, "upload")
        try:
            return raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ParseError("The CSV file is not UTF-8 text.") from None
