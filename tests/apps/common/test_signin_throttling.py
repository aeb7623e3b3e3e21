"""Sign-in throttling (django-axes) on every form that signs in: the app's and the admin's.

After LOGIN_FAILURE_LIMIT (10) wrong passwords for one username, or from one address, the next
attempt is refused with a clear page (429), even with the right password, until the lockout ends.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.test import Client

LOGIN = "/accounts/login/"
ADMIN_LOGIN = "/admin/login/"
PASSWORD = "correct horse battery staple"


@pytest.fixture(autouse=True)
def _fast_hashing(settings):
    # Each attempt hashes the password it was given; PBKDF2's cost would make these tests slow.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def alice(db):
    return get_user_model().objects.create_user("alice", password=PASSWORD)


def sign_in(client: Client, username: str, password: str, url: str = LOGIN):
    return client.post(url, {"username": username, "password": password})


def signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def end_lockout(settings) -> None:
    """As if LOGIN_LOCKOUT_MINUTES had passed since the last failure."""
    past = settings.AXES_COOLOFF_TIME + timedelta(seconds=1)
    for attempt in AccessAttempt.objects.all():
        AccessAttempt.objects.filter(pk=attempt.pk).update(attempt_time=attempt.attempt_time - past)


def test_the_11th_wrong_password_is_refused_and_then_the_right_one_until_the_lockout_ends(alice, settings):
    assert settings.AXES_FAILURE_LIMIT == 10
    client = Client()
    for _ in range(9):
        response = sign_in(client, "alice", "wrong")
        assert response.status_code == 200 and b"correct username and password" in response.content
    tenth = sign_in(client, "alice", "wrong")
    assert tenth.status_code == 429  # the limit is reached: this failure locks
    eleventh = sign_in(client, "alice", "wrong")
    assert eleventh.status_code == 429
    html = eleventh.content.decode()
    assert "Sign-in locked" in html and "after 10 failed attempts" in html and "15 minutes" in html

    right = sign_in(client, "alice", PASSWORD)
    assert right.status_code == 429 and not signed_in(client)

    end_lockout(settings)
    assert sign_in(client, "alice", PASSWORD).status_code == 302 and signed_in(client)


def test_one_address_is_locked_out_whatever_usernames_it_tries(alice):
    attacker = Client(REMOTE_ADDR="203.0.113.9")
    for n in range(10):
        sign_in(attacker, f"guess{n}", "wrong")
    assert sign_in(attacker, "alice", PASSWORD).status_code == 429 and not signed_in(attacker)
    elsewhere = Client(REMOTE_ADDR="198.51.100.7")
    assert sign_in(elsewhere, "alice", PASSWORD).status_code == 302  # alice's account is not the one locked


def test_one_username_is_locked_out_from_every_address(alice):
    for n in range(10):
        sign_in(Client(REMOTE_ADDR=f"203.0.113.{n + 1}"), "alice", "wrong")
    fresh = Client(REMOTE_ADDR="198.51.100.7")
    assert sign_in(fresh, "alice", PASSWORD).status_code == 429 and not signed_in(fresh)


def test_the_admin_sign_in_is_throttled_too_and_lists_the_lockouts_for_staff(alice, settings):
    client = Client(REMOTE_ADDR="203.0.113.50")
    statuses = [sign_in(client, "alice", "wrong", ADMIN_LOGIN).status_code for _ in range(11)]
    assert statuses == [200] * 9 + [429, 429]
    assert sign_in(client, "alice", PASSWORD, ADMIN_LOGIN).status_code == 429

    admin = get_user_model().objects.create_superuser("root", password=PASSWORD)
    staff = Client()
    staff.force_login(admin)
    listing = staff.get("/admin/axes/accessattempt/")
    assert listing.status_code == 200
    assert "alice" in listing.content.decode() and "203.0.113.50" in listing.content.decode()


def test_behind_the_proxy_the_address_is_the_one_the_proxy_appended(alice, settings):
    settings.CLIENT_ADDRESS_PROXY_HOPS = 1
    for n in range(10):
        # The client invents the first entry; the proxy appends the real peer.
        sign_in(Client(HTTP_X_FORWARDED_FOR=f"10.0.0.{n}, 203.0.113.77"), f"guess{n}", "wrong")
    locked = Client(HTTP_X_FORWARDED_FOR="10.9.9.9, 203.0.113.77")
    assert sign_in(locked, "alice", PASSWORD).status_code == 429
    other = Client(HTTP_X_FORWARDED_FOR="203.0.113.77, 198.51.100.1")
    assert sign_in(other, "alice", PASSWORD).status_code == 302
