"""Plain-language advice about sizing choices the rules force: what a choice costs and what would be cheaper.

- A reserved node slot (UFM, gateway) that pushes the servers into one more SU than they need (H100-RA
  1-4 SU table: 31 usable nodes per SU because one node's leaf ports go to UFM, fabrics-qos-traffic.md A.2).
- Spine counts that even striping forces above what the ports need (A.3: the spine count divides a leaf's
  uplinks), with the cheaper valid choices: fewer spines with uneven striping, or another leaf ratio.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from math import ceil
from typing import TYPE_CHECKING, Any

from ..errors import SpecError
from . import sizing

if TYPE_CHECKING:
    from engine.catalog import Catalog
    from engine.spec import DesignSpec
    from engine.topology.access import AccessPlan
    from engine.topology.compute import ComputePlan


def _fmt(n: int) -> str:
    return f"{n:,}"


def _counts(plan: ComputePlan) -> dict:
    """Switches and links of a compute plan, all planes."""
    leaves = plan.leaves_per_plane * plan.planes
    spines = plan.spines_per_pod * plan.n_pods * plan.planes
    cores = plan.cores_per_plane * plan.planes
    return {
        "leaves": leaves,
        "spines": spines,
        "cores": cores,
        "leaf-spine links": leaves * plan.leaf_up,
        "spine-core links": spines * plan.spine_up if plan.tiers == 3 else 0,
    }


def reserved_slot_warning(spec: DesignSpec, plan: ComputePlan, catalog: Catalog) -> str | None:
    """The warning when reserved node slots force one SU more than the servers alone need, or None.

    Example: 128 DGX H100 in 32-node SUs with one slot for UFM need 129 slots, so 5 SUs; 127 servers
    (or 128 with no reserved slot) fit 4 SUs, and the fifth SU adds 8 leaves and 16 spines.
    """
    from .compute import plan_compute  # compute imports nothing from here; local to keep the modules apart

    reserved = plan.reserved_slots
    servers = spec.servers.count
    if not reserved or ceil(servers / plan.su_size) >= plan.n_su:
        return None
    fit = (plan.n_su - 1) * plan.su_size - reserved
    if fit < 1:
        return None
    try:
        smaller = plan_compute(replace(spec, servers=replace(spec.servers, count=fit)), catalog)
    except SpecError:
        return None
    now, then = _counts(plan), _counts(smaller)
    extra = ", ".join(f"+{_fmt(now[k] - then[k])} {k}" for k in now if now[k] != then[k])
    slots = f"{reserved} reserved node slot{'s' if reserved > 1 else ''}"
    them = "them" if reserved > 1 else "it"
    fewer = f"{plan.n_su - 1} SU{'s' if plan.n_su - 1 > 1 else ''}"
    return (
        f"compute_fabric.reserved_node_slots: {_fmt(servers)} servers and {slots} need {plan.n_su} SUs of "
        f"{plan.su_size}; {_fmt(fit)} servers fit {fewer} with the {slots} (or {_fmt(servers)} "
        f"without {them}, the fabric managers placed elsewhere). SU {plan.n_su} adds {extra} for "
        f"{_fmt(servers - fit)} server{'s' if servers - fit > 1 else ''}"
    )


@dataclass(frozen=True)
class _Layer:
    """One leaf-spine layer as the sizing rule saw it. `fixed_*`: leaves whose uplinks do not change with the
    leaf ratio (appliance leaves at 1:1), striped as many whole links per spine as they allow."""

    network: str
    down: int  # node-facing ports of a (server) leaf
    up: int  # its uplinks
    leaves: int  # server leaves of the layer (one plane, one pod)
    leaf_radix: int
    spine_ports: int  # spine ports facing the leaves
    spines: int  # as built
    fixed_leaves: int = 0
    fixed_up: int = 0


def _spines_for(layer: _Layer, up: int) -> int | None:
    """The sizing rule's spine count for `up` uplinks per leaf (topology/sizing.py, topology/access.py)."""
    for count in sizing.divisors(up):
        if layer.fixed_leaves and count > layer.fixed_up:
            return None
        if layer.leaves * (up // count) + layer.fixed_leaves * (layer.fixed_up // count) <= layer.spine_ports:
            return count
    return None


def _used(layer: _Layer, up: int, spines: int) -> int:
    return layer.leaves * (up // spines) + layer.fixed_leaves * (layer.fixed_up // spines)


def spine_choice(layer: _Layer) -> tuple[dict, str] | None:
    """Why the spine layer has the spines it has when fewer would carry the uplinks, and the cheaper valid choices.

    Even striping (fabrics-qos-traffic.md A.3) makes the spine count divide a leaf's uplinks, so 9 leaves
    with 27 uplinks each on 64-port spines get 9 spines using 27 ports each, where 243 uplinks need only
    4 x 64. Options: the fewest spines with uneven striping (a leaf sends ceil or floor of up/spines links to
    each; when traffic spreads evenly over the spines, the floor limits a leaf: worst-case ratio
    down : floor x spines), or a leaf ratio whose uplink count stripes evenly over fewer spines.
    Returns (summary entry, note) or None when the spines are already the fewest the ports allow.
    """
    total = _used(layer, layer.up, layer.spines) * layer.spines  # as built: appliance leaves' whole links only
    fewest = -(-total // layer.spine_ports)
    if layer.spines <= fewest or layer.spines <= 1:
        return None
    used = _used(layer, layer.up, layer.spines)
    options = []
    lo, hi = divmod(layer.up, fewest)
    worst_up = lo * fewest
    options.append(
        {
            "change": "uneven striping",
            "spines": fewest,
            "links_per_leaf_per_spine": (
                f"{lo + 1} links to each of {hi} spines and {lo} to each of {fewest - hi}"
                if hi
                else f"{lo} links to each spine"
            ),
            "leaf_ratio": sizing.ratio_text(layer.down, layer.up),
            "worst_case_leaf_ratio": sizing.ratio_text(layer.down, worst_up) if worst_up else None,
        }
    )
    better = worse = None
    for up in range(1, layer.leaf_radix - layer.down + 1):
        if up == layer.up:
            continue
        spines = _spines_for(layer, up)
        if spines is None or spines >= layer.spines:
            continue
        if up > layer.up:
            better = better or (up, spines)  # the first above: closest to the ratio asked for
        else:
            worse = (up, spines)  # the last below: closest to the ratio asked for
    if better and worse and better[1] <= worse[1]:
        worse = None  # a better ratio on no more spines: the lower ratio is no choice
    for up, spines in [x for x in (better, worse) if x]:
        options.append(
            {
                "change": "leaf ratio",
                "spines": spines,
                "uplinks_per_leaf": up,
                "leaf_ratio": sizing.ratio_text(layer.down, up),
                "ports_used_per_spine": _used(layer, up, spines),
            }
        )
    entry = {
        "spines": layer.spines,
        "spine_ports": layer.spine_ports,
        "ports_used_per_spine": used,
        "uplinks": total,
        "fewest_spines_for_the_uplinks": fewest,
        "options": options,
    }
    said = "; ".join(
        f"{o['spines']} spines with uneven striping (a leaf sends {o['links_per_leaf_per_spine']}; "
        f"leaf ratio {o['worst_case_leaf_ratio']} at worst instead of {o['leaf_ratio']})"
        if o["change"] == "uneven striping"
        else f"{o['spines']} spines at leaf ratio {o['leaf_ratio']} ({o['uplinks_per_leaf']} uplinks per leaf, "
        f"{o['ports_used_per_spine']} of {layer.spine_ports} spine ports used)"
        for o in options
    )
    note = (
        f"{layer.network}: {layer.spines} spines use {used} of {layer.spine_ports} ports each because even "
        f"striping needs a spine count that divides the leaves' {layer.up} uplinks; {total:,} uplinks fit "
        f"{fewest} spines. Cheaper valid choices: {said}"
    )
    return entry, note


def compute_layer(plan: Any) -> _Layer:
    speed = plan.speed_gbps
    if plan.tiers == 3:
        leaves, ports, name = plan.su_per_pod * plan.rails, plan.spine_down, "compute fabric (per pod and plane)"
    else:
        leaves = plan.leaves_per_plane
        ports = plan.spine.radix(speed)
        name = "compute fabric" + (" (per plane)" if plan.planes > 1 else "")
    return _Layer(name, plan.leaf_down, plan.leaf_up, leaves, plan.leaf.radix(speed), ports, plan.spines_per_pod)


def access_layer(plan: Any) -> _Layer | None:
    if not plan.spines or not plan.server_leaves:  # appliance-only networks stripe by their own rule
        return None
    radix = plan.switch.radix(plan.speed_gbps)
    a_up = sizing.split_one_to_one(radix)[1] if plan.appliance_leaves else 0  # appliances at 1:1
    name = {"storage": "storage fabric", "inband": "in-band network"}.get(plan.network, plan.network)
    return _Layer(
        name,
        plan.server_down,
        plan.server_up,
        plan.server_leaves,
        radix,
        radix,
        plan.spines,
        plan.appliance_leaves,
        a_up,
    )


def spine_choices(compute_plan: ComputePlan, access_plans: list[AccessPlan | None]) -> tuple[dict, list[str]]:
    """{network: spine_choice entry} and the notes, for every leaf-spine layer whose spines exceed the fewest."""
    out, notes = {}, []
    layers = [("compute", compute_layer(compute_plan))] + [(p.network, access_layer(p)) for p in access_plans if p]
    for key, layer in layers:
        if layer is None:
            continue
        found = spine_choice(layer)
        if found:
            out[key], note = found
            notes.append(note)
    return out, notes
