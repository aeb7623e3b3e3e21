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
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from engine.physical.catalog import sku_for_length
from engine.physical.policy import MediaPolicy

if TYPE_CHECKING:
    from engine.physical.select import MediaChoice

_EPS = 1e-9
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


@dataclass(frozen=True, slots=True)
class TrunkPlan:
    tier: str
    trunks: tuple[TrunkRun, ...]
    slots: tuple[tuple[LinkSlot, ...], ...]  # per demand, one per link, in order
    usage: tuple[PanelUse, ...]


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
    spine-core demands between halls: 7,940 at 128K GPUs, 178,750 at 512K) while their links do not: what
    depends only on the medium, a trunk size or an ordered length is worked out once per call."""
    counters: dict[tuple[str, str], int] = {}
    last_group: dict[tuple[str, str], int] = {}
    usage: dict[tuple[str, str, str, str], list] = {}
    trunks: list[TrunkRun] = []
    all_slots: list[tuple[LinkSlot, ...]] = []
    pair_count: dict[tuple[str, str], int] = {}
    spare = policy.trunk_spare_fraction
    step = policy.trunk_length_step_m
    sizes_of: dict[int, tuple[int, ...]] = {}  # trunk base -> stock sizes
    split_of: dict[tuple[int, int], list[int]] = {}  # (fibers, base) -> trunk sizes
    length_of: dict[float, float] = {}  # run length -> ordered trunk length
    sku_of: dict[tuple, str] = {}  # (pattern, length, fibers, gender) -> trunk SKU
    for d in demands:
        choice = d.choice
        sp = getattr(choice, "structured", None)
        if sp is None:
            raise ValueError(
                f"tier {tier}: demand {d.rack_a}->{d.rack_b} has no panel parts; select its media with cabling 'panels'"
            )
        if d.links < 0:
            raise ValueError(f"tier {tier}: demand {d.rack_a}->{d.rack_b}: links must be >= 0")
        if d.links == 0:
            all_slots.append(())
            continue
        base, lpl = sp.trunk_base, sp.links_per_leg
        kind = sp.panel.kind
        per_panel = sp.panel.positions
        insert = sp.cassette.sku if sp.cassette else sp.adapter.sku
        lc_ports = sp.cassette.lc_ports if sp.cassette else 1
        legs_needed = -(-d.links // lpl)
        target = math.ceil(legs_needed * (1.0 + spare) - _EPS) * base
        split = split_of.get((target, base))
        if split is None:
            sizes = sizes_of.get(base)
            if sizes is None:
                sizes = sizes_of[base] = trunk_sizes(base, policy.trunk_max_fibers)
            split = split_of[(target, base)] = _split_trunks(target, sizes)
        length = length_of.get(d.run_length_m)
        if length is None:
            length = length_of[d.run_length_m] = max(step, math.ceil(d.run_length_m / step - _EPS) * step)
        gender = "MM" if sp.trunk_gender == "pinned" else "FF"
        if own_panels:
            for rack in (d.rack_a, d.rack_b):
                at = counters.get((rack, kind), 0)
                gap = -at % per_panel if last_group.setdefault((rack, kind), d.group) != d.group else 0
                last_group[(rack, kind)] = d.group
                if gap:
                    counters[(rack, kind)] = at + gap
                    u = usage.setdefault((rack, kind, sp.panel.sku, insert), [sp.panel, 0, 0])
                    u[2] += gap
        # Allocate trunks and their panel positions at both ends.
        t_meta = []
        key = (d.rack_a, d.rack_b)
        use_a = usage.setdefault((d.rack_a, kind, sp.panel.sku, insert), [sp.panel, 0, 0])
        use_b = usage.setdefault((d.rack_b, kind, sp.panel.sku, insert), [sp.panel, 0, 0])
        for size in split:
            legs = size // base
            pair_count[key] = pair_count.get(key, 0) + 1
            tid = f"T-{tier}-{d.rack_a}-{d.rack_b}-{pair_count[key]}"
            pos_a = counters.get((d.rack_a, kind), 0)
            counters[(d.rack_a, kind)] = pos_a + legs
            pos_b = counters.get((d.rack_b, kind), 0)
            counters[(d.rack_b, kind)] = pos_b + legs
            use_a[1] += legs
            use_b[1] += legs
            t_meta.append((tid, size, legs, pos_a, pos_b))
        all_slots.append(_link_slots(d.links, t_meta, lpl, base, per_panel, lc_ports))
        # Per-trunk fiber accounting.
        per_link_active = choice.fibers_per_link
        first = 0  # the trunk's first leg, counted over the demand's trunks
        for tid, size, legs, _pa, _pb in t_meta:
            links_here = max(0, min(d.links - first * lpl, legs * lpl))
            first += legs
            legs_used = -(-links_here // lpl)
            active = links_here * per_link_active
            sku_key = (sp.trunk.sku_pattern, length, size, gender)
            sku = sku_of.get(sku_key)
            if sku is None:
                sku = sku_of[sku_key] = sku_for_length(sp.trunk.sku_pattern, length, fibers=size, gender=gender)
            trunks.append(
                TrunkRun(
                    id=tid,
                    tier=tier,
                    rack_a=d.rack_a,
                    rack_b=d.rack_b,
                    sku=sku,
                    family=sp.trunk.family,
                    base=base,
                    fibers=size,
                    legs=legs,
                    links=links_here,
                    link_capacity=legs * lpl,
                    active_fibers=active,
                    dark_fibers=legs_used * base - active,
                    spare_fibers=(legs - legs_used) * base,
                    length_m=length,
                    gender=sp.trunk_gender,
                    panel_kind=kind,
                )
            )
    use = tuple(
        PanelUse(rack, tier, kind, psku, panel.positions, panel.rack_units, insert, n, skipped)
        for (rack, kind, psku, insert), (panel, n, skipped) in sorted(usage.items())
    )
    return TrunkPlan(tier=tier, trunks=tuple(trunks), slots=tuple(all_slots), usage=use)


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
