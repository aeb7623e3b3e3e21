"""The browser's API-token page: a signed-in user makes (key shown once, never cached) and revokes tokens."""

from __future__ import annotations

import hashlib

from apps.api.models import ApiToken


def test_a_signed_in_user_creates_a_token_seen_once_and_revokes_it(client, users):
    client.force_login(users.alice)
    assert client.get("/accounts/tokens/").status_code == 200
    response = client.post("/accounts/tokens/", {"name": "procurement"})
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    html = response.content.decode()
    key = html.split('<code id="new-token-key">')[1].split("</code>")[0]
    token = ApiToken.objects.get(user=users.alice)
    assert token.digest == hashlib.sha256(key.encode()).hexdigest() and token.name == "procurement"
    assert key not in client.get("/accounts/tokens/").content.decode()  # shown only once

    revoked = client.post(f"/accounts/tokens/{token.pk}/revoke/", follow=True)
    assert "revoked" in revoked.content.decode() and not ApiToken.objects.exists()


def test_the_page_needs_a_sign_in_and_shows_only_ones_own_tokens(client, users):
    from apps.api.auth import token_create

    bobs, _ = token_create(user=users.bob, name="bobs secret token")
    assert client.get("/accounts/tokens/").status_code == 302
    client.force_login(users.alice)
    assert "bobs secret token" not in client.get("/accounts/tokens/").content.decode()
    assert client.post(f"/accounts/tokens/{bobs.pk}/revoke/").status_code == 404
    assert ApiToken.objects.filter(pk=bobs.pk).exists()


def test_a_token_without_a_name_is_a_form_error(client, users):
    client.force_login(users.alice)
    response = client.post("/accounts/tokens/", {"name": ""})
    assert response.status_code == 400 and not ApiToken.objects.exists()
