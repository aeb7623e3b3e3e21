"""Counter snapshots of a revision: each uploaded file as it came, and its readings matched to planned ports."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from apps.designs.models import Revision


class CounterSnapshot(models.Model):
    """One uploaded counter file (ibqueryerrors, perfquery, ethtool -S, NVUE, EOS, SONiC), kept as uploaded.

    `implicit_zero`: the tool checked ports it did not list and found them clean (ibqueryerrors), so on
    `networks` every planned port without a reading here reads zero on the `reported` counters."""

    revision = models.ForeignKey(Revision, on_delete=models.CASCADE, related_name="counter_snapshots")
    format = models.CharField(max_length=16)
    device = models.CharField(max_length=64, blank=True, default="")
    interface = models.CharField(max_length=64, blank=True, default="")
    filename = models.CharField(max_length=200, blank=True, default="")
    taken_at = models.DateTimeField()
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    uploaded_at = models.DateTimeField(auto_now_add=True)
    content = models.TextField()
    ports = models.PositiveIntegerField(default=0)  # readings in the file
    matched = models.PositiveIntegerField(default=0)  # readings matched to a planned link
    unmatched = models.JSONField(default=list)  # the first unmatched ports, "device port"
    implicit_zero = models.BooleanField(default=False)
    networks = models.JSONField(default=list)
    reported = models.JSONField(default=list)
    notes = models.JSONField(default=list)
    # False: stored as received, too large to read in the web request; the "counters" job reads it (or refuses
    # it, deleting it and failing the job with why). Only read snapshots count in the report.
    read = models.BooleanField(default=True)

    class Meta:
        ordering = ["taken_at", "id"]
        indexes = [models.Index(fields=["revision", "taken_at"])]

    def __str__(self) -> str:
        return f"counters {self.filename or self.format} of revision {self.revision_id}"


class CounterReading(models.Model):
    """The counters of one planned port (a link's end a or b) in one snapshot."""

    snapshot = models.ForeignKey(CounterSnapshot, on_delete=models.CASCADE, related_name="readings")
    revision = models.ForeignKey(Revision, on_delete=models.CASCADE, related_name="+")
    link_id = models.PositiveIntegerField()
    end = models.CharField(max_length=1)  # a | b
    counters = models.JSONField()

    class Meta:
        indexes = [models.Index(fields=["revision", "link_id"])]
        constraints = [
            models.UniqueConstraint(fields=["snapshot", "link_id", "end"], name="counters_one_reading_per_port")
        ]

    def __str__(self) -> str:
        return f"link {self.link_id} end {self.end} of snapshot {self.snapshot_id}"
