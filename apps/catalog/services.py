"""What a user adds to the shipped catalog: their custom parts, and their price lists.

Custom parts: `custom_catalog_for(user)` is the hook the compute service calls so that a user's designs compute
with that user's parts (`load_catalog(custom_catalog_for(design.owner))`); `catalog_for(user)` is the merged
catalog pages and saves are checked against. A part is validated with the engine's own loaders before it is
stored, so a stored part always loaded when it was saved.

Price lists: every change adds a version, so what a revision was priced with can always be read back.
"""

from __future__ import annotations

import hashlib
import json
import re
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from apps.common.errors import Conflict, Invalid
from engine.catalog import Catalog, load_catalog
from engine.errors import CatalogError as HardwareCatalogError
from engine.inputgate import InputRefused, check_shape
from engine.physical.catalog import _PARSERS as MEDIA_PARSERS
from engine.physical.catalog import CatalogError as MediaCatalogError
from engine.spec import CATALOG_KEY_PATTERN

from .models import HARDWARE_SECTIONS, CustomPart, PriceList, PriceListVersion


class InvalidPart(Invalid):
    default_code = "invalid_part"


class CustomPartsBroken(Conflict):
    """The owner's stored parts no longer load (a newer shipped catalog clashes with one of them)."""

    default_code = "custom_parts_invalid"


# --- custom parts ----------------------------------------------------------------------------------

# One catalog entry. The largest shipped one (a server with its port groups) is 7 levels deep, 97 values and
# 1.4 KB as JSON; these bounds leave room for fifty times that and refuse anything built to hurt.
CUSTOM_PART_MAX_CHARS = 64 * 1024
CUSTOM_PART_MAX_DEPTH = 10
CUSTOM_PART_MAX_NODES = 5_000


def _extra(parts) -> dict | None:
    """{servers: {key: body}, switches: {key: body}, media: {section: [body, ...]}} or None."""
    extra: dict[str, Any] = {}
    for section, key, body in parts:
        if section in HARDWARE_SECTIONS:
            extra.setdefault(section, {})[key] = body
        else:
            extra.setdefault("media", {}).setdefault(section, []).append(body)
    return extra or None


def custom_catalog_for(user) -> dict | None:
    """The user's custom parts as a `load_catalog(extra)` extension, or None when they have none."""
    if user is None or not getattr(user, "pk", None):
        return None
    return _extra(CustomPart.objects.filter(owner=user).order_by("pk").values_list("section", "key", "body"))


def catalog_for(user) -> tuple[Catalog, set[tuple[str, str]]]:
    """The merged catalog and the (section, key) pairs that are the user's own. Cached per parts state."""
    state = list(CustomPart.objects.filter(owner=user).order_by("pk").values_list("pk", "updated_at"))
    if not state:
        return load_catalog(), set()
    digest = hashlib.sha256(repr(state).encode()).hexdigest()
    return _catalog_cached(user.pk, digest)


@lru_cache(maxsize=32)
def _catalog_cached(user_id: int, digest: str) -> tuple[Catalog, set[tuple[str, str]]]:  # noqa: ARG001 - a cache key
    parts = list(CustomPart.objects.filter(owner_id=user_id).order_by("pk").values_list("section", "key", "body"))
    try:
        catalog = load_catalog(_extra(parts))
    except (HardwareCatalogError, MediaCatalogError) as exc:
        # Parts that were valid when saved can clash with a newer shipped catalog.
        raise CustomPartsBroken(
            f"Your custom parts no longer load: {exc}. Change or delete the part named in the message."
        ) from None
    return catalog, {(s, k) for s, k, _ in parts}


def media_key(section: str, body: Any) -> str:
    """The key a media entry is known by (sku, id, family or vendor, per section)."""
    attr = MEDIA_PARSERS[section][1]
    value = body.get(attr) if isinstance(body, dict) else None
    if not isinstance(value, str) or not value.strip() or len(value) > 64:
        raise InvalidPart(
            f"body.{attr} must name the part (1-64 characters).",
            fields=[{"path": f"body.{attr}", "message": "is required: the part's key (1-64 characters)"}],
        )
    return value


def _validate(parts: list[tuple[str, str, Any]]) -> None:
    try:
        load_catalog(_extra(parts))
    # The loaders report most problems as CatalogError; a body of an unexpected shape can still
    # trip them with a plain TypeError or AttributeError, which is the user's input all the same.
    except (
        HardwareCatalogError,
        MediaCatalogError,
        KeyError,
        TypeError,
        ValueError,
        AttributeError,
        IndexError,
        RecursionError,
    ) as exc:
        raise InvalidPart(
            f"The part does not fit the catalog schema: {exc}",
            fields=[{"path": "body", "message": str(exc)}],
        ) from None


def custom_part_save(*, user, section: str, key: str | None, body: Any, part: CustomPart | None = None) -> CustomPart:
    """Create (part=None) or replace a custom part after validating it with the engine's loaders."""
    try:
        check_shape(body, max_depth=CUSTOM_PART_MAX_DEPTH, max_nodes=CUSTOM_PART_MAX_NODES)
        size = len(json.dumps(body, ensure_ascii=False))
        if size > CUSTOM_PART_MAX_CHARS:  # the API's body limit is the whole request's, 2 MiB
            raise InputRefused(f"is {size:,} characters as JSON; the limit is {CUSTOM_PART_MAX_CHARS:,}")
    except InputRefused as exc:
        raise InvalidPart(f"body: {exc.message}.", fields=[{"path": "body", "message": exc.message}]) from None
    except (TypeError, ValueError):  # not JSON data at all (the API and the page only ever pass JSON types)
        raise InvalidPart(
            "body: must be plain data.", fields=[{"path": "body", "message": "must be plain data"}]
        ) from None
    if section in HARDWARE_SECTIONS:
        if not key:
            raise InvalidPart(
                "key is required for servers and switches.",
                fields=[{"path": "key", "message": "is required for servers and switches"}],
            )
    else:
        derived = media_key(section, body)
        if key and key != derived:
            raise InvalidPart(
                "key must match the part's own key in the body.",
                fields=[{"path": "key", "message": f"differs from the body's key {derived!r}"}],
            )
        key = derived
    if not re.fullmatch(CATALOG_KEY_PATTERN, key):
        # Keys name device types and parts in every CSV, NetBox's included (written raw): no formula
        # characters at the start, nothing NetBox or a spreadsheet would read as more than a name.
        raise InvalidPart(
            "A part's key holds only letters, digits and . _ + / - (1-64 characters), "
            "beginning with a letter or digit.",
            fields=[
                {"path": "key", "message": "must be 1-64 letters, digits, . _ + / -, starting with a letter or digit"}
            ],
        )
    with transaction.atomic():
        others = CustomPart.objects.select_for_update().filter(owner=user).order_by("pk")
        if part is not None:
            others = others.exclude(pk=part.pk)
        existing = [(p.section, p.key, p.body) for p in others]
        if any(s == section and k == key for s, k, _ in existing):
            raise Conflict(
                f"You already have a {section} part {key!r}.",
                fields=[{"path": "key", "message": "already used by another of your parts"}],
            )
        _validate([*existing, (section, key, body)])
        if part is None:
            part = CustomPart.objects.create(owner=user, section=section, key=key, body=body)
        else:
            part.section, part.key, part.body = section, key, body
            part.save(update_fields=["section", "key", "body", "updated_at"])
    return part


def custom_part_delete(*, part: CustomPart) -> None:
    part.delete()


# --- price lists -----------------------------------------------------------------------------------


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


# The price list's rules, shared by the API's input serializer (apps/api/views/catalog.py) and the catalog page.
CURRENCY_PATTERN = r"^[A-Z]{3}$"


def is_iso_currency(code: str) -> bool:
    """A code of the ISO 4217 list (pycountry's copy of it): "DOL" is three capital letters but no currency."""
    import pycountry

    return pycountry.currencies.get(alpha_3=code) is not None


def iso_currencies() -> list[tuple[str, str]]:
    """(code, name) of every ISO 4217 currency, by code: the catalog page's choices."""
    import pycountry

    return sorted((c.alpha_3, c.name) for c in pycountry.currencies)


MAX_PRICED_PARTS = 10_000
PART_NUMBER_MAX = 64


def part_number_problem(part: str) -> str | None:
    """Why ``part`` cannot be a part number a price list or lead time is keyed by, or None. Control characters
    are refused here because PostgreSQL cannot store NUL in text or jsonb (it would surface as a server error)."""
    if not part or len(part) > PART_NUMBER_MAX:
        return f"part numbers are 1-{PART_NUMBER_MAX} characters"
    if any(ord(c) < 32 or ord(c) == 127 for c in part):
        return "part numbers contain no control characters"
    return None


PRICE_MAX_DIGITS = 14
PRICE_DECIMAL_PLACES = 4


def decimal_text(d: Decimal) -> str:
    """12.5000 -> "12.5", 100 -> "100" (never exponent notation)."""
    text = format(d, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def price_list_clean(*, currency: str, prices: dict[str, str]) -> tuple[str, dict[str, str]]:
    """(currency, {part number: price text}) as the price list stores them, or Invalid naming every bad entry."""
    fields = []
    if not re.fullmatch(CURRENCY_PATTERN, currency):
        fields.append({"path": "currency", "message": "is an ISO 4217 code of three capital letters, e.g. USD"})
    elif not is_iso_currency(currency):
        fields.append({"path": "currency", "message": f"{currency} is not an ISO 4217 currency code (e.g. USD, EUR)"})
    if len(prices) > MAX_PRICED_PARTS:
        fields.append({"path": "prices", "message": f"at most {MAX_PRICED_PARTS:,} parts"})
    clean = {}
    whole = PRICE_MAX_DIGITS - PRICE_DECIMAL_PLACES
    for part, text in prices.items():
        problem = part_number_problem(part)
        if problem:
            fields.append({"path": "prices", "message": problem})
            continue
        try:
            price = Decimal(str(text).strip())
        except InvalidOperation:
            price = Decimal("NaN")
        if not price.is_finite() or price < 0:
            fields.append({"path": f"prices.{part}", "message": f"{str(text)[:30]!r} is not a price of 0 or more"})
        elif price != price.quantize(Decimal(1).scaleb(-PRICE_DECIMAL_PLACES)) or abs(price) >= 10**whole:
            fields.append(
                {
                    "path": f"prices.{part}",
                    "message": f"up to {whole} digits before the point and {PRICE_DECIMAL_PLACES} after",
                }
            )
        else:
            clean[part] = decimal_text(price)
    if fields:
        raise Invalid("The price list is not valid.", fields=fields)
    return currency, clean
