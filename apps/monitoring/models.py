"""Imported utilization snapshots of a revision and their judgement against the plan."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class UtilizationSnapshot(models.Model):
    """One imported snapshot (Prometheus query-API JSON, or two counter snapshots and their interval) and the
    report the engine made of it (engine/monitoring/utilization.py): per tier, plane, rail, SU and spine the
    average and peak against the targets and the prediction, and the imbalance found. The report is kept, not
    the raw file: it is what the pages show, and it never changes for an immutable revision."""

    class Kind(models.TextChoices):
        PROMETHEUS = "prometheus", "Prometheus query-API JSON"
        COUNTERS = "counters", "Two counter snapshots and their interval"

    revision = models.ForeignKey("designs.Revision", on_delete=models.CASCADE, related_name="utilization_snapshots")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    label = models.CharField(max_length=200, blank=True, default="")
    report = models.JSONField()
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("-created_at", "-id")
        indexes = [models.Index(fields=("revision", "-created_at"))]

    def __str__(self) -> str:
        return f"utilization {self.pk} of revision {self.revision_id}"
