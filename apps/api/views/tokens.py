"""Personal API tokens: list, create (the key is shown once), revoke; and who am I."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from ..auth import token_create, token_revoke
from ..errors import ApiError
from ..models import ApiToken
from ..output import iso, url
from ..pagination import DEFAULT_LIMIT, MAX_LIMIT, id_page, page_body
from ..serializers import PageOut, StrictSerializer, query
from .base import ApiView


class TokenOut(serializers.Serializer):
    id = serializers.IntegerField(help_text="The token's id, used in /tokens/{token_id}/.")
    url = serializers.URLField(help_text="This token's URL (tokens_retrieve, tokens_revoke).")
    name = serializers.CharField(help_text="The name you gave it.")
    prefix = serializers.CharField(help_text="The key's first characters, to recognise it.")
    created_at = serializers.DateTimeField(help_text="When it was created.")
    last_used_at = serializers.DateTimeField(allow_null=True, help_text="Refreshed at most once a minute.")


def _token_out(request, t: ApiToken) -> dict:
    return {
        "id": t.pk,
        "url": url(request, "token-detail", t.pk),
        "name": t.name,
        "prefix": t.prefix,
        "created_at": iso(t.created_at),
        "last_used_at": iso(t.last_used_at),
    }


class PageQuery(StrictSerializer):
    cursor = serializers.CharField(
        required=False,
        help_text="Where the page starts: a next_cursor or previous_cursor a page of this list gave out (opaque).",
    )
    limit = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_LIMIT,
        default=DEFAULT_LIMIT,
        help_text="Items per page (1-1000, default 100).",
    )


class TokenListApi(ApiView):
    class OutputSerializer(PageOut):
        results = TokenOut(many=True, help_text="Your tokens on this page, newest first.")

    class InputSerializer(StrictSerializer):
        name = serializers.CharField(max_length=100, help_text="What the token is for, e.g. 'procurement sync'.")

    class CreatedSerializer(TokenOut):
        key = serializers.CharField(help_text="Send as 'Authorization: Token <key>'. Shown only in this answer.")

    @extend_schema(
        operation_id="tokens_list",
        parameters=[PageQuery],
        responses={200: OutputSerializer},
        tags=["tokens"],
        summary="List your API tokens",
    )
    def get(self, request):
        q = query(PageQuery, request)
        rows, nxt = id_page(ApiToken.objects.filter(user=request.user), cursor=q.get("cursor"), limit=q["limit"])
        return Response(page_body(request, [_token_out(request, t) for t in rows], nxt, None))

    @extend_schema(
        operation_id="tokens_create",
        request=InputSerializer,
        responses={201: CreatedSerializer},
        tags=["tokens"],
        summary="Create an API token (the key is shown once)",
    )
    def post(self, request):
        if isinstance(request.auth, ApiToken):
            raise ApiError(
                403,
                "permission_denied",
                "A token cannot create tokens: create them signed in with a browser, or with "
                "`manage.py api_token create`.",
            )
        s = self.InputSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        token, key = token_create(user=request.user, name=s.validated_data["name"])
        return Response(
            {**_token_out(request, token), "key": key},
            status=201,
            # The key is in this answer only: no cache, the browser's own included, may keep a copy of it.
            headers={"Location": url(request, "token-detail", token.pk), "Cache-Control": "private, no-store"},
        )


class TokenDetailApi(ApiView):
    @extend_schema(
        operation_id="tokens_retrieve",
        responses={200: TokenOut},
        tags=["tokens"],
        summary="Show one of your API tokens",
    )
    def get(self, request, token_id: int):
        token = ApiToken.objects.filter(user=request.user, pk=token_id).first()
        if token is None:
            raise Http404("No such token.")
        return Response(_token_out(request, token))

    @extend_schema(
        operation_id="tokens_revoke",
        responses={204: None},
        tags=["tokens"],
        summary="Revoke an API token (it stops working at once)",
    )
    def delete(self, request, token_id: int):
        if not token_revoke(user=request.user, token_id=token_id):
            raise Http404("No such token.")
        return Response(status=204)


class MeApi(ApiView):
    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField(help_text="The user's id.")
        username = serializers.CharField(help_text="The username (what shares name).")
        email = serializers.CharField(help_text="The account's e-mail address; empty when none.")
        auth = serializers.ChoiceField(
            choices=["token", "session"],
            help_text="How this request was authenticated: token (an API token) or session (a browser sign-in).",
        )

    @extend_schema(
        operation_id="me_retrieve",
        responses={200: OutputSerializer},
        tags=["tokens"],
        summary="The user the request is authenticated as",
    )
    def get(self, request):
        u = request.user
        return Response(
            {
                "id": u.pk,
                "username": u.get_username(),
                "email": u.email or "",
                "auth": "token" if isinstance(request.auth, ApiToken) else "session",
            }
        )
