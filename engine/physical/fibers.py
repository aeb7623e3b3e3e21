"""Fiber counts: active, installed, dark and spare, per link, trunk, rack, network, total.

Definitions (counted on end-to-end fiber paths, not on every cord strand):
  active    fibers that carry light for a live link (2 per optical lane: Tx + Rx);
  installed fibers built into the cabling that serves the links: a direct link's cord
            fibers (8 for an NVIDIA MPO cord [S9]); in panel mode the trunk's fibers;
  dark      installed fibers inside a used connector but unlit (e.g. positions 5-8 of a
            12-fiber MPO leg carrying DR4);
  spare     installed fibers in unused trunk legs (capacity for growth).
installed = active + dark + spare. Patch cords at panels are counted as cables in the
BOM, not again as fibers.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any

from engine.physical.structured import TrunkRun


@dataclass(frozen=True, slots=True)
class FiberCount:
    active: int = 0
    installed: int = 0
    dark: int = 0
    spare: int = 0

    def __add__(self, other: FiberCount) -> FiberCount:
        return FiberCount(
            self.active + other.active,
            self.installed + other.installed,
            self.dark + other.dark,
            self.spare + other.spare,
        )

    def times(self, n: int) -> FiberCount:
        return FiberCount(self.active * n, self.installed * n, self.dark * n, self.spare * n)


ZERO = FiberCount()


def link_fibers(choice: Any, structured: bool) -> FiberCount:
    """Fibers of one direct link (for panel-mode links, count the trunks instead; the
    per-link figure here is the link's share of its trunk leg, spare excluded)."""
    if not choice.optical:
        return ZERO
    active = choice.fibers_per_link
    if structured and choice.structured is not None:
        installed = choice.structured.trunk_base // choice.structured.links_per_leg
    else:
        installed = choice.cord.fibers // choice.cable_carries_links
    return FiberCount(active, installed, installed - active, 0)


def trunk_fibers(trunk: TrunkRun) -> FiberCount:
    return FiberCount(trunk.active_fibers, trunk.fibers, trunk.dark_fibers, trunk.spare_fibers)


def rollup(rows: Iterable[tuple[Hashable, FiberCount, int]]) -> dict[Hashable, FiberCount]:
    """Sum (key, count, multiplicity) rows by key. Group links by choice first and pass
    the number of links as the multiplicity: O(distinct keys), not O(links)."""
    # Summed as four ints per key, with one FiberCount per key at the end (not one per row: 224,285 rows at 128K).
    acc: dict[Hashable, list[int]] = {}
    for key, fc, n in rows:
        s = acc.get(key)
        if s is None:
            s = acc[key] = [0, 0, 0, 0]
        s[0] += fc.active * n
        s[1] += fc.installed * n
        s[2] += fc.dark * n
        s[3] += fc.spare * n
    return {key: FiberCount(*s) for key, s in acc.items()}


@dataclass(frozen=True, slots=True)
class FiberTotals:
    per_network: tuple[tuple[str, FiberCount], ...]
    per_tier: tuple[tuple[str, FiberCount], ...]
    per_rack: tuple[tuple[str, FiberCount], ...]  # fibers ending in the rack (a path counts at both racks)
    total: FiberCount


def fiber_totals(
    direct_links: Iterable[tuple[str, str, str, str, FiberCount, int]],
    trunks: Iterable[tuple[str, TrunkRun]],
) -> FiberTotals:
    """Roll up fibers. ``direct_links``: (network, tier, rack_a, rack_b, per-link
    FiberCount, number of links); ``trunks``: (network, TrunkRun) for panel-mode tiers."""
    net: list[tuple[Hashable, FiberCount, int]] = []
    tier: list[tuple[Hashable, FiberCount, int]] = []
    rack: list[tuple[Hashable, FiberCount, int]] = []
    for network, tier_name, ra, rb, fc, n in direct_links:
        net.append((network, fc, n))
        tier.append((tier_name, fc, n))
        rack.append((ra, fc, n))
        if rb != ra:
            rack.append((rb, fc, n))
    for network, t in trunks:
        fc = trunk_fibers(t)
        net.append((network, fc, 1))
        tier.append((t.tier, fc, 1))
        rack.append((t.rack_a, fc, 1))
        if t.rack_b != t.rack_a:
            rack.append((t.rack_b, fc, 1))

    def srt(d: dict) -> tuple:
        return tuple(sorted(d.items()))

    per_network = rollup(net)
    # every row is in `net` once, so the total is the sum over networks
    total = rollup(("total", fc, 1) for fc in per_network.values()).get("total", ZERO)
    return FiberTotals(srt(per_network), srt(rollup(tier)), srt(rollup(rack)), total)
