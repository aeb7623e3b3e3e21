"""The orderable line of a switch or appliance: the part number of the variant the design orders.

A switch model is not a part number: the buyer orders one variant of it (airflow, PSUs, management), each
with its own OPN (engine/catalog/data/switches.yaml `orderable`). The design's `procurement.airflow` picks
the variant; the line names it. Where no public text gives the variant's OPN, the line says so in its part
number and description (never the model name as if it were orderable) and is marked "verify before
ordering" with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

AIRFLOW_WORDS = {"p2c": "P2C (power-to-connector)", "c2p": "C2P (connector-to-power)"}
NO_OPN = "OPN-UNPUBLISHED"  # the part-number suffix of a variant whose OPN no public text gives


@dataclass(frozen=True)
class OrderedPart:
    sku: str
    description: str
    unconfirmed: str = ""


def _unpublished(key: str, airflow: str | None) -> str:
    return "-".join(x for x in (key.upper(), airflow.upper() if airflow else "", NO_OPN) if x)


def switch_part(key: str, model: Any, airflow: str) -> OrderedPart:
    """The BOM line of one switch model (`model` is the catalog's SwitchModel, or None for an unknown key)."""
    name = model.name if model is not None else key
    info = model.orderable.get(airflow) if model is not None else None
    words = AIRFLOW_WORDS.get(airflow, airflow)
    if info is None:
        return OrderedPart(
            _unpublished(key, airflow),
            f"{name}, {words} airflow: no orderable part number for this variant in the catalog; "
            "ask the vendor for the OPN",
            f"no published orderable part number for the {airflow.upper()} variant of {name} (docs/data-gaps.md)",
        )
    code = f"; NVIDIA OPN {info.nvidia_opn}" if info.nvidia_opn else ""
    kit = model.rail_kit
    packed = f"; rail kit {kit.opn} in the package" if kit is not None and kit.in_package else ""
    return OrderedPart(info.opn, f"{name}: {info.variant}{code}{packed}", info.unconfirmed)


def rail_kit_part(model: Any) -> OrderedPart | None:
    kit = getattr(model, "rail_kit", None)
    if kit is None or kit.in_package:
        return None
    return OrderedPart(kit.opn, f"Rail kit for {model.name}: {kit.variant}", kit.unconfirmed)


def appliance_part(key: str, model: Any) -> OrderedPart:
    """An appliance's line: its published OPN, or the appliance named as unpublished and marked to verify."""
    name = model.name if model is not None else key
    info = next(iter(model.orderable.values()), None) if model is not None else None
    if info is None:
        return OrderedPart(
            _unpublished(key, None),
            f"{name} with its software licence: no orderable part number in public text; ask the vendor",
            f"no published orderable part number for the {name} or its licence (docs/data-gaps.md)",
        )
    return OrderedPart(info.opn, f"{name}: {info.variant}", info.unconfirmed)


SWITCH_ROLES = ("leaf", "spine", "core", "oob", "oob-agg")


def device_lines(
    role: str, model_key: str, catalog: Any, procurement: Any = None
) -> list[tuple[str, OrderedPart, float | None]]:
    """The BOM lines one device adds, as (category, part, watts per unit): a switch's variant and its rail kit
    (with procurement.rail_kits), a fabric manager's appliance; nothing for other roles. Watts are the
    published maximum, None where there is none (shown "unknown", never 0). The engine's BOM and the bom
    files' per-network and per-SU split both read this, so they name the same parts."""
    airflow = getattr(procurement, "airflow", "p2c")
    if role in SWITCH_ROLES:
        sw = catalog.switches.get(model_key)
        watts = sw.power_kw * 1000 if sw is not None and sw.power_kw else None
        out = [("switch", switch_part(model_key, sw, airflow), watts)]
        kit = rail_kit_part(sw) if getattr(procurement, "rail_kits", True) else None
        if kit is not None:
            out.append(("switch", kit, None))
        return out
    if role == "ufm":
        ufm = catalog.appliances.get("ufm")
        return [("appliance", appliance_part("ufm", ufm), ufm.power_kw * 1000 if ufm and ufm.power_kw else None)]
    return []
