"""The Redis cache keeps one client per connection pool instead of building one per call
(apps/common/cache_backends.py), and still reads and writes through Redis."""

from __future__ import annotations

import os

import pytest

from apps.common.cache_backends import SharedClientRedisCache

REDIS_URL = os.environ.get("REDIS_URL")


@pytest.mark.skipif(not REDIS_URL, reason="needs Redis (REDIS_URL), as CI runs")
def test_one_client_serves_every_call_and_values_round_trip():
    cache = SharedClientRedisCache(REDIS_URL, {"KEY_PREFIX": "test-shared-client"})
    client = cache._cache.get_client(write=True)
    assert cache._cache.get_client(write=True) is client
    cache.set("k", {"a": 1}, timeout=30)
    assert cache.get("k") == {"a": 1}
    cache.delete("k")
    assert cache.get("k") is None
