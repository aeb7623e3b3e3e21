"""Media selection per cage: DAC, active copper, AOC or transceivers + fiber.

``select_media(req, policy, catalog)`` is pure and its inputs are hashable, so the
pipeline calls it once per distinct request and reuses the answer. A request describes
one CAGE pair, not one link: both ports of a twin-port cage must get the same module and
the same cable type [S12][S16], so the pipeline passes the cage's longest run and applies
the choice to every link of the cage (``cable_for_run`` then gives each link's own cord
length).

Order of preference (reference D4/E): passive DAC within its reach, then active copper,
then AOC (HDR only), then optics: multimode before single-mode, and among parts of one
fiber mode the shortest-reach module that covers the run (100 m "NS" before 500 m "NM"
before 2 km FR4), then lowest power.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from engine.errors import EngineInvariantError
from engine.physical.catalog import (
    Adapter,
    CablingRules,
    Cassette,
    Cord,
    MediaCatalog,
    Panel,
    PlugEnd,
    Pmd,
    Transceiver,
    Trunk,
    sku_for_length,
)
from engine.physical.constants import (
    CAGE_TAKES,
    DEVICE_KINDS,
    FORM_FACTORS,
    PIN_ALLOWS,
    TECHNOLOGIES,
    TOPPED_FORM_FACTORS,
    TOPS,
)
from engine.physical.policy import MediaPolicy

if TYPE_CHECKING:
    from collections.abc import Callable

_EPS = 1e-9


class MediaSelectionError(ValueError):
    """No medium fits a request. The message names the tier, the run length and why."""


@dataclass(frozen=True, slots=True)
class CageEnd:
    """One end's cage. ``top``: module heat-sink style the cage takes (servers and
    liquid-cooled switches: flat; air-cooled switches: finned [S11])."""

    device_kind: str
    form_factor: str
    top: str
    twin_port: bool
    port_speed_gbps: int
    lanes_gbps: int = 100
    # A module SKU this cage must take (a user-settable default, e.g. physical.ufm_module), or None.
    module: str | None = None
    # The NIC behind the cage and the only plug form factors it takes when narrower than the cage's form
    # factor (BlueField-3 takes QSFP112 only, never a QSFP28/QSFP56 plug its QSFP112 cage would fit).
    nic: str = ""
    accepts: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.device_kind not in DEVICE_KINDS:
            raise ValueError(f"CageEnd.device_kind: must be one of {list(DEVICE_KINDS)}, got {self.device_kind!r}")
        if self.form_factor not in FORM_FACTORS:
            raise ValueError(f"CageEnd.form_factor: must be one of {list(FORM_FACTORS)}, got {self.form_factor!r}")
        if self.top not in TOPS:
            raise ValueError(f"CageEnd.top: must be one of {list(TOPS)}, got {self.top!r}")
        for name in ("port_speed_gbps", "lanes_gbps"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"CageEnd.{name}: must be a positive integer, got {v!r}")

    def describe(self) -> str:
        twin = "twin-port " if self.twin_port else ""
        nic = f"{self.nic} " if self.nic else ""
        only = f", accepts only {'/'.join(a.upper() for a in self.accepts)}" if self.accepts else ""
        return f"{self.device_kind} {nic}{twin}{self.form_factor} ({self.top}{only}) {self.port_speed_gbps}G"


def default_top(device_kind: str, liquid_cooled: bool = False) -> str:
    """Flat-top (RHS) modules in servers and liquid-cooled switches, finned (IHS) in
    air-cooled switches [S11][S24]."""
    return "finned" if device_kind == "switch" and not liquid_cooled else "flat"


@dataclass(frozen=True, slots=True)
class MediaRequest:
    """One cage pair to connect.

    ``cage_aligned``: True when every port of the twin-port cage(s) goes to the same
    far-end cage in order (twin <-> twin), or, for a twin-port cage facing single-port
    cages, when its two ports go to two single-port cages one splitter cable can reach.
    Only then may a twin-port DAC / ACC / splitter cable tie the ports together.
    ``run_length_m``: the longest run among the links of the cage.
    """

    tier: str
    technology: str
    a: CageEnd
    b: CageEnd
    cage_aligned: bool
    run_length_m: float

    def __post_init__(self) -> None:
        if self.technology not in TECHNOLOGIES:
            raise ValueError(f"MediaRequest.technology: must be one of {list(TECHNOLOGIES)}, got {self.technology!r}")
        if not (self.run_length_m >= 0 and math.isfinite(self.run_length_m)):
            raise ValueError(f"MediaRequest.run_length_m: must be a finite number >= 0, got {self.run_length_m!r}")


@dataclass(frozen=True, slots=True)
class StructuredParts:
    """Parts of a panel channel: equipment cords, panel adapters or cassettes, trunk.
    ``cord_b`` is the link's own cord (the splitter when split); ``cord_a`` the cord at
    the other panel (a straight cord on the switch side of a splitter channel)."""

    cord_a: Cord
    cord_b: Cord
    cord_a_sku: str
    cord_b_sku: str
    cord_a_length_m: float
    cord_b_length_m: float
    trunk: Trunk
    trunk_gender: str
    trunk_base: int
    links_per_leg: int
    panel: Panel
    adapter: Adapter | None = None
    cassette: Cassette | None = None


@dataclass(frozen=True, slots=True)
class MediaChoice:
    """The media for one cage pair (and so for each link of it).

    Module counting: a module serves a CAGE. ``a_links_per_module`` is how many links
    one module at end A carries (2 for a twin-port module, 4 for a twin-port module
    whose ports feed 1:2 splitters, 1 for a single-port module). BOM: modules at A =
    links / a_links_per_module, i.e. one per cage end.
    """

    tier: str
    medium: str
    link_gbps: int
    lanes_per_link: int
    breakout: str  # none | twin-to-single | split-1:2
    cable_kind: str  # dac | acc | aoc | cord | splitter | rj45
    cable_family: str
    cable_sku: str
    cable_sku_pattern: str
    cable_lengths_m: tuple[float, ...]
    cable_made_to_order: bool
    cable_carries_links: int
    ordered_length_m: float
    run_length_m: float
    reach_m: float
    a_module: str | None = None
    b_module: str | None = None
    a_links_per_module: int = 1
    b_links_per_module: int = 1
    a_power_w: float | None = None  # per module (or per copper cable end)
    b_power_w: float | None = None
    a_power_w_per_link: float | None = None
    b_power_w_per_link: float | None = None
    pmd: str | None = None  # interop (single-port) PMD id, e.g. 400gbase-dr4
    pmd_spec: Pmd | None = None
    connector: str | None = None
    polish: str | None = None
    fiber_mode: str | None = None
    fiber_type: str | None = None
    channel_type: str | None = None  # mpo-sm-straight | mpo-sm-splitter | lc-sm | mpo-mm-straight ...
    fibers_per_link: int = 0  # active
    fibers_installed_per_link: int = 0
    cord: Cord | None = None
    structured: StructuredParts | None = None
    rules: CablingRules | None = None
    split_end: str | None = None  # "a" | "b": the end whose port a 1:2 splitter divides
    warnings: tuple[str, ...] = ()

    @property
    def optical(self) -> bool:
        return self.medium in ("fiber-sm", "fiber-mm")


# --------------------------------------------------------------------------------------
# Length rounding
# --------------------------------------------------------------------------------------


def round_up_length(lengths: tuple[float, ...], run_m: float, *, made_to_order: bool, step_m: float) -> float | None:
    """Smallest stocked length >= run (never rounds down); past the list, made-to-order
    parts round up to ``step_m``; otherwise None."""
    i = bisect_left(lengths, run_m - _EPS)
    if i < len(lengths):
        return lengths[i]
    if made_to_order:
        return max(step_m, math.ceil(run_m / step_m - _EPS) * step_m)
    return None


def cable_for_run(choice: MediaChoice, run_length_m: float, policy: MediaPolicy) -> tuple[str, float]:
    """(SKU, ordered length) of the cable for one link of ``choice`` with its own run.

    Cheap (a bisect), for per-link use. Raises ``MediaSelectionError`` if the run is
    longer than the choice allows (it was selected with a shorter cage run).
    """
    if run_length_m > choice.reach_m + _EPS:
        raise MediaSelectionError(
            f"tier {choice.tier}: a {run_length_m:g} m run exceeds the {choice.reach_m:g} m reach of "
            f"{choice.cable_family}; select media with the cage's longest run"
        )
    length = round_up_length(
        choice.cable_lengths_m,
        run_length_m,
        made_to_order=choice.cable_made_to_order,
        step_m=policy.made_to_order_step_m,
    )
    if length is None or length > choice.reach_m + _EPS:
        raise MediaSelectionError(
            f"tier {choice.tier}: no stocked {choice.cable_family} length covers {run_length_m:g} m"
        )
    return sku_for_length(choice.cable_sku_pattern, length), length


# --------------------------------------------------------------------------------------
# Selection
# --------------------------------------------------------------------------------------

_KIND_RANK = {"dac": 0, "acc": 1, "aoc": 2}


def select_media(req: MediaRequest, policy: MediaPolicy, catalog: MediaCatalog) -> MediaChoice:
    """Choose the medium, modules and cable for one cage pair. Pure; memoize freely."""
    a, b = req.a, req.b
    # Orient so that the wider port (the one split by a 1:2 breakout) is at A.
    if b.port_speed_gbps > a.port_speed_gbps:
        flipped = replace(req, a=b, b=a)
        return _swap_ends(select_media(flipped, policy, catalog))

    tier = policy.tier(req.tier)
    allowed = PIN_ALLOWS[tier.medium]
    reasons: list[str] = []

    def fail(extra: str = "") -> MediaSelectionError:
        why = "; ".join(dict.fromkeys(reasons + ([extra] if extra else [])))
        return MediaSelectionError(
            f"tier {req.tier}: no medium fits a {req.run_length_m:g} m run between {a.describe()} and "
            f"{b.describe()} ({req.technology}, policy medium '{tier.medium}'): {why or 'no candidate parts'}"
        )

    if a.form_factor == "rj45" or b.form_factor == "rj45":
        if a.form_factor != b.form_factor:
            raise fail("an RJ45 port can only meet an RJ45 port")
        if "copper-rj45" not in allowed:
            raise fail("RJ45 copper is excluded by the tier's medium pin")
        return _select_rj45(req, policy, catalog, reasons, fail)

    ha, hb = _host_lanes(a, b), _host_lanes(b, a)
    if ha is not a or hb is not b:
        a, b = ha, hb
        req = replace(req, a=a, b=b)
    if a.lanes_gbps != b.lanes_gbps:
        raise fail(f"lane rates differ ({a.lanes_gbps}G vs {b.lanes_gbps}G); 200G-PAM4 optics cannot downshift [S11]")
    if a.port_speed_gbps == b.port_speed_gbps:
        split = False
    elif a.port_speed_gbps == 2 * b.port_speed_gbps:
        split = True
    else:
        raise fail(f"port speeds {a.port_speed_gbps}G and {b.port_speed_gbps}G are neither equal nor a 1:2 split")

    copper = _select_copper(req, policy, catalog, allowed, split, reasons)
    if copper is not None:
        return copper
    optic = _select_optics(req, policy, catalog, allowed, split, reasons)
    if optic is not None:
        return optic
    raise fail()


def _host_lanes(end: CageEnd, far: CageEnd) -> CageEnd:
    """A host's QSFP-family cage runs the lane rate of the plug it takes: a QSFP112 cage facing a QSFP28
    (4 x 25G) switch port takes a QSFP28 module or cable and runs 25G lanes (QSFP backward compatibility,
    docs/data-gaps.md). Switch cages and OSFP cages keep their own lane rate."""
    if (
        end.device_kind == "server"
        and end.form_factor != far.form_factor
        and far.form_factor in CAGE_TAKES.get(end.form_factor, ())
        and far.lanes_gbps < end.lanes_gbps
    ):
        return replace(end, lanes_gbps=far.lanes_gbps)
    return end


def _takes(cage: Any, form_factor: str, top: str) -> bool:
    """Whether a cage takes a plug of this form factor and top (the top matters for OSFP only)."""
    if form_factor not in CAGE_TAKES.get(cage.form_factor, (cage.form_factor,)):
        return False
    if cage.accepts and form_factor not in cage.accepts:
        return False
    if cage.form_factor in TOPPED_FORM_FACTORS and top != "any" and top != cage.top:
        return False
    return True


def _swap_ends(c: MediaChoice) -> MediaChoice:
    return replace(
        c,
        a_module=c.b_module,
        b_module=c.a_module,
        a_links_per_module=c.b_links_per_module,
        b_links_per_module=c.a_links_per_module,
        a_power_w=c.b_power_w,
        b_power_w=c.a_power_w,
        a_power_w_per_link=c.b_power_w_per_link,
        b_power_w_per_link=c.a_power_w_per_link,
        split_end=None if c.split_end is None else {"a": "b", "b": "a"}.get(c.split_end),
    )


def _reach_cap(policy: MediaPolicy, medium: str, *limits: float | None) -> float:
    caps = [x for x in limits if x is not None]
    pol = policy.reach_limit(medium)
    if pol is not None:
        caps.append(pol)
    return min(caps) if caps else math.inf


def _select_rj45(
    req: MediaRequest,
    policy: MediaPolicy,
    catalog: MediaCatalog,
    reasons: list[str],
    fail: Callable[..., MediaSelectionError],
) -> MediaChoice:
    speed = min(req.a.port_speed_gbps, req.b.port_speed_gbps)
    best = None
    for cc in sorted(catalog.copper_cords.values(), key=lambda c: c.family):
        if speed > cc.max_gbps:
            reasons.append(f"{cc.family} carries at most {cc.max_gbps}G")
            continue
        reach = _reach_cap(policy, "copper-rj45", cc.reach_m)
        length = round_up_length(
            cc.lengths_m, req.run_length_m, made_to_order=cc.made_to_order, step_m=policy.made_to_order_step_m
        )
        if length is None or length > reach + _EPS:
            reasons.append(f"{cc.family} reaches {reach:g} m")
            continue
        cand = (length, cc.family, cc, reach)
        if best is None or cand[:2] < best[:2]:
            best = cand
    if best is None:
        raise fail()
    length, _, cc, reach = best
    return MediaChoice(
        tier=req.tier,
        medium="copper-rj45",
        link_gbps=speed,
        lanes_per_link=1,
        breakout="none",
        cable_kind="rj45",
        cable_family=cc.family,
        cable_sku=sku_for_length(cc.sku_pattern, length),
        cable_sku_pattern=cc.sku_pattern,
        cable_lengths_m=cc.lengths_m,
        cable_made_to_order=cc.made_to_order,
        cable_carries_links=1,
        ordered_length_m=length,
        run_length_m=req.run_length_m,
        reach_m=reach,
        a_power_w=0.0,
        b_power_w=0.0,
        a_power_w_per_link=0.0,
        b_power_w_per_link=0.0,
        warnings=(f"{cc.family}: figures are gap defaults (not in the reference)",)
        if cc.confidence == (("default", "gap"),)
        else (),
    )


def _plug_fits(end: PlugEnd, cage: Any) -> bool:
    return (
        _takes(cage, end.form_factor, end.top)
        and end.ports == (2 if cage.twin_port else 1)
        and (end.port_gbps is None or end.port_gbps == cage.port_speed_gbps)
        and (end.lane_gbps is None or end.lane_gbps == cage.lanes_gbps)
    )


def _cables_fitting(
    catalog: MediaCatalog, a: CageEnd, b: CageEnd, technology: str, allowed: frozenset[str], allow_discontinued: bool
) -> tuple[tuple[Any, bool], ...]:
    """The copper cables (in catalog order) whose plugs fit the two cages, each with whether it fits the other way
    round (end A in cage B): _select_copper's filter, the same for every run length of one cage pair (memoized as
    _fitting_modules is)."""
    out = []
    for cable in catalog.cables.values():
        if cable.kind not in allowed:
            continue
        if cable.discontinued and not allow_discontinued:
            continue
        if technology not in cable.technologies:
            continue
        if _plug_fits(cable.end_a, a) and _plug_fits(cable.end_b, b):
            out.append((cable, False))
        elif _plug_fits(cable.end_a, b) and _plug_fits(cable.end_b, a):
            out.append((cable, True))
    return tuple(out)


def _select_copper(
    req: MediaRequest,
    policy: MediaPolicy,
    catalog: MediaCatalog,
    allowed: frozenset[str],
    split: bool,
    reasons: list[str],
) -> MediaChoice | None:
    a, b = req.a, req.b
    if split:
        return None  # copper 1:4 splitters (MCP7Y50/40) to 200G are not modelled as 1:2 splits
    best = None
    for cable, flipped in _fitting_cables(catalog, a, b, req.technology, allowed, policy.allow_discontinued):
        if (cable.end_a.ports == 2 or cable.end_b.ports == 2) and not req.cage_aligned:
            reasons.append(
                f"{cable.family} ({cable.kind}) would tie both ports of a twin-port cage to one far-end cable, "
                "but the cage's ports go to different far-end cages (e.g. different rails or leaves)"
            )
            continue
        reach = _reach_cap(policy, cable.kind, cable.reach_m)
        length = round_up_length(
            cable.lengths_m, req.run_length_m, made_to_order=cable.made_to_order, step_m=policy.made_to_order_step_m
        )
        if length is None or length > reach + _EPS:
            reasons.append(f"{cable.family} ({cable.kind}) reaches {reach:g} m")
            continue
        key = (_KIND_RANK[cable.kind], length, cable.family)
        if best is None or key < best[0]:
            best = (key, cable, length, reach, flipped)
    if best is None:
        return None
    _, cable, length, reach, flipped = best
    ppe = cable.power_w_per_end
    links_a = (cable.end_b if flipped else cable.end_a).ports
    links_b = (cable.end_a if flipped else cable.end_b).ports
    warnings = []
    if ppe is None:
        warnings.append(f"{cable.family}: power not in the catalog")
    medium = cable.kind
    return MediaChoice(
        tier=req.tier,
        medium=medium,
        link_gbps=a.port_speed_gbps,
        lanes_per_link=a.port_speed_gbps // a.lanes_gbps,
        breakout="twin-to-single" if cable.legs > 1 else "none",
        cable_kind=cable.kind,
        cable_family=cable.family,
        cable_sku=sku_for_length(cable.sku_pattern, length),
        cable_sku_pattern=cable.sku_pattern,
        cable_lengths_m=cable.lengths_m,
        cable_made_to_order=cable.made_to_order,
        cable_carries_links=cable.links,
        ordered_length_m=length,
        run_length_m=req.run_length_m,
        reach_m=reach,
        a_links_per_module=links_a,
        b_links_per_module=links_b,
        a_power_w=ppe,
        b_power_w=ppe,
        a_power_w_per_link=None if ppe is None else ppe / links_a,
        b_power_w_per_link=None if ppe is None else ppe / links_b,
        warnings=tuple(warnings),
    )


def _only_hint(cage: Any) -> str:
    if not cage.accepts:
        return ""
    only = "/".join(a.upper() for a in cage.accepts)
    return (
        f"; the {cage.nic or 'NIC'} takes only {only} plugs, so a QSFP28 cable or module that its cage would hold "
        f"is refused: add a {only} part for {cage.port_speed_gbps}G (a custom part) or run these ports at a "
        f"speed a {only} part in the catalog serves"
    )


def _module_fits(
    t: Transceiver,
    cage: Any,
    technology: str,
    allow_discontinued: bool,
    *,
    port_gbps: int,
    need_split: bool,
    lane_mode: int | None,
) -> bool:
    """Whether module `t` fits `cage`; `allow_discontinued`: the policy's (the one policy setting it reads)."""
    if t.discontinued and not allow_discontinued:
        return False
    if cage.module is not None and t.sku != cage.module:
        return False
    # NVIDIA: "QSFP112 are not for use in switches" (parts-beyond-ndr.md section 3).
    if t.form_factor == "qsfp112" and cage.device_kind == "switch":
        return False
    if not (
        _takes(cage, t.form_factor, t.top)
        and t.ports == (2 if cage.twin_port else 1)
        and t.lane_gbps == cage.lanes_gbps
        and technology in t.technologies
        and t.port_gbps == port_gbps
    ):
        return False
    if need_split and not t.splittable:
        return False
    if lane_mode is not None and t.lane_mode(lane_mode) is None:
        return False
    return True


def _pick_cord(
    catalog: Any,
    *,
    connector: Any,
    polish: Any,
    mode: Any,
    kind: Any,
    min_fibers: Any,
    length_run: Any,
    policy: Any,
    vendor: Any,
    reach: Any,
    fiber_type: Any = None,
) -> Any:
    """Best cord family for a run: a stocked length before any made-to-order one (a cord cut to
    length is used only where no fitting family stocks a length that covers the run, so one tier
    and length class gets one part, not a length per metre), then the shortest ordered length,
    the module vendor's own part first, then family name. Returns (cord, length) or None."""
    for made_to_order in (False, True):
        found = _pick_cord_pass(
            catalog,
            connector=connector,
            polish=polish,
            mode=mode,
            kind=kind,
            min_fibers=min_fibers,
            length_run=length_run,
            policy=policy,
            vendor=vendor,
            reach=reach,
            fiber_type=fiber_type,
            made_to_order=made_to_order,
        )
        if found is not None:
            return found
    return None


def _pick_cord_pass(
    catalog: Any,
    *,
    connector: Any,
    polish: Any,
    mode: Any,
    kind: Any,
    min_fibers: Any,
    length_run: Any,
    policy: Any,
    vendor: Any,
    reach: Any,
    fiber_type: Any,
    made_to_order: Any,
) -> tuple[Any, float] | None:
    polarity = "A-B" if connector == "lc" else "B"
    best = None
    for cord in catalog.cords.values():
        if (
            cord.connector != connector
            or cord.polish != polish
            or cord.fiber_mode != mode
            or cord.kind != kind
            or cord.polarity != polarity
            or (connector != "lc" and (cord.gender_a != "unpinned" or cord.gender_b != "unpinned"))
            or cord.fibers < min_fibers
            or (fiber_type is not None and cord.fiber_type != fiber_type)
        ):
            continue
        cap = min(reach, cord.max_link_m) if cord.max_link_m else reach
        length = round_up_length(
            cord.lengths_m,
            length_run,
            made_to_order=made_to_order and cord.made_to_order,
            step_m=policy.made_to_order_step_m,
        )
        if length is None or length > cap + _EPS:
            continue
        key = (length, cord.vendor != vendor, cord.family)
        if best is None or key < best[0]:
            best = (key, cord, length)
    return None if best is None else (best[1], best[2])


def _select_optics(
    req: MediaRequest,
    policy: MediaPolicy,
    catalog: MediaCatalog,
    allowed: frozenset[str],
    split: bool,
    reasons: list[str],
) -> MediaChoice | None:
    a, b = req.a, req.b
    tier = policy.tier(req.tier)
    mods_a, mods_b = _fitting_modules(catalog, a, b, req.technology, split, policy.allow_discontinued)
    if not mods_a:
        reasons.append(
            f"no transceiver in the catalog fits the A cage ({a.describe()}{', splittable' if split else ''})"
            + _only_hint(a)
        )
    if not mods_b:
        reasons.append(
            f"no transceiver in the catalog fits the B cage ({b.describe()}{', 2-lane mode' if split else ''})"
            + _only_hint(b)
        )
    panels = tier.cabling == "panels"
    best = None
    for ma in mods_a:
        pa = catalog.pmds[ma.pmd]
        for mb in mods_b:
            pb = catalog.pmds[mb.pmd]
            if pa.interop != pb.interop or ma.fiber_mode != mb.fiber_mode or ma.polish != mb.polish:
                continue
            medium = "fiber-sm" if ma.fiber_mode == "sm" else "fiber-mm"
            if medium not in allowed:
                reasons.append(f"{medium} excluded by the tier's medium pin '{tier.medium}'")
                continue
            port = catalog.pmds[pa.interop]
            rules = catalog.cabling_requirements.get(ma.vendor) if policy.loss.vendor_requirements else None
            kind = "splitter" if split else "straight"
            ctype = "lc-sm" if ma.connector == "lc" else f"mpo-{ma.fiber_mode}-{kind}"
            rule_cap = dict(rules.max_length_m).get(ctype) if rules else None
            for ft in port.fiber_types:
                if ma.fiber_mode == "mm" and policy.mm_fiber != "auto" and ft != policy.mm_fiber:
                    continue
                ra, rb = ma.reach_for(ft), mb.reach_for(ft)
                if ra is None or rb is None:
                    continue
                reach = _reach_cap(policy, medium, port.reach_for(ft), ra, rb, rule_cap)
                if req.run_length_m > reach + _EPS:
                    reasons.append(f"{ma.sku}/{mb.sku} ({port.name}, {ft}) reach {reach:g} m")
                    continue
                cand = _optic_candidate(
                    req, policy, catalog, ma, mb, port, ft, medium, split, panels, tier, reach, rules, ctype, reasons
                )
                if cand is None:
                    continue
                power = (ma.power_w or 0) + (mb.power_w or 0)
                key = (medium == "fiber-sm", max(ra, rb), power, cand.ordered_length_m, ma.sku, mb.sku, ft)
                if best is None or key < best[0]:
                    best = (key, cand)
    return None if best is None else best[1]


def _modules_fitting(
    catalog: MediaCatalog, a: CageEnd, b: CageEnd, technology: str, split: bool, allow_discontinued: bool
) -> tuple[tuple[Transceiver, ...], tuple[Transceiver, ...]]:
    """The transceivers (in SKU order) that fit the A and the B cage of an optical request (_select_optics): what
    it filters is the same for every run length of one cage pair, and a design asks for a few cage pairs at
    hundreds of run lengths (435 requests at 128K GPUs). Memoized per catalog (_PerCatalog), the cage ends by
    value."""
    mods = sorted(catalog.transceivers.values(), key=lambda t: t.sku)
    # a breakout (split): the A modules split their port; the B modules are matched at the A port's speed, in the
    # B port's lane mode
    b_gbps, b_lane = (a.port_speed_gbps, b.port_speed_gbps) if split else (b.port_speed_gbps, None)
    mods_a = [
        t
        for t in mods
        if _module_fits(
            t, a, technology, allow_discontinued, port_gbps=a.port_speed_gbps, need_split=split, lane_mode=None
        )
    ]
    mods_b = [
        t
        for t in mods
        if _module_fits(t, b, technology, allow_discontinued, port_gbps=b_gbps, need_split=False, lane_mode=b_lane)
    ]
    return tuple(mods_a), tuple(mods_b)


class _PerCatalog:
    """`fn(catalog, *key)` memoized per catalog: a dict by key, held weakly by the catalog (MediaCatalog hashes by
    identity), so the answers go with their catalog. A user's custom parts make a catalog per design: an lru_cache
    keyed by the catalog would keep hundreds of catalogs alive in a worker."""

    def __init__(self, fn: Any) -> None:
        self.fn = fn
        self.memos: WeakKeyDictionary = WeakKeyDictionary()
        self.misses = 0  # answers worked out (read by tests)

    def __call__(self, catalog: Any, *key: Any) -> Any:
        memo = self.memos.get(catalog)
        if memo is None:
            memo = self.memos[catalog] = {}
        got = memo.get(key)
        if got is None:
            self.misses += 1
            got = memo[key] = self.fn(catalog, *key)
        return got

    def cache_clear(self) -> None:
        self.memos = WeakKeyDictionary()


_fitting_cables = _PerCatalog(_cables_fitting)
_fitting_modules = _PerCatalog(_modules_fitting)


def _optic_candidate(
    req: Any,
    policy: Any,
    catalog: Any,
    ma: Any,
    mb: Any,
    port: Any,
    ft: Any,
    medium: str,
    split: Any,
    panels: Any,
    tier: Any,
    reach: float,
    rules: CablingRules | None,
    ctype: str,
    reasons: Any,
) -> MediaChoice | None:
    """Build the MediaChoice for one (module A, module B, fiber type), or None."""
    connector, polish, mode = ma.connector, ma.polish, ma.fiber_mode
    full_fibers = port.fibers_per_port
    active = full_fibers // 2 if split else full_fibers
    kind = "splitter" if split else "straight"
    cord_run = policy.panel_cord_length_m if panels else req.run_length_m
    picked = _pick_cord(
        catalog,
        connector=connector,
        polish=polish,
        mode=mode,
        kind=kind,
        min_fibers=full_fibers,
        length_run=cord_run,
        policy=policy,
        vendor=ma.vendor,
        reach=reach,
        fiber_type=ft,
    )
    if picked is None:
        reasons.append(f"no {kind} {connector} {ft.upper()} {polish.upper()} cord in the catalog covers {cord_run:g} m")
        return None
    cord, length = picked
    if not panels and length > reach + _EPS:
        return None
    structured = None
    warnings: list[str] = []
    carries = cord.legs if split else 1
    installed = cord.fibers // carries
    if panels:
        structured = _structured_parts(catalog, policy, tier, ma, cord, cord_run, split, ft, reasons)
        if structured is None:
            return None
        installed = structured.trunk_base // structured.links_per_leg
    # Modules: links per module and power.
    a_links = ma.ports * (cord.legs if split else 1)
    b_links = mb.ports
    a_power = ma.power_w
    if split:
        mode_b = mb.lane_mode(req.b.port_speed_gbps)
        b_power = mode_b.power_w if mode_b and mode_b.power_w is not None else mb.power_w
        if mode_b and mode_b.power_w is None:
            warnings.append(
                f"{mb.sku}: power in {req.b.port_speed_gbps}G mode not in the catalog; full-mode power used"
            )
    else:
        b_power = mb.power_w
    for m, p in ((ma, a_power), (mb, b_power)):
        if p is None:
            warnings.append(f"{m.sku}: power not in the catalog")
    if ma.reach_for(ft) != mb.reach_for(ft):
        warnings.append(
            f"reach limited to {reach:g} m by the shorter-reach module ({ma.sku} {ma.reach_for(ft):g} m, {mb.sku} {mb.reach_for(ft):g} m) [S10]"
        )
    if cord.max_link_m is not None and split:
        warnings.append(f"1:2 splitter links are limited to {cord.max_link_m:g} m in total [S9]")
    return MediaChoice(
        tier=req.tier,
        medium=medium,
        link_gbps=req.b.port_speed_gbps,
        lanes_per_link=len(port.tx_positions) // (2 if split else 1) if connector != "lc" else port.lanes,
        breakout="split-1:2" if split else ("twin-to-single" if ma.ports != mb.ports else "none"),
        cable_kind="splitter" if split else "cord",
        cable_family=cord.family,
        cable_sku=sku_for_length(cord.sku_pattern, length),
        cable_sku_pattern=cord.sku_pattern,
        cable_lengths_m=cord.lengths_m,
        cable_made_to_order=cord.made_to_order,
        cable_carries_links=carries,
        ordered_length_m=length,
        run_length_m=req.run_length_m,
        reach_m=reach,
        a_module=ma.sku,
        b_module=mb.sku,
        a_links_per_module=a_links,
        b_links_per_module=b_links,
        a_power_w=a_power,
        b_power_w=b_power,
        a_power_w_per_link=None if a_power is None else a_power / a_links,
        b_power_w_per_link=None if b_power is None else b_power / b_links,
        pmd=port.id,
        pmd_spec=port,
        connector=connector,
        polish=polish,
        fiber_mode=mode,
        fiber_type=ft,
        channel_type=ctype,
        fibers_per_link=active,
        fibers_installed_per_link=installed,
        cord=cord,
        structured=structured,
        rules=rules,
        split_end="a" if split else None,
        warnings=tuple(warnings),
    )


def _structured_parts(
    catalog: Any, policy: Any, tier: Any, module: Any, cord: Cord, cord_run: float, split: Any, ft: Any, reasons: Any
) -> StructuredParts | None:
    """Resolve panel-mode parts: equipment cords, trunk, adapters or cassettes, panel."""
    mode, connector = module.fiber_mode, module.connector
    if connector == "lc":
        cas = [
            c
            for c in sorted(catalog.cassettes.values(), key=lambda c: c.sku)
            if c.base == tier.trunk_base and c.fiber_mode == mode and c.lc_polish == module.polish
        ]
        if not cas:
            reasons.append(f"no Base-{tier.trunk_base} {mode.upper()} MPO-LC cassette in the catalog")
            return None
        cassette = cas[0]
        trunk_conn, trunk_polish = cassette.mpo_connector, cassette.mpo_polish
        trunk_gender = "unpinned" if cassette.mpo_gender == "pinned" else "pinned"
        base, per_leg = cassette.base, cassette.lc_ports
        panel_kind, adapter = "cassette", None
    else:
        cassette = None
        trunk_conn, trunk_polish, trunk_gender = connector, module.polish, "pinned"  # NVIDIA: trunks male [S9]
        base = 16 if connector == "mpo-16" else tier.trunk_base
        per_leg = cord.legs if split else 1
        panel_kind = "mpo"
        adapters = [
            x
            for x in sorted(catalog.adapters.values(), key=lambda x: x.sku)
            if x.connector == connector and x.type == tier.adapter_type
        ]
        if not adapters:
            reasons.append(f"no Type-{tier.adapter_type} {connector} adapter in the catalog")
            return None
        adapter = adapters[0]
    trunks = [
        t
        for t in sorted(catalog.trunks.values(), key=lambda t: t.family)
        if t.connector == trunk_conn
        and t.polish == trunk_polish
        and t.fiber_mode == mode
        and t.fiber_type == ft
        and base in t.bases
    ]
    if not trunks:
        reasons.append(f"no Base-{base} {trunk_conn} {ft.upper()} {trunk_polish.upper()} trunk in the catalog")
        return None
    panels = [p for p in sorted(catalog.panels.values(), key=lambda p: p.sku) if p.kind == panel_kind]
    if not panels:
        reasons.append(f"no {panel_kind} patch panel in the catalog")
        return None
    # Equipment cords: at B the link's own cord (splitter when split); at A a straight
    # cord of the same construction.
    length = round_up_length(
        cord.lengths_m, cord_run, made_to_order=cord.made_to_order, step_m=policy.made_to_order_step_m
    )
    if length is None:  # _pick_cord chose `cord` because this same run rounds to a length it stocks
        raise EngineInvariantError(f"cord {cord.family} has no length for a {cord_run:g} m run")
    cord_a, length_a = cord, length
    if split:
        straight = _pick_cord(
            catalog,
            connector=connector,
            polish=module.polish,
            mode=mode,
            kind="straight",
            min_fibers=cord.fibers,
            length_run=cord_run,
            policy=policy,
            vendor=module.vendor,
            reach=math.inf,
            fiber_type=ft,
        )
        if straight is None:
            reasons.append("no straight cord for the switch side of a panel splitter channel")
            return None
        cord_a, length_a = straight
    return StructuredParts(
        cord_a=cord_a,
        cord_b=cord,
        cord_a_sku=sku_for_length(cord_a.sku_pattern, length_a),
        cord_b_sku=sku_for_length(cord.sku_pattern, length),
        cord_a_length_m=length_a,
        cord_b_length_m=length,
        trunk=trunks[0],
        trunk_gender=trunk_gender,
        trunk_base=base,
        links_per_leg=per_leg,
        panel=panels[0],
        adapter=adapter,
        cassette=cassette,
    )


def check_cage_consistency(choices: tuple[MediaChoice, ...]) -> list[str]:
    """Both ports of a twin-port module must use the same module and cable type
    (straight and splitter fibers cannot be mixed) [S10][S14]. Returns problems."""
    problems = []
    if len({c.a_module for c in choices}) > 1:
        problems.append(f"one cage has different modules: {sorted({str(c.a_module) for c in choices})}")
    if len({c.cable_kind for c in choices}) > 1:
        problems.append(f"one twin-port module mixes cable types: {sorted({c.cable_kind for c in choices})} [S12][S16]")
    return problems
