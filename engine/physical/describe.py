"""Supplier-grade BOM descriptions, built from catalog entries.

A description names the vendor, the orderable part number and what a supplier needs to recognise the
part, e.g. "NVIDIA MFP7E10-N015 MPO-12/APC multimode fiber, OM4, 15 m". Every BOM line kind has one.
"""

from __future__ import annotations

from typing import Any

_VENDOR = {"nvidia": "NVIDIA", "generic": "Generic"}
_CONNECTOR = {"mpo-12": "MPO-12", "mpo-16": "MPO-16", "lc": "LC"}
_MODE = {"sm": "single-mode", "mm": "multimode"}


def vendor_name(vendor: str) -> str:
    return _VENDOR.get(vendor.lower(), vendor)


def _m(length_m: float) -> str:
    return f"{length_m:g} m"


def transceiver(t: Any) -> str:
    opn = f" (OPN {t.opn})" if t.opn and t.opn != t.sku else ""
    return f"{vendor_name(t.vendor)} {t.sku} {t.description or t.pmd}{opn}".strip()


def cable(c: Any, sku: str, length_m: float) -> str:
    """DAC / active copper / AOC: the family's description and the ordered length."""
    what = c.description or {
        "dac": "passive copper cable (DAC)",
        "acc": "active copper cable",
        "aoc": "active optical cable (AOC)",
    }.get(c.kind, c.kind)
    return f"{vendor_name(c.vendor)} {sku} {what}, {_m(length_m)}"


def cord(c: Any, sku: str, length_m: float, loss: Any = None) -> str:
    """A vendor's cord by its part number; a generic cord (our GEN- pattern, no maker's number) also by the
    specification a cable house can quote from, with the connector grade the loss budget (`loss`, the
    policy's LossPolicy) assumed for its mated pairs."""
    conn = f"{_CONNECTOR.get(c.connector, c.connector)}/{c.polish.upper()}"
    if c.connector == "lc":
        conn += " duplex"
    kind = "1:2 splitter fiber" if c.kind == "splitter" else "fiber"
    text = (
        f"{vendor_name(c.vendor)} {sku} {conn} {_MODE.get(c.fiber_mode, c.fiber_mode)} {kind}, "
        f"{c.fiber_type.upper()}, {_m(length_m)}"
    )
    if c.vendor.lower() != "generic":
        return text
    return f"{text}; {cord_spec(c, length_m, loss)}"


# NVIDIA's cabling component limits [S9]: return loss of SM MPO APC better than 60 dB, MM MPO APC better than
# 35 dB, LC SM UPC better than 55 dB (optics-and-cabling.md A2).
_RETURN_LOSS_DB = {("mpo", "sm"): 60, ("mpo", "mm"): 35, ("lc", "sm"): 55}


def cord_spec(c: Any, length_m: float, loss: Any = None) -> str:
    """The supplier-grade specification of a generic cord: fiber, connectors and polish, gender, polarity,
    fibers, insertion-loss grade per mated pair (the one the loss budget uses), return loss, length, jacket."""
    group = "lc" if c.connector == "lc" else "mpo"
    polish = "APC (8 degree)" if c.polish == "apc" else c.polish.upper()
    ends = {"unpinned": "female (unpinned)", "pinned": "male (pinned)"}
    gender = ends.get(c.gender_a, c.gender_a) if c.gender_a == c.gender_b else f"{c.gender_a} / {c.gender_b}"
    parts = [
        f"supplier spec: {c.fiber_type.upper()} {_MODE.get(c.fiber_mode, c.fiber_mode)} fiber",
        f"{_CONNECTOR.get(c.connector, c.connector)} {polish} both ends"
        + (f", {gender}" if c.connector != "lc" else ""),
        f"polarity Type-{c.polarity}" if c.connector != "lc" else f"polarity {c.polarity}",
    ]
    if c.connector != "lc":
        parts.append(f"{c.fibers} fibers" + (f", {c.legs} legs" if c.legs > 1 else ""))
    if loss is not None:
        parts.append(f"insertion loss <= {loss.pair_loss_db(group):g} dB per mated pair ({loss.grade(group)} grade)")
    rl = _RETURN_LOSS_DB.get((group, c.fiber_mode))
    if rl is not None:
        parts.append(f"return loss > {rl} dB")
    parts.append(f"length {_m(length_m)}")
    parts.append("jacket: specify (LSZH, OFNR or OFNP to the site's fire code)")
    return ", ".join(parts)


def trunk(t: Any, sku: str, length_m: float) -> str:
    conn = f"{_CONNECTOR.get(t.connector, t.connector)}/{t.polish.upper()}"
    return (
        f"{vendor_name(t.vendor)} {sku} {conn} {_MODE.get(t.fiber_mode, t.fiber_mode)} trunk, "
        f"{t.fiber_type.upper()}, Type-{t.polarity}, {_m(length_m)}"
    )


def copper_cord(c: Any, sku: str, length_m: float) -> str:
    return f"{vendor_name(c.vendor)} {sku} RJ45 copper patch cord, up to {c.max_gbps} Gb/s, {_m(length_m)}"


def _maker(sku: str) -> str:
    # panels, adapters and cassettes carry no vendor field; the shipped ones are the generic "GEN-" parts
    return "Generic " if sku.startswith("GEN-") else ""


def panel(p: Any) -> str:
    kind = "MPO adapter" if p.kind == "mpo" else "cassette"
    return f"{_maker(p.sku)}{p.sku} {p.rack_units}U patch panel, {p.positions} {kind} positions"


def adapter(a: Any) -> str:
    return f"{_maker(a.sku)}{a.sku} {_CONNECTOR.get(a.connector, a.connector)} adapter, Type-{a.type}"


def cassette(c: Any) -> str:
    return (
        f"{_maker(c.sku)}{c.sku} {_CONNECTOR.get(c.mpo_connector, c.mpo_connector)}/{c.mpo_polish.upper()} to "
        f"{c.lc_ports} x LC/{c.lc_polish.upper()} duplex cassette, Base-{c.base}, "
        f"{_MODE.get(c.fiber_mode, c.fiber_mode)}"
    )
