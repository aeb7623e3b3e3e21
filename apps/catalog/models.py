"""What a user adds to the shipped catalog: custom parts, and price lists with their immutable versions."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class PriceList(models.Model):
    """A user's unit prices per part number as they edit them now; each change also adds a PriceListVersion.

    Moved from the api app (migration catalog.0001; the table keeps its name)."""

    owner = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="price_list")
    currency = models.CharField(max_length=8, default="USD")
    prices = models.JSONField(default=dict)  # part number -> unit price as a decimal string
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "api_pricelist"

    def __str__(self) -> str:
        return f"price list of user {self.owner_id} ({self.currency})"


class PriceListVersion(models.Model):
    """One state of a user's price list, never changed or deleted.

    A revision is priced with the version in force when it was computed (the newest created before it), unless
    someone reprices it explicitly (designs.RevisionRepricing), so a priced BOM never changes silently."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="price_versions")
    number = models.PositiveIntegerField()
    currency = models.CharField(max_length=8)
    prices = models.JSONField(default=dict)  # part number -> unit price as a decimal string
    created_at = models.DateTimeField()
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        ordering = ["-number"]
        constraints = [models.UniqueConstraint(fields=["owner", "number"], name="price_version_per_owner")]
        indexes = [models.Index(fields=["owner", "created_at"], name="price_version_owner_time")]

    def __str__(self) -> str:
        return f"price list v{self.number} of {self.owner}"


class PartSection(models.TextChoices):
    """Catalog sections a user may add parts to: the hardware catalog's and the media catalog's."""

    SERVERS = "servers"
    SWITCHES = "switches"
    TRANSCEIVERS = "transceivers"
    CABLES = "cables"
    CORDS = "cords"
    TRUNKS = "trunks"
    ADAPTERS = "adapters"
    PANELS = "panels"
    CASSETTES = "cassettes"
    COPPER_CORDS = "copper_cords"
    PMDS = "pmds"


HARDWARE_SECTIONS = (PartSection.SERVERS, PartSection.SWITCHES)


class CustomPart(models.Model):
    """A user's own catalog entry (same shape as the YAML catalog), used when that user's designs compute.

    Moved from the api app (migration catalog.0002; the table keeps its name)."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="custom_parts")
    section = models.CharField(max_length=24, choices=PartSection.choices)
    key = models.CharField(max_length=64)  # servers/switches: the catalog key; media: sku, id or family
    body = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "api_custompart"
        ordering = ["-id"]
        constraints = [models.UniqueConstraint(fields=["owner", "section", "key"], name="custom_part_unique")]

    def __str__(self) -> str:
        return f"{self.section} {self.key} of user {self.owner_id}"
