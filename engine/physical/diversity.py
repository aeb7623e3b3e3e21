"""Design check: a leaf whose every uplink shares one trunk, one patch panel or one far rack.

One failure of that part (a cut or crushed trunk, a panel knocked loose, the far rack's power) leaves the leaf
with no uplink: its GPUs reach no GPU under another leaf, whatever the number of spines (engine/blast_radius.py
counts them as isolated). The warnings carry the fix: `physical.trunk_diversity` for trunks and panels (each
half of the spines gets trunks and panels of its own), more than one spine rack for the rack.
"""

from __future__ import annotations

from collections import defaultdict
from itertools import groupby, repeat
from operator import itemgetter, sub
from typing import TYPE_CHECKING, Any

from engine.cable_schedule import panel_grid, panel_name
from engine.summary import tier_runs

if TYPE_CHECKING:
    from engine.result import DesignDraft


_A, _B = itemgetter(4), itemgetter(7)  # model.Link's a and b
_A_END, _B_END = itemgetter(4), itemgetter(5)  # PhysicalResult.cable_rows fields (0: id, 1: kind)
_FIRST, _SECOND, _THIRD = itemgetter(0), itemgetter(1), itemgetter(2)
_RACK_U = itemgetter(1, 2)  # of a panel end ("panel", rack, u, port)


def _example(hits: dict[str, str]) -> str:
    leaf, part = next(iter(sorted(hits.items())))
    return f"e.g. {leaf}: {part}"


def _uplinks(links: Any, runs: list) -> dict[int, list[int]]:
    """{leaf: its compute leaf-spine links' indexes, in link order} for leaves with two or more (the GPUs'
    scale-out fabric). `runs`: summary.tier_runs(links); a run's links are grouped by leaf in C (a Python step
    per link over every link took 0.03 s at 128K GPUs)."""
    by_leaf: dict[int, list[int]] = defaultdict(list)
    for key, start, stop in runs:
        if key == ("compute", "leaf-spine"):
            for leaf, run in groupby(zip(map(_A, links[start:stop]), range(start, stop)), _FIRST):
                by_leaf[leaf] += map(_SECOND, run)
    return {leaf: idx for leaf, idx in by_leaf.items() if len(idx) >= 2}


class _Through:
    """Each leaf's uplinks through patch panels (cord - trunk - cord, the path engine.physical.paths reads) as
    sets: (trunk ids, A-end panels, B-end panels), panels as (rack, u); None when some uplink has no such path.
    C-level passes over one leaf's uplinks, and no panel name rendered."""

    def __init__(self, ph: Any) -> None:
        rows = ph.cable_rows
        self.cables = ph.cables
        dense = all(r[0] == i + 1 for i, r in enumerate(rows[:1000])) and (not rows or rows[-1][0] == len(rows))
        if dense:
            self.rows = lambda ids: map(rows.__getitem__, map(sub, ids, repeat(1)))
        else:
            by_id = {r[0]: r for r in rows}
            self.rows = lambda ids: map(by_id.__getitem__, ids)

    def __call__(self, idx: list[int]) -> tuple[set, set, set] | None:
        cids = list(map(self.cables.__getitem__, idx))
        if set(map(len, cids)) != {3}:
            return None
        trunks = set(map(_SECOND, cids))
        if set(map(_SECOND, self.rows(trunks))) != {"trunk"}:  # kinds of the middle cables
            return None
        a_ends = list(map(_B_END, self.rows(map(_FIRST, cids))))  # the panel end of the A-side cord
        b_ends = list(map(_A_END, self.rows(map(_THIRD, cids))))
        if set(map(_FIRST, a_ends)) != {"panel"} or set(map(_FIRST, b_ends)) != {"panel"}:
            return None
        return trunks, set(map(_RACK_U, a_ends)), set(map(_RACK_U, b_ends))


def _one(keys: set, name: Any, named: bool) -> Any:
    """The one name the keys (panels or racks) go by, or None when they go by more than one. `named`: distinct keys
    have distinct names, so the names are rendered only for a single key."""
    if len(keys) == 1:
        return name(next(iter(keys)))
    if named:
        return None
    names = {name(k) for k in keys}
    return next(iter(names)) if len(names) == 1 else None


def uplink_diversity_warnings(result: DesignDraft, runs: list | None = None) -> list[str]:
    """The warnings of a computed design (or draft) whose leaves' uplinks share one trunk, panel or far rack.
    `runs`: summary.tier_runs(result.links), when the caller has it."""
    devices, places, racks, links = result.devices, result.places, result.racks, result.links
    uplinks = _uplinks(links, tier_runs(links) if runs is None else runs)
    if not uplinks:
        return []
    ph = result.physical
    through = _Through(ph) if ph is not None and ph.trunks else None
    by_trunk: dict[str, str] = {}
    by_panel: dict[str, str] = {}
    by_rack: dict[str, str] = {}
    spines_of: dict[int, set[int]] = {}
    # A panel is named by its rack's grid and its unit (EndRenderer.panel_name); a rack by its id. When those are
    # unique, sets of (rack, u) and of rack indexes count as many as sets of the names would.
    panels_named = len({panel_grid(r) for r in racks}) == len(racks)
    racks_named = len({r.id for r in racks}) == len(racks)
    rack_id = lambda r: racks[r].id  # noqa: E731
    panel = lambda k: panel_name(racks[k[0]], k[1])  # noqa: E731
    rack_at = [None if p is None else p.rack for p in places]

    for leaf, idx in uplinks.items():
        name = devices[leaf].name
        spines = spines_of[leaf] = set(map(_B, map(links.__getitem__, idx)))
        sets = through(idx) if through is not None else None
        if sets is not None:
            trunks, a_panels, b_panels = sets
            if len(trunks) == 1:
                by_trunk[name] = f"trunk T{next(iter(trunks)):06d}"
            for panels in (a_panels, b_panels):
                one = _one(panels, panel, panels_named)
                if one is not None:
                    by_panel.setdefault(name, f"panel {one}")
                    break
        far = set(map(rack_at.__getitem__, spines))
        if len(spines) >= 2 and None not in far:
            one, own = _one(far, rack_id, racks_named), rack_at[leaf]
            if one is not None and (own is None or one != racks[own].id):
                by_rack[name] = f"every spine in rack {one}"
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
