"""Design check: a leaf whose every uplink shares one trunk, one patch panel or one far rack.

One failure of that part (a cut or crushed trunk, a panel knocked loose, the far rack's power) leaves the leaf
with no uplink: its GPUs reach no GPU under another leaf, whatever the number of spines (engine/blast_radius.py
counts them as isolated). The warnings carry the fix: `physical.trunk_diversity` for trunks and panels (each
half of the spines gets trunks and panels of its own), more than one spine rack for the rack.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from .paths import physical_paths

if TYPE_CHECKING:
    from engine.result import DesignDraft


def _example(hits: dict[str, str]) -> str:
    leaf, part = next(iter(sorted(hits.items())))
    return f"e.g. {leaf}: {part}"


def uplink_diversity_warnings(result: DesignDraft) -> list[str]:
    """The warnings of a computed design (or draft) whose leaves' uplinks share one trunk, panel or far rack."""
    devices, places, racks = result.devices, result.places, result.racks
    uplinks: dict[int, list] = defaultdict(list)
    for lk in result.links:
        if lk.tier == "leaf-spine" and lk.network == "compute":  # the GPUs' scale-out fabric
            uplinks[lk.a].append(lk)
    uplinks = {leaf: lks for leaf, lks in uplinks.items() if len(lks) >= 2}
    if not uplinks:
        return []
    ph = result.physical
    wanted = {lk.id for lks in uplinks.values() for lk in lks}
    paths = physical_paths(result, wanted).links if ph is not None and ph.trunks else {}
    by_trunk: dict[str, str] = {}
    by_panel: dict[str, str] = {}
    by_rack: dict[str, str] = {}
    spines_of: dict[int, set[int]] = {}

    def rack_of(dev: int) -> str | None:
        p = places[dev]
        return None if p is None else racks[p.rack].id

    for leaf, lks in uplinks.items():
        name = devices[leaf].name
        spines_of[leaf] = {lk.b for lk in lks}
        through = [paths.get(lk.id) for lk in lks]
        if all(p is not None for p in through):
            trunks = {p.trunk for p in through if p is not None}
            if len(trunks) == 1:
                by_trunk[name] = f"trunk T{next(iter(trunks)):06d}"
            for end in ("a_panel", "b_panel"):
                panels = {getattr(p, end) for p in through}
                if len(panels) == 1:
                    by_panel.setdefault(name, f"panel {next(iter(panels))}")
        far = {rack_of(lk.b) for lk in lks}
        if len(spines_of[leaf]) >= 2 and len(far) == 1 and None not in far and far != {rack_of(leaf)}:
            by_rack[name] = f"every spine in rack {next(iter(far))}"
    out = []
    one_spine = all(len(s) < 2 for s in spines_of.values())
    fix = (
        "each leaf reaches a single spine, so no trunk plan can spread its uplinks: add a spine"
        if one_spine
        else "set physical.trunk_diversity: true (each half of the spines gets trunks and panels of its own, so "
        "a leaf's uplinks run in at least two trunks and on two panels at each end)"
    )
    for hits, what in ((by_trunk, "trunk"), (by_panel, "patch panel")):
        if hits:
            out.append(
                f"{len(hits):,} lea{'f has' if len(hits) == 1 else 'ves have'} every uplink in one {what} "
                f"({_example(hits)}): its failure cuts their GPUs off from every other leaf. Fix: {fix}"
            )
    if by_rack:
        out.append(
            f"{len(by_rack):,} lea{'f has' if len(by_rack) == 1 else 'ves have'} every uplink going to spines in "
            f"one rack ({_example(by_rack)}): that rack's power or a fault in it cuts their GPUs off from every "
            "other leaf. Fix: place the spines in at least two racks (set layout.network_rack_devices to at most "
            "half the spines)"
        )
    return out
