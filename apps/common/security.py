"""The web perimeter's response headers and the client's address.

Django's SecurityMiddleware already sends HSTS (on secure requests, settings.SECURE_HSTS_SECONDS),
X-Content-Type-Options and Referrer-Policy. This adds what Django 5.2 lacks:

- Content-Security-Policy (settings.CONTENT_SECURITY_POLICY) on every response that has none of its
  own; a view that needs another policy (the API docs) sets the header itself, see `csp`.
- `Cache-Control: private, no-cache` on every authenticated response (browser session or API token)
  that set no Cache-Control of its own: pages and downloads hold a user's designs, so no shared cache
  may keep them, and the browser revalidates before reusing one. A response that may be cached
  longer (a revision's files never change) sets its own header, e.g. with `cache_immutable`
  (apps.common.http_cache adds the strong ETag and the 304 answer).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from functools import wraps

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

AUTHENTICATED_CACHE_CONTROL = "private, no-cache"


def immutable_cache_control() -> str:
    """For a revision's resources: the browser keeps them settings.REVISION_HTTP_MAX_AGE_S (a day by default)
    without asking. Not a year: the same URL gets new bytes when a deploy changes a renderer."""
    return f"private, max-age={settings.REVISION_HTTP_MAX_AGE_S}, immutable"


class SecurityHeadersMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = settings.CONTENT_SECURITY_POLICY
        if "Cache-Control" not in response and _authenticated(request):
            response["Cache-Control"] = AUTHENTICATED_CACHE_CONTROL
        return response


def _authenticated(request: HttpRequest) -> bool:
    # An API token authenticates inside DRF, which never sets request.user here: the header is enough.
    if request.META.get("HTTP_AUTHORIZATION"):
        return True
    user = getattr(request, "user", None)
    return bool(user is not None and user.is_authenticated)


def csp(policy: str):
    """View decorator: answer with this Content-Security-Policy instead of the site's."""

    def decorate(view):
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            response = view(request, *args, **kwargs)
            response["Content-Security-Policy"] = policy
            return response

        return wrapped

    return decorate


def cache_immutable(response: HttpResponse) -> HttpResponse:
    """Let the user's browser keep this response for good (content addressed by an immutable revision)."""
    response["Cache-Control"] = immutable_cache_control()
    return response


def client_address(request) -> str | None:
    """The client's IP address: the socket's peer, or behind settings.CLIENT_ADDRESS_PROXY_HOPS trusted
    proxies the X-Forwarded-For entry the outermost of them appended (earlier entries are the client's
    to invent, so they are never trusted). None when there is no valid one (a test request)."""
    request = getattr(request, "_request", request)  # a DRF Request wraps Django's
    hops = settings.CLIENT_ADDRESS_PROXY_HOPS
    if hops:
        forwarded = [a.strip() for a in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if a.strip()]
        if len(forwarded) >= hops and _valid_ip(forwarded[-hops]):
            return forwarded[-hops]
    peer = request.META.get("REMOTE_ADDR", "")
    return peer if _valid_ip(peer) else None


def _valid_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def lockout_response(request, original_response=None, credentials=None) -> HttpResponse:  # noqa: ARG001 - axes' call
    """django-axes' answer to a sign-in while the username or the address is locked out: 429 and a page
    that says why and for how long (the same for both, so it reveals nothing about the account)."""
    username = (credentials or {}).get("username") or request.POST.get("username", "")
    return render(
        request,
        "registration/locked_out.html",
        {
            "username": username[:150],
            "failure_limit": settings.AXES_FAILURE_LIMIT,
            "lockout_minutes": int(settings.AXES_COOLOFF_TIME.total_seconds() // 60),
        },
        status=429,
    )
