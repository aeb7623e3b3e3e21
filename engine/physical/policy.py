"""User policy for the physical layer: media pins, reach limits, cabling, loss, labels.

Every default is a figure from shared/reference/optics-and-cabling.md (source tag in the
comment) or a documented gap default (docs/data-gaps.md). ``MediaPolicy`` is
frozen and hashable (mappings are stored as sorted tuples of pairs), so it can key memo
caches. ``MediaPolicy.from_dict`` validates a plain dict and raises ``SpecError`` (a ``ValueError``)
at the offending key path, e.g.
``physical.tiers.leaf-spine.medium: must be one of [...]``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.errors import SpecError
from engine.physical.constants import (
    CABLING_MODES,
    CONNECTOR_GRADES,
    FIBER_TYPES,
    MEDIA,
    MEDIUM_PINS,
    TRUNK_BASES,
)
from engine.physical.labels import DEFAULT_CABLE, DEFAULT_END, DEFAULT_PANEL, DEFAULT_TRUNK, LabelTemplate


@dataclass(frozen=True, slots=True)
class TierPolicy:
    """Per-tier choices. ``medium`` pins the media family; ``cabling`` picks direct cords
    or patch panels + trunks; ``adapter_type`` is the MPO panel adapter (A: key-up to
    key-down, B: key-up to key-up; either keeps the NVIDIA all-Type-B channel correct as
    long as both panels use the same type)."""

    medium: str = "auto"
    cabling: str = "direct"
    trunk_base: int = 8  # Base-8: 100 % fiber use with 4-lane parallel optics [S32][S52]
    adapter_type: str = "A"


# Mated-pair insertion loss (max) per connector group and grade.
DEFAULT_CONNECTOR_LOSS_DB = (
    ("lc", (("low-loss", 0.25), ("standard", 0.75))),  # grade B 0.25 [S9]; TIA 0.75 [S27][S50]
    ("mpo", (("low-loss", 0.35), ("standard", 0.75))),  # NVIDIA 0.35 [S9]; TIA 0.75 [S26][S27][S28]
)
# Cabled attenuation, dB/km: NVIDIA's design values, OS2 0.4 @1310, MM 3.0 @850 [S9].
DEFAULT_ATTENUATION_DB_PER_KM = (("om3", 3.0), ("om4", 3.0), ("om5", 3.0), ("os2", 0.4))


@dataclass(frozen=True, slots=True)
class LossPolicy:
    count_interfaces: bool = True  # count the two transceiver mated pairs (reference open issue 2)
    marginal_threshold_db: float = 0.5
    connector_grade: tuple[tuple[str, str], ...] = (("lc", "low-loss"), ("mpo", "low-loss"))
    connector_loss_db: tuple[tuple[str, tuple[tuple[str, float], ...]], ...] = DEFAULT_CONNECTOR_LOSS_DB
    splices_per_channel: int = 0  # pre-terminated cabling has no splices (gap default)
    splice_loss_db: float = 0.3  # TIA max fusion/mechanical splice [S40][S50]
    attenuation_db_per_km: tuple[tuple[str, float], ...] = DEFAULT_ATTENUATION_DB_PER_KM
    cassette_loss_db: float | None = None  # None: a cassette = 1 MPO pair + 1 LC pair [S51]
    vendor_requirements: bool = True  # run the transceiver vendor's component checks

    def grade(self, group: str) -> str:
        return dict(self.connector_grade)[group]

    def pair_loss_db(self, group: str) -> float:
        """Max IL of one mated pair of ``group`` ('mpo' | 'lc') at the policy's grade."""
        return dict(dict(self.connector_loss_db)[group])[self.grade(group)]

    def attenuation(self, fiber_type: str) -> float:
        return dict(self.attenuation_db_per_km)[fiber_type]


@dataclass(frozen=True, slots=True)
class MediaPolicy:
    """The physical-layer policy. See docs/physical-layer.md for every field."""

    tiers: tuple[tuple[str, TierPolicy], ...] = ()
    default_tier: TierPolicy = TierPolicy()
    reach_limits_m: tuple[tuple[str, float], ...] = ()  # per medium, tighter than the catalog
    trunk_spare_fraction: float = 0.0  # gap default: no spare beyond base rounding
    trunk_max_fibers: int = 144  # traditional top of the Base-12 range [S32]
    trunk_length_step_m: float = 1.0  # gap default: trunks ordered to the next whole metre
    # Spread each switch's uplinks (leaf-spine, spine-core) over two trunk groups by the half of its own spines
    # (cores) they reach, each group starting on a panel of its own at both ends: no one trunk or panel carries every
    # uplink of a leaf. Off by default: it changes the trunk plan (and so the frozen outputs) of existing designs.
    trunk_diversity: bool = False
    made_to_order_step_m: float = 1.0  # gap default: cords past the stock list
    panel_cord_length_m: float = 3.0  # gap default: equipment-to-panel cord in panel mode
    mm_fiber: str = "auto"  # auto: OM3 <= 30 m, OM4 <= 50 m [S9]; or om3 / om4 / om5
    allow_discontinued: bool = False
    # The module in the UFM appliance's NIC cage. No NVIDIA text names it (parts-beyond-ndr.md section 5):
    # the appliance has ConnectX-7, whose OSFP cards take flat-top (RHS) modules only, so the single-port
    # flat-top OSFP SR4 is the default. A user-settable default; the BOM marks it "verify before ordering".
    ufm_module: str = "MMA4Z00-NS400"
    loss: LossPolicy = LossPolicy()
    labels: LabelTemplate = field(default_factory=LabelTemplate)

    def tier(self, name: str) -> TierPolicy:
        for key, tp in self.tiers:
            if key == name:
                return tp
        return self.default_tier

    def reach_limit(self, medium: str) -> float | None:
        return dict(self.reach_limits_m).get(medium)

    # ---- dict round trip -------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "tiers": {k: _tier_to_dict(v) for k, v in self.tiers},
            "default_tier": _tier_to_dict(self.default_tier),
            "reach_limits_m": dict(self.reach_limits_m),
            "trunk_spare_fraction": self.trunk_spare_fraction,
            "trunk_max_fibers": self.trunk_max_fibers,
            "trunk_length_step_m": self.trunk_length_step_m,
            "trunk_diversity": self.trunk_diversity,
            "made_to_order_step_m": self.made_to_order_step_m,
            "panel_cord_length_m": self.panel_cord_length_m,
            "mm_fiber": self.mm_fiber,
            "allow_discontinued": self.allow_discontinued,
            "ufm_module": self.ufm_module,
            "loss": {
                "count_interfaces": self.loss.count_interfaces,
                "marginal_threshold_db": self.loss.marginal_threshold_db,
                "connector_grade": dict(self.loss.connector_grade),
                "connector_loss_db": {g: dict(v) for g, v in self.loss.connector_loss_db},
                "splices_per_channel": self.loss.splices_per_channel,
                "splice_loss_db": self.loss.splice_loss_db,
                "attenuation_db_per_km": dict(self.loss.attenuation_db_per_km),
                "cassette_loss_db": self.loss.cassette_loss_db,
                "vendor_requirements": self.loss.vendor_requirements,
            },
            "labels": {
                "end": self.labels.end,
                "cable": self.labels.cable,
                "panel": self.labels.panel,
                "trunk": self.labels.trunk,
                "own_end_first": self.labels.own_end_first,
            },
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None, *, path: str = "physical") -> MediaPolicy:
        """Build a policy from a plain dict; missing keys keep their defaults. A bad value is a SpecError at
        its path (the checks below say "path: message"; this is the one place that turns that into a path)."""
        try:
            return cls._from_dict(d, path)
        except SpecError:
            raise
        except ValueError as exc:
            where, sep, message = str(exc).partition(": ")
            if sep and (where == path or where.startswith((f"{path}.", f"{path}["))):
                raise SpecError.at(where, message) from None
            raise SpecError.at(path, str(exc)) from None

    @classmethod
    def _from_dict(cls, d: Mapping[str, Any] | None, path: str) -> MediaPolicy:
        if d is None:
            return cls()
        _mapping(d, path)
        _known(
            d,
            path,
            (
                "tiers",
                "default_tier",
                "reach_limits_m",
                "trunk_spare_fraction",
                "trunk_max_fibers",
                "trunk_length_step_m",
                "trunk_diversity",
                "made_to_order_step_m",
                "panel_cord_length_m",
                "mm_fiber",
                "allow_discontinued",
                "ufm_module",
                "loss",
                "labels",
            ),
        )
        base = cls()
        tiers = d.get("tiers", {})
        _mapping(tiers, f"{path}.tiers")
        default_tier = _tier_from(d.get("default_tier", {}), f"{path}.default_tier", base.default_tier)
        tier_pairs = tuple(sorted((str(k), _tier_from(v, f"{path}.tiers.{k}", default_tier)) for k, v in tiers.items()))
        reach = d.get("reach_limits_m", {})
        _mapping(reach, f"{path}.reach_limits_m")
        reach_pairs = []
        for k, v in reach.items():
            if k not in MEDIA:
                raise ValueError(f"{path}.reach_limits_m.{k}: unknown medium; must be one of {list(MEDIA)}")
            reach_pairs.append((k, _pos_num(v, f"{path}.reach_limits_m.{k}")))
        mm_fiber = d.get("mm_fiber", base.mm_fiber)
        if mm_fiber not in ("auto", "om3", "om4", "om5"):
            raise ValueError(f"{path}.mm_fiber: must be one of ['auto', 'om3', 'om4', 'om5'], got {mm_fiber!r}")
        spare = _num(d.get("trunk_spare_fraction", base.trunk_spare_fraction), f"{path}.trunk_spare_fraction")
        if not 0 <= spare <= 10:
            raise ValueError(f"{path}.trunk_spare_fraction: must be between 0 and 10, got {spare!r}")
        max_fibers = _int(d.get("trunk_max_fibers", base.trunk_max_fibers), f"{path}.trunk_max_fibers")
        if max_fibers < 16:
            raise ValueError(f"{path}.trunk_max_fibers: must be at least 16, got {max_fibers}")
        return cls(
            tiers=tier_pairs,
            default_tier=default_tier,
            reach_limits_m=tuple(sorted(reach_pairs)),
            trunk_spare_fraction=spare,
            trunk_max_fibers=max_fibers,
            trunk_length_step_m=_pos_num(
                d.get("trunk_length_step_m", base.trunk_length_step_m), f"{path}.trunk_length_step_m"
            ),
            trunk_diversity=_bool(d.get("trunk_diversity", base.trunk_diversity), f"{path}.trunk_diversity"),
            made_to_order_step_m=_pos_num(
                d.get("made_to_order_step_m", base.made_to_order_step_m), f"{path}.made_to_order_step_m"
            ),
            panel_cord_length_m=_pos_num(
                d.get("panel_cord_length_m", base.panel_cord_length_m), f"{path}.panel_cord_length_m"
            ),
            mm_fiber=mm_fiber,
            allow_discontinued=_bool(
                d.get("allow_discontinued", base.allow_discontinued), f"{path}.allow_discontinued"
            ),
            ufm_module=_ufm_module(d.get("ufm_module", base.ufm_module), f"{path}.ufm_module"),
            loss=_loss_from(d.get("loss", {}), f"{path}.loss", base.loss),
            labels=_labels_from(d.get("labels", {}), f"{path}.labels"),
        )


def _ufm_module(v: Any, path: str) -> str:
    # Whether the SKU is in the catalog is checked when the design is computed (the catalog may be the
    # user's own); here only its shape.
    if not isinstance(v, str) or not v.strip() or len(v) > 64:
        raise ValueError(f"{path}: must be a transceiver part number (text, at most 64 characters), got {v!r}")
    return v.strip()


def _tier_to_dict(t: TierPolicy) -> dict[str, Any]:
    return {"medium": t.medium, "cabling": t.cabling, "trunk_base": t.trunk_base, "adapter_type": t.adapter_type}


def _tier_from(v: Any, path: str, base: TierPolicy) -> TierPolicy:
    _mapping(v, path)
    _known(v, path, ("medium", "cabling", "trunk_base", "adapter_type"))
    medium = v.get("medium", base.medium)
    if medium not in MEDIUM_PINS:
        raise ValueError(f"{path}.medium: must be one of {list(MEDIUM_PINS)}, got {medium!r}")
    cabling = v.get("cabling", base.cabling)
    if cabling not in CABLING_MODES:
        raise ValueError(f"{path}.cabling: must be one of {list(CABLING_MODES)}, got {cabling!r}")
    trunk_base = v.get("trunk_base", base.trunk_base)
    if trunk_base not in TRUNK_BASES or isinstance(trunk_base, bool):
        raise ValueError(f"{path}.trunk_base: must be one of {list(TRUNK_BASES)}, got {trunk_base!r}")
    adapter_type = v.get("adapter_type", base.adapter_type)
    if adapter_type not in ("A", "B"):
        raise ValueError(f"{path}.adapter_type: must be one of ['A', 'B'], got {adapter_type!r}")
    return TierPolicy(medium=medium, cabling=cabling, trunk_base=trunk_base, adapter_type=adapter_type)


def _loss_from(v: Any, path: str, base: LossPolicy) -> LossPolicy:
    _mapping(v, path)
    _known(
        v,
        path,
        (
            "count_interfaces",
            "marginal_threshold_db",
            "connector_grade",
            "connector_loss_db",
            "splices_per_channel",
            "splice_loss_db",
            "attenuation_db_per_km",
            "cassette_loss_db",
            "vendor_requirements",
        ),
    )
    grade = dict(base.connector_grade)
    cg = v.get("connector_grade", {})
    _mapping(cg, f"{path}.connector_grade")
    for k, g in cg.items():
        if k not in ("mpo", "lc"):
            raise ValueError(f"{path}.connector_grade.{k}: unknown connector group; must be one of ['mpo', 'lc']")
        if g not in CONNECTOR_GRADES:
            raise ValueError(f"{path}.connector_grade.{k}: must be one of {list(CONNECTOR_GRADES)}, got {g!r}")
        grade[k] = g
    closs = {g: dict(vals) for g, vals in base.connector_loss_db}
    cl = v.get("connector_loss_db", {})
    _mapping(cl, f"{path}.connector_loss_db")
    for k, vals in cl.items():
        if k not in ("mpo", "lc"):
            raise ValueError(f"{path}.connector_loss_db.{k}: unknown connector group; must be one of ['mpo', 'lc']")
        _mapping(vals, f"{path}.connector_loss_db.{k}")
        for g, db in vals.items():
            if g not in CONNECTOR_GRADES:
                raise ValueError(
                    f"{path}.connector_loss_db.{k}.{g}: unknown grade; must be one of {list(CONNECTOR_GRADES)}"
                )
            closs[k][g] = _nonneg_num(db, f"{path}.connector_loss_db.{k}.{g}")
    att = dict(base.attenuation_db_per_km)
    av = v.get("attenuation_db_per_km", {})
    _mapping(av, f"{path}.attenuation_db_per_km")
    for k, db in av.items():
        if k not in FIBER_TYPES:
            raise ValueError(
                f"{path}.attenuation_db_per_km.{k}: unknown fiber type; must be one of {list(FIBER_TYPES)}"
            )
        att[k] = _nonneg_num(db, f"{path}.attenuation_db_per_km.{k}")
    cas = v.get("cassette_loss_db", base.cassette_loss_db)
    splices = _int(v.get("splices_per_channel", base.splices_per_channel), f"{path}.splices_per_channel")
    if splices < 0:
        raise ValueError(f"{path}.splices_per_channel: must be >= 0, got {splices}")
    return LossPolicy(
        count_interfaces=_bool(v.get("count_interfaces", base.count_interfaces), f"{path}.count_interfaces"),
        marginal_threshold_db=_nonneg_num(
            v.get("marginal_threshold_db", base.marginal_threshold_db), f"{path}.marginal_threshold_db"
        ),
        connector_grade=tuple(sorted(grade.items())),
        connector_loss_db=tuple(sorted((g, tuple(sorted(vals.items()))) for g, vals in closs.items())),
        splices_per_channel=splices,
        splice_loss_db=_nonneg_num(v.get("splice_loss_db", base.splice_loss_db), f"{path}.splice_loss_db"),
        attenuation_db_per_km=tuple(sorted(att.items())),
        cassette_loss_db=None if cas is None else _nonneg_num(cas, f"{path}.cassette_loss_db"),
        vendor_requirements=_bool(
            v.get("vendor_requirements", base.vendor_requirements), f"{path}.vendor_requirements"
        ),
    )


def _labels_from(v: Any, path: str) -> LabelTemplate:
    _mapping(v, path)
    _known(v, path, ("end", "cable", "panel", "trunk", "own_end_first"))
    try:
        return LabelTemplate(
            end=v.get("end", DEFAULT_END),
            cable=v.get("cable", DEFAULT_CABLE),
            panel=v.get("panel", DEFAULT_PANEL),
            trunk=v.get("trunk", DEFAULT_TRUNK),
            own_end_first=_bool(v.get("own_end_first", True), f"{path}.own_end_first"),
        )
    except ValueError as exc:
        msg = str(exc)
        # "label template 'end': ..." -> "physical.labels.end: ..."
        if msg.startswith("label template '"):
            key, _, rest = msg[len("label template '") :].partition("': ")
            raise ValueError(f"{path}.{key}: {rest}") from None
        raise


def _mapping(v: Any, path: str) -> None:
    if not isinstance(v, Mapping):
        raise ValueError(f"{path}: must be a mapping, got {v!r}")


def _known(v: Mapping[str, Any], path: str, keys: tuple[str, ...]) -> None:
    for k in v:
        if k not in keys:
            raise ValueError(f"{path}.{k}: unknown key; expected one of {sorted(keys)}")


def _num(v: Any, path: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise ValueError(f"{path}: must be a number, got {v!r}")
    return float(v)


def _pos_num(v: Any, path: str) -> float:
    x = _num(v, path)
    if x <= 0:
        raise ValueError(f"{path}: must be > 0, got {v!r}")
    return x


def _nonneg_num(v: Any, path: str) -> float:
    x = _num(v, path)
    if x < 0:
        raise ValueError(f"{path}: must be >= 0, got {v!r}")
    return x


def _int(v: Any, path: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError(f"{path}: must be an integer, got {v!r}")
    return v


def _bool(v: Any, path: str) -> bool:
    if not isinstance(v, bool):
        raise ValueError(f"{path}: must be true or false, got {v!r}")
    return v
