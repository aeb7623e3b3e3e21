"""Optimistic concurrency for writes: every writable object has an ETag, and a write sent with `If-Match` only
happens while the object still has that ETag (else 412 precondition_failed), so two clients editing the same design
cannot silently overwrite each other. Without `If-Match` the last write wins, as before.

ETags are strong and derive from the stored state (a hash), never from the answer's text, so the ETag of a GET and of
the write's answer agree for the same state.
"""

from __future__ import annotations

import hashlib
import json

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse

from .errors import ApiError

HEADER = "If-Match"

IF_MATCH = OpenApiParameter(
    HEADER,
    str,
    OpenApiParameter.HEADER,
    required=False,
    description=(
        "The ETag of the object as you last read it (its GET answers it): the write happens only if nobody changed it "
        "since, else 412. `*` matches any existing object. Leave it out to write regardless (last write wins)."
    ),
)
PRECONDITION_FAILED = OpenApiResponse(
    description="If-Match names an ETag the object no longer has (someone changed it since you read it): read it "
    "again, reapply your change, and retry with the new ETag."
)


def state_etag(*parts) -> str:
    """A strong ETag of the given stored values (JSON-serialisable, or dates and decimals as text)."""
    text = json.dumps(parts, sort_keys=True, default=str, separators=(",", ":"))
    return '"' + hashlib.sha256(text.encode()).hexdigest()[:32] + '"'


def _listed(header: str) -> list[str]:
    return [t.strip() for t in header.split(",") if t.strip()]


def check_if_match(request, current: str | None) -> None:
    """412 when the request's If-Match does not name `current` (None: the object does not exist). Callers check
    inside the write's transaction, against the row they locked (select_for_update), so no other write slips
    between the check and theirs."""
    header = request.headers.get(HEADER)
    if header is None:
        return
    tags = _listed(header)
    if current is not None and ("*" in tags or current in tags):
        return
    raise ApiError(
        412,
        "precondition_failed",
        "The object changed since you read it (If-Match does not name its current ETag)."
        if current is not None
        else "There is no such object to match If-Match.",
        [{"path": HEADER, "message": "does not match the current ETag"}],
        headers={"ETag": current} if current else None,
    )


def with_etag(response, etag: str | None):
    if etag:
        response["ETag"] = etag
    return response


def design_etag(design) -> str:
    return state_etag("design", design.pk, design.updated_at, design.name)


def qos_etag(design) -> str:
    spec = design.spec or {}
    return state_etag("qos", design.pk, spec.get("qos"), (spec.get("compute_fabric") or {}).get("technology"))


def share_etag(access: str | None) -> str | None:
    # the URL names the design and the username: only the access can change (and a share's answer must not
    # differ between names with and without an account)
    return None if access is None else state_etag("share", access)


def part_etag(part) -> str:
    return state_etag("part", part.pk, part.updated_at)


def price_list_etag(price_list) -> str:
    if price_list is None:
        return state_etag("price-list", None)
    return state_etag("price-list", price_list.currency, price_list.prices)
