"""Purchase orders of revisions, the ordered baseline, and the deltas between them.

A revision's order is its stored BOM (summary["bom"]) with a spares rule, priced with the revision's price-list
version (pricing.py), split per network and per SU. The split comes from the revision's snapshot (the engine's
BOM split, stored with it: apps/designs/snapshots.py), worked out once and kept in the cache under the
revision's fingerprint (revision_cache.py). A revision without a complete snapshot (stored before snapshots and
not backfilled, or rows only) has no split rather than a wrong one.

Marking a revision "ordered" freezes its whole order in an OrderedBaseline; deltas against it read that frozen
copy, never today's prices or rules.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from django.db import transaction

from engine.errors import SpecError
from engine.orders.failure_rates import FailureRatePerCategory, spares_beside
from engine.orders.lines import Order, OrderDelta, bom_split, build_order, order_delta
from engine.orders.spares import PercentPerCategory, SparesRule, spares_rule_from_dict

from .models import Design, OrderedBaseline, PartLeadTime, Revision
from .pricing import revision_pricing
from .revision_cache import compute_once, revision_fingerprint, revision_key, store_blob

if TYPE_CHECKING:
    from django.contrib.auth.models import User

log = logging.getLogger(__name__)

_SPLIT_VERSION = 1


def revision_bom_split(*, revision: Revision) -> dict | None:
    """{"networks": ..., "sus": ...} of the revision's BOM (orders.bom_split), or None when its snapshot no
    longer matches the stored BOM. Cached per revision fingerprint; concurrent misses compute once."""
    from django.core.cache import cache

    key = revision_key("bomsplit", _SPLIT_VERSION, revision_fingerprint(revision))

    def ready() -> bytes | None:
        return cache.get(key)  # bytes, b"null" when there is no split

    def compute() -> bytes:
        blob = json.dumps(_split(revision)).encode()
        store_blob(key, blob)
        return blob

    return json.loads(compute_once(key + ":lock", ready, compute))


# The BOM of a revision's full result, with the per-network and per-SU shares, comes from the layer that reads
# snapshots and renders (the exports app registers it from its AppConfig.ready()): designs imports nothing of it.
_bom_source: list[Callable[[Revision], tuple[dict, Any]]] = []


def register_bom_source(source: Callable[[Revision], tuple[dict, Any]]) -> None:
    """source(revision) -> (the result's summary, its computed BOM for bom_split); raises SpecError."""
    _bom_source[:] = [source]


def _split(revision: Revision) -> dict | None:
    if not _bom_source:
        log.info("no BOM split for revision %s: no app registered a BOM source", revision.pk)
        return None
    try:
        summary, bom = _bom_source[0](revision)
    except SpecError as exc:
        log.info("no BOM split for revision %s: %s", revision.pk, exc)
        return None
    stored = _bom_key(revision.summary.get("bom"))
    if _bom_key(summary.get("bom")) != stored:
        log.info("no BOM split for revision %s: its snapshot holds another BOM than its summary", revision.pk)
        return None
    return bom_split(bom)


def _bom_key(lines: Iterable[Mapping[str, Any]] | None) -> list:
    return sorted((ln["category"], ln["sku"], int(ln["quantity"])) for ln in lines or [])


def design_lead_times(*, design: Design) -> dict[str, int]:
    return dict(PartLeadTime.objects.filter(design=design).values_list("part", "days"))


def lead_times_update(*, design: Design, values: dict[str, int | None]) -> dict[str, int]:
    """Set (a number of days) or clear (None) lead times per part; returns the design's lead times."""
    with transaction.atomic():
        for part, days in values.items():
            if days is None:
                PartLeadTime.objects.filter(design=design, part=part).delete()
            else:
                PartLeadTime.objects.update_or_create(design=design, part=part, defaults={"days": days})
    return design_lead_times(design=design)


def revision_order(*, revision: Revision, rule: SparesRule | None = None, lead_times: dict | None = None) -> Order:
    """The revision's purchase order with `rule` (default: no spares), priced with its price-list version."""
    pricing = revision_pricing(revision=revision, latest=False)
    if lead_times is None:
        lead_times = design_lead_times(design=revision.design)
    return build_order(
        (revision.summary or {}).get("bom") or [],
        rule=rule or spares_rule_from_dict(None),
        prices=pricing.prices,
        currency=pricing.currency,
        price_version=pricing.version.number if pricing.version else None,
        price_source=pricing.source,
        split=revision_bom_split(revision=revision),
        lead_times=lead_times,
        label=f"r{revision.number}",
    )


def baseline_mark(*, revision: Revision, user: User, rule: SparesRule | None = None) -> OrderedBaseline:
    """Mark the revision "ordered": its order, as it is now, becomes the design's baseline."""
    pricing = revision_pricing(revision=revision, latest=False)
    order = revision_order(revision=revision, rule=rule).relabelled(f"r{revision.number} (ordered)")
    return OrderedBaseline.objects.create(
        design=revision.design, revision=revision, price_version=pricing.version, order=order.to_dict(), by=user
    )


def baseline_current(*, design: Design) -> OrderedBaseline | None:
    return (
        OrderedBaseline.objects.filter(design=design)
        .select_related("revision", "by", "price_version")
        .order_by("-id")
        .first()
    )


def baseline_order(baseline: OrderedBaseline) -> Order:
    return Order.from_dict(baseline.order)


def order_delta_between(*, old: Revision, new: Revision, rule: SparesRule | None = None) -> OrderDelta:
    """From one revision's order to another's, both with `rule` and each with its own price-list version."""
    lead_times = design_lead_times(design=new.design)
    return order_delta(
        revision_order(revision=old, rule=rule, lead_times=lead_times),
        revision_order(revision=new, rule=rule, lead_times=lead_times),
    )


def order_delta_from_baseline(
    *, baseline: OrderedBaseline, new: Revision, rule: SparesRule | None = None
) -> OrderDelta:
    """From what was ordered to `new`'s order; `new` gets the baseline's spares rule unless `rule` is given."""
    ordered = baseline_order(baseline)
    return order_delta(ordered, revision_order(revision=new, rule=rule or spares_rule_from_dict(ordered.spares_rule)))


def revision_spares_beside(
    *, revision: Revision, percent: PercentPerCategory, failure: FailureRatePerCategory
) -> list[dict]:
    """Per line of the revision's stored BOM, the flat-percent spares beside the failure-rate spares, with the
    inputs of both (engine/orders/failure_rates.py)."""
    return spares_beside((revision.summary or {}).get("bom") or [], percent=percent, failure=failure)
