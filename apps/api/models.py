"""Rows the API keeps: personal tokens, idempotency keys, rate counters (custom parts and price lists: apps.catalog;
measured test results: apps.measurements)."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    """A personal API token. The key is shown once; only its SHA-256 digest is stored."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    digest = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=12)  # the key's first characters, to tell tokens apart
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class IdempotencyRecord(models.Model):
    """The first answer to a request sent with an Idempotency-Key, replayed for its retries."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64)  # SHA-256 of method, path and body
    status_code = models.PositiveSmallIntegerField()
    body = models.JSONField()
    location = models.CharField(max_length=500, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="idempotency_key_per_user")]

    def __str__(self) -> str:
        return f"idempotency key {self.key} of user {self.user_id}"


class RateCounter(models.Model):
    """One API rate-limit window per user (or anonymous address) when the counters live in the database
    (apps/api/ratelimit.py; with REDIS_URL they live in Redis). One row per key, reused window after
    window, so the table holds one row per client that ever called the API. UNLOGGED on PostgreSQL (migration 0008):
    a crash empties it, which only restarts the current windows."""

    key = models.CharField(max_length=100, unique=True)
    count = models.PositiveIntegerField()
    reset_at = models.FloatField()  # Unix time (s) at which this window ends and the count starts again

    def __str__(self) -> str:
        return f"rate window {self.key}: {self.count}"
