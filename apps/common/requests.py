"""The request a signed-in-only view receives, as the type checker should see it."""

from django.contrib.auth.models import User
from django.http import HttpRequest


class SignedInRequest(HttpRequest):
    """A request behind login_required: its user is an account, never AnonymousUser. An annotation only: Django
    still passes its own HttpRequest, which login_required has checked."""

    user: User
