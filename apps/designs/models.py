"""Designs, their immutable computed revisions, and the revision's links and cables.

Links and cables are stored one row each so tables, filters, exports and the API stay fast at
400,000 rows: loaded with COPY on PostgreSQL, read with keyset pagination on (revision, row id).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import models

from apps.common.models import TimeStampedModel

if TYPE_CHECKING:
    from engine.errors import FieldError


class Access(models.TextChoices):
    READ = "read", "Read"
    WRITE = "write", "Read and write"


class Design(TimeStampedModel):
    """A user's design: a name and a validated spec (the engine's normalized spec dict)."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="designs")
    name = models.CharField(max_length=200)
    # Not a column: the save services (apps.designs.services) set it on the instance they return, for the answer.
    spec_warnings: list[FieldError]
    spec = models.JSONField()
    schema_version = models.PositiveSmallIntegerField(default=1)
    preset = models.CharField(max_length=100, blank=True, default="")

    class Meta:
        ordering = ["-updated_at"]
        indexes = [models.Index(fields=["owner", "-updated_at"], name="design_owner_updated")]

    def __str__(self) -> str:
        return self.name


class DesignShare(models.Model):
    """Gives another user (a team member) read or write access to a design.

    A share names its recipient by username, as the owner typed it, so sharing answers the same whether
    or not that account exists (nobody can probe usernames by sharing). `user` is that account, or None
    while there is none: such a share grants nothing until an account of that name is created, which
    then gets it (signals.link_pending_shares). Shared designs appear to their recipient apart from
    their own, and the recipient can leave a share (services.design_leave).
    """

    design = models.ForeignKey(Design, on_delete=models.CASCADE, related_name="shares")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="design_shares"
    )
    username = models.CharField(max_length=150)
    access = models.CharField(max_length=8, choices=Access.choices, default=Access.READ)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["design", "user"], name="design_share_unique"),
            models.UniqueConstraint(fields=["design", "username"], name="design_share_username_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.username} ({self.access})"

    def save(self, *args: Any, **kwargs: Any) -> None:
        # Either side fills the other (the admin's inline gives a username; tests often a user).
        if not self.username and self.user is not None:
            self.username = self.user.get_username()
        elif self.user_id is None and self.username:
            from django.contrib.auth import get_user_model

            self.user = get_user_model().objects.filter(username=self.username).first()
        super().save(*args, **kwargs)


class Revision(models.Model):
    """An immutable computed result: the spec, engine and catalog versions it used, and its summary."""

    design = models.ForeignKey(Design, on_delete=models.CASCADE, related_name="revisions")
    number = models.PositiveIntegerField()
    # Not columns: selectors.revision_head reads them in its one query (revision_cache and the API read them back).
    snapshot_digest: tuple[str, str] | None
    pricing_key: tuple[Any, ...]
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
    """One link of a revision (links.csv row).

    The revision foreign key has no database constraint: PostgreSQL checks one at commit with a query per
    row, which costs as much as storing 400,000 links (bench/bench_store.py). Rows are written only
    with their revision, in its transaction, and Django deletes them with it (on_delete=CASCADE).
    """

    revision = models.ForeignKey(
        Revision, on_delete=models.CASCADE, related_name="links", db_index=False, db_constraint=False
    )
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
    polarity = models.CharField(max_length=16, blank=True, default="")  # links.csv's polarity (type-b when optical)
    loss_db = models.FloatField(null=True)
    margin_db = models.FloatField(null=True)
    status = models.CharField(max_length=16, blank=True, default="")
    # 1-based data hall of each end (engine/columns.py HALL_COLUMNS); NULL for an unplaced end and in revisions
    # stored before migration 0010
    a_hall = models.PositiveSmallIntegerField(null=True)
    b_hall = models.PositiveSmallIntegerField(null=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["revision", "link_id"], name="link_per_revision")]
        # Every index costs time at each insert (bench/bench_store.py). Filters matching many rows (network,
        # tier) page in link_id order straight from their index. Filters matching few rows (a rack, a device,
        # a rare medium or status) come from an index on (revision, value) and are sorted: both ends of an
        # OR read two indexes anyway, so link_id in their key would only make them bigger and slower to fill.
        # On PostgreSQL migration 0004 drops "revision" from these keys (each partition holds one revision)
        # and makes the text columns COLLATE "C"; the model keeps them for SQLite, whose table holds them all.
        # Migration 0011 keys the network and tier indexes on hashtext(column) there (an int4 key builds in about
        # half the time of a low-cardinality text one; tables._HASHED_KEYS) and drops medium and status, whose
        # pages read each partition's (medium, link_id) and (status, link_id) (partitions.sort_index_keys).
        # Migration 0012 keys the rack indexes on hashtext(column) too (tables._HASHED_MATCHES); the device ones stay
        # on the text, which serves the search's device-name prefix.
        indexes = [
            models.Index(fields=["revision", "network", "tier", "link_id"], name="link_net_tier"),
            models.Index(fields=["revision", "tier", "link_id"], name="link_tier"),
            models.Index(fields=["revision", "a_rack"], name="link_a_rack"),
            models.Index(fields=["revision", "b_rack"], name="link_b_rack"),
            models.Index(fields=["revision", "a_device"], name="link_a_device"),
            models.Index(fields=["revision", "b_device"], name="link_b_device"),
            models.Index(fields=["revision", "medium"], name="link_medium"),
            models.Index(fields=["revision", "status"], name="link_status"),
        ]

    def __str__(self) -> str:
        return f"link {self.link_id} of revision {self.revision_id}"


class CableRecord(models.Model):
    """One physical cable of a revision (cables.csv row): its part, ordered length and both labels."""

    # No database constraint, as on LinkRecord.revision.
    revision = models.ForeignKey(
        Revision, on_delete=models.CASCADE, related_name="cables", db_index=False, db_constraint=False
    )
    cable_id = models.PositiveIntegerField()
    network = models.CharField(max_length=16)
    tier = models.CharField(max_length=24)
    kind = models.CharField(max_length=24)
    part = models.CharField(max_length=64)
    length_m = models.FloatField()
    a_device = models.CharField(max_length=64)
    a_port = models.CharField(max_length=32)
    a_rack = models.CharField(max_length=32)
    a_u = models.IntegerField(null=True)
    b_device = models.CharField(max_length=64)
    b_port = models.CharField(max_length=32)
    b_rack = models.CharField(max_length=32)
    b_u = models.IntegerField(null=True)
    label_a = models.CharField(max_length=128)
    label_b = models.CharField(max_length=128)
    links = models.CharField(max_length=256, blank=True, default="")
    a_hall = models.PositiveSmallIntegerField(null=True)  # as on LinkRecord
    b_hall = models.PositiveSmallIntegerField(null=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["revision", "cable_id"], name="cable_per_revision")]
        # As on LinkRecord. On PostgreSQL migration 0012 moves the part index from the parent to each partition,
        # built after the store commits as the other sort orders' are (partitions.sort_index_keys).
        indexes = [
            models.Index(fields=["revision", "network", "tier", "cable_id"], name="cable_net_tier"),
            models.Index(fields=["revision", "a_rack"], name="cable_a_rack"),
            models.Index(fields=["revision", "b_rack"], name="cable_b_rack"),
            models.Index(fields=["revision", "a_device"], name="cable_a_device"),
            models.Index(fields=["revision", "b_device"], name="cable_b_device"),
            models.Index(fields=["revision", "part"], name="cable_part"),
        ]

    def __str__(self) -> str:
        return f"cable {self.cable_id} of revision {self.revision_id}"


class RevisionRepricing(models.Model):
    """An explicit "price this revision with that price-list version from now on" (the visible reprice action).

    Without one, a revision is priced with its owner's version in force when it was computed (apps.designs.pricing).
    The newest repricing of a revision is in force; the older ones are its pricing history."""

    revision = models.ForeignKey(Revision, on_delete=models.CASCADE, related_name="repricings")
    version = models.ForeignKey("catalog.PriceListVersion", on_delete=models.PROTECT, related_name="+")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"revision {self.revision_id} repriced with price list version {self.version_id}"


class OrderedBaseline(models.Model):
    """A revision the user marked "ordered": its purchase order frozen as it was placed (lines, spares rule, the
    price-list version and its prices, the split per network and SU), so later revisions are compared with what
    was bought, whatever happens to prices or rules afterwards. A design's newest one is its baseline; older
    ones stay as its history."""

    design = models.ForeignKey(Design, on_delete=models.CASCADE, related_name="ordered_baselines")
    revision = models.ForeignKey(Revision, on_delete=models.CASCADE, related_name="+")
    price_version = models.ForeignKey("catalog.PriceListVersion", null=True, on_delete=models.PROTECT, related_name="+")
    order = models.JSONField()  # engine.orders.lines.Order.to_dict(), frozen
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.design} r{self.revision.number} ordered"


class PartLeadTime(models.Model):
    """The lead time a user filled in for one part of a design's order (shown on its order lines)."""

    design = models.ForeignKey(Design, on_delete=models.CASCADE, related_name="lead_times")
    part = models.CharField(max_length=64)
    days = models.PositiveIntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["design", "part"], name="lead_time_per_part")]

    def __str__(self) -> str:
        return f"{self.part}: {self.days} days"


class SnapshotState(models.TextChoices):
    COMPLETE = "complete", "Complete"
    # Stored before snapshots: the backfill recomputed it and the recomputed links or cables differ from the
    # stored rows, so only the stored rows are shown (never a mix of the two).
    ROWS_ONLY = "rows-only", "Stored rows only"


class RevisionSnapshot(models.Model):
    """Everything a revision's pages, API answers and files are rendered from, frozen when it was computed.

    `document` is the engine's DesignResult (devices, racks, links, the physical layer with its cable rows,
    loss budgets, fiber totals, BOM and its network/SU split, warnings, the summary with the traffic
    analysis, and the catalog the design was computed with, custom parts included) in the versioned JSON +
    zlib codec of engine/snapshot_codec.py. It is read whole by a renderer, never queried, so it is one
    compressed document rather than rows (apps/designs/snapshots.py; the figures are in docs/architecture.md).
    Written in the compute job's transaction, or once by the backfill for a revision stored before it.
    """

    revision = models.OneToOneField(Revision, on_delete=models.CASCADE, related_name="snapshot")
    state = models.CharField(max_length=16, choices=SnapshotState.choices, default=SnapshotState.COMPLETE)
    codec = models.PositiveSmallIntegerField(default=1)
    document = models.BinaryField(null=True)
    size = models.PositiveIntegerField(default=0)
    sha256 = models.CharField(max_length=64, blank=True, default="")
    # Hashes of the link and cable rows as stored (apps/designs/snapshots.py rows_digest): the backfill
    # compares a recomputation with them.
    links_digest = models.CharField(max_length=64, blank=True, default="")
    cables_digest = models.CharField(max_length=64, blank=True, default="")
    catalog_version = models.CharField(max_length=128, blank=True, default="")  # what a backfill recomputed with
    # The invariant checks the result passed: they finish while the document is being encoded (services.py).
    checks = models.JSONField(default=list)
    note = models.TextField(blank=True, default="")
    encode_seconds = models.FloatField(default=0)
    backfilled = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"snapshot of {self.revision} ({self.state})"
