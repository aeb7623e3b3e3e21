"""Structured cabling for a tier: trunks between racks, panels, ports per link.

``plan_trunks`` takes, for one tier, the number of panel-mode links between each rack
pair (with the link's ``MediaChoice``) and sizes trunks to fill Base-8 / Base-12 /
Base-16 counts plus the policy's spare fraction [S32][S52]. Each link gets its trunk,
trunk leg, fiber positions, and its panel and port at both ends. ``plan_panels`` sums
panels, rack units, adapters and cassettes per rack. Work is O(links).

Ports: an MPO link (or a splitter pair sharing one switch port) takes one MPO adapter
position per trunk leg at each end, the same leg number at both ends. A duplex (FR4)
link takes one LC port of a cassette; with the Type-B trunk the far port is mirrored
(port k of a cassette with P ports lands on port P+1-k) [S29].
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, NamedTuple

from engine.physical.catalog import sku_for_length
from engine.physical.policy import MediaPolicy

if TYPE_CHECKING:
    from engine.physical.select import MediaChoice

_EPS = 1e-9
_new_tuple = tuple.__new__  # a NamedTuple made without its Python-level __new__
BASE12_SIZES = (12, 24, 48, 72, 96, 144)  # [S32]


class TrunkDemand(NamedTuple):
    """Panel-mode links of one kind between two racks. ``run_length_m``: panel-to-panel
    run (the trunk is ordered to it, rounded up). ``choice``: the links' MediaChoice,
    selected with the tier's cabling set to 'panels'."""

    rack_a: str
    rack_b: str
    links: int
    run_length_m: float
    choice: MediaChoice
    group: int = 0  # trunk-diversity group (the half of the spines the links reach); see plan_trunks


class LinkSlot(NamedTuple):
    """Where one link runs: trunk, leg, trunk fibers, panel and port at each end.
    ``panel_*``: 0-based panel ordinal in that rack (for this tier and panel kind),
    ``port_*``: 1-based port in the panel. ``sub``: splitter leg or cassette position."""

    trunk_id: str
    leg: int
    fiber_first: int
    fiber_last: int
    panel_a: int
    port_a: int
    panel_b: int
    port_b: int
    sub: int


@dataclass(frozen=True, slots=True)
class TrunkRun:
    id: str
    tier: str
    rack_a: str
    rack_b: str
    sku: str
    family: str
    base: int
    fibers: int
    legs: int
    links: int
    link_capacity: int
    active_fibers: int
    dark_fibers: int
    spare_fibers: int
    length_m: float
    gender: str
    panel_kind: str


# A TrunkRun made with its slots set from C, one member descriptor a field, as the snapshot codec decodes it: the
# dataclass __init__ of a frozen class calls object.__setattr__ from Python per field (17 here), about 1.8 us a
# trunk. The descriptors' __set__ are called one by one, by name: 0.8 us a trunk, against 1.3 us through
# any(map(operator.call, setters, repeat(trunk), values)) (178,750 trunks at 512K GPUs). Unpacking them here
# fails at import if TrunkRun gains or loses a field.
(
    _SET_ID,
    _SET_TIER,
    _SET_RACK_A,
    _SET_RACK_B,
    _SET_SKU,
    _SET_FAMILY,
    _SET_BASE,
    _SET_FIBERS,
    _SET_LEGS,
    _SET_LINKS,
    _SET_LINK_CAPACITY,
    _SET_ACTIVE,
    _SET_DARK,
    _SET_SPARE,
    _SET_LENGTH,
    _SET_GENDER,
    _SET_PANEL_KIND,
) = (getattr(TrunkRun, f.name).__set__ for f in fields(TrunkRun))
_new_object = object.__new__


def _trunk_run(
    tid: str,
    tier: str,
    rack_a: str,
    rack_b: str,
    sku: str,
    family: str,
    base: int,
    fibers: int,
    legs: int,
    links: int,
    link_capacity: int,
    active: int,
    dark: int,
    spare: int,
    length: float,
    gender: str,
    panel_kind: str,
) -> TrunkRun:
    """TrunkRun(...) of these fields, in their order, without running its __init__."""
    trunk = _new_object(TrunkRun)
    _SET_ID(trunk, tid)
    _SET_TIER(trunk, tier)
    _SET_RACK_A(trunk, rack_a)
    _SET_RACK_B(trunk, rack_b)
    _SET_SKU(trunk, sku)
    _SET_FAMILY(trunk, family)
    _SET_BASE(trunk, base)
    _SET_FIBERS(trunk, fibers)
    _SET_LEGS(trunk, legs)
    _SET_LINKS(trunk, links)
    _SET_LINK_CAPACITY(trunk, link_capacity)
    _SET_ACTIVE(trunk, active)
    _SET_DARK(trunk, dark)
    _SET_SPARE(trunk, spare)
    _SET_LENGTH(trunk, length)
    _SET_GENDER(trunk, gender)
    _SET_PANEL_KIND(trunk, panel_kind)
    return trunk


@dataclass(frozen=True, slots=True)
class PanelUse:
    """Positions one tier uses in one rack for one panel kind and insert part."""

    rack: str
    tier: str
    panel_kind: str
    panel_sku: str
    positions_per_panel: int
    rack_units_per_panel: int
    insert_sku: str  # adapter or cassette SKU
    positions: int
    skipped: int = 0  # positions left empty so a trunk group starts on a panel of its own (trunk diversity)


class LegRun(NamedTuple):
    """The slots of a demand of `links` links on one trunk, one MPO link a leg: link j takes leg j + 1 and the j-th
    position after `pos_a` and `pos_b` (_leg_slots). plan_trunks keeps a demand's slots so (one tuple, not a
    LinkSlot a link: 178,750 such demands at 512K GPUs) and its reader steps the positions itself."""

    links: int
    trunk_id: str
    pos_a: int  # the trunk's first position in rack A (panel * positions a panel + port - 1)
    pos_b: int
    per_panel: int  # positions a panel
    base: int  # fibers a leg


class LegRuns(tuple):
    """The slots of a demand of several trunks, one MPO link a leg: a LegRun per trunk that carries links, in
    order (_one_a_leg_slots' walk). Its reader steps the positions itself, as for a LegRun, rather than reading a
    LinkSlot a link (2,160 such demands of ~21 links at 128K GPUs)."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class TrunkPlan:
    tier: str
    trunks: tuple[TrunkRun, ...]
    # per demand, its links' slots in order: a tuple of LinkSlots, a LegRun standing for those _leg_slots gives, or
    # LegRuns (a LegRun per trunk) standing for those _one_a_leg_slots gives
    slot_runs: tuple[tuple[LinkSlot, ...] | LegRun | LegRuns, ...]
    usage: tuple[PanelUse, ...]

    @property
    def slots(self) -> tuple[tuple[LinkSlot, ...], ...]:
        """Per demand, one LinkSlot per link, in order."""
        return tuple(map(_link_slots_of, self.slot_runs))


def _link_slots_of(slots: tuple) -> tuple[LinkSlot, ...]:
    """One demand's LinkSlots, from what TrunkPlan.slot_runs keeps of them."""
    if type(slots) is LegRun:
        return _leg_slots(*slots)
    if type(slots) is LegRuns:
        return tuple(slot for run in slots for slot in _leg_slots(*run))
    return slots


@dataclass(frozen=True, slots=True)
class RackPanels:
    rack: str
    tier: str
    panel_kind: str
    panel_sku: str
    panels: int
    rack_units: int
    positions: int
    positions_used: int
    inserts: tuple[tuple[str, int], ...]  # (adapter or cassette SKU, count)
    panel_ids: tuple[str, ...]


def trunk_sizes(base: int, max_fibers: int) -> tuple[int, ...]:
    """Stock trunk fiber counts for a base: Base-12 12/24/48/72/96/144 [S32]; Base-8 and
    Base-16 multiples of the base [S32][S33] (M)."""
    if base == 12:
        sizes = tuple(s for s in BASE12_SIZES if s <= max_fibers)
    else:
        sizes = tuple(range(base, max_fibers + 1, base))
    return sizes or (base,)


def _split_trunks(fibers: int, sizes: tuple[int, ...]) -> list[int]:
    """Cover ``fibers`` with full largest trunks, then the smallest size that fits."""
    out = []
    largest = sizes[-1]
    remaining = fibers
    while remaining > 0:
        if remaining >= largest:
            out.append(largest)
            remaining -= largest
        else:
            size = next(s for s in sizes if s >= remaining)
            out.append(size)
            remaining = 0
    return out


def plan_trunks(
    tier: str, demands: Sequence[TrunkDemand], policy: MediaPolicy, *, own_panels: bool = False
) -> TrunkPlan:
    """Size the trunks of one tier and assign every link a trunk leg and panel ports. `own_panels`: a demand of
    another `group` than the demand before it in a rack starts on a panel of its own there (the positions left
    empty before it are counted as skipped), so two groups never share a panel.

    A tier's demands are one per rack pair and medium, so their number grows with the square of the racks (the
    spine-core demands between halls: 7,940 of ~13 links at 128K GPUs, 178,750 of ~3 links at 512K) while their
    links do not. What depends only on the medium (_Medium), on the medium and a demand's link count (its
    trunks' sizes and fiber counts: _shape) or on a run length is worked out once per call; a demand costs its
    trunk ids, panel positions and slots."""
    spare, step = policy.trunk_spare_fraction, policy.trunk_length_step_m
    pair_count: dict[tuple[str, str], int] = {}
    taken: dict[str, dict[str, int]] = {}  # panel kind -> rack -> positions taken
    last_group: dict[str, dict[str, int]] = {}  # panel kind -> rack -> diversity group of its last demand
    usage: dict[tuple[str, str, str], dict[str, list]] = {}  # (kind, panel SKU, insert) -> rack -> [panel, n, skipped]
    media: dict[int, _Medium] = {}  # id(choice) -> its _Medium (the demands hold their choices through the call)
    length_of: dict[float, float] = {}  # run length -> ordered trunk length
    trunks: list[TrunkRun] = []
    all_slots: list[tuple[LinkSlot, ...] | LegRun | LegRuns] = []
    for d in demands:
        rack_a, rack_b, n, run_m, choice, group = d
        m = media.get(id(choice))
        if m is None or n <= 0:
            if getattr(choice, "structured", None) is None:
                raise ValueError(
                    f"tier {tier}: demand {rack_a}->{rack_b} has no panel parts; select its media with cabling 'panels'"
                )
            if n < 0:
                raise ValueError(f"tier {tier}: demand {rack_a}->{rack_b}: links must be >= 0")
            if n == 0:
                all_slots.append(())
                continue
            m = media[id(choice)] = _medium(choice, policy, taken, last_group, usage)
        shape = m.shapes.get(n)
        if shape is None:
            shape = m.shapes[n] = _shape(n, m, spare)
        length = length_of.get(run_m)
        if length is None:
            length = length_of[run_m] = max(step, math.ceil(run_m / step - _EPS) * step)
        if own_panels:
            _own_panel_gaps(m, rack_a, rack_b, group)
        # Allocate trunks and their panel positions at both ends.
        pos, use = m.taken, m.use
        use_a = use.get(rack_a)
        if use_a is None:
            use_a = use[rack_a] = [m.panel, 0, 0]
        use_b = use.get(rack_b)
        if use_b is None:
            use_b = use[rack_b] = [m.panel, 0, 0]
        key = (rack_a, rack_b)
        count = pair_count.get(key, 0)
        t_meta = []
        skus = m.skus
        for size, legs, links_here, capacity, active, dark, spare_fibers in shape:
            count += 1
            tid = f"T-{tier}-{rack_a}-{rack_b}-{count}"
            pos_a = pos.get(rack_a, 0)
            pos[rack_a] = pos_a + legs
            pos_b = pos.get(rack_b, 0)
            pos[rack_b] = pos_b + legs
            use_a[1] += legs
            use_b[1] += legs
            t_meta.append((tid, size, legs, pos_a, pos_b))
            sku = skus.get((length, size))
            if sku is None:
                sku = skus[(length, size)] = sku_for_length(m.pattern, length, fibers=size, gender=m.gender)
            trunks.append(
                _trunk_run(
                    tid,
                    tier,
                    rack_a,
                    rack_b,
                    sku,
                    m.family,
                    m.base,
                    size,
                    legs,
                    links_here,
                    capacity,
                    active,
                    dark,
                    spare_fibers,
                    length,
                    m.trunk_gender,
                    m.kind,
                )
            )
        pair_count[key] = count
        if m.one_a_leg and len(shape) == 1 and n <= legs:
            all_slots.append(_new_tuple(LegRun, (n, tid, pos_a, pos_b, m.per_panel, m.base)))
        elif m.one_a_leg:
            all_slots.append(_one_a_leg_runs(n, t_meta, m.per_panel, m.base))
        else:
            all_slots.append(_link_slots(n, t_meta, m.lpl, m.base, m.per_panel, m.lc_ports))
    rows = sorted(
        ((rack, kind, psku, insert), entry)
        for (kind, psku, insert), by_rack in usage.items()
        for rack, entry in by_rack.items()
    )
    use_out = tuple(
        PanelUse(rack, tier, kind, psku, panel.positions, panel.rack_units, insert, n, skipped)
        for (rack, kind, psku, insert), (panel, n, skipped) in rows
    )
    return TrunkPlan(tier=tier, trunks=tuple(trunks), slot_runs=tuple(all_slots), usage=use_out)


class _Medium(NamedTuple):
    """What plan_trunks reads of one MediaChoice's panel parts, and its tables for the call."""

    base: int  # trunk base (fibers a leg)
    lpl: int  # links a leg
    kind: str  # panel kind
    per_panel: int  # positions a panel
    lc_ports: int  # LC ports a cassette position (1: an MPO adapter)
    one_a_leg: bool  # one link a leg on an MPO adapter: a link's slot is its leg's position
    sizes: tuple[int, ...]  # stock trunk sizes of the base
    fibers_per_link: int  # active
    pattern: str  # trunk SKU pattern
    gender: str  # trunk gender in the SKU (MM pinned, FF unpinned)
    trunk_gender: str
    family: str
    panel: Any  # the Panel a rack's usage entry records
    taken: dict[str, int]  # rack -> positions taken, shared by the media of one panel kind
    last: dict[str, int]  # rack -> diversity group of its last demand, per panel kind
    use: dict[str, list]  # rack -> [panel, positions, skipped], per panel kind, panel SKU and insert
    shapes: dict[int, tuple]  # links -> _shape
    skus: dict[tuple[float, int], str]  # (ordered length, fibers) -> trunk SKU


def _medium(choice: Any, policy: MediaPolicy, taken: dict, last_group: dict, usage: dict) -> _Medium:
    sp = choice.structured
    kind = sp.panel.kind
    insert = sp.cassette.sku if sp.cassette else sp.adapter.sku
    lc_ports = sp.cassette.lc_ports if sp.cassette else 1
    return _Medium(
        base=sp.trunk_base,
        lpl=sp.links_per_leg,
        kind=kind,
        per_panel=sp.panel.positions,
        lc_ports=lc_ports,
        one_a_leg=sp.links_per_leg == 1 and lc_ports == 1,
        sizes=trunk_sizes(sp.trunk_base, policy.trunk_max_fibers),
        fibers_per_link=choice.fibers_per_link,
        pattern=sp.trunk.sku_pattern,
        gender="MM" if sp.trunk_gender == "pinned" else "FF",
        trunk_gender=sp.trunk_gender,
        family=sp.trunk.family,
        panel=sp.panel,
        taken=taken.setdefault(kind, {}),
        last=last_group.setdefault(kind, {}),
        use=usage.setdefault((kind, sp.panel.sku, insert), {}),
        shapes={},
        skus={},
    )


def _shape(n: int, m: _Medium, spare: float) -> tuple[tuple[int, ...], ...]:
    """The trunks of a demand of `n` links of medium `m`: per trunk (fibers, legs, links, link capacity, active,
    dark and spare fibers). Legs are filled in order, so the last trunks may carry fewer links, or none."""
    base, lpl = m.base, m.lpl
    legs_needed = -(-n // lpl)
    target = math.ceil(legs_needed * (1.0 + spare) - _EPS) * base
    out = []
    first = 0  # the trunk's first leg, counted over the demand's trunks
    for size in _split_trunks(target, m.sizes):
        legs = size // base
        links_here = max(0, min(n - first * lpl, legs * lpl))
        first += legs
        legs_used = -(-links_here // lpl)
        active = links_here * m.fibers_per_link
        out.append((size, legs, links_here, legs * lpl, active, legs_used * base - active, (legs - legs_used) * base))
    return tuple(out)


def _own_panel_gaps(m: _Medium, rack_a: str, rack_b: str, group: int) -> None:
    """Trunk diversity: at each end, a demand of another group than the rack's last starts on a panel of its own
    (the positions left empty before it count as skipped)."""
    pos, last, use = m.taken, m.last, m.use
    for rack in (rack_a, rack_b):
        at = pos.get(rack, 0)
        gap = -at % m.per_panel if last.setdefault(rack, group) != group else 0
        last[rack] = group
        if gap:
            pos[rack] = at + gap
            u = use.get(rack)
            if u is None:
                u = use[rack] = [m.panel, 0, 0]
            u[2] += gap


def _one_a_leg_runs(n: int, t_meta: list[tuple[str, int, int, int, int]], per_panel: int, base: int) -> LegRuns:
    """The slots of a demand of several trunks with one MPO link a leg (`_Medium.one_a_leg`), as LegRuns: each
    trunk's legs in order (_leg_slots), trunk after trunk, until the demand's `n` links have one. The LinkSlots
    they stand for (_one_a_leg_slots) are those _link_slots' walk of every leg gives."""
    runs = []
    for tid, _size, legs, pos_a, pos_b in t_meta:
        here = min(n, legs)
        if here <= 0:
            break
        runs.append(_new_tuple(LegRun, (here, tid, pos_a, pos_b, per_panel, base)))
        n -= here
    return LegRuns(runs)


def _one_a_leg_slots(
    n: int, t_meta: list[tuple[str, int, int, int, int]], per_panel: int, base: int
) -> tuple[LinkSlot, ...]:
    """The LinkSlots of _one_a_leg_runs' demand (TrunkPlan.slots)."""
    return _link_slots_of(_one_a_leg_runs(n, t_meta, per_panel, base))


def _leg_slots(n: int, tid: str, pos_a: int, pos_b: int, per_panel: int, base: int) -> tuple[LinkSlot, ...]:
    """_link_slots for `n` links on one trunk, one MPO link a leg: link j takes leg j + 1, its fibers and the
    j-th position after the trunk's first at both ends (a panel's positions are 1-based ports)."""
    pa, sa = divmod(pos_a, per_panel)
    pb, sb = divmod(pos_b, per_panel)
    slots = []
    last = 0
    for leg in range(1, n + 1):
        if sa == per_panel:
            pa, sa = pa + 1, 0
        if sb == per_panel:
            pb, sb = pb + 1, 0
        sa += 1
        sb += 1
        slots.append(_new_tuple(LinkSlot, (tid, leg, last + 1, last + base, pa, sa, pb, sb, 1)))
        last += base
    return tuple(slots)


def _link_slots(
    n: int, t_meta: list[tuple[str, int, int, int, int]], lpl: int, base: int, per_panel: int, lc_ports: int
) -> tuple[LinkSlot, ...]:
    """The slots of a demand's `n` links, in order: trunk 1's legs first, `lpl` links a leg (`t_meta`: per trunk,
    id, fibers, legs, first position at end A and at end B). The leg's panel positions are worked out once for its
    links; a duplex link's LC ports are mirrored at end B (port k of P lands on P+1-k, Type-B trunk)."""
    slots: list[LinkSlot] = []
    left = n
    for tid, _size, legs, pos_a, pos_b in t_meta:
        for j in range(legs):
            if left <= 0:
                return tuple(slots)
            pa, sa = divmod(pos_a + j, per_panel)
            pb, sb = divmod(pos_b + j, per_panel)
            here = lpl if left >= lpl else left
            left -= here
            first, last = j * base + 1, (j + 1) * base
            if here == 1 and lc_ports == 1:  # an MPO link a leg (most trunks): one slot, port = position
                slots.append(LinkSlot(tid, j + 1, first, last, pa, sa + 1, pb, sb + 1, 1))
            elif lc_ports > 1:
                for s in range(here):
                    port_a, port_b = sa * lc_ports + s + 1, sb * lc_ports + (lc_ports - s)
                    slots.append(LinkSlot(tid, j + 1, first, last, pa, port_a, pb, port_b, s + 1))
            else:
                for s in range(here):
                    slots.append(LinkSlot(tid, j + 1, first, last, pa, sa + 1, pb, sb + 1, s + 1))
    return tuple(slots)


def plan_panels(plans: TrunkPlan | Sequence[TrunkPlan]) -> tuple[RackPanels, ...]:
    """Panels per rack, tier and panel kind: count, rack units, positions, inserts."""
    if isinstance(plans, TrunkPlan):
        plans = (plans,)
    groups: dict[tuple[str, str, str, str], dict] = {}
    for plan in plans:
        for u in plan.usage:
            g = groups.setdefault(
                (u.rack, u.tier, u.panel_kind, u.panel_sku),
                {"per": u.positions_per_panel, "ru": u.rack_units_per_panel, "used": 0, "skipped": 0, "inserts": {}},
            )
            g["used"] += u.positions
            g["skipped"] += u.skipped
            g["inserts"][u.insert_sku] = g["inserts"].get(u.insert_sku, 0) + u.positions
    out = []
    for (rack, tier, kind, psku), g in sorted(groups.items()):
        n = -(-(g["used"] + g["skipped"]) // g["per"])
        out.append(
            RackPanels(
                rack=rack,
                tier=tier,
                panel_kind=kind,
                panel_sku=psku,
                panels=n,
                rack_units=n * g["ru"],
                positions=n * g["per"],
                positions_used=g["used"],
                inserts=tuple(sorted(g["inserts"].items())),
                panel_ids=tuple(f"PP-{tier}-{kind}-{i + 1}" for i in range(n)),
            )
        )
    return tuple(out)
