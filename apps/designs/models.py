"""Designs, their immutable computed revisions, and the revision's links and cables.

Links and cables are stored one row each so tables, filters, exports and the API stay fast at
400,000 rows: loaded with COPY on PostgreSQL, read with keyset pagination on (revision, row id).
"""
from __future__ import annotations

from django.conf import settings
from django.db import models

from apps.common.models import TimeStampedModel


class Access(models.TextChoices):
    READ = "read", "Read"
    WRITE = "write", "Read and write"


class Design(TimeStampedModel):
    """A user's design: a name and a validated spec (the engine's normalized spec dict)."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="designs")
    name = models.CharField(max_length=200)
    spec = models.JSONField()
    schema_version = models.PositiveSmallIntegerField(default=1)
    preset = models.CharField(max_length=100, blank=True, default="")

    class Meta:
        ordering = ["-updated_at"]
        indexes = [models.Index(fields=["owner", "-updated_at"], name="design_owner_updated")]

    def __str__(self) -> str:
        return self.name


class DesignShare(models.Model):
    """Gives another user (a team member) read or write access to a design."""

    design = models.ForeignKey(Design, on_delete=models.CASCADE, related_name="shares")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="design_shares")
    access = models.CharField(max_length=8, choices=Access.choices, default=Access.READ)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["design", "user"], name="design_share_unique")]


class Revision(models.Model):
    """An immutable computed result: the spec, engine and catalog versions it used, and its summary."""

    design = models.ForeignKey(Design, on_delete=models.CASCADE, related_name="revisions")
    number = models.PositiveIntegerField()
    spec = models.JSONField()
    spec_hash = models.CharField(max_length=64)
    engine_version = models.CharField(max_length=32)
    catalog_version = models.CharField(max_length=128)
    summary = models.JSONField()
    link_count = models.PositiveIntegerField(default=0)
    cable_count = models.PositiveIntegerField(default=0)
    compute_seconds = models.FloatField(default=0)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-number"]
        constraints = [models.UniqueConstraint(fields=["design", "number"], name="revision_number_unique")]

    def __str__(self) -> str:
        return f"{self.design} r{self.number}"


class LinkRecord(models.Model):
    """One link of a revision (links.csv row)."""

    revision = models.ForeignKey(Revision, on_delete=models.CASCADE, related_name="links", db_index=False)
    link_id = models.PositiveIntegerField()
    network = models.CharField(max_length=16)
    plane = models.PositiveSmallIntegerField(default=0)
    tier = models.CharField(max_length=24)
    speed_gbps = models.PositiveIntegerField()
    a_device = models.CharField(max_length=64)
    a_port = models.CharField(max_length=32)
    a_rack = models.CharField(max_length=32)
    a_u = models.IntegerField(null=True)
    b_device = models.CharField(max_length=64)
    b_port = models.CharField(max_length=32)
    b_rack = models.CharField(max_length=32)
    b_u = models.IntegerField(null=True)
    length_m = models.FloatField()
    medium = models.CharField(max_length=24, blank=True, default="")
    a_part = models.CharField(max_length=64, blank=True, default="")
    b_part = models.CharField(max_length=64, blank=True, default="")
    cables = models.CharField(max_length=128, blank=True, default="")
    fibers = models.PositiveSmallIntegerField(default=0)
    loss_db = models.FloatField(null=True)
    margin_db = models.FloatField(null=True)
    status = models.CharField(max_length=16, blank=True, default="")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["revision", "link_id"], name="link_per_revision")]
        indexes = [
            models.Index(fields=["revision", "network", "tier", "link_id"], name="link_net_tier"),
            models.Index(fields=["revision", "a_rack", "link_id"], name="link_a_rack"),
            models.Index(fields=["revision", "b_rack", "link_id"], name="link_b_rack"),
            models.Index(fields=["revision", "a_device", "link_id"], name="link_a_device"),
            models.Index(fields=["revision", "b_device", "link_id"], name="link_b_device"),
            models.Index(fields=["revision", "medium", "link_id"], name="link_medium"),
            models.Index(fields=["revision", "status", "link_id"], name="link_status"),
        ]


class CableRecord(models.Model):
    """One physical cable of a revision (cables.csv row): its part, ordered length and both labels."""

    revision = models.ForeignKey(Revision, on_delete=models.CASCADE, related_name="cables", db_index=False)
    cable_id = models.PositiveIntegerField()
    network = models.CharField(max_length=16)
    tier = models.CharField(max_length=24)
    kind = models.CharField(max_length=24)
    part = models.CharField(max_length=64)
    length_m = models.FloatField()
    a_device = models.CharField(max_length=64)
    a_port = models.CharField(max_length=32)
    a_rack = models.CharField(max_length=32)
    b_device = models.CharField(max_length=64)
    b_port = models.CharField(max_length=32)
    b_rack = models.CharField(max_length=32)
    label_a = models.CharField(max_length=128)
    label_b = models.CharField(max_length=128)
    links = models.CharField(max_length=256, blank=True, default="")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["revision", "cable_id"], name="cable_per_revision")]
        indexes = [
            models.Index(fields=["revision", "network", "tier", "cable_id"], name="cable_net_tier"),
            models.Index(fields=["revision", "a_rack", "cable_id"], name="cable_a_rack"),
            models.Index(fields=["revision", "part", "cable_id"], name="cable_part"),
        ]
