"""The per-process cache of immutable bodies in front of Django's cache (apps/common/hot_cache.py).

put a (4 B), b (4 B), c (4 B) into 10 B   -> a goes (least recently used), b and c stay
get b, then put d (4 B)                     -> c goes: reading b made it recent
"""

from __future__ import annotations

from django.core.cache import cache

from apps.common.hot_cache import BytesLRU, immutable_body


def test_the_least_recently_used_bodies_go_first_and_the_bound_holds():
    lru = BytesLRU(10)
    for key in "abc":
        lru.put(key, b"1234")
    assert lru.get("a") is None and lru.size == 8 and len(lru) == 2
    assert lru.get("b") == b"1234"
    lru.put("d", b"1234")
    assert lru.get("c") is None and lru.get("b") == b"1234" and lru.get("d") == b"1234"
    assert lru.size == 8


def test_a_body_larger_than_the_bound_is_not_kept_and_a_rewrite_counts_once():
    lru = BytesLRU(10)
    lru.put("big", b"x" * 11)
    assert lru.get("big") is None and lru.size == 0
    lru.put("k", b"123")
    lru.put("k", b"12345")
    assert lru.size == 5 and lru.get("k") == b"12345"


def test_a_body_is_produced_once_then_served_from_the_process_then_from_the_shared_cache(settings):
    settings.HOT_CACHE_MAX_BYTES = 1024
    calls = []

    def produce() -> bytes:
        calls.append(1)
        return b'{"lines": []}'

    key = "test:hot-cache:one"
    cache.delete(key)
    assert immutable_body(key, produce, timeout=60) == b'{"lines": []}'
    assert immutable_body(key, produce, timeout=60) == b'{"lines": []}'
    assert len(calls) == 1
    assert cache.get(key) == b'{"lines": []}'  # another process finds it in Django's cache

    settings.HOT_CACHE_MAX_BYTES = 0  # off (a new, empty process cache): Django's cache still answers
    assert immutable_body(key, produce, timeout=60) == b'{"lines": []}'
    assert len(calls) == 1
    cache.delete(key)
