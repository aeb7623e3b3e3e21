"""Which prices a revision's BOM uses.

A revision is priced with its owner's price-list version in force when it was computed (the newest created
before it), unless it was explicitly repriced (RevisionRepricing, newest first). So a purchase order placed
against a revision can be fetched again as it was, and a price change reaches an old revision only by a visible
action that records who did it, when, and with which version.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.db import connection

from apps.catalog.models import PriceListVersion
from apps.catalog.services import price_version_at, price_version_latest

from .models import Revision, RevisionRepricing

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class PriceListMissing(Exception):
    """A reprice was asked for while the design's owner has no price list."""


@dataclass(frozen=True)
class RevisionPricing:
    """How a revision is priced: the version (None: its owner had no price list then), and the explicit reprice
    that chose it (None: the version in force when the revision was computed). `latest` is the owner's newest
    version, so a page can offer to reprice when it differs."""

    version: PriceListVersion | None
    repricing: RevisionRepricing | None
    latest: PriceListVersion | None

    @property
    def prices(self) -> dict:
        return self.version.prices if self.version is not None else {}

    @property
    def currency(self) -> str | None:
        return self.version.currency if self.version is not None else None

    @property
    def source(self) -> str:
        """The prices named in words, as the BOM files print them."""
        v = self.version
        if v is None:
            return ""
        how = (
            f"repriced by {self.repricing.by.get_username() if self.repricing.by else '-'} on "
            f"{self.repricing.at:%Y-%m-%d}"
            if self.repricing
            else "in force when the revision was computed"
        )
        return f"price list v{v.number} of {v.created_at:%Y-%m-%d} ({v.currency}), {how}"

    @property
    def stale(self) -> bool:
        """A newer version exists than the one in use (the page offers to reprice)."""
        return self.latest is not None and (self.version is None or self.latest.pk != self.version.pk)

    def to_dict(self) -> dict:
        v, r = self.version, self.repricing
        return {
            "price_version": v.number if v else None,
            "price_version_created_at": _iso(v.created_at) if v else None,
            "repriced_at": _iso(r.at) if r else None,
            "repriced_by": r.by.get_username() if r and r.by else None,
        }


def _iso(dt: datetime) -> str:
    return dt.isoformat().replace("+00:00", "Z")


def revision_pricing(*, revision: Revision, latest: bool = True, prices: bool = True) -> RevisionPricing:
    """`latest=False` leaves RevisionPricing.latest None (one query less; only `stale` reads it); `prices=False`
    leaves the versions' price maps unloaded (for to_dict(), as an ETag needs it: no price map is read)."""
    owner_id = revision.design.owner_id
    versions = PriceListVersion.objects.all() if prices else PriceListVersion.objects.defer("prices")
    newest = versions.filter(owner_id=owner_id).order_by("-number").first() if latest else None
    repricing = RevisionRepricing.objects.filter(revision=revision).select_related("version", "by").order_by("-id")
    if not prices:
        repricing = repricing.defer("version__prices")
    found = repricing.first()
    if found is not None:
        return RevisionPricing(found.version, found, newest)
    return RevisionPricing(price_version_at(owner_id=owner_id, when=revision.created_at, prices=prices), None, newest)


def pricing_key_sql() -> tuple[str, str]:
    """(three SELECT columns, their LEFT JOINs) that give revision_pricing()'s choice for the revision aliased `r`
    whose design is aliased `d`: the price-list version's id, the repricing's id and the repricer's username.
    What a BOM's ETag names on every request (a version never changes, so its id stands for its prices, number
    and date), read by selectors.revision_head(pricing=True) in the revision's own query; the ORM would compile
    revision_pricing's two queries again on every call. tests/apps/designs/test_pricing_key.py holds it to
    revision_pricing's rule."""
    qn = connection.ops.quote_name
    repricings, versions = qn(RevisionRepricing._meta.db_table), qn(PriceListVersion._meta.db_table)
    users = qn(get_user_model()._meta.db_table)
    select = (
        f"CASE WHEN rp.id IS NULL THEN (SELECT v.id FROM {versions} v WHERE v.owner_id = d.owner_id "
        f"AND v.created_at <= r.created_at ORDER BY v.created_at DESC, v.number DESC LIMIT 1) "
        f"ELSE rp.version_id END, rp.id, pu.{qn(get_user_model().USERNAME_FIELD)}"
    )
    joins = (
        f"LEFT JOIN {repricings} rp ON rp.id = (SELECT MAX(x.id) FROM {repricings} x WHERE x.revision_id = r.id) "
        f"LEFT JOIN {users} pu ON pu.id = rp.by_id"
    )
    return select, joins


def revision_reprice(*, revision: Revision, user: User) -> RevisionPricing:
    """Price the revision with its owner's newest version from now on (recorded). PriceListMissing without one."""
    latest = price_version_latest(owner=revision.design.owner)
    if latest is None:
        raise PriceListMissing("The design's owner has no price list yet: there is nothing to reprice with.")
    current = revision_pricing(revision=revision)
    if current.version is not None and current.version.pk == latest.pk:
        return current
    repricing = RevisionRepricing.objects.create(revision=revision, version=latest, by=user)
    return RevisionPricing(latest, repricing, latest)
