"""3,000 concurrent API requests of one user, from two tokens and a browser session, against a real
multi-threaded server: exactly the limit gets through, whichever store keeps the count."""

from __future__ import annotations

import http.client
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import pytest
from django.test import Client

from tests.apps.api.conftest import token_client

CONCURRENT_REQUESTS = 3000
CONCURRENT_LIMIT = 1200
CLIENT_THREADS = 12


def _get(base: str, headers: dict[str, str]) -> int:
    parts = urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    try:
        conn.request("GET", "/api/v1/me/", headers=headers)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


@pytest.mark.slow
def test_3000_concurrent_requests_from_two_tokens_and_a_session_get_exactly_the_limit_through(
    live_server, transactional_db, settings, store
):
    from django.contrib.auth import get_user_model

    # An hour's window, so however slow the machine the test runs inside one window.
    settings.API_THROTTLE_RATE = f"{CONCURRENT_LIMIT}/hour"
    user = get_user_model().objects.create_user("alice")
    browser = Client()
    browser.force_login(user)
    credentials = [
        {"Authorization": f"Token {token_client(user).key}"},
        {"Authorization": f"Token {token_client(user).key}"},
        {"Cookie": f"sessionid={browser.cookies['sessionid'].value}"},
    ]
    started = time.monotonic()
    with ThreadPoolExecutor(CLIENT_THREADS) as pool:
        statuses = list(pool.map(lambda i: _get(live_server.url, credentials[i % 3]), range(CONCURRENT_REQUESTS)))
    print(f"{CONCURRENT_REQUESTS} requests in {time.monotonic() - started:.1f} s ({store})")
    assert Counter(statuses) == {200: CONCURRENT_LIMIT, 429: CONCURRENT_REQUESTS - CONCURRENT_LIMIT}
    # Each kind of credentials got some of the budget: the three really raced for one counter.
    by_kind = Counter(credentials.index(credentials[i % 3]) for i, s in enumerate(statuses) if s == 200)
    assert set(by_kind) == {0, 1, 2}
