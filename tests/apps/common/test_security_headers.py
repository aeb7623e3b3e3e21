"""Response headers of the web perimeter: CSP everywhere, HSTS behind the TLS proxy, private caching
of everything a signed-in user gets, nosniff and Referrer-Policy; and no inline script to allow."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.http import HttpResponse
from django.test import RequestFactory

from apps.common.security import (
    SecurityHeadersMiddleware,
    cache_immutable,
)

ROOT = Path(__file__).resolve().parents[3]


def test_every_page_has_the_content_security_policy_with_no_inline_script(client, users, settings):
    client.force_login(users.alice)
    for url in ("/", "/designs/", "/accounts/login/", "/nowhere/"):
        csp = client.get(url)["Content-Security-Policy"]
        assert csp == settings.CONTENT_SECURITY_POLICY, url
    policy = dict(d.strip().split(" ", 1) for d in settings.CONTENT_SECURITY_POLICY.split(";"))
    assert policy["script-src"] == "'self'" and policy["style-src"] == "'self'"
    assert "unsafe-inline" not in settings.CONTENT_SECURITY_POLICY
    assert policy["object-src"] == "'none'" and policy["frame-ancestors"] == "'none'"


def test_api_answers_carry_the_policy_and_the_docs_pages_only_relax_styles(client, db):
    assert "Content-Security-Policy" in client.get("/api/v1/me/")
    docs = client.get("/api/docs/")
    assert docs.status_code == 200 and "script-src 'self';" in docs["Content-Security-Policy"]
    assert "style-src 'self' 'unsafe-inline'" in docs["Content-Security-Policy"]
    # Swagger UI's set-up script is a file of its own (the split view), not inline.
    html = docs.content.decode()
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), html


def test_no_template_or_static_page_has_inline_script_style_or_handlers():
    offenders = []
    for path in [*(ROOT / "templates").rglob("*.html"), *(ROOT / "apps").rglob("templates/**/*.html")]:
        text = path.read_text()
        for pattern in (
            r"<script(?![^>]*\bsrc=)[^>]*>",
            r"\son[a-z]+\s*=",
            r"\sstyle\s*=",
            r"<style\b",
            r"javascript:",
        ):
            if re.search(pattern, text, re.IGNORECASE):
                offenders.append((path.relative_to(ROOT), pattern))
    assert offenders == []


def test_hsts_is_sent_on_requests_the_tls_proxy_forwarded_as_https_only(client, db, settings):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SECURE_HSTS_SECONDS = 31536000
    secure = client.get("/", HTTP_X_FORWARDED_PROTO="https")
    assert secure["Strict-Transport-Security"] == "max-age=31536000"
    assert "Strict-Transport-Security" not in client.get("/")


def test_nosniff_and_referrer_policy_are_on_every_answer(client, users):
    client.force_login(users.alice)
    for url in ("/", "/designs/", "/api/v1/me/"):
        response = client.get(url)
        assert response["X-Content-Type-Options"] == "nosniff", url
        assert response["Referrer-Policy"] == "same-origin", url


def test_signed_in_answers_are_private_and_revalidated(client, users):
    client.force_login(users.alice)
    for url in ("/designs/", "/api/v1/me/", "/"):
        assert client.get(url)["Cache-Control"] == "private, no-cache", url


def test_token_authenticated_answers_are_private_too(users):
    from tests.apps.api.conftest import token_client

    assert token_client(users.alice).get("/api/v1/me/")["Cache-Control"] == "private, no-cache"


def test_anonymous_answers_get_no_private_default(client, db):
    assert "Cache-Control" not in client.get("/")


IMMUTABLE = "private, max-age=86400, immutable"


@pytest.mark.parametrize("own", [None, "no-store", IMMUTABLE])
def test_a_view_that_sets_its_own_caching_keeps_it(users, own, settings):
    settings.REVISION_HTTP_MAX_AGE_S = 86400
    request = RequestFactory().get("/")
    request.user = users.alice

    def view(_request):
        response = HttpResponse("revision file")
        if own == IMMUTABLE:
            return cache_immutable(response)
        if own:
            response["Cache-Control"] = own
        return response

    response = SecurityHeadersMiddleware(view)(request)
    assert response["Cache-Control"] == (own or "private, no-cache")


def test_a_download_of_a_signed_in_user_is_private(client, users):
    from apps.designs.services import design_create

    design = design_create(
        user=users.alice,
        spec={
            "name": "d",
            "servers": {"model": "dgx-h100", "count": 8},
            "compute_fabric": {"technology": "infiniband", "switch": "qm9700"},
        },
    )
    client.force_login(users.alice)
    response = client.get(f"/designs/{design.pk}/spec.yaml")
    assert response.status_code == 200 and response["Content-Disposition"].startswith("attachment")
    assert response["Cache-Control"] == "private, no-cache"
