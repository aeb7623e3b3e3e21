"""Media catalog: PMDs, transceivers, cables, cords, trunks, adapters, panels, cassettes.

The data lives in ``engine/catalog/data/media/*.yaml``. Each file holds one or more
sections (``pmds``, ``transceivers``, ``cables``, ``cords``, ``trunks``, ``adapters``,
``panels``, ``cassettes``, ``copper_cords``, ``cabling_requirements``); the loader merges
sections across files, then merges the caller's ``extra`` entries (same schema), validates
everything and returns a frozen :class:`MediaCatalog`.

Every entry keeps its ``sources`` (``[Sx]`` tags of shared/reference/optics-and-cabling.md)
and ``confidence`` (a grade string, or a mapping of field -> grade with a ``default``).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from engine.physical.constants import (
    CONNECTORS,
    FIBER_MODES,
    FIBER_TYPES,
    FORM_FACTORS,
    GENDERS,
    POLISHES,
    TECHNOLOGIES,
    TOPS,
)

DATA_DIR = Path(__file__).resolve().parent.parent / "catalog" / "data" / "media"

SECTIONS = (
    "pmds",
    "transceivers",
    "cables",
    "cords",
    "trunks",
    "adapters",
    "panels",
    "cassettes",
    "copper_cords",
    "cabling_requirements",
)
CONFIDENCE_GRADES = ("H", "M", "L", "M-H", "M/L", "L-M", "gap")


class CatalogError(ValueError):
    """A catalog entry is malformed. The message names the file/section, entry and field."""


# --------------------------------------------------------------------------------------
# Entry dataclasses
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Pmd:
    """An optical PMD. Figures are per port; ``ports`` = 2 for twin-port module types."""

    id: str
    name: str
    standard: str
    ports: int
    lanes: int
    lane_gbps: int
    port_gbps: int
    connector: str
    fiber_mode: str
    fiber_types: tuple[str, ...]
    reach_m: tuple[tuple[str, float], ...]
    max_channel_il_db: tuple[tuple[str, float], ...]
    tx_positions: tuple[int, ...]
    rx_positions: tuple[int, ...]
    polish: str | None = None
    port_pmd: str | None = None
    wavelength_nm: int | None = None
    connection_allocation_db: float | None = None
    ieee_attenuation_db_per_km: float | None = None
    breakout_capable: bool = False
    sources: tuple[str, ...] = ()
    confidence: tuple[tuple[str, str], ...] = ()
    unconfirmed: str = ""  # why a number or figure is from a secondary source ("" = confirmed)
    notes: str = ""

    @property
    def interop(self) -> str:
        """Id of the single-port PMD this one interoperates with, port for port."""
        return self.port_pmd or self.id

    @property
    def fibers_per_port(self) -> int:
        return len(self.tx_positions) + len(self.rx_positions)

    def reach_for(self, fiber_type: str) -> float | None:
        return dict(self.reach_m).get(fiber_type)

    def il_limit(self, fiber_type: str) -> float | None:
        return dict(self.max_channel_il_db).get(fiber_type)


@dataclass(frozen=True, slots=True)
class LaneMode:
    """A reduced-lane mode (e.g. a 400G module at 200G on a 1:2 splitter leg)."""

    port_gbps: int
    lanes: int
    power_w: float | None


@dataclass(frozen=True, slots=True)
class Transceiver:
    sku: str
    vendor: str
    form_factor: str
    top: str
    ports: int
    port_gbps: int
    lane_gbps: int
    pmd: str
    connector: str
    polish: str
    fiber_mode: str
    reach_m: tuple[tuple[str, float], ...]
    power_w: float | None
    technologies: tuple[str, ...]
    opn: str = ""
    description: str = ""
    power_w_typ: float | None = None
    splittable: bool = False
    lane_modes: tuple[LaneMode, ...] = ()
    discontinued: bool = False
    sources: tuple[str, ...] = ()
    confidence: tuple[tuple[str, str], ...] = ()
    unconfirmed: str = ""  # why a number or figure is from a secondary source ("" = confirmed)
    notes: str = ""

    def reach_for(self, fiber_type: str) -> float | None:
        return dict(self.reach_m).get(fiber_type)

    def lane_mode(self, port_gbps: int) -> LaneMode | None:
        for mode in self.lane_modes:
            if mode.port_gbps == port_gbps:
                return mode
        return None


@dataclass(frozen=True, slots=True)
class PlugEnd:
    """One end of a cable with its own plugs (DAC/ACC/AOC). ``top``: flat|finned|any."""

    form_factor: str
    top: str
    ports: int
    port_gbps: int | None
    lane_gbps: int | None


@dataclass(frozen=True, slots=True)
class Cable:
    """A DAC, active copper (ACC/LACC) or AOC family, sold in ``lengths_m``."""

    family: str
    sku_pattern: str
    vendor: str
    kind: str  # dac | acc | aoc
    end_a: PlugEnd
    end_b: PlugEnd
    legs: int
    links: int
    lengths_m: tuple[float, ...]
    reach_m: float
    power_w_per_end: float | None
    technologies: tuple[str, ...]
    description: str = ""
    made_to_order: bool = False
    discontinued: bool = False
    sources: tuple[str, ...] = ()
    confidence: tuple[tuple[str, str], ...] = ()
    unconfirmed: str = ""  # why a number or figure is from a secondary source ("" = confirmed)
    notes: str = ""


@dataclass(frozen=True, slots=True)
class Cord:
    """A fiber patch cord (straight) or 1:2 splitter fiber family."""

    family: str
    sku_pattern: str
    vendor: str
    kind: str  # straight | splitter
    connector: str
    polish: str
    fiber_mode: str
    fiber_type: str
    gender_a: str
    gender_b: str
    polarity: str
    fibers: int
    legs: int
    lengths_m: tuple[float, ...]
    fibers_per_leg: int | None = None
    made_to_order: bool = False
    max_link_m: float | None = None
    sources: tuple[str, ...] = ()
    confidence: tuple[tuple[str, str], ...] = ()
    unconfirmed: str = ""  # why a number or figure is from a secondary source ("" = confirmed)
    notes: str = ""


@dataclass(frozen=True, slots=True)
class Trunk:
    """A pre-terminated MPO trunk family (built to order)."""

    family: str
    sku_pattern: str
    vendor: str
    connector: str
    polish: str
    fiber_mode: str
    fiber_type: str
    polarity: str
    bases: tuple[int, ...]
    sources: tuple[str, ...] = ()
    confidence: tuple[tuple[str, str], ...] = ()
    unconfirmed: str = ""  # why a number or figure is from a secondary source ("" = confirmed)
    notes: str = ""


@dataclass(frozen=True, slots=True)
class Adapter:
    sku: str
    connector: str
    type: str  # A | B
    sources: tuple[str, ...] = ()
    confidence: tuple[tuple[str, str], ...] = ()
    unconfirmed: str = ""  # why a number or figure is from a secondary source ("" = confirmed)
    notes: str = ""


@dataclass(frozen=True, slots=True)
class Panel:
    sku: str
    kind: str  # mpo | cassette
    rack_units: int
    positions: int
    sources: tuple[str, ...] = ()
    confidence: tuple[tuple[str, str], ...] = ()
    unconfirmed: str = ""  # why a number or figure is from a secondary source ("" = confirmed)
    notes: str = ""


@dataclass(frozen=True, slots=True)
class Cassette:
    sku: str
    base: int
    lc_ports: int
    mpo_connector: str
    mpo_gender: str
    mpo_polish: str
    lc_polish: str
    fiber_mode: str
    sources: tuple[str, ...] = ()
    confidence: tuple[tuple[str, str], ...] = ()
    unconfirmed: str = ""  # why a number or figure is from a secondary source ("" = confirmed)
    notes: str = ""


@dataclass(frozen=True, slots=True)
class CopperCord:
    family: str
    sku_pattern: str
    vendor: str
    lengths_m: tuple[float, ...]
    reach_m: float
    max_gbps: int
    made_to_order: bool = False
    sources: tuple[str, ...] = ()
    confidence: tuple[tuple[str, str], ...] = ()
    unconfirmed: str = ""  # why a number or figure is from a secondary source ("" = confirmed)
    notes: str = ""


@dataclass(frozen=True, slots=True)
class CablingRules:
    """A transceiver vendor's cabling requirements (component compliance)."""

    vendor: str
    mpo_max_il_db: float | None = None
    mpo_polish: str | None = None
    lc_max_il_db: float | None = None
    lc_polish: str | None = None
    max_panels: int | None = None
    max_mated_pairs: int | None = None
    cord_polarity: str | None = None
    trunk_polarity: str | None = None
    cord_gender: str | None = None
    trunk_gender: str | None = None
    max_length_m: tuple[tuple[str, float], ...] = ()
    min_return_loss_db: tuple[tuple[str, float], ...] = ()
    sources: tuple[str, ...] = ()
    confidence: tuple[tuple[str, str], ...] = ()
    unconfirmed: str = ""  # why a number or figure is from a secondary source ("" = confirmed)
    notes: str = ""


@dataclass(frozen=True, eq=False)
class MediaCatalog:
    """The validated media catalog. Hashes by identity, so it can key memo caches."""

    version: str
    pmds: Mapping[str, Pmd]
    transceivers: Mapping[str, Transceiver]
    cables: Mapping[str, Cable]
    cords: Mapping[str, Cord]
    trunks: Mapping[str, Trunk]
    adapters: Mapping[str, Adapter]
    panels: Mapping[str, Panel]
    cassettes: Mapping[str, Cassette]
    copper_cords: Mapping[str, CopperCord]
    cabling_requirements: Mapping[str, CablingRules]
    raw: Mapping[str, Any] = field(repr=False, default_factory=dict)

    def pmd(self, pmd_id: str) -> Pmd:
        return self.pmds[pmd_id]


# --------------------------------------------------------------------------------------
# Validation helpers. Each field spec is (name, kind, required, extra) and the checkers
# raise CatalogError with "<where>: field '<name>' ..." messages.
# --------------------------------------------------------------------------------------

_MISSING = object()


def _fail(where: str, name: str, msg: str) -> CatalogError:
    return CatalogError(f"{where}: field '{name}' {msg}")


def _num(where: str, name: str, v: Any, *, positive: bool = False, allow_zero: bool = True) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise _fail(where, name, f"must be a number, got {v!r}")
    if positive and (v < 0 or (v == 0 and not allow_zero)):
        raise _fail(where, name, f"must be {'> 0' if not allow_zero else '>= 0'}, got {v!r}")
    return float(v)


def _int(where: str, name: str, v: Any, *, choices: tuple[int, ...] | None = None, minimum: int = 0) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise _fail(where, name, f"must be an integer, got {v!r}")
    if choices is not None and v not in choices:
        raise _fail(where, name, f"must be one of {list(choices)}, got {v!r}")
    if v < minimum:
        raise _fail(where, name, f"must be >= {minimum}, got {v!r}")
    return v


def _str(where: str, name: str, v: Any, *, choices: tuple[str, ...] | None = None) -> str:
    if not isinstance(v, str) or not v.strip():
        raise _fail(where, name, f"must be a non-empty string, got {v!r}")
    if choices is not None and v not in choices:
        raise _fail(where, name, f"must be one of {list(choices)}, got {v!r}")
    return v


def _bool(where: str, name: str, v: Any) -> bool:
    if not isinstance(v, bool):
        raise _fail(where, name, f"must be true or false, got {v!r}")
    return v


def _str_list(where: str, name: str, v: Any, *, choices: tuple[str, ...] | None = None) -> tuple[str, ...]:
    if not isinstance(v, (list, tuple)):
        raise _fail(where, name, f"must be a list, got {v!r}")
    return tuple(_str(where, f"{name}[{i}]", x, choices=choices) for i, x in enumerate(v))


def _num_list(where: str, name: str, v: Any) -> tuple[float, ...]:
    if not isinstance(v, (list, tuple)) or not v:
        raise _fail(where, name, f"must be a non-empty list of numbers, got {v!r}")
    out = tuple(_num(where, f"{name}[{i}]", x, positive=True, allow_zero=False) for i, x in enumerate(v))
    return tuple(sorted(set(out)))


def _int_list(where: str, name: str, v: Any, *, minimum: int = 1) -> tuple[int, ...]:
    if not isinstance(v, (list, tuple)) or not v:
        raise _fail(where, name, f"must be a non-empty list of integers, got {v!r}")
    return tuple(_int(where, f"{name}[{i}]", x, minimum=minimum) for i, x in enumerate(v))


def _num_map(where: str, name: str, v: Any, *, keys: tuple[str, ...] | None = None) -> tuple[tuple[str, float], ...]:
    if not isinstance(v, Mapping) or not v:
        raise _fail(where, name, f"must be a non-empty mapping, got {v!r}")
    out = []
    for k, x in v.items():
        if keys is not None and k not in keys:
            raise _fail(where, f"{name}.{k}", f"is not a known key; expected one of {list(keys)}")
        out.append((str(k), _num(where, f"{name}.{k}", x, positive=True)))
    return tuple(sorted(out))


def _confidence(where: str, v: Any) -> tuple[tuple[str, str], ...]:
    if isinstance(v, str):
        _str(where, "confidence", v, choices=CONFIDENCE_GRADES)
        return (("default", v),)
    if isinstance(v, Mapping) and v:
        out = []
        for k, g in v.items():
            out.append((str(k), _str(where, f"confidence.{k}", g, choices=CONFIDENCE_GRADES)))
        return tuple(sorted(out))
    raise _fail(
        where, "confidence", f"must be a grade {list(CONFIDENCE_GRADES)} or a mapping field -> grade, got {v!r}"
    )


def _common(where: str, d: Mapping[str, Any]) -> dict[str, Any]:
    """sources (required list of [Sx] tags, may be empty), confidence (required), notes."""
    if "sources" not in d:
        raise _fail(where, "sources", "is required (list of source tags, e.g. [S9])")
    if "confidence" not in d:
        raise _fail(where, "confidence", "is required (H, M, L or gap, or a mapping field -> grade)")
    return {
        "sources": _str_list(where, "sources", d["sources"]),
        "confidence": _confidence(where, d["confidence"]),
        "notes": str(d.get("notes", "") or ""),
        "unconfirmed": _unconfirmed(where, d.get("unconfirmed")),
    }


def _unconfirmed(where: str, v: Any) -> str:
    """``unconfirmed``: absent/false (confirmed by a primary source), or the reason a number or figure is
    only from a secondary source. ``true`` is accepted as "secondary source"."""
    if v is None or v is False:
        return ""
    if v is True:
        return "secondary source"
    if isinstance(v, str) and v.strip():
        return v.strip()
    raise _fail(where, "unconfirmed", f"must be false, true or the reason (text), got {v!r}")


class _Reader:
    """Reads typed fields from one raw entry, tracking which keys were used."""

    def __init__(self, where: str, d: Any, allowed: tuple[str, ...]) -> None:
        if not isinstance(d, Mapping):
            raise CatalogError(f"{where}: entry must be a mapping, got {d!r}")
        unknown = sorted(set(d) - set(allowed) - {"sources", "confidence", "notes", "replaces", "unconfirmed"})
        if unknown:
            raise CatalogError(f"{where}: unknown field(s) {unknown}; allowed: {sorted(allowed)}")
        self.where, self.d = where, d

    def get(self, name: str, default: Any = _MISSING) -> Any:
        if name in self.d:
            return self.d[name]
        if default is _MISSING:
            raise _fail(self.where, name, "is required")
        return default


def _plug_end(where: str, name: str, v: Any) -> PlugEnd:
    r = _Reader(f"{where}.{name}", v, ("form_factor", "top", "ports", "port_gbps", "lane_gbps"))
    w = r.where
    pg, lg = r.get("port_gbps", None), r.get("lane_gbps", None)
    return PlugEnd(
        form_factor=_str(w, "form_factor", r.get("form_factor"), choices=FORM_FACTORS),
        top=_str(w, "top", r.get("top", "any"), choices=(*TOPS, "any")),
        ports=_int(w, "ports", r.get("ports", 1), choices=(1, 2)),
        port_gbps=None if pg is None else _int(w, "port_gbps", pg, minimum=1),
        lane_gbps=None if lg is None else _int(w, "lane_gbps", lg, minimum=1),
    )


def _parse_pmd(where: str, d: Any) -> Pmd:
    r = _Reader(
        where,
        d,
        (
            "id",
            "name",
            "standard",
            "ports",
            "port_pmd",
            "lanes",
            "lane_gbps",
            "port_gbps",
            "connector",
            "polish",
            "fiber_mode",
            "fiber_types",
            "wavelength_nm",
            "reach_m",
            "max_channel_il_db",
            "connection_allocation_db",
            "ieee_attenuation_db_per_km",
            "tx_positions",
            "rx_positions",
            "breakout_capable",
        ),
    )
    w = where
    fiber_types = _str_list(w, "fiber_types", r.get("fiber_types"), choices=FIBER_TYPES)
    connector = _str(w, "connector", r.get("connector"), choices=CONNECTORS)
    tx = _int_list(w, "tx_positions", r.get("tx_positions"))
    rx = _int_list(w, "rx_positions", r.get("rx_positions"))
    npos = _positions(connector)
    for p in tx + rx:
        if p > npos:
            raise _fail(w, "tx_positions/rx_positions", f"position {p} exceeds {connector}'s {npos} positions")
    if len(set(tx + rx)) != len(tx) + len(rx) or len(tx) != len(rx):
        raise _fail(w, "tx_positions/rx_positions", "must be equally long and must not share a position")
    ca, att, wl, polish = (
        r.get("connection_allocation_db", None),
        r.get("ieee_attenuation_db_per_km", None),
        r.get("wavelength_nm", None),
        r.get("polish", None),
    )
    pmd = Pmd(
        id=_str(w, "id", r.get("id")),
        name=_str(w, "name", r.get("name")),
        standard=_str(w, "standard", r.get("standard")),
        ports=_int(w, "ports", r.get("ports", 1), choices=(1, 2)),
        port_pmd=r.get("port_pmd", None),
        lanes=_int(w, "lanes", r.get("lanes"), minimum=1),
        lane_gbps=_int(w, "lane_gbps", r.get("lane_gbps"), minimum=1),
        port_gbps=_int(w, "port_gbps", r.get("port_gbps"), minimum=1),
        connector=connector,
        polish=None if polish is None else _str(w, "polish", polish, choices=POLISHES),
        fiber_mode=_str(w, "fiber_mode", r.get("fiber_mode"), choices=FIBER_MODES),
        fiber_types=fiber_types,
        wavelength_nm=None if wl is None else _int(w, "wavelength_nm", wl, minimum=1),
        reach_m=_num_map(w, "reach_m", r.get("reach_m"), keys=fiber_types),
        # A PMD whose channel limit the reference does not give keeps it empty (its links' loss check
        # then reports "no max channel IL" rather than a guessed limit).
        max_channel_il_db=(
            ()
            if not r.get("max_channel_il_db", None)
            else _num_map(w, "max_channel_il_db", r.get("max_channel_il_db"), keys=fiber_types)
        ),
        connection_allocation_db=None if ca is None else _num(w, "connection_allocation_db", ca, positive=True),
        ieee_attenuation_db_per_km=None if att is None else _num(w, "ieee_attenuation_db_per_km", att, positive=True),
        tx_positions=tx,
        rx_positions=rx,
        breakout_capable=_bool(w, "breakout_capable", r.get("breakout_capable", False)),
        **_common(w, d),
    )
    if pmd.ports == 2 and not pmd.port_pmd:
        raise _fail(w, "port_pmd", "is required for a twin-port (ports: 2) PMD")
    return pmd


def _parse_transceiver(where: str, d: Any) -> Transceiver:
    r = _Reader(
        where,
        d,
        (
            "sku",
            "opn",
            "vendor",
            "description",
            "form_factor",
            "top",
            "ports",
            "port_gbps",
            "lane_gbps",
            "pmd",
            "connector",
            "polish",
            "fiber_mode",
            "reach_m",
            "power_w",
            "power_w_typ",
            "splittable",
            "lane_modes",
            "technologies",
            "discontinued",
        ),
    )
    w = where
    modes = []
    raw_modes = r.get("lane_modes", [])
    if not isinstance(raw_modes, list):
        raise _fail(w, "lane_modes", f"must be a list, got {raw_modes!r}")
    for i, m in enumerate(raw_modes):
        mr = _Reader(f"{w}.lane_modes[{i}]", m, ("port_gbps", "lanes", "power_w"))
        pw = mr.get("power_w", None)
        modes.append(
            LaneMode(
                port_gbps=_int(mr.where, "port_gbps", mr.get("port_gbps"), minimum=1),
                lanes=_int(mr.where, "lanes", mr.get("lanes"), minimum=1),
                power_w=None if pw is None else _num(mr.where, "power_w", pw, positive=True),
            )
        )
    pw, pwt = r.get("power_w", None), r.get("power_w_typ", None)
    return Transceiver(
        sku=_str(w, "sku", r.get("sku")),
        opn=str(r.get("opn", "") or ""),
        vendor=_str(w, "vendor", r.get("vendor")),
        description=str(r.get("description", "") or ""),
        form_factor=_str(w, "form_factor", r.get("form_factor"), choices=FORM_FACTORS),
        top=_str(w, "top", r.get("top"), choices=TOPS),
        ports=_int(w, "ports", r.get("ports"), choices=(1, 2)),
        port_gbps=_int(w, "port_gbps", r.get("port_gbps"), minimum=1),
        lane_gbps=_int(w, "lane_gbps", r.get("lane_gbps"), minimum=1),
        pmd=_str(w, "pmd", r.get("pmd")),
        connector=_str(w, "connector", r.get("connector"), choices=CONNECTORS),
        polish=_str(w, "polish", r.get("polish"), choices=POLISHES),
        fiber_mode=_str(w, "fiber_mode", r.get("fiber_mode"), choices=FIBER_MODES),
        reach_m=_num_map(w, "reach_m", r.get("reach_m"), keys=FIBER_TYPES),
        power_w=None if pw is None else _num(w, "power_w", pw, positive=True),
        power_w_typ=None if pwt is None else _num(w, "power_w_typ", pwt, positive=True),
        splittable=_bool(w, "splittable", r.get("splittable", False)),
        lane_modes=tuple(modes),
        technologies=_str_list(w, "technologies", r.get("technologies"), choices=TECHNOLOGIES),
        discontinued=_bool(w, "discontinued", r.get("discontinued", False)),
        **_common(w, d),
    )


def _parse_cable(where: str, d: Any) -> Cable:
    r = _Reader(
        where,
        d,
        (
            "family",
            "sku_pattern",
            "vendor",
            "kind",
            "description",
            "end_a",
            "end_b",
            "legs",
            "links",
            "lengths_m",
            "reach_m",
            "power_w_per_end",
            "technologies",
            "made_to_order",
            "discontinued",
        ),
    )
    w = where
    pw = r.get("power_w_per_end", None)
    return Cable(
        family=_str(w, "family", r.get("family")),
        sku_pattern=_pattern(w, r.get("sku_pattern")),
        vendor=_str(w, "vendor", r.get("vendor")),
        kind=_str(w, "kind", r.get("kind"), choices=("dac", "acc", "aoc")),
        description=str(r.get("description", "") or ""),
        end_a=_plug_end(w, "end_a", r.get("end_a")),
        end_b=_plug_end(w, "end_b", r.get("end_b")),
        legs=_int(w, "legs", r.get("legs", 1), choices=(1, 2, 4)),
        links=_int(w, "links", r.get("links", 1), minimum=1),
        lengths_m=_num_list(w, "lengths_m", r.get("lengths_m")),
        reach_m=_num(w, "reach_m", r.get("reach_m"), positive=True, allow_zero=False),
        power_w_per_end=None if pw is None else _num(w, "power_w_per_end", pw, positive=True),
        technologies=_str_list(w, "technologies", r.get("technologies"), choices=TECHNOLOGIES),
        made_to_order=_bool(w, "made_to_order", r.get("made_to_order", False)),
        discontinued=_bool(w, "discontinued", r.get("discontinued", False)),
        **_common(w, d),
    )


def _parse_cord(where: str, d: Any) -> Cord:
    r = _Reader(
        where,
        d,
        (
            "family",
            "sku_pattern",
            "vendor",
            "kind",
            "connector",
            "polish",
            "fiber_mode",
            "fiber_type",
            "gender_a",
            "gender_b",
            "polarity",
            "fibers",
            "legs",
            "fibers_per_leg",
            "lengths_m",
            "made_to_order",
            "max_link_m",
        ),
    )
    w = where
    connector = _str(w, "connector", r.get("connector"), choices=CONNECTORS)
    pol_choices = ("A-B", "A-A") if connector == "lc" else ("A", "B", "C")
    fpl, mlm = r.get("fibers_per_leg", None), r.get("max_link_m", None)
    cord = Cord(
        family=_str(w, "family", r.get("family")),
        sku_pattern=_pattern(w, r.get("sku_pattern")),
        vendor=_str(w, "vendor", r.get("vendor")),
        kind=_str(w, "kind", r.get("kind"), choices=("straight", "splitter")),
        connector=connector,
        polish=_str(w, "polish", r.get("polish"), choices=POLISHES),
        fiber_mode=_str(w, "fiber_mode", r.get("fiber_mode"), choices=FIBER_MODES),
        fiber_type=_str(w, "fiber_type", r.get("fiber_type"), choices=FIBER_TYPES),
        gender_a=_str(w, "gender_a", r.get("gender_a"), choices=GENDERS),
        gender_b=_str(w, "gender_b", r.get("gender_b"), choices=GENDERS),
        polarity=_str(w, "polarity", r.get("polarity"), choices=pol_choices),
        fibers=_int(w, "fibers", r.get("fibers"), minimum=1),
        legs=_int(w, "legs", r.get("legs", 1), choices=(1, 2)),
        fibers_per_leg=None if fpl is None else _int(w, "fibers_per_leg", fpl, minimum=1),
        lengths_m=_num_list(w, "lengths_m", r.get("lengths_m")),
        made_to_order=_bool(w, "made_to_order", r.get("made_to_order", False)),
        max_link_m=None if mlm is None else _num(w, "max_link_m", mlm, positive=True, allow_zero=False),
        **_common(w, d),
    )
    if cord.fibers > _positions(connector):
        raise _fail(w, "fibers", f"{cord.fibers} fibers do not fit a {connector} connector")
    if cord.kind == "splitter" and (cord.legs != 2 or cord.fibers_per_leg is None):
        raise _fail(w, "legs", "a splitter needs legs: 2 and fibers_per_leg")
    return cord


def _parse_trunk(where: str, d: Any) -> Trunk:
    r = _Reader(
        where,
        d,
        ("family", "sku_pattern", "vendor", "connector", "polish", "fiber_mode", "fiber_type", "polarity", "bases"),
    )
    w = where
    bases = _int_list(w, "bases", r.get("bases"))
    for b in bases:
        if b not in (8, 12, 16):
            raise _fail(w, "bases", f"must hold only 8, 12 or 16, got {b}")
    return Trunk(
        family=_str(w, "family", r.get("family")),
        sku_pattern=_pattern(w, r.get("sku_pattern")),
        vendor=_str(w, "vendor", r.get("vendor")),
        connector=_str(w, "connector", r.get("connector"), choices=("mpo-12", "mpo-16")),
        polish=_str(w, "polish", r.get("polish"), choices=POLISHES),
        fiber_mode=_str(w, "fiber_mode", r.get("fiber_mode"), choices=FIBER_MODES),
        fiber_type=_str(w, "fiber_type", r.get("fiber_type"), choices=FIBER_TYPES),
        polarity=_str(w, "polarity", r.get("polarity"), choices=("A", "B", "C")),
        bases=bases,
        **_common(w, d),
    )


def _parse_adapter(where: str, d: Any) -> Adapter:
    r = _Reader(where, d, ("sku", "connector", "type"))
    w = where
    return Adapter(
        sku=_str(w, "sku", r.get("sku")),
        connector=_str(w, "connector", r.get("connector"), choices=CONNECTORS),
        type=_str(w, "type", r.get("type"), choices=("A", "B")),
        **_common(w, d),
    )


def _parse_panel(where: str, d: Any) -> Panel:
    r = _Reader(where, d, ("sku", "kind", "rack_units", "positions"))
    w = where
    return Panel(
        sku=_str(w, "sku", r.get("sku")),
        kind=_str(w, "kind", r.get("kind"), choices=("mpo", "cassette")),
        rack_units=_int(w, "rack_units", r.get("rack_units"), minimum=1),
        positions=_int(w, "positions", r.get("positions"), minimum=1),
        **_common(w, d),
    )


def _parse_cassette(where: str, d: Any) -> Cassette:
    r = _Reader(
        where,
        d,
        ("sku", "base", "lc_ports", "mpo_connector", "mpo_gender", "mpo_polish", "lc_polish", "fiber_mode"),
    )
    w = where
    cas = Cassette(
        sku=_str(w, "sku", r.get("sku")),
        base=_int(w, "base", r.get("base"), choices=(8, 12)),
        lc_ports=_int(w, "lc_ports", r.get("lc_ports"), minimum=1),
        mpo_connector=_str(w, "mpo_connector", r.get("mpo_connector"), choices=("mpo-12",)),
        mpo_gender=_str(w, "mpo_gender", r.get("mpo_gender"), choices=("pinned", "unpinned")),
        mpo_polish=_str(w, "mpo_polish", r.get("mpo_polish"), choices=POLISHES),
        lc_polish=_str(w, "lc_polish", r.get("lc_polish"), choices=POLISHES),
        fiber_mode=_str(w, "fiber_mode", r.get("fiber_mode"), choices=FIBER_MODES),
        **_common(w, d),
    )
    if cas.lc_ports * 2 != cas.base:
        raise _fail(w, "lc_ports", f"{cas.lc_ports} duplex ports do not match base {cas.base}")
    return cas


def _parse_copper_cord(where: str, d: Any) -> CopperCord:
    r = _Reader(where, d, ("family", "sku_pattern", "vendor", "lengths_m", "made_to_order", "reach_m", "max_gbps"))
    w = where
    return CopperCord(
        family=_str(w, "family", r.get("family")),
        sku_pattern=_pattern(w, r.get("sku_pattern")),
        vendor=_str(w, "vendor", r.get("vendor")),
        lengths_m=_num_list(w, "lengths_m", r.get("lengths_m")),
        made_to_order=_bool(w, "made_to_order", r.get("made_to_order", False)),
        reach_m=_num(w, "reach_m", r.get("reach_m"), positive=True, allow_zero=False),
        max_gbps=_int(w, "max_gbps", r.get("max_gbps"), minimum=1),
        **_common(w, d),
    )


def _parse_rules(where: str, d: Any) -> CablingRules:
    r = _Reader(
        where,
        d,
        (
            "vendor",
            "mpo_max_il_db",
            "mpo_polish",
            "lc_max_il_db",
            "lc_polish",
            "max_panels",
            "max_mated_pairs",
            "cord_polarity",
            "trunk_polarity",
            "cord_gender",
            "trunk_gender",
            "max_length_m",
            "min_return_loss_db",
        ),
    )
    w = where

    def opt_num(name: str) -> float | None:
        v = r.get(name, None)
        return None if v is None else _num(w, name, v, positive=True)

    def opt_str(name: str, choices: tuple[str, ...]) -> str | None:
        v = r.get(name, None)
        return None if v is None else _str(w, name, v, choices=choices)

    def opt_int(name: str) -> int | None:
        v = r.get(name, None)
        return None if v is None else _int(w, name, v)

    ml, rl = r.get("max_length_m", None), r.get("min_return_loss_db", None)
    return CablingRules(
        vendor=_str(w, "vendor", r.get("vendor")),
        mpo_max_il_db=opt_num("mpo_max_il_db"),
        mpo_polish=opt_str("mpo_polish", POLISHES),
        lc_max_il_db=opt_num("lc_max_il_db"),
        lc_polish=opt_str("lc_polish", POLISHES),
        max_panels=opt_int("max_panels"),
        max_mated_pairs=opt_int("max_mated_pairs"),
        cord_polarity=opt_str("cord_polarity", ("A", "B", "C")),
        trunk_polarity=opt_str("trunk_polarity", ("A", "B", "C")),
        cord_gender=opt_str("cord_gender", ("pinned", "unpinned")),
        trunk_gender=opt_str("trunk_gender", ("pinned", "unpinned")),
        max_length_m=() if ml is None else _num_map(w, "max_length_m", ml),
        min_return_loss_db=() if rl is None else _num_map(w, "min_return_loss_db", rl),
        **_common(w, d),
    )


def _pattern(where: str, v: Any) -> str:
    s = _str(where, "sku_pattern", v)
    try:
        s.format(nv="X", m="X", fibers="X", gender="X")
    except (KeyError, IndexError, ValueError) as exc:
        raise _fail(
            where, "sku_pattern", f"has an unknown placeholder ({exc}); use {{nv}}, {{m}}, {{fibers}}, {{gender}}"
        ) from None
    return s


def _positions(connector: str) -> int:
    return {"mpo-12": 12, "mpo-16": 16, "lc": 2}[connector]


# section -> (parser, key attribute)
_PARSERS = {
    "pmds": (_parse_pmd, "id"),
    "transceivers": (_parse_transceiver, "sku"),
    "cables": (_parse_cable, "family"),
    "cords": (_parse_cord, "family"),
    "trunks": (_parse_trunk, "family"),
    "adapters": (_parse_adapter, "sku"),
    "panels": (_parse_panel, "sku"),
    "cassettes": (_parse_cassette, "sku"),
    "copper_cords": (_parse_copper_cord, "family"),
    "cabling_requirements": (_parse_rules, "vendor"),
}


# --------------------------------------------------------------------------------------
# Loading and merging
# --------------------------------------------------------------------------------------


def _read_files(data_dir: Path) -> tuple[str, dict[str, list[tuple[str, Any]]]]:
    """Returns (data version, section -> [(origin, raw entry)]) from every *.yaml file."""
    sections: dict[str, list[tuple[str, Any]]] = {s: [] for s in SECTIONS}
    versions = set()
    files = sorted(data_dir.glob("*.yaml"))
    if not files:
        raise CatalogError(f"media catalog: no *.yaml files in {data_dir}")
    for path in files:
        with path.open(encoding="utf-8") as fh:
            doc = yaml.safe_load(fh) or {}
        if not isinstance(doc, Mapping):
            raise CatalogError(f"{path.name}: top level must be a mapping")
        for key, value in doc.items():
            if key == "version":
                versions.add(str(value))
                continue
            if key not in sections:
                raise CatalogError(f"{path.name}: unknown section '{key}'; expected one of {list(SECTIONS)}")
            if not isinstance(value, list):
                raise CatalogError(f"{path.name}: section '{key}' must be a list")
            sections[key].extend((f"{path.name}: {key}[{i}]", e) for i, e in enumerate(value))
    return "/".join(sorted(versions)) or "0", sections


def load_media_catalog(extra: Mapping[str, Any] | None = None, *, data_dir: Path | str | None = None) -> MediaCatalog:
    """Load the media catalog, merge ``extra`` (same sections and schema), validate.

    An ``extra`` entry whose key (sku / id / family / vendor) already exists is an error
    unless it carries ``replaces: true``, in which case it replaces the built-in entry.
    Raises :class:`CatalogError` naming the section, entry and field at fault.
    """
    version, sections = _read_files(Path(data_dir) if data_dir else DATA_DIR)
    if extra:
        if not isinstance(extra, Mapping):
            raise CatalogError("media catalog extra: must be a mapping of section -> list of entries")
        for key, value in extra.items():
            if key not in sections:
                raise CatalogError(f"media catalog extra: unknown section '{key}'; expected one of {list(SECTIONS)}")
            if not isinstance(value, (list, tuple)):
                raise CatalogError(f"media catalog extra: section '{key}' must be a list")
            sections[key].extend((f"extra: {key}[{i}]", e) for i, e in enumerate(value))

    parsed: dict[str, dict[str, Any]] = {}
    raw_out: dict[str, list[Any]] = {}
    for section in SECTIONS:
        parser, key_attr = _PARSERS[section]
        entries: dict[str, Any] = {}
        raw_entries: dict[str, Any] = {}
        for origin, raw in sections[section]:
            entry = parser(origin, raw)
            key = getattr(entry, key_attr)
            if key in entries:
                replaces = isinstance(raw, Mapping) and raw.get("replaces") is True
                if not (origin.startswith("extra") and replaces):
                    raise CatalogError(
                        f"{origin}: duplicate {key_attr} '{key}' (set replaces: true in a user entry to override)"
                    )
            entries[key] = entry
            raw_entries[key] = raw
        parsed[section] = entries
        raw_out[section] = [raw_entries[k] for k in sorted(raw_entries)]

    _cross_check(parsed)
    digest = hashlib.sha256(json.dumps(raw_out, sort_keys=True, default=str).encode()).hexdigest()[:10]
    return MediaCatalog(version=f"{version}+{digest}", raw=raw_out, **parsed)


def _cross_check(p: dict[str, dict[str, Any]]) -> None:
    pmds = p["pmds"]
    for pmd in pmds.values():
        if pmd.port_pmd and pmd.port_pmd not in pmds:
            raise CatalogError(f"pmds '{pmd.id}': port_pmd '{pmd.port_pmd}' is not a known PMD")
    for t in p["transceivers"].values():
        where = f"transceivers '{t.sku}'"
        pmd = pmds.get(t.pmd)
        if pmd is None:
            raise CatalogError(f"{where}: field 'pmd' names unknown PMD '{t.pmd}'; known: {sorted(pmds)}")
        if pmd.ports != t.ports:
            raise CatalogError(f"{where}: ports {t.ports} does not match PMD '{pmd.id}' ports {pmd.ports}")
        if pmd.connector != t.connector or pmd.fiber_mode != t.fiber_mode:
            raise CatalogError(f"{where}: connector/fiber_mode do not match PMD '{pmd.id}'")
        if pmd.port_gbps != t.port_gbps or pmd.lane_gbps != t.lane_gbps:
            raise CatalogError(f"{where}: port_gbps/lane_gbps do not match PMD '{pmd.id}'")
        for ft, _ in t.reach_m:
            if ft not in pmd.fiber_types:
                raise CatalogError(f"{where}: reach_m names fiber type '{ft}' that PMD '{pmd.id}' does not use")


def sku_for_length(pattern: str, length_m: float, **fields: Any) -> str:
    """Render a SKU pattern for a length: {nv} NVIDIA code (N003, N01A), {m} plain metres."""
    whole = int(length_m)
    nv = f"{whole:02d}A" if abs(length_m - whole - 0.5) < 1e-9 else f"{math.ceil(length_m - 1e-9):03d}"
    m = f"{length_m:g}"
    return pattern.format(nv=nv, m=m, **fields)
