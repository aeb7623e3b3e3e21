"""A job is a database row: the record of a background computation (never Celery's result backend)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models


class JobStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


TERMINAL = (JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELLED)

# What a job's progress box is headed with, by kind (an export's heading names its file instead).
KIND_TITLES = {
    "compute": "Computation",
    "measurements": "Judging measured results",
    "counters": "Reading counters",
    "asbuilt": "Classifying the as-built fabric",
    "alternatives": "Comparing design alternatives",
}


class Job(models.Model):
    """One background run. Created before it is enqueued; the worker claims it with a conditional UPDATE."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    kind = models.CharField(max_length=32)  # compute | export | an upload's reading (KIND_TITLES)
    status = models.CharField(max_length=16, choices=JobStatus.choices, default=JobStatus.QUEUED, db_index=True)
    stage = models.CharField(max_length=64, blank=True, default="")
    percent = models.FloatField(default=0)
    # A payload may hold what a validated form or query gives (Decimal percents, dates, UUIDs): stored as their
    # strings, never a TypeError at the save (a BOM file's spares_percent once was a 500 here).
    log = models.JSONField(default=list, blank=True, encoder=DjangoJSONEncoder)
    error = models.TextField(blank=True, default="")
    params = models.JSONField(default=dict, blank=True, encoder=DjangoJSONEncoder)
    result = models.JSONField(default=dict, blank=True, encoder=DjangoJSONEncoder)
    design = models.ForeignKey("designs.Design", null=True, blank=True, on_delete=models.CASCADE, related_name="jobs")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    # NULL, not "": a job sent without a key is outside the partial unique constraint below.
    idempotency_key = models.CharField(max_length=128, null=True, blank=True)  # noqa: DJ001
    attempts = models.PositiveSmallIntegerField(default=0)
    max_attempts = models.PositiveSmallIntegerField(default=2)
    cancel_requested = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["created_by", "idempotency_key"],
                name="job_idempotency_per_user",
                condition=models.Q(idempotency_key__isnull=False),
            ),
        ]
        indexes = [
            models.Index(fields=["status", "heartbeat_at"], name="job_status_heartbeat"),
            # The quota count and the fair claim read a user's queued and running jobs.
            models.Index(fields=["created_by", "status"], name="job_user_status"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.id} ({self.status})"

    @property
    def title(self) -> str:
        return KIND_TITLES.get(self.kind, "Job")

    @property
    def is_terminal(self) -> bool:
        return self.status in TERMINAL

    @property
    def duration_s(self) -> float | None:
        if self.started_at and self.finished_at:
            return (self.finished_at - self.started_at).total_seconds()
        return None


class WorkerBeat(models.Model):
    """A worker process's "I am alive", refreshed while it runs (apps.jobs.workerbeat); /healthz reads it."""

    hostname = models.CharField(max_length=255, primary_key=True)
    seen_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.hostname} seen {self.seen_at:%Y-%m-%d %H:%M:%S}"
