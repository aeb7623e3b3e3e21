"""Personal API tokens: `Authorization: Token <key>`, or `Authorization: Bearer <key>` (RFC 6750's keyword,
which generated clients such as openapi-python-client send by default).

A key is 32 random bytes, shown once when the token is made. Only its SHA-256 digest is stored,
so a leaked database does not leak usable keys; a 256-bit random key needs no slow hash.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.utils import timezone
from rest_framework import authentication, exceptions

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
        token = ApiToken.objects.select_related("user").filter(digest=token_digest(key)).first()
        if token is None or not token.user.is_active:
            raise exceptions.AuthenticationFailed("The token is not valid (revoked, mistyped or its user disabled).")
        now = timezone.now()
        if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        return token.user, token

    def authenticate_header(self, request) -> str:
        # Makes DRF answer 401 (with WWW-Authenticate) rather than 403 to a request with no credentials.
        return self.keyword
