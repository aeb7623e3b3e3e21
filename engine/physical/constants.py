"""Vocabulary of the physical layer: the allowed values of every enumerated field."""

from __future__ import annotations

FORM_FACTORS = ("osfp", "qsfp112", "qsfp-dd", "qsfp56", "qsfp28", "rj45", "sfp28")
# Plugs a cage of each form factor takes. The QSFP family is backward compatible: a QSFP112 cage takes
# QSFP56 and QSFP28 plugs, a QSFP-DD cage takes QSFP plugs (QSFP-DD/QSFP MSAs; derived, not an NVIDIA
# statement: docs/data-gaps.md). NVIDIA: "QSFP112 are not for use in switches" [parts S14], so a
# switch's QSFP-DD cage is not offered QSFP112 modules (see select._module_fits).
CAGE_TAKES = {
    "osfp": ("osfp",),
    "qsfp112": ("qsfp112", "qsfp56", "qsfp28"),
    "qsfp56": ("qsfp56", "qsfp28"),
    "qsfp28": ("qsfp28",),
    "qsfp-dd": ("qsfp-dd", "qsfp56", "qsfp28"),
    "rj45": ("rj45",),
    "sfp28": ("sfp28",),
}
# The module top (finned IHS / flat RHS) is an OSFP matter; QSFP-family cages carry their own heat sink.
TOPPED_FORM_FACTORS = ("osfp",)
TOPS = ("flat", "finned")
DEVICE_KINDS = ("server", "switch")
TECHNOLOGIES = ("infiniband", "ethernet")

CONNECTORS = ("mpo-12", "mpo-16", "lc")
GENDERS = ("pinned", "unpinned", "none")  # "none": LC, which has no guide pins
POLISHES = ("apc", "upc")
FIBER_MODES = ("sm", "mm")
FIBER_TYPES = ("os2", "om3", "om4", "om5")
FIBER_MODE_OF = {"os2": "sm", "om3": "mm", "om4": "mm", "om5": "mm"}

MEDIA = ("dac", "acc", "aoc", "fiber-sm", "fiber-mm", "copper-rj45")
MEDIUM_PINS = ("auto", "optical", "single-mode", "multimode", "copper")
# Which media each per-tier pin allows.
PIN_ALLOWS = {
    "auto": frozenset(MEDIA),
    "optical": frozenset({"aoc", "fiber-sm", "fiber-mm"}),
    "single-mode": frozenset({"fiber-sm"}),
    "multimode": frozenset({"fiber-mm"}),
    "copper": frozenset({"dac", "acc", "copper-rj45"}),
}
CABLING_MODES = ("direct", "panels")
TRUNK_BASES = (8, 12)
CONNECTOR_GRADES = ("low-loss", "standard")

# Number of fiber positions on each connector face.
POSITIONS = {"mpo-12": 12, "mpo-16": 16, "lc": 2}


def connector_group(connector: str) -> str:
    """Loss/grade group of a connector family: 'mpo' (MPO-12, MPO-16) or 'lc'."""
    return "lc" if connector == "lc" else "mpo"
