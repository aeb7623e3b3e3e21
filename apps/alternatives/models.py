from __future__ import annotations

from django.conf import settings
from django.db import models


class Study(models.Model):
    """One requirement and the candidate fabrics computed for it. Only its owner sees it."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="studies")
    name = models.CharField(max_length=200)
    requirement = models.JSONField()  # as the user stated it (validated: engine parse_requirement)
    job = models.ForeignKey("jobs.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    rejected = models.JSONField(default=list, blank=True)  # [{label, choice, reason, same_as}]
    price_version = models.PositiveIntegerField(null=True, blank=True)  # the owner's price list it was priced with
    currency = models.CharField(max_length=8, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"study {self.name}"


class Candidate(models.Model):
    """One computed candidate: its spec (the one spec schema) and the figures the table shows."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="candidates")
    index = models.PositiveIntegerField()  # 1-based, in the order computed
    label = models.CharField(max_length=200)
    choice = models.JSONField()
    spec = models.JSONField()
    figures = models.JSONField()
    fabric = models.CharField(max_length=32)
    pareto = models.BooleanField(default=False)
    picked_design = models.ForeignKey(
        "designs.Design", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["index"]
        constraints = [models.UniqueConstraint(fields=["study", "index"], name="alternatives_candidate_index")]

    def __str__(self) -> str:
        return f"candidate {self.index} of study {self.study_id}: {self.label}"
