"""What is derived from a revision's snapshot, kept in Django's cache (settings.CACHES: Redis when REDIS_URL
is set, else each process's own LocMemCache).

A revision and its snapshot (apps/designs/snapshots.py) are immutable, so what the pages derive from it
(the QoS report read out of its stored configs.zip, the test sheet's limits, the BOM's network/SU split) depends only on the
revision and its snapshot. `revision_fingerprint` hashes them, and every key is built from it, so nothing
is ever invalidated; a backfilled snapshot reaches a new key.

`compute_once` runs a computation once for concurrent misses: the first caller takes a short-lived lock
(cache.add) and computes; the others poll the cache until the result appears, and compute themselves only
when the lock is gone without one (the holder failed, its result was too big to keep, or it died and the
lock expired). `store_blob` keeps a result unless it is larger than settings.REVISION_CACHE_MAX_BYTES.
`cached_value` is the two together for a picklable value, kept zlib-compressed: what the commissioning,
counters, measurements and compare pages keep per revision.
"""

from __future__ import annotations

import hashlib
import json
import logging
import pickle
import time
import uuid
import zlib
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from django.conf import settings
from django.core.cache import cache

if TYPE_CHECKING:
    from .models import Revision

log = logging.getLogger(__name__)

T = TypeVar("T")

CACHE_TIMEOUT_S = 30 * 24 * 3600  # revisions never change: kept until unused for a month (or evicted)
LOCK_TIMEOUT_S = 120  # longer than reading a 128K-GPU snapshot and deriving from it, with room to spare
POLL_S = 0.1
DEFAULT_MAX_BYTES = 64 * 1024 * 1024


_UNREAD = object()


def revision_fingerprint(revision: Revision) -> str:
    """Hash of what everything derived from the revision depends on: the revision and its snapshot's digest
    (empty before the backfill gives it one). The owner's custom parts and today's catalog play no part."""
    from .models import RevisionSnapshot

    # A revision from selectors.revision_head read its snapshot's digest in the same query.
    digest = getattr(revision, "snapshot_digest", _UNREAD)
    if digest is _UNREAD:
        digest = RevisionSnapshot.objects.filter(revision_id=revision.pk).values_list("sha256", "state").first()
    state = json.dumps(
        [revision.pk, revision.spec_hash, revision.engine_version, revision.catalog_version, digest],
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(state.encode()).hexdigest()


def revision_key(kind: str, version: int, fingerprint: str, *parts: str) -> str:
    """Cache key of one kind of result (bump `version` when its stored shape changes)."""
    tail = "".join(f":{p}" for p in parts)
    return f"designs:{kind}:v{version}:{fingerprint}{tail}"


def max_bytes() -> int:
    return int(getattr(settings, "REVISION_CACHE_MAX_BYTES", DEFAULT_MAX_BYTES))


def store_blob(key: str, blob: bytes, *, timeout: int | None = CACHE_TIMEOUT_S) -> bool:
    """Keep `blob` under `key` unless it exceeds REVISION_CACHE_MAX_BYTES; True when kept."""
    limit = max_bytes()
    if len(blob) > limit:
        log.info("not caching %s: %d bytes > REVISION_CACHE_MAX_BYTES (%d)", key, len(blob), limit)
        return False
    cache.set(key, blob, timeout=timeout)
    return True


def compute_once(
    lock_key: str,
    ready: Callable[[], T | None],
    compute: Callable[[], T],
    *,
    lock_timeout: float = LOCK_TIMEOUT_S,
    poll: float = POLL_S,
) -> T:
    """`ready()` (the cached result, or None) when it has one; else `compute()` (which stores the result)
    run by one caller at a time per `lock_key`: the others wait for its result.

    A waiter computes itself when the lock disappears without a result (the holder raised, its result was
    too big to keep, or it died and the lock expired after `lock_timeout`) or after waiting `lock_timeout`.
    So concurrent misses compute once; twice or more only when the result is not kept or when a computation
    outlives its lock (the lock is released by a get-then-delete that is not atomic, which at worst lets one
    more caller compute).
    """
    value = ready()
    if value is not None:
        return value
    token = uuid.uuid4().hex
    if cache.add(lock_key, token, timeout=int(lock_timeout)):
        try:
            return compute()
        finally:
            if cache.get(lock_key) == token:
                cache.delete(lock_key)
    deadline = time.monotonic() + lock_timeout
    while time.monotonic() < deadline:
        time.sleep(poll)
        value = ready()
        if value is not None:
            return value
        if cache.get(lock_key) is None:
            break
    value = ready()  # the holder may have stored it just before letting go of the lock
    return value if value is not None else compute()


def cached_value(key: str, compute: Callable[[], T], *, level: int = 1) -> T:
    """The value kept under `key` (a revision_key, so never stale), else `compute()` run once for concurrent
    misses (compute_once) and kept pickled and zlib-compressed at `level` unless over REVISION_CACHE_MAX_BYTES.
    Level 1 for what is read back often and soon; 6 where the blob is large and the compression pays."""

    def ready() -> T | None:
        blob = cache.get(key)
        return None if blob is None else pickle.loads(zlib.decompress(blob))

    def build() -> T:
        value = compute()
        store_value(key, value, level=level)
        return value

    return compute_once(f"{key}:lock", ready, build)


def store_value(key: str, value: object, *, level: int = 1) -> bool:
    """Keep `value` as cached_value reads it (a result worked out elsewhere, e.g. by a job); True when kept."""
    return store_blob(key, zlib.compress(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL), level))
