"""Media catalog: PMDs, transceivers, cables, cords, trunks, adapters, panels, cassettes.

The data lives in ``engine/catalog/data/media/*.yaml``. Each file holds one or more
sections (``pmds``, ``transceivers``, ``cables``, ``cords``, ``trunks``, ``adapters``,
``panels``, ``cassettes``, ``copper_cords``, ``cabling_requirements``); the loader merges
sections across files, then merges the caller's ``extra`` entries (same schema), validates
everything and returns a frozen :class:`MediaCatalog`. Entries are read by the catalog's one loader
(engine/catalog/loader.py) from the dataclasses' own fields and rules; the hardware catalog uses it too.

Every entry keeps its ``sources`` (``[Sx]`` tags of shared/reference/optics-and-cabling.md)
and ``confidence`` (a grade string, or a mapping of field -> grade with a ``default``).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from engine.catalog.loader import Where, build, convert, field, read_shipped
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
# Field rules. The entries are read by the catalog's one loader (engine/catalog/loader.py) from these
# dataclasses' fields; a rule beyond a field's type is its `check`, a written form other than its type's its
# `read`. Messages name "<file>: <section>[i]: field '<name>'".
# --------------------------------------------------------------------------------------


def _one_of(choices: tuple[Any, ...]) -> Callable[[Any, Where], None]:
    def check(v: Any, where: Where) -> None:
        for i, x in enumerate(v) if isinstance(v, tuple) else ((None, v),):
            if x not in choices:
                at = where if i is None else where.at(f"[{i}]")
                raise at.error(f"must be one of {list(choices)}, got {x!r}")

    return check


def _at_least(minimum: int) -> Callable[[Any, Where], None]:
    def check(v: Any, where: Where) -> None:
        for i, x in enumerate(v) if isinstance(v, tuple) else ((None, v),):
            if x < minimum:
                at = where if i is None else where.at(f"[{i}]")
                raise at.error(f"must be >= {minimum}, got {x!r}")

    return check


def _not_negative(v: float, where: Where) -> None:
    if v < 0:
        raise where.error(f"must be >= 0, got {v!r}")


def _positive(v: float, where: Where) -> None:
    if v <= 0:
        raise where.error(f"must be > 0, got {v!r}")


def _text(v: str, where: Where) -> None:
    if not v.strip():
        raise where.error(f"must be a non-empty string, got {v!r}")


def _text_one_of(choices: tuple[str, ...]) -> Callable[[Any, Where], None]:
    choice = _one_of(choices)

    def check(v: Any, where: Where) -> None:
        for i, x in enumerate(v) if isinstance(v, tuple) else ((None, v),):
            _text(x, where if i is None else where.at(f"[{i}]"))
        choice(v, where)

    return check


def _bases(v: tuple[int, ...], where: Where) -> None:
    if not v:
        raise where.error(f"must be a non-empty list of integers, got {list(v)!r}")
    for b in v:
        if b not in (8, 12, 16):
            raise where.error(f"must hold only 8, 12 or 16, got {b}")


def _num_map(keys: tuple[str, ...] | None = None) -> Callable[[Any, Where], tuple[tuple[str, float], ...]]:
    """A non-empty mapping of name -> number >= 0, kept as sorted pairs; `keys` the names it may use."""

    def read(v: Any, where: Where) -> tuple[tuple[str, float], ...]:
        if not isinstance(v, Mapping) or not v:
            raise where.error(f"must be a non-empty mapping, got {v!r}")
        out = []
        for k, x in v.items():
            if keys is not None and k not in keys:
                raise where.at(str(k)).error(f"is not a known key; expected one of {list(keys)}")
            n = convert(float, x, where.at(str(k)))
            _not_negative(n, where.at(str(k)))
            out.append((str(k), n))
        return tuple(sorted(out))

    return read


def _lengths(v: Any, where: Where) -> tuple[float, ...]:
    """Lengths sold: a non-empty list of numbers > 0, kept sorted without repeats."""
    if not isinstance(v, (list, tuple)) or not v:
        raise where.error(f"must be a non-empty list of numbers, got {v!r}")
    out = []
    for i, x in enumerate(v):
        n = convert(float, x, where.at(f"[{i}]"))
        _positive(n, where.at(f"[{i}]"))
        out.append(n)
    return tuple(sorted(set(out)))


def _positions_list(v: Any, where: Where) -> tuple[int, ...]:
    if not isinstance(v, (list, tuple)) or not v:
        raise where.error(f"must be a non-empty list of integers, got {v!r}")
    out = tuple(convert(int, x, where.at(f"[{i}]")) for i, x in enumerate(v))
    _at_least(1)(out, where)
    return out


def _confidence(v: Any, where: Where) -> tuple[tuple[str, str], ...]:
    if isinstance(v, str):
        _text_one_of(CONFIDENCE_GRADES)(v, where)
        return (("default", v),)
    if isinstance(v, Mapping) and v:
        out = []
        for k, g in v.items():
            if not isinstance(g, str):
                raise where.at(str(k)).error(f"must be a non-empty string, got {g!r}")
            _text_one_of(CONFIDENCE_GRADES)(g, where.at(str(k)))
            out.append((str(k), g))
        return tuple(sorted(out))
    raise where.error(f"must be a grade {list(CONFIDENCE_GRADES)} or a mapping field -> grade, got {v!r}")


def _unconfirmed(v: Any, where: Where) -> str:
    """``unconfirmed``: absent/false (confirmed by a primary source), or the reason a number or figure is
    only from a secondary source. ``true`` is accepted as "secondary source"."""
    if v is False:
        return ""
    if v is True:
        return "secondary source"
    if isinstance(v, str) and v.strip():
        return v.strip()
    raise where.error(f"must be false, true or the reason (text), got {v!r}")


def _any_text(v: Any, _where: Where) -> str:
    """Free text (a description, notes): whatever was written, as text."""
    return str(v or "")


def _pattern(v: Any, where: Where) -> str:
    s = convert(str, v, where)
    _text(s, where)
    try:
        s.format(nv="X", m="X", fibers="X", gender="X")
    except (KeyError, IndexError, ValueError) as exc:
        raise where.error(f"has an unknown placeholder ({exc}); use {{nv}}, {{m}}, {{fibers}}, {{gender}}") from None
    return s


def _positions(connector: str) -> int:
    return {"mpo-12": 12, "mpo-16": 16, "lc": 2}[connector]


# The fields every entry carries: its sources (required, may be empty), confidence grade(s) (required), why a
# figure is only from a secondary source, and notes.
def _sources() -> Any:
    return field(required=True, default=(), check=_each_text)


def _grades() -> Any:
    return field(required=True, default=(), read=_confidence)


def _why_unconfirmed() -> Any:
    return field(default="", read=_unconfirmed)


def _notes() -> Any:
    return field(default="", read=_any_text)


def _each_text(v: tuple[str, ...], where: Where) -> None:
    for i, x in enumerate(v):
        _text(x, where.at(f"[{i}]"))


def _choice(choices: tuple[str, ...], **kw: Any) -> Any:
    return field(check=_text_one_of(choices), **kw)


def _count(minimum: int = 1, **kw: Any) -> Any:
    return field(check=_at_least(minimum), **kw)


def _ports(*choices: int, **kw: Any) -> Any:
    return field(check=_one_of(choices), **kw)


# --------------------------------------------------------------------------------------
# Entry dataclasses
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Pmd:
    """An optical PMD. Figures are per port; ``ports`` = 2 for twin-port module types."""

    id: str = field(check=_text)
    name: str = field(check=_text)
    standard: str = field(check=_text)
    ports: int = _ports(1, 2, default=1)
    lanes: int = _count()
    lane_gbps: int = _count()
    port_gbps: int = _count()
    connector: str = _choice(CONNECTORS)
    fiber_mode: str = _choice(FIBER_MODES)
    fiber_types: tuple[str, ...] = _choice(FIBER_TYPES)
    reach_m: tuple[tuple[str, float], ...] = field(read=_num_map())  # keys: the PMD's fiber_types (_check_pmd)
    # A PMD whose channel limit the reference does not give keeps it empty (its links' loss check then reports
    # "no max channel IL" rather than a guessed limit).
    max_channel_il_db: tuple[tuple[str, float], ...] = field(default=(), read=_num_map())
    tx_positions: tuple[int, ...] = field(read=_positions_list)
    rx_positions: tuple[int, ...] = field(read=_positions_list)
    polish: str | None = _choice(POLISHES, default=None)
    port_pmd: str | None = None
    wavelength_nm: int | None = _count(default=None)
    connection_allocation_db: float | None = field(default=None, check=_not_negative)
    ieee_attenuation_db_per_km: float | None = field(default=None, check=_not_negative)
    breakout_capable: bool = False
    sources: tuple[str, ...] = _sources()
    confidence: tuple[tuple[str, str], ...] = _grades()
    unconfirmed: str = _why_unconfirmed()  # why a number or figure is from a secondary source ("" = confirmed)
    notes: str = _notes()

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


@dataclass(frozen=True, slots=True, kw_only=True)
class LaneMode:
    """A reduced-lane mode (e.g. a 400G module at 200G on a 1:2 splitter leg)."""

    port_gbps: int = _count()
    lanes: int = _count()
    power_w: float | None = field(default=None, check=_not_negative)


@dataclass(frozen=True, slots=True, kw_only=True)
class Transceiver:
    sku: str = field(check=_text)
    vendor: str = field(check=_text)
    form_factor: str = _choice(FORM_FACTORS)
    top: str = _choice(TOPS)
    ports: int = _ports(1, 2)
    port_gbps: int = _count()
    lane_gbps: int = _count()
    pmd: str = field(check=_text)
    connector: str = _choice(CONNECTORS)
    polish: str = _choice(POLISHES)
    fiber_mode: str = _choice(FIBER_MODES)
    reach_m: tuple[tuple[str, float], ...] = field(read=_num_map(FIBER_TYPES))
    power_w: float | None = field(check=_not_negative)
    technologies: tuple[str, ...] = _choice(TECHNOLOGIES)
    opn: str = field(default="", read=_any_text)
    description: str = field(default="", read=_any_text)
    power_w_typ: float | None = field(default=None, check=_not_negative)
    splittable: bool = False
    lane_modes: tuple[LaneMode, ...] = ()
    discontinued: bool = False
    sources: tuple[str, ...] = _sources()
    confidence: tuple[tuple[str, str], ...] = _grades()
    unconfirmed: str = _why_unconfirmed()  # why a number or figure is from a secondary source ("" = confirmed)
    notes: str = _notes()

    def reach_for(self, fiber_type: str) -> float | None:
        return dict(self.reach_m).get(fiber_type)

    def lane_mode(self, port_gbps: int) -> LaneMode | None:
        for mode in self.lane_modes:
            if mode.port_gbps == port_gbps:
                return mode
        return None


@dataclass(frozen=True, slots=True, kw_only=True)
class PlugEnd:
    """One end of a cable with its own plugs (DAC/ACC/AOC). ``top``: flat|finned|any."""

    form_factor: str = _choice(FORM_FACTORS)
    top: str = _choice((*TOPS, "any"), default="any")
    ports: int = _ports(1, 2, default=1)
    port_gbps: int | None = _count(default=None)
    lane_gbps: int | None = _count(default=None)


@dataclass(frozen=True, slots=True, kw_only=True)
class Cable:
    """A DAC, active copper (ACC/LACC) or AOC family, sold in ``lengths_m``."""

    family: str = field(check=_text)
    sku_pattern: str = field(read=_pattern)
    vendor: str = field(check=_text)
    kind: str = _choice(("dac", "acc", "aoc"))
    end_a: PlugEnd
    end_b: PlugEnd
    legs: int = _ports(1, 2, 4, default=1)
    links: int = _count(default=1)
    lengths_m: tuple[float, ...] = field(read=_lengths)
    reach_m: float = field(check=_positive)
    power_w_per_end: float | None = field(default=None, check=_not_negative)
    technologies: tuple[str, ...] = _choice(TECHNOLOGIES)
    description: str = field(default="", read=_any_text)
    made_to_order: bool = False
    discontinued: bool = False
    sources: tuple[str, ...] = _sources()
    confidence: tuple[tuple[str, str], ...] = _grades()
    unconfirmed: str = _why_unconfirmed()  # why a number or figure is from a secondary source ("" = confirmed)
    notes: str = _notes()


@dataclass(frozen=True, slots=True, kw_only=True)
class Cord:
    """A fiber patch cord (straight) or 1:2 splitter fiber family."""

    family: str = field(check=_text)
    sku_pattern: str = field(read=_pattern)
    vendor: str = field(check=_text)
    kind: str = _choice(("straight", "splitter"))
    connector: str = _choice(CONNECTORS)
    polish: str = _choice(POLISHES)
    fiber_mode: str = _choice(FIBER_MODES)
    fiber_type: str = _choice(FIBER_TYPES)
    gender_a: str = _choice(GENDERS)
    gender_b: str = _choice(GENDERS)
    polarity: str = field(check=_text)  # A-B | A-A on LC, A | B | C on MPO (_check_cord)
    fibers: int = _count()
    legs: int = _ports(1, 2, default=1)
    lengths_m: tuple[float, ...] = field(read=_lengths)
    fibers_per_leg: int | None = _count(default=None)
    made_to_order: bool = False
    max_link_m: float | None = field(default=None, check=_positive)
    sources: tuple[str, ...] = _sources()
    confidence: tuple[tuple[str, str], ...] = _grades()
    unconfirmed: str = _why_unconfirmed()  # why a number or figure is from a secondary source ("" = confirmed)
    notes: str = _notes()


@dataclass(frozen=True, slots=True, kw_only=True)
class Trunk:
    """A pre-terminated MPO trunk family (built to order)."""

    family: str = field(check=_text)
    sku_pattern: str = field(read=_pattern)
    vendor: str = field(check=_text)
    connector: str = _choice(("mpo-12", "mpo-16"))
    polish: str = _choice(POLISHES)
    fiber_mode: str = _choice(FIBER_MODES)
    fiber_type: str = _choice(FIBER_TYPES)
    polarity: str = _choice(("A", "B", "C"))
    bases: tuple[int, ...] = field(check=_bases)
    sources: tuple[str, ...] = _sources()
    confidence: tuple[tuple[str, str], ...] = _grades()
    unconfirmed: str = _why_unconfirmed()  # why a number or figure is from a secondary source ("" = confirmed)
    notes: str = _notes()


@dataclass(frozen=True, slots=True, kw_only=True)
class Adapter:
    sku: str = field(check=_text)
    connector: str = _choice(CONNECTORS)
    type: str = _choice(("A", "B"))
    sources: tuple[str, ...] = _sources()
    confidence: tuple[tuple[str, str], ...] = _grades()
    unconfirmed: str = _why_unconfirmed()  # why a number or figure is from a secondary source ("" = confirmed)
    notes: str = _notes()


@dataclass(frozen=True, slots=True, kw_only=True)
class Panel:
    sku: str = field(check=_text)
    kind: str = _choice(("mpo", "cassette"))
    rack_units: int = _count()
    positions: int = _count()
    sources: tuple[str, ...] = _sources()
    confidence: tuple[tuple[str, str], ...] = _grades()
    unconfirmed: str = _why_unconfirmed()  # why a number or figure is from a secondary source ("" = confirmed)
    notes: str = _notes()


@dataclass(frozen=True, slots=True, kw_only=True)
class Cassette:
    sku: str = field(check=_text)
    base: int = _ports(8, 12)
    lc_ports: int = _count()
    mpo_connector: str = _choice(("mpo-12",))
    mpo_gender: str = _choice(("pinned", "unpinned"))
    mpo_polish: str = _choice(POLISHES)
    lc_polish: str = _choice(POLISHES)
    fiber_mode: str = _choice(FIBER_MODES)
    sources: tuple[str, ...] = _sources()
    confidence: tuple[tuple[str, str], ...] = _grades()
    unconfirmed: str = _why_unconfirmed()  # why a number or figure is from a secondary source ("" = confirmed)
    notes: str = _notes()


@dataclass(frozen=True, slots=True, kw_only=True)
class CopperCord:
    family: str = field(check=_text)
    sku_pattern: str = field(read=_pattern)
    vendor: str = field(check=_text)
    lengths_m: tuple[float, ...] = field(read=_lengths)
    reach_m: float = field(check=_positive)
    max_gbps: int = _count()
    made_to_order: bool = False
    sources: tuple[str, ...] = _sources()
    confidence: tuple[tuple[str, str], ...] = _grades()
    unconfirmed: str = _why_unconfirmed()  # why a number or figure is from a secondary source ("" = confirmed)
    notes: str = _notes()


@dataclass(frozen=True, slots=True, kw_only=True)
class CablingRules:
    """A transceiver vendor's cabling requirements (component compliance)."""

    vendor: str = field(check=_text)
    mpo_max_il_db: float | None = field(default=None, check=_not_negative)
    mpo_polish: str | None = _choice(POLISHES, default=None)
    lc_max_il_db: float | None = field(default=None, check=_not_negative)
    lc_polish: str | None = _choice(POLISHES, default=None)
    max_panels: int | None = _count(0, default=None)
    max_mated_pairs: int | None = _count(0, default=None)
    cord_polarity: str | None = _choice(("A", "B", "C"), default=None)
    trunk_polarity: str | None = _choice(("A", "B", "C"), default=None)
    cord_gender: str | None = _choice(("pinned", "unpinned"), default=None)
    trunk_gender: str | None = _choice(("pinned", "unpinned"), default=None)
    max_length_m: tuple[tuple[str, float], ...] = field(default=(), read=_num_map())
    min_return_loss_db: tuple[tuple[str, float], ...] = field(default=(), read=_num_map())
    sources: tuple[str, ...] = _sources()
    confidence: tuple[tuple[str, str], ...] = _grades()
    unconfirmed: str = _why_unconfirmed()  # why a number or figure is from a secondary source ("" = confirmed)
    notes: str = _notes()


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
# Rules across an entry's fields, checked once it is read.
# --------------------------------------------------------------------------------------


def _check_pmd(pmd: Pmd, where: Where) -> None:
    for ft, _ in (*pmd.reach_m, *pmd.max_channel_il_db):
        if ft not in pmd.fiber_types:
            raise where.at("reach_m").error(f"names fiber type '{ft}' the PMD's fiber_types do not list")
    npos = _positions(pmd.connector)
    for p in pmd.tx_positions + pmd.rx_positions:
        if p > npos:
            raise where.at("tx_positions/rx_positions").error(
                f"position {p} exceeds {pmd.connector}'s {npos} positions"
            )
    tx, rx = pmd.tx_positions, pmd.rx_positions
    if len(set(tx + rx)) != len(tx) + len(rx) or len(tx) != len(rx):
        raise where.at("tx_positions/rx_positions").error("must be equally long and must not share a position")
    if pmd.ports == 2 and not pmd.port_pmd:
        raise where.at("port_pmd").error("is required for a twin-port (ports: 2) PMD")


def _check_cord(cord: Cord, where: Where) -> None:
    _text_one_of(("A-B", "A-A") if cord.connector == "lc" else ("A", "B", "C"))(cord.polarity, where.at("polarity"))
    if cord.fibers > _positions(cord.connector):
        raise where.at("fibers").error(f"{cord.fibers} fibers do not fit a {cord.connector} connector")
    if cord.kind == "splitter" and (cord.legs != 2 or cord.fibers_per_leg is None):
        raise where.at("legs").error("a splitter needs legs: 2 and fibers_per_leg")


def _check_cassette(cas: Cassette, where: Where) -> None:
    if cas.lc_ports * 2 != cas.base:
        raise where.at("lc_ports").error(f"{cas.lc_ports} duplex ports do not match base {cas.base}")


# Keys an entry may hold besides its fields: `replaces` (a user's entry overriding a shipped one).
_EXTRA_KEYS = ("replaces",)
_RULES: dict[type, Callable[[Any, Where], None]] = {Pmd: _check_pmd, Cord: _check_cord, Cassette: _check_cassette}


def _reader(cls: type) -> Callable[[str, Any], Any]:
    """The loader reading one entry of `cls` from `origin` ("pmds.yaml: pmds[3]"), then its cross-field rules."""

    def read(origin: str, raw: Any) -> Any:
        where = Where(origin, style="field", error=CatalogError, closed=_EXTRA_KEYS)
        if not isinstance(raw, Mapping):
            raise CatalogError(f"{origin}: entry must be a mapping, got {raw!r}")
        entry: Any = build(cls, raw, where)
        rule = _RULES.get(cls)
        if rule is not None:
            rule(entry, where)
        return entry

    return read


# section -> (reader, key attribute)
_PARSERS = {
    "pmds": (_reader(Pmd), "id"),
    "transceivers": (_reader(Transceiver), "sku"),
    "cables": (_reader(Cable), "family"),
    "cords": (_reader(Cord), "family"),
    "trunks": (_reader(Trunk), "family"),
    "adapters": (_reader(Adapter), "sku"),
    "panels": (_reader(Panel), "sku"),
    "cassettes": (_reader(Cassette), "sku"),
    "copper_cords": (_reader(CopperCord), "family"),
    "cabling_requirements": (_reader(CablingRules), "vendor"),
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
        doc = read_shipped(path)[0] or {}
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


@lru_cache(maxsize=4096)
def sku_for_length(pattern: str, length_m: float, **fields: Any) -> str:
    """Render a SKU pattern for a length: {nv} NVIDIA code (N003, N01A), {m} plain metres. Memoised: a design
    renders the same few hundred SKUs thousands of times (every trunk of a 128K-GPU design: 10,100 per pass)."""
    whole = int(length_m)
    nv = f"{whole:02d}A" if abs(length_m - whole - 0.5) < 1e-9 else f"{math.ceil(length_m - 1e-9):03d}"
    m = f"{length_m:g}"
    return pattern.format(nv=nv, m=m, **fields)
