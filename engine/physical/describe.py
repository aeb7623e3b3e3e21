"""Supplier-grade BOM descriptions, built from catalog entries.

A description names the vendor, the orderable part number and what a supplier needs to recognise the
part, e.g. "NVIDIA MFP7E10-N015 MPO-12/APC multimode fiber, OM4, 15 m". Every BOM line kind has one.
"""

from __future__ import annotations

_VENDOR = {"nvidia": "NVIDIA", "generic": "Generic"}
_CONNECTOR = {"mpo-12": "MPO-12", "mpo-16": "MPO-16", "lc": "LC"}
_MODE = {"sm": "single-mode", "mm": "multimode"}


def vendor_name(vendor: str) -> str:
    return _VENDOR.get(vendor.lower(), vendor)


def _m(length_m: float) -> str:
    return f"{length_m:g} m"


def transceiver(t) -> str:
    opn = f" (OPN {t.opn})" if t.opn and t.opn != t.sku else ""
    return f"{vendor_name(t.vendor)} {t.sku} {t.description or t.pmd}{opn}".strip()


def cable(c, sku: str, length_m: float) -> str:
    """DAC / active copper / AOC: the family's description and the ordered length."""
    what = c.description or {
        "dac": "passive copper cable (DAC)",
        "acc": "active copper cable",
        "aoc": "active optical cable (AOC)",
    }.get(c.kind, c.kind)
    return f"{vendor_name(c.vendor)} {sku} {what}, {_m(length_m)}"


def cord(c, sku: str, length_m: float) -> str:
    conn = f"{_CONNECTOR.get(c.connector, c.connector)}/{c.polish.upper()}"
    if c.connector == "lc":
        conn += " duplex"
    kind = "1:2 splitter fiber" if c.kind == "splitter" else "fiber"
    return (
        f"{vendor_name(c.vendor)} {sku} {conn} {_MODE.get(c.fiber_mode, c.fiber_mode)} {kind}, "
        f"{c.fiber_type.upper()}, {_m(length_m)}"
    )


def trunk(t, sku: str, length_m: float) -> str:
    conn = f"{_CONNECTOR.get(t.connector, t.connector)}/{t.polish.upper()}"
    return (
        f"{vendor_name(t.vendor)} {sku} {conn} {_MODE.get(t.fiber_mode, t.fiber_mode)} trunk, "
        f"{t.fiber_type.upper()}, Type-{t.polarity}, {_m(length_m)}"
    )


def copper_cord(c, sku: str, length_m: float) -> str:
    return f"{vendor_name(c.vendor)} {sku} RJ45 copper patch cord, up to {c.max_gbps} Gb/s, {_m(length_m)}"


def _maker(sku: str) -> str:
    # panels, adapters and cassettes carry no vendor field; the shipped ones are the generic "GEN-" parts
    return "Generic " if sku.startswith("GEN-") else ""


def panel(p) -> str:
    kind = "MPO adapter" if p.kind == "mpo" else "cassette"
    return f"{_maker(p.sku)}{p.sku} {p.rack_units}U patch panel, {p.positions} {kind} positions"


def adapter(a) -> str:
    return f"{_maker(a.sku)}{a.sku} {_CONNECTOR.get(a.connector, a.connector)} adapter, Type-{a.type}"


def cassette(c) -> str:
    return (
        f"{_maker(c.sku)}{c.sku} {_CONNECTOR.get(c.mpo_connector, c.mpo_connector)}/{c.mpo_polish.upper()} to "
        f"{c.lc_ports} x LC/{c.lc_polish.upper()} duplex cassette, Base-{c.base}, "
        f"{_MODE.get(c.fiber_mode, c.fiber_mode)}"
    )
