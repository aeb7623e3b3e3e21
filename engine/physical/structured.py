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
    empty before it are counted as skipped), so two groups never share a panel."""
    counters: dict[tuple[str, str], int] = {}
    last_group: dict[tuple[str, str], int] = {}
    usage: dict[tuple[str, str, str, str], list] = {}
    trunks: list[TrunkRun] = []
    all_slots: list[tuple[LinkSlot, ...]] = []
    pair_count: dict[tuple[str, str], int] = {}
    spare = policy.trunk_spare_fraction
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
        sizes = trunk_sizes(base, policy.trunk_max_fibers)
        length = max(
            policy.trunk_length_step_m,
            math.ceil(d.run_length_m / policy.trunk_length_step_m - _EPS) * policy.trunk_length_step_m,
        )
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
        t_first_leg = []
        t_meta = []
        leg0 = 0
        for size in _split_trunks(target, sizes):
            legs = size // base
            key = (d.rack_a, d.rack_b)
            pair_count[key] = pair_count.get(key, 0) + 1
            tid = f"T-{tier}-{d.rack_a}-{d.rack_b}-{pair_count[key]}"
            pos_a = counters.get((d.rack_a, kind), 0)
            counters[(d.rack_a, kind)] = pos_a + legs
            pos_b = counters.get((d.rack_b, kind), 0)
            counters[(d.rack_b, kind)] = pos_b + legs
            for rack in (d.rack_a, d.rack_b):
                u = usage.setdefault((rack, kind, sp.panel.sku, insert), [sp.panel, 0, 0])
                u[1] += legs
            t_first_leg.append(leg0)
            t_meta.append((tid, size, legs, pos_a, pos_b))
            leg0 += legs
        # Assign links in order: fill trunk 1, then trunk 2, ...
        slots = []
        t = 0
        for i in range(d.links):
            g, s = divmod(i, lpl)
            while t + 1 < len(t_meta) and g >= t_first_leg[t + 1]:
                t += 1
            tid, _size, _legs, pos_a, pos_b = t_meta[t]
            j = g - t_first_leg[t]
            ia, ib = pos_a + j, pos_b + j
            pa, sa = divmod(ia, per_panel)
            pb, sb = divmod(ib, per_panel)
            if lc_ports > 1:
                port_a, port_b = sa * lc_ports + s + 1, sb * lc_ports + (lc_ports - s)
            else:
                port_a, port_b = sa + 1, sb + 1
            slots.append(LinkSlot(tid, j + 1, j * base + 1, (j + 1) * base, pa, port_a, pb, port_b, s + 1))
        all_slots.append(tuple(slots))
        # Per-trunk fiber accounting.
        per_link_active = choice.fibers_per_link
        for k, (tid, size, legs, _pa, _pb) in enumerate(t_meta):
            first = t_first_leg[k]
            links_here = max(0, min(d.links - first * lpl, legs * lpl))
            legs_used = -(-links_here // lpl)
            active = links_here * per_link_active
            trunks.append(
                TrunkRun(
                    id=tid,
                    tier=tier,
                    rack_a=d.rack_a,
                    rack_b=d.rack_b,
                    sku=sku_for_length(sp.trunk.sku_pattern, length, fibers=size, gender=gender),
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
