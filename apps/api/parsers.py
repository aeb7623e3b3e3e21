"""Body parsers with size limits: 413 over the limit, 400 for anything malformed, never a 500.

DRF reads the body stream itself, which skips Django's DATA_UPLOAD_MAX_MEMORY_SIZE check, so
the limit is enforced here, on the declared Content-Length and on the bytes actually read.
"""

from __future__ import annotations

from django.conf import settings
from rest_framework import parsers
from rest_framework.exceptions import ParseError

from engine.inputgate import InputRefused, load_json

from .errors import ApiError

# Python's recursion limit (1,000) bounds what the decoder reads even on a fresh stack; up to it, the spec's own
# iterative depth check (engine.schema, ANY_MAX_DEPTH) names the field that is too deep (see LimitedJSONParser).
JSON_BODY_MAX_DEPTH = 1_000


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
            # Deeper than any field the schema checks (ANY_MAX_DEPTH), so a body nested within this still gets
            # a 400 naming its field (engine.schema); a body nested deeper is refused here as a whole.
            return load_json(text, max_chars=settings.DATA_UPLOAD_MAX_MEMORY_SIZE, max_depth=JSON_BODY_MAX_DEPTH)
        except InputRefused as exc:
            if exc.message.startswith("nested deeper"):
                raise ParseError("The JSON body is nested too deeply.") from None
            raise ParseError(f"The body is {exc.describe('not valid JSON')}") from None


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
