"""Personal API tokens and authentication: tokens for machines, sessions for the browser."""

from __future__ import annotations

import hashlib
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from apps.api.models import ApiToken
from tests.apps.api.conftest import error_of


def test_it_answers_401_with_a_token_challenge_to_anonymous_requests(anon, db):
    response = anon.get("/api/v1/designs/")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert error_of(response)["code"] == "not_authenticated"


@pytest.mark.parametrize("header", ["Token nope", "Token a b", "Token", "token fd_x"])
def test_it_rejects_bad_token_headers_with_401(header, db):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header)
    response = client.get("/api/v1/me/")
    assert response.status_code == 401
    assert error_of(response)["code"] == "authentication_failed"


@pytest.mark.parametrize("keyword", ["Token", "Bearer", "bearer"])
def test_a_key_is_accepted_after_token_or_bearer(keyword, users):
    from apps.api.auth import token_create

    _, key = token_create(user=users.alice, name="generated client")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"{keyword} {key}")
    me = client.get("/api/v1/me/")
    assert me.status_code == 200 and me.json()["username"] == "alice"


@pytest.mark.parametrize("header", ["Bearer nope", "Bearer a b", "Bearer"])
def test_a_bad_bearer_key_is_refused_as_a_bad_token_not_as_missing_credentials(header, db):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header)
    response = client.get("/api/v1/me/")
    assert response.status_code == 401
    assert error_of(response)["code"] == "authentication_failed"


def browser_of(user) -> APIClient:
    """A browser sign-in of `user` (where tokens are made)."""
    client = APIClient()
    client.force_login(user)
    return client


def test_it_shows_a_new_key_once_and_stores_only_its_digest(alice, users):
    response = browser_of(users.alice).post("/api/v1/tokens/", {"name": "procurement"}, format="json")
    assert response.status_code == 201
    key = response.json()["key"]
    assert response["Location"] == response.json()["url"]
    token = ApiToken.objects.get(pk=response.json()["id"])
    assert token.digest == hashlib.sha256(key.encode()).hexdigest()
    assert key not in {token.name, token.prefix, token.digest}
    listed = alice.get("/api/v1/tokens/").json()["results"]
    assert {t["name"] for t in listed} == {"tests", "procurement"}
    assert all("key" not in t for t in listed)
    assert alice.get(f"/api/v1/tokens/{token.pk}/").json()["prefix"] == key[:10]


def test_a_new_token_works_and_a_revoked_one_stops_at_once(alice, users):
    created = browser_of(users.alice).post("/api/v1/tokens/", {"name": "ci"}, format="json").json()
    machine = APIClient()
    machine.credentials(HTTP_AUTHORIZATION=f"Token {created['key']}")
    me = machine.get("/api/v1/me/")
    assert me.status_code == 200 and me.json()["username"] == "alice" and me.json()["auth"] == "token"
    assert ApiToken.objects.get(pk=created["id"]).last_used_at is not None
    assert alice.delete(f"/api/v1/tokens/{created['id']}/").status_code == 204
    assert machine.get("/api/v1/me/").status_code == 401


def test_it_hides_other_users_tokens(alice, bob, users):
    bobs = browser_of(users.bob).post("/api/v1/tokens/", {"name": "bob's"}, format="json").json()
    assert alice.get(f"/api/v1/tokens/{bobs['id']}/").status_code == 404
    assert alice.delete(f"/api/v1/tokens/{bobs['id']}/").status_code == 404
    assert ApiToken.objects.filter(pk=bobs["id"]).exists()


def test_it_rejects_a_token_without_a_name(users):
    response = browser_of(users.alice).post("/api/v1/tokens/", {}, format="json")
    assert response.status_code == 400
    assert error_of(response)["fields"] == [{"path": "name", "message": "This field is required."}]


def test_a_disabled_users_token_stops_working(alice, users):
    users.alice.is_active = False
    users.alice.save()
    assert alice.get("/api/v1/me/").status_code == 401


def test_the_browser_session_works_and_writes_need_the_csrf_token(users, design):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(users.alice)
    me = client.get("/api/v1/me/")
    assert me.status_code == 200 and me.json()["auth"] == "session"
    assert client.get(f"/api/v1/designs/{design.pk}/").status_code == 200
    response = client.post(f"/api/v1/designs/{design.pk}/compute/")
    assert response.status_code == 403
    assert error_of(response)["code"] == "permission_denied"


def test_the_management_command_creates_lists_and_revokes_tokens(users):
    out = StringIO()
    call_command("api_token", "create", "alice", "--name", "nightly", stdout=out)
    key = out.getvalue().strip().splitlines()[-1]
    assert key.startswith("fd_")
    token = ApiToken.objects.get(digest=hashlib.sha256(key.encode()).hexdigest())
    out = StringIO()
    call_command("api_token", "list", "alice", stdout=out)
    assert "nightly" in out.getvalue() and key not in out.getvalue()
    call_command("api_token", "revoke", "alice", str(token.pk), stdout=StringIO())
    assert not ApiToken.objects.filter(pk=token.pk).exists()
    with pytest.raises(CommandError):
        call_command("api_token", "create", "nobody", stdout=StringIO())
    with pytest.raises(CommandError):
        call_command("api_token", "revoke", "alice", str(token.pk), stdout=StringIO())


def _operations():
    import yaml

    from tests.apps.api.test_schema import PUBLISHED

    values = {
        "design_id": "1",
        "number": "1",
        "token_id": "1",
        "part_id": "1",
        "section": "servers",
        "key": "hgx-roce-2su",
        "username": "bob",
        "kind": "links.csv",
        "name": "configs.zip",
        "job_id": "00000000-0000-0000-0000-000000000001",
        "upload_id": "1",
        "snapshot_id": "1",
        "study_id": "1",
        "index": "1",
    }
    for path, item in yaml.safe_load(PUBLISHED.read_text())["paths"].items():
        for method in item:
            yield method, path.format(**values)


@pytest.mark.parametrize("method, path", list(_operations()))
def test_every_operation_answers_anonymous_requests_with_401(method, path, db):
    response = getattr(APIClient(), method)(path)
    assert response.status_code == 401, (method, path, response.content[:200])
    assert error_of(response)["code"] == "not_authenticated"


def test_a_token_cannot_mint_a_token(alice, users):
    response = alice.post("/api/v1/tokens/", {"name": "successor"}, format="json")
    assert response.status_code == 403
    assert error_of(response)["code"] == "permission_denied"
    assert "browser" in error_of(response)["message"]
    assert list(ApiToken.objects.filter(user=users.alice).values_list("name", flat=True)) == ["tests"]


def test_the_browser_sign_in_makes_tokens_with_its_csrf_token(users):
    browser = APIClient(enforce_csrf_checks=True)
    browser.force_login(users.alice)
    assert browser.post("/api/v1/tokens/", {"name": "ci"}, format="json").status_code == 403  # no CSRF token
    browser.cookies["csrftoken"] = secret = "s" * 32  # the page's CSRF cookie, echoed in the header
    response = browser.post("/api/v1/tokens/", {"name": "ci"}, format="json", HTTP_X_CSRFTOKEN=secret)
    assert response.status_code == 201 and response.json()["key"].startswith("fd_")


def test_a_token_may_revoke_itself_and_then_stops_at_once(alice, users):
    own = ApiToken.objects.get(user=users.alice)
    assert alice.delete(f"/api/v1/tokens/{own.pk}/").status_code == 204
    assert alice.get("/api/v1/me/").status_code == 401
