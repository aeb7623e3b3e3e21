"""As-built uploads of a revision and the standing classification they add up to (engine/asbuilt)."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class RevisionState(models.TextChoices):
    PLANNED = "planned", "Planned"
    CABLING = "cabling", "Cabling"  # from the first as-built import
    VERIFIED = "verified", "Verified"  # no problem left and every link measured within its loss budget


class AsBuiltUpload(models.Model):
    """One file of what the fabric is (ibnetdiscover, iblinkinfo, lldpctl / NVUE / EOS JSON, CSV), as sent.
    Uploads accumulate: each replaces what earlier ones said about the devices it covers."""

    revision = models.ForeignKey("designs.Revision", on_delete=models.CASCADE, related_name="asbuilt_uploads")
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    format = models.CharField(max_length=16)
    filename = models.CharField(max_length=200)
    device = models.CharField(max_length=64, blank=True, default="")  # the local system of an LLDP dump
    port = models.CharField(max_length=64, blank=True, default="")  # the interface of a one-port NVUE dump
    user_map = models.TextField(blank=True, default="")  # device,ident,port lines (RDMA device / GUID -> port)
    # Judge this file's links by width only, not speed (a simulator such as ibsim runs every lane at SDR).
    width_only = models.BooleanField(default=False)
    size = models.PositiveIntegerField()
    links = models.PositiveIntegerField()  # observed links in the file (0 until `read`)
    # False: stored as received, too large to read in the web request; the "asbuilt" job reads it (or refuses
    # it, deleting it and failing the job with why). Only read uploads count in the standing.
    read = models.BooleanField(default=True)
    sha256 = models.CharField(max_length=64)
    content = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"as-built {self.filename} ({self.format}) of revision {self.revision_id}"


class CommissioningStanding(models.Model):
    """A revision's as-built classification over all its uploads, refreshed after each; the revision page, the
    API and the lists read this row instead of re-reading the uploads."""

    revision = models.OneToOneField("designs.Revision", on_delete=models.CASCADE, related_name="commissioning")
    state = models.CharField(max_length=10, choices=RevisionState.choices, default=RevisionState.PLANNED)
    counts = models.JSONField(default=dict)  # class -> links
    per_rack = models.JSONField(default=dict)  # rack -> class -> links
    fixes = models.JSONField(default=list)  # the fix list (engine.asbuilt.fixlist.FIX_COLUMNS dicts), by rack
    uploads = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True, default="")  # why the classification could not be worked out
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"commissioning of revision {self.revision_id}: {self.state}"
