"""What every API view shares: authentication, throttling, parsers, error shape, access helpers."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import OpenApiParameter
from rest_framework import exceptions
from rest_framework.authentication import SessionAuthentication
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import JSONRenderer
from rest_framework.serializers import Serializer
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


# Query parameters every operation accepts and ignores (docs/api.md, "Query parameters"): `format`, which
# browsers and tools append to any API URL (`?format=json`, as /api/schema/ takes it).
QUERY_WHITELIST = frozenset({"format"})
_DECLARED: dict[tuple[type, str], frozenset[str]] = {}


def declared_query_parameters(view, method: str) -> frozenset[str]:
    """The query parameters the operation's @extend_schema declares (OpenApiParameter in QUERY, or the fields of a
    serializer given as parameters): what the schema publishes is what the server accepts."""
    key = (type(view), method)
    if key not in _DECLARED:
        handler = getattr(view, method.lower(), None)
        names: set[str] = set()
        schema_class = getattr(handler, "kwargs", {}).get("schema")
        if schema_class is not None:
            schema = schema_class()
            schema.view, schema.method, schema.path = view, method.upper(), ""
            for p in schema.get_override_parameters():
                if isinstance(p, OpenApiParameter):
                    if p.location == OpenApiParameter.QUERY:
                        names.add(p.name)
                elif isinstance(p, type) and issubclass(p, Serializer):
                    names.update(p().fields)
        _DECLARED[key] = frozenset(names)
    return _DECLARED[key]


def refuse_undeclared_query(view, request) -> None:
    """400 naming each query parameter the operation does not declare: a typo (`?stauts=`) never passes."""
    method = request.method.lower()
    if method == "options" or method not in view.http_method_names or not hasattr(view, method):
        return  # DRF answers 405 (or OPTIONS) for it
    allowed = declared_query_parameters(view, request.method) | QUERY_WHITELIST
    unknown = sorted(k for k in request.query_params if k not in allowed)
    if unknown:
        raise ApiError(
            400,
            "invalid_query",
            f"Unknown query parameter(s): {', '.join(unknown)}."
            + (f" This operation takes: {', '.join(sorted(allowed - QUERY_WHITELIST))}." if len(allowed) > 1 else ""),
            [{"path": k, "message": "unknown query parameter"} for k in unknown],
        )


class ApiView(APIView):
    # Token first: its authenticate_header makes an anonymous request a 401, not a 403.
    authentication_classes = (TokenAuthentication, SessionAuthentication)
    permission_classes = (IsAuthenticated,)
    # The rate limit is counted in perform_authentication (apps/api/ratelimit.py), not by a DRF throttle:
    # per user across tokens and session, atomic, and before permissions, so every answer is counted.
    throttle_classes = ()
    parser_classes = (LimitedJSONParser,)
    renderer_classes = (JSONRenderer,)
    content_negotiation_class = JSONOnlyNegotiation
    schema = ApiAutoSchema()

    def get_exception_handler(self):
        return api_exception_handler

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        if self.schema is not None:  # an operation of the schema (NotFoundApi is none)
            refuse_undeclared_query(self, request)

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

    permission_classes = ()
    schema = None

    def _missing(self, request, *args, **kwargs):
        raise ApiError(404, "not_found", "No such API endpoint; see /api/docs/.")

    get = post = put = patch = delete = head = options = _missing
