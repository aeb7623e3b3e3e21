"""The hardware and media catalog as a user sees it: shipped entries plus their custom parts.

`custom_catalog_for(user)` is the hook the compute service calls so that a user's designs compute
with that user's parts: `load_catalog(custom_catalog_for(design.owner))`.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from typing import Any

from django.db import transaction

from engine.catalog import Catalog, load_catalog
from engine.errors import CatalogError as HardwareCatalogError
from engine.physical.catalog import _PARSERS as MEDIA_PARSERS
from engine.physical.catalog import CatalogError as MediaCatalogError
from engine.spec import CATALOG_KEY_PATTERN

from .errors import ApiError
from .models import HARDWARE_SECTIONS, CustomPart


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
def _catalog_cached(user_id: int, digest: str) -> tuple[Catalog, set[tuple[str, str]]]:
    parts = list(CustomPart.objects.filter(owner_id=user_id).order_by("pk").values_list("section", "key", "body"))
    try:
        catalog = load_catalog(_extra(parts))
    except (HardwareCatalogError, MediaCatalogError) as exc:
        # Parts that were valid when saved can clash with a newer shipped catalog.
        raise ApiError(
            409,
            "custom_parts_invalid",
            f"Your custom parts no longer load: {exc}. Change or delete the part named in the message.",
        ) from None
    return catalog, {(s, k) for s, k, _ in parts}


def media_key(section: str, body: Any) -> str:
    """The key a media entry is known by (sku, id, family or vendor, per section)."""
    attr = MEDIA_PARSERS[section][1]
    value = body.get(attr) if isinstance(body, dict) else None
    if not isinstance(value, str) or not value.strip() or len(value) > 64:
        raise ApiError(
            400,
            "invalid_part",
            f"body.{attr} must name the part (1-64 characters).",
            [{"path": f"body.{attr}", "message": "is required: the part's key (1-64 characters)"}],
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
        raise ApiError(
            400,
            "invalid_part",
            f"The part does not fit the catalog schema: {exc}",
            [{"path": "body", "message": str(exc)}],
        ) from None


def custom_part_save(*, user, section: str, key: str | None, body: Any, part: CustomPart | None = None) -> CustomPart:
    """Create (part=None) or replace a custom part after validating it with the engine's loaders."""
    if section in HARDWARE_SECTIONS:
        if not key:
            raise ApiError(
                400,
                "invalid_part",
                "key is required for servers and switches.",
                [{"path": "key", "message": "is required for servers and switches"}],
            )
    else:
        derived = media_key(section, body)
        if key and key != derived:
            raise ApiError(
                400,
                "invalid_part",
                "key must match the part's own key in the body.",
                [{"path": "key", "message": f"differs from the body's key {derived!r}"}],
            )
        key = derived
    if not re.fullmatch(CATALOG_KEY_PATTERN, key):
        # Keys name device types and parts in every CSV, NetBox's included (written raw): no formula
        # characters at the start, nothing NetBox or a spreadsheet would read as more than a name.
        raise ApiError(
            400,
            "invalid_part",
            "A part's key holds only letters, digits and . _ + / - (1-64 characters), "
            "beginning with a letter or digit.",
            [{"path": "key", "message": "must be 1-64 letters, digits, . _ + / -, starting with a letter or digit"}],
        )
    with transaction.atomic():
        others = CustomPart.objects.select_for_update().filter(owner=user).order_by("pk")
        if part is not None:
            others = others.exclude(pk=part.pk)
        existing = [(p.section, p.key, p.body) for p in others]
        if any(s == section and k == key for s, k, _ in existing):
            raise ApiError(
                409,
                "conflict",
                f"You already have a {section} part {key!r}.",
                [{"path": "key", "message": "already used by another of your parts"}],
            )
        _validate(existing + [(section, key, body)])
        if part is None:
            part = CustomPart.objects.create(owner=user, section=section, key=key, body=body)
        else:
            part.section, part.key, part.body = section, key, body
            part.save(update_fields=["section", "key", "body", "updated_at"])
    return part


def custom_part_delete(*, part: CustomPart) -> None:
    part.delete()


# --- listing -------------------------------------------------------------------------------------


def _server(s) -> dict:
    return {
        "key": s.key,
        "name": s.name,
        "vendor": s.vendor,
        "gpus": s.gpus,
        "gpu_memory_gb": s.gpu_memory_gb,
        "nvlink_domain_gpus": s.nvlink_domain_gpus,
        "rack_units": s.rack_units,
        "power_kw": s.power_kw,
        "default_per_rack": s.default_per_rack,
        "rack_scale": s.rack_scale,
        "nic_speed_gbps": s.nic_speed_gbps,
        "compute_ports": len(s.compute_ports),
        "rails": s.rails,
        "sources": list(s.sources),
    }


def _switch(s) -> dict:
    return {
        "key": s.key,
        "name": s.name,
        "vendor": s.vendor,
        "technology": list(s.technology),
        "cages": s.cages,
        "form_factor": s.form_factor,
        "top": s.top,
        "speeds": [{"speed_gbps": sp, "ports_per_cage": n, "radix": n * s.cages} for sp, n in sorted(s.speeds.items())],
        "lanes_gbps": s.lanes_gbps,
        "rack_units": s.rack_units,
        "power_kw": s.power_kw,
        "buffer_mb": s.buffer_mb,
        "subnet_manager": s.subnet_manager,
        "sharp": s.sharp,
        "sources": list(s.sources),
    }


def catalog_entries(*, user, section: str) -> tuple[str, list[dict]]:
    """(catalog version, entries of one section), the user's own parts marked `custom: true`."""
    catalog, own = catalog_for(user)
    if section == "servers":
        items = [{**_server(s), "custom": ("servers", k) in own} for k, s in sorted(catalog.servers.items())]
    elif section == "switches":
        items = [{**_switch(s), "custom": ("switches", k) in own} for k, s in sorted(catalog.switches.items())]
    else:
        attr = MEDIA_PARSERS[section][1]
        items = [
            {"key": e[attr], "custom": (section, e[attr]) in own, "entry": e}
            for e in catalog.media.raw.get(section, [])
        ]
    return catalog.version, items
