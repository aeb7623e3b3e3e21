"""The browser's page for personal API tokens (/accounts/tokens/): list, create (the key is shown once,
on the answer to the POST, which no cache may keep), revoke. The same services as the API and the CLI."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from apps.common.requests import SignedInRequest

from .auth import token_create, token_revoke
from .models import ApiToken


class TokenForm(forms.Form):
    name = forms.CharField(label="Name", max_length=100, help_text="What the token is for, e.g. “procurement sync”.")


@login_required(login_url="login")
@never_cache
@require_http_methods(["GET", "POST"])
def token_list_view(request: SignedInRequest) -> HttpResponse:
    form = TokenForm(request.POST if request.method == "POST" else None)
    created = None
    if form.is_valid():
        token, key = token_create(user=request.user, name=form.cleaned_data["name"])
        created, form = {"token": token, "key": key}, TokenForm()
    return render(
        request,
        "accounts/tokens.html",
        {
            "form": form,
            "created": created,
            "tokens": ApiToken.objects.filter(user=request.user),
        },
        status=400 if form.errors else 200,
    )


@login_required(login_url="login")
@require_POST
def token_revoke_view(request: HttpRequest, token_id: int) -> HttpResponse:
    if not token_revoke(user=request.user, token_id=token_id):
        raise Http404("No such token.")
    messages.success(request, "Token revoked: it stopped working at once.")
    return redirect("tokens")
