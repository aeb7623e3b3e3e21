"""Plain-language advice about sizing choices the rules force: what a choice costs and what would be cheaper.

- A reserved node slot (UFM, gateway) that pushes the servers into one more SU than they need (H100-RA
  1-4 SU table: 31 usable nodes per SU because one node's leaf ports go to UFM, fabrics-qos-traffic.md A.2).
- Spine counts that even striping forces above what the ports need (A.3: the spine count divides a leaf's
  uplinks), with the cheaper valid choices: fewer spines with uneven striping, or another leaf ratio.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from math import ceil

from ..errors import SpecError
from . import sizing


def _fmt(n: int) -> str:
    return f"{n:,}"


def _counts(plan) -> dict:
    """Switches and links of a compute plan, all planes."""
    leaves = plan.leaves_per_plane * plan.planes
    spines = plan.spines_per_pod * plan.n_pods * plan.planes
    cores = plan.cores_per_plane * plan.planes
    return {"leaves": leaves, "spines": spines, "cores": cores,
            "leaf-spine links": leaves * plan.leaf_up,
            "spine-core links": spines * plan.spine_up if plan.tiers == 3 else 0}


def reserved_slot_warning(spec, plan, catalog) -> str | None:
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
    return (f"compute_fabric.reserved_node_slots: {_fmt(servers)} servers and {slots} need {plan.n_su} SUs of "
            f"{plan.su_size}; {_fmt(fit)} servers fit {plan.n_su - 1} SUs with the {slots} (or {_fmt(servers)} "
            f"without them, the fabric managers placed elsewhere). SU {plan.n_su} adds {extra} for "
            f"{_fmt(servers - fit)} server{'s' if servers - fit > 1 else ''}")
