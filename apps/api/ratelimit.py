"""The API's rate limit: settings.API_THROTTLE_RATE requests per user, whatever carries them.

One budget per user covers all of their tokens and their browser session, so a second token is not a
second budget; anonymous requests (which get only a 401) count per client address. A window starts
with a user's first request and lasts the rate's period; the count is taken and incremented in one
atomic step, so concurrent requests in any number of processes can never let more than the limit
through:

- Redis (when REDIS_URL is set): SET NX with the window's expiry, then INCR and PTTL, in one Lua script
  (atomic like a MULTI transaction, but one command to send and one reply to parse: the transaction's five
  replies were a fifth of a cached BOM answer's CPU under cProfile);
- the database otherwise: one INSERT ... ON CONFLICT DO UPDATE ... RETURNING on the client's row,
  which PostgreSQL runs under the row's lock and SQLite under its write lock. On PostgreSQL the table is
  UNLOGGED (migration 0008): a logged commit waited for its WAL flush holding the row, so one user's
  requests passed one flush at a time.

Every API answer carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (Unix time,
in seconds, at which the window ends); a refused one is a 429 with Retry-After.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass
from functools import lru_cache

from django.conf import settings
from django.db import connection

from apps.common.security import client_address

from .models import RateCounter

logger = logging.getLogger(__name__)

PERIODS = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "hour": 3600, "d": 86400, "day": 86400}


@dataclass(frozen=True)
class RateLimit:
    limit: int
    remaining: int
    reset_at: float  # Unix time

    @property
    def allowed(self) -> bool:
        return self.remaining >= 0

    def headers(self) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(max(0, self.remaining)),
            "X-RateLimit-Reset": str(math.ceil(self.reset_at)),
        }

    def retry_after(self, now: float | None = None) -> float:
        return max(0.0, self.reset_at - (time.time() if now is None else now))


def parse_rate(rate: str) -> tuple[int, int]:
    """ "1200/min" -> (1200, 60): requests and the window in seconds (settings validated the shape)."""
    count, unit = rate.split("/")
    return int(count), PERIODS[unit]


def client_key(request) -> str:
    """Whose budget a request spends: its user's (token or session alike), else its address's."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return f"user:{user.pk}"
    return f"addr:{client_address(request) or 'unknown'}"


def hit(key: str) -> RateLimit | None:
    """Count one request against `key`'s current window and say whether it may pass.

    None when Redis cannot be reached: the API then answers without a limit (and without X-RateLimit-*)
    rather than failing every request while the rest of the app still works; the error is logged.
    """
    limit, period = parse_rate(settings.API_THROTTLE_RATE)
    now = time.time()
    key = settings.API_RATE_LIMIT_KEY_PREFIX + key
    if settings.API_RATE_LIMIT_STORE == "redis":
        import redis

        try:
            count, reset_at = _redis_hit(key, now, period)
        except redis.RedisError:
            logger.exception("API rate limit: Redis is unreachable; this request is not counted")
            return None
    else:
        count, reset_at = _database_hit(key, now, period)
    return RateLimit(limit=limit, remaining=limit - count, reset_at=reset_at)


# KEYS[1]: the client's counter; ARGV[1]: the window in seconds. Returns {count, milliseconds left}.
_HIT_SCRIPT = """
redis.call('SET', KEYS[1], 0, 'EX', ARGV[1], 'NX')
local count = redis.call('INCR', KEYS[1])
return {count, redis.call('PTTL', KEYS[1])}
"""


@lru_cache(maxsize=4)
def _redis_script(url: str):
    import redis

    # One pool per process (threads share it); short timeouts so a Redis outage fails fast. The script runs by
    # its SHA1 (EVALSHA), loaded again by redis-py when a restarted Redis no longer knows it.
    return redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2).register_script(_HIT_SCRIPT)


def _redis_hit(key: str, now: float, period: int) -> tuple[int, float]:
    count, ttl_ms = _redis_script(settings.REDIS_URL)(keys=[key], args=[period])
    return int(count), now + max(int(ttl_ms), 0) / 1000


def _database_hit(key: str, now: float, period: int) -> tuple[int, float]:
    table = connection.ops.quote_name(RateCounter._meta.db_table)
    key_col = connection.ops.quote_name("key")
    # Every right-hand side reads the row as it was, so count and reset_at restart together when the
    # window has ended. The statement is atomic on its own: in autocommit it commits at once, and inside
    # a transaction (a test's) it still runs under the row's lock.
    sql = (
        f"INSERT INTO {table} ({key_col}, count, reset_at) VALUES (%s, 1, %s) "
        f"ON CONFLICT ({key_col}) DO UPDATE SET "
        f"count = CASE WHEN {table}.reset_at <= %s THEN 1 ELSE {table}.count + 1 END, "
        f"reset_at = CASE WHEN {table}.reset_at <= %s THEN excluded.reset_at ELSE {table}.reset_at END "
        f"RETURNING count, reset_at"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [key, now + period, now, now])
        count, reset_at = cursor.fetchone()
    return int(count), float(reset_at)


def prune_database_counters(now: float | None = None) -> int:
    """Delete counter rows whose window has ended (their next request starts a new one anyway)."""
    return RateCounter.objects.filter(reset_at__lte=time.time() if now is None else now).delete()[0]


__all__ = ["RateLimit", "client_key", "hit", "parse_rate", "prune_database_counters"]
