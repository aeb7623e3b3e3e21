"""Personal API tokens: `Authorization: Token <key>`, or `Authorization: Bearer <key>` (RFC 6750's keyword,
which generated clients such as openapi-python-client send by default).

A key is 32 random bytes, shown once when the token is made. Only its SHA-256 digest is stored,
so a leaked database does not leak usable keys; a 256-bit random key needs no slow hash.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from functools import lru_cache

from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import timezone
from rest_framework import authentication, exceptions

from apps.common.db import columns, partial_instance, row_instance

from .models import ApiToken

KEY_PREFIX = "fd_"
# last_used_at is refreshed at most this often, so authenticated reads do not each cost a write.
LAST_USED_RESOLUTION = timedelta(minutes=1)


def token_digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def token_create(*, user, name: str) -> tuple[ApiToken, str]:
    """Make a token; returns the row and the key, which is never available again."""
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(user=user, name=name, digest=token_digest(key), prefix=key[:10])
    return token, key


def _user_fields() -> tuple[str, ...]:
    return tuple(f.attname for f in get_user_model()._meta.concrete_fields)


@lru_cache(maxsize=1)
def _token_user_sql() -> str:
    users = connection.ops.quote_name(get_user_model()._meta.db_table)
    return (
        f"SELECT {columns(get_user_model(), _user_fields(), 'u')}, t.id, "
        f"(t.last_used_at IS NULL OR t.last_used_at < %s) "
        f"FROM {connection.ops.quote_name(ApiToken._meta.db_table)} t JOIN {users} u ON u.id = t.user_id "
        f"WHERE t.digest = %s"
    )


def token_user(*, digest: str, stale_before):
    """(the user, the token's id, whether it was last used before `stale_before` or never) of the token with
    this digest, or None. One hand-written query: it runs on every API request, and the ORM's select_related
    query cost about 0.5 ms of CPU to build each time (apps/common/db.py)."""
    param = connection.ops.adapt_datetimefield_value(stale_before)
    with connection.cursor() as cursor:
        cursor.execute(_token_user_sql(), [param, digest])
        row = cursor.fetchone()
    if row is None:
        return None
    fields = _user_fields()
    return row_instance(get_user_model(), fields, row[: len(fields)]), row[-2], bool(row[-1])


def token_revoke(*, user, token_id: int) -> bool:
    return ApiToken.objects.filter(user=user, pk=token_id).delete()[0] > 0


class TokenAuthentication(authentication.BaseAuthentication):
    """`Authorization: Token <key>` or `Bearer <key>`. A missing header leaves the request to the next authenticator."""

    keyword = "Token"
    keywords = (b"token", b"bearer")

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower() not in self.keywords:
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed(
                "Send 'Authorization: Token <key>' (or 'Bearer <key>') with one key and no spaces."
            )
        try:
            key = header[1].decode("ascii")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed("The token is not valid.") from None
        now = timezone.now()
        found = token_user(digest=token_digest(key), stale_before=now - LAST_USED_RESOLUTION)
        if found is None or not found[0].is_active:
            raise exceptions.AuthenticationFailed("The token is not valid (revoked, mistyped or its user disabled).")
        user, token_id, stale = found
        if stale:
            ApiToken.objects.filter(pk=token_id).update(last_used_at=now)
        token = partial_instance(ApiToken, id=token_id, user_id=user.pk)
        token.user = user
        return user, token

    def authenticate_header(self, request) -> str:  # noqa: ARG002 - DRF's signature
        # Makes DRF answer 401 (with WWW-Authenticate) rather than 403 to a request with no credentials.
        return self.keyword
