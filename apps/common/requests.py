"""The request a signed-in-only view receives, as the type checker should see it."""

from django.contrib.auth.models import User
from django.http import HttpRequest
from rest_framework.request import Request


class SignedInRequest(HttpRequest):
    """A request behind login_required: its user is an account, never AnonymousUser. An annotation only: Django
    still passes its own HttpRequest, which login_required has checked."""

    user: User


class ApiRequest(Request):
    """A request to an ApiView (IsAuthenticated): its user is an account, never AnonymousUser. An annotation only:
    DRF still passes its own Request, whose user the view's permission has checked."""

    user: User
