"""Writing price lists: every change adds a version, so what a revision was priced with can always be read back."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from .models import PriceList, PriceListVersion


def price_list_save(*, owner, currency: str, prices: dict[str, str]) -> PriceListVersion | None:
    """Replace the owner's price list; a change adds a version (returned), saving the same list adds none."""
    with transaction.atomic():
        pl = PriceList.objects.select_for_update().filter(owner=owner).first()
        if pl is None:
            PriceList.objects.create(owner=owner, currency=currency, prices=prices)
        else:
            pl.currency, pl.prices = currency, prices
            pl.save(update_fields=["currency", "prices", "updated_at"])
        latest = price_version_latest(owner=owner)
        if latest is not None and latest.currency == currency and latest.prices == prices:
            return None
        number = (PriceListVersion.objects.filter(owner=owner).aggregate(n=Max("number"))["n"] or 0) + 1
        return PriceListVersion.objects.create(
            owner=owner, number=number, currency=currency, prices=prices, created_at=timezone.now(), created_by=owner
        )


def price_version_latest(*, owner) -> PriceListVersion | None:
    return PriceListVersion.objects.filter(owner=owner).order_by("-number").first()


def price_version_at(*, owner_id: int, when, prices: bool = True) -> PriceListVersion | None:
    """The owner's version in force at `when`: the newest created at or before it (`prices=False`: without
    loading its price map)."""
    versions = PriceListVersion.objects.all() if prices else PriceListVersion.objects.defer("prices")
    return versions.filter(owner_id=owner_id, created_at__lte=when).order_by("-created_at", "-number").first()
