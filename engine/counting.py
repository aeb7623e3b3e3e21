"""Counting conventions: what "links", "cables" and "transceivers" mean in a summary, and how a design compares
with the cable counts an NVIDIA reference architecture publishes (catalog/data/published_counts.yaml).

- links: port-to-port connections, one per plane (a 2 x 400G port split over two planes makes two links);
- cables: physical cables carrying a tier's links (cords, direct copper/AOC cables, splitters; a patch-panel
  link has a cord at each end); trunks are counted apart, per network;
- transceivers: modules, one per cage end that takes one (the BOM's count), per network;
- lower-end cages: the port cages at the lower end of a compute tier (server NIC cages for node-leaf, leaf
  uplink cages for leaf-spine): what a reference counts when it counts one "cable" per 800G port.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from operator import itemgetter
from pathlib import Path
from typing import Any

from .catalog.loader import read_shipped
from .model import NETWORKS, TIERS

DATA = Path(__file__).parent / "catalog" / "data" / "published_counts.yaml"
CONVENTIONS = {
    "links": "port-to-port connections, one per plane",
    "cables": "physical cables carrying the tier's links: cords (one at each end of a patch-panel link), direct "
    "copper or AOC cables, splitters; trunks counted apart",
    "transceivers": "modules, one per cage end that takes one",
    "lower_end_cages": "port cages at the lower end of a compute tier (one 800G twin-port or 2 x 400G cage counts "
    "once)",
}
_NET, _TIER, _KIND = itemgetter(8), itemgetter(7), itemgetter(1)


@lru_cache(maxsize=1)
def published_references() -> tuple[dict, ...]:
    return tuple(read_shipped(DATA)[0]["references"])


def _lower_end_cages(plan: Any, server: Any) -> dict[str, int]:
    """Cages at the lower end of each compute tier, from the plan (no pass over the links)."""

    def cages(ports: int, switch: Any) -> int:
        per = switch.ports_per_cage(plan.speed_gbps) or 1
        return -(-ports // per)

    leaves = plan.leaves_per_plane * plan.planes
    spines = plan.spines_per_pod * plan.n_pods * plan.planes
    out = {"node-leaf": plan.servers * len(server.cages), "leaf-spine": leaves * cages(plan.leaf_up, plan.leaf)}
    if plan.tiers == 3:
        out["spine-core"] = spines * cages(plan.spine_up, plan.spine)
    return out


def counting_section(*, spec: Any, plan: Any, server: Any, networks: dict, physical: Any) -> tuple[dict, list[str]]:
    """(summary section `counting`, notes). `networks` is the summary's networks section (links per tier)."""
    cables: Counter = Counter()
    trunks: Counter = Counter()
    transceivers: Counter = Counter()
    if physical is not None:
        # counted with the BOM's cable lines (PhysicalResult.roll_up); from the rows when it has not run
        per_kind = physical.cable_kinds
        if not per_kind and physical.cable_rows:
            rows = physical.cable_rows
            per_kind = Counter(zip(map(_NET, rows), map(_TIER, rows), map(_KIND, rows)))
        for (net, tier, kind), n in per_kind.items():
            if kind == "trunk":
                trunks[net] += n
            else:
                cables[(net, tier)] += n
        if physical.bom_split is not None:
            for (_sku, net, _su), n in physical.bom_split.transceivers.items():
                transceivers[net] += n
    lower = _lower_end_cages(plan, server)
    out: dict = {}
    for net in NETWORKS:
        entry = networks.get(net)
        if entry is None:
            continue
        planes = plan.planes if net == "compute" else 1
        tiers = {}
        for tier in TIERS[net]:
            links = entry["links"].get(tier, 0)
            if not links:
                continue
            row = {"links": links, "links_per_plane": links // planes if links % planes == 0 else links / planes}
            if physical is not None:
                row["cables"] = cables.get((net, tier), 0)
            if net == "compute" and tier in lower:
                row["lower_end_cages"] = lower[tier]
            tiers[tier] = row
        out[net] = {"planes": planes, "tiers": tiers}
        if physical is not None:
            out[net]["transceivers"] = transceivers.get(net, 0)
            out[net]["trunks"] = trunks.get(net, 0)
    references, notes = _compare(spec, plan, server, out.get("compute", {}).get("tiers", {}))
    return {"conventions": CONVENTIONS, "networks": out, "references": references}, notes


def _compare(spec: Any, plan: Any, server: Any, tiers: dict) -> tuple[list[dict], list[str]]:
    found, notes = [], []
    shape = {
        "server": server.key,
        "technology": spec.compute.technology,
        "planes": plan.planes,
        "scalable_unit": plan.su_size,
    }
    for ref in published_references():
        if any(shape.get(k) != v for k, v in ref["match"].items()):
            continue
        row = (ref.get("table") or {}).get(plan.n_su)
        if row is None or row[0] != plan.servers:
            continue
        nodes, _leaves, _spines, node_leaf, leaf_spine = row
        published = {t: n for t, n in (("node-leaf", node_leaf), ("leaf-spine", leaf_spine)) if n is not None}
        key = "lower_end_cages" if ref["counts"] == "cages" else "links"
        ours = {t: tiers.get(t, {}).get(key) for t in published}
        entry = {
            "name": ref["name"],
            "source": ref["source"],
            "counts": ref["counts"],
            "published": published,
            "this_design": ours,
            "agrees": all(ours[t] == n for t, n in published.items()),
            "note": ref["note"],
        }
        found.append(entry)
        said = " and ".join(f"{n:,} {t}" for t, n in published.items())
        mine = "; ".join(
            f"{t}: {tiers[t]['links']:,} links ({tiers[t]['links_per_plane']:,} per plane)"
            + (f", {tiers[t]['cables']:,} cables" if "cables" in tiers[t] else "")
            + (f", {tiers[t]['lower_end_cages']:,} lower-end cages" if "lower_end_cages" in tiers[t] else "")
            for t in published
            if t in tiers
        )
        verdict = "the same count" if entry["agrees"] else "a different count: compare before ordering"
        unit = "port cage (800G port)" if ref["counts"] == "cages" else "link"
        notes.append(
            f"{ref['name']} counts {said} cables for {nodes:,} nodes, one per {unit}: {verdict}. "
            f"This design: {mine}. {ref['note']}"
        )
    return found, notes
