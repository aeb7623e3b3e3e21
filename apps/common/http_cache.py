"""Conditional GET for a revision's resources: strong ETags and 304 answers.

A revision never changes, so what is derived from it (summary, BOM, link and cable pages, files) is named
by a strong ETag that hashes everything the bytes depend on: the revision, the request's query, the code
that renders it (`code_version`) and whatever else the caller passes (a price-list version, an artifact's
content hash). `If-None-Match` with that tag answers 304 before any work is done.

Cache-Control comes with it: `private, max-age=…, immutable` (security.immutable_cache_control) for what can
never change, or `private, no-cache` for what an explicit action can change at the same URL (the BOM after
a reprice), which the browser then revalidates every time, cheaply with the ETag.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from django.http import HttpResponse, HttpResponseBase
from django.utils.http import parse_etags

from .security import AUTHENTICATED_CACHE_CONTROL, immutable_cache_control

R = TypeVar("R", bound=HttpResponseBase)

ROOT = Path(__file__).resolve().parents[2]


@lru_cache(maxsize=1)
def code_version() -> str:
    """Hash of the apps' and engine's source (once per process): a deploy that may change a representation
    changes every tag."""
    h = hashlib.sha256()
    for top in ("apps", "engine"):
        for p in sorted((ROOT / top).rglob("*")):
            if p.suffix in (".py", ".yaml", ".yml") and p.is_file() and "migrations" not in p.parts:
                h.update(str(p.relative_to(ROOT)).encode())
                h.update(p.read_bytes())
    return h.hexdigest()[:16]


def revision_etag(revision: Any, *parts: object) -> str:
    """A strong ETag ("…", quoted) for something derived from `revision` and `parts`. A revision's rows never
    change; its id with its creation time and spec hash names it even where ids are reused (a database
    rebuilt behind a cache that outlived it)."""
    state = [revision.pk, revision.created_at.isoformat(), revision.spec_hash, code_version(), *parts]
    return '"' + hashlib.sha256(json.dumps(state, sort_keys=True, default=str).encode()).hexdigest()[:40] + '"'


def if_none_match(request: Any, etag: str) -> bool:
    """True when the client already holds `etag` (If-None-Match compares tags weakly, RFC 9110 13.1.2)."""
    request = getattr(request, "_request", request)
    header = request.META.get("HTTP_IF_NONE_MATCH")
    if not header:
        return False
    tags = parse_etags(header)
    return "*" in tags or etag.removeprefix("W/") in {t.removeprefix("W/") for t in tags}


def cache_headers(response: R, etag: str, *, immutable: bool = True) -> R:
    response["ETag"] = etag
    response["Cache-Control"] = immutable_cache_control() if immutable else AUTHENTICATED_CACHE_CONTROL
    return response


def not_modified(etag: str, *, immutable: bool = True) -> HttpResponse:
    response = HttpResponse(status=304)
    # No body, so no Content-Type (RFC 9110 15.4.5: a 304 carries no representation metadata beyond the
    # validators and caching fields); HttpResponse would otherwise add Django's text/html default.
    del response["Content-Type"]
    return cache_headers(response, etag, immutable=immutable)


def query_key(request: Any) -> str:
    """The request's query string in a canonical order (part of a tag: each page or filter is its own)."""
    request = getattr(request, "_request", request)
    return "&".join(sorted(f"{k}={v}" for k, values in request.GET.lists() for v in values))


def conditional(request: Any, etag: str, produce: Callable[[], R], *, immutable: bool = True) -> R | HttpResponse:
    """304 when the client holds `etag`; else `produce()` with the tag and Cache-Control set."""
    if if_none_match(request, etag):
        return not_modified(etag, immutable=immutable)
    return cache_headers(produce(), etag, immutable=immutable)
