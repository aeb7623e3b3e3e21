"""What every API view shares: authentication, throttling, parsers, error shape, access helpers."""

from __future__ import annotations

from django.http import Http404
from rest_framework import exceptions
from rest_framework.authentication import SessionAuthentication
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import JSONRenderer
from rest_framework.views import APIView

from apps.designs.models import Design, Revision
from apps.designs.selectors import design_get, revision_get

from ..auth import TokenAuthentication
from ..errors import ApiError, api_exception_handler
from ..parsers import LimitedJSONParser
from ..ratelimit import client_key, hit
from ..schema import ApiAutoSchema


class JSONOnlyNegotiation(BaseContentNegotiation):
    """Answers JSON (or the file a download view streams) whatever Accept says: no 406s for machines."""

    def select_parser(self, request, parsers):
        for parser in parsers:
            if request.content_type.split(";")[0].strip().lower() == parser.media_type:
                return parser
        return None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class ApiView(APIView):
    # Token first: its authenticate_header makes an anonymous request a 401, not a 403.
    authentication_classes = [TokenAuthentication, SessionAuthentication]
    permission_classes = [IsAuthenticated]
    # The rate limit is counted in perform_authentication (apps/api/ratelimit.py), not by a DRF throttle:
    # per user across tokens and session, atomic, and before permissions, so every answer is counted.
    throttle_classes = []
    parser_classes = [LimitedJSONParser]
    renderer_classes = [JSONRenderer]
    content_negotiation_class = JSONOnlyNegotiation
    schema = ApiAutoSchema()

    def get_exception_handler(self):
        return api_exception_handler

    def perform_authentication(self, request):
        try:
            request.user  # noqa: B018  (authenticates; a bad token raises 401 and counts per address)
        finally:
            limit = request._rate_limit = hit(client_key(request))
            if limit is not None and not limit.allowed:
                raise exceptions.Throttled(
                    wait=limit.retry_after(),
                    detail="Too many requests: the API rate limit is per user, "
                    "across all of your tokens and your browser session.",
                )

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        limit = getattr(request, "_rate_limit", None)
        if limit is not None:
            for name, value in limit.headers().items():
                response[name] = value
        return response


def design_for(request, design_id: int, *, write: bool = False, owner: bool = False) -> Design:
    """The design if the caller may see it (write: change it; owner: delete or share it); else 404.

    Same rule as the HTML views (apps.designs.selectors): never 403, so ids reveal nothing.
    """
    design = design_get(user=request.user, design_id=design_id, write=write or owner)
    if owner and design.owner_id != request.user.pk:
        raise Http404("No such design.")
    return design


def revision_for(request, design_id: int, number: int, *, defer: tuple[str, ...] = (), bare: bool = False) -> Revision:
    """A revision of a design the caller may see, in one query; else 404 (apps.designs.selectors.revision_get).
    `bare`: only its id and number (what a link or cable page needs), none of its JSON or its design's."""
    return revision_get(user=request.user, design_id=design_id, number=number, defer=defer, bare=bare)


class NotFoundApi(ApiView):
    """Any other path under /api/ (a typo, /api/v2/...): the API's 404, in the API's error shape, never HTML."""

    permission_classes = []
    schema = None

    def _missing(self, request, *args, **kwargs):
        raise ApiError(404, "not_found", "No such API endpoint; see /api/docs/.")

    get = post = put = patch = delete = head = options = _missing
