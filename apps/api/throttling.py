"""Per-token rate limit (429 with Retry-After). Counts live in Django's default cache."""
from __future__ import annotations

from django.conf import settings
from rest_framework.throttling import SimpleRateThrottle

from .models import ApiToken


class TokenRateThrottle(SimpleRateThrottle):
    """API_THROTTLE_RATE requests per token; a browser session counts per user, anonymous per address.

    Each token has its own budget, so a user's CI pipeline cannot starve their procurement tool.
    """

    scope = "api"

    def get_rate(self) -> str:
        return settings.API_THROTTLE_RATE

    def get_cache_key(self, request, view) -> str:
        if isinstance(request.auth, ApiToken):
            ident = f"token:{request.auth.pk}"
        elif request.user and request.user.is_authenticated:
            ident = f"user:{request.user.pk}"
        else:
            ident = f"addr:{self.get_ident(request)}"
        return f"throttle_{self.scope}_{ident}"
