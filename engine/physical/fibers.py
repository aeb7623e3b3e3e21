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

from collections import Counter
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from itertools import compress, count
from operator import attrgetter, itemgetter, ne
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
    # Each key's links and trunks are counted per distinct four figures first, and a key's sums made once per
    # figures it holds: at 128K GPUs 42,697 link rows and 10,100 trunks share a few dozen figures, and a
    # FiberCount per trunk plus a (key, count, n) row per key and row, summed field by field, cost 0.05 s.
    net_tier: dict[tuple, int] = {}  # (network, tier, figures): a few dozen keys, split once the rows are in
    rack: dict[tuple, int] = {}
    figures: dict[int, tuple[int, int, int, int]] = {}
    for network, tier_name, ra, rb, fc, n in direct_links:
        f = figures.get(id(fc))
        if f is None:
            f = figures[id(fc)] = (fc.active, fc.installed, fc.dark, fc.spare)
        both = (network, tier_name, f)
        net_tier[both] = net_tier.get(both, 0) + n
        key = (ra, f)
        rack[key] = rack.get(key, 0) + n
        if rb != ra:
            key = (rb, f)
            rack[key] = rack.get(key, 0) + n
    net: dict[tuple, int] = {}
    tier: dict[tuple, int] = {}
    for (network, tier_name, f), n in net_tier.items():
        net[(network, f)] = net.get((network, f), 0) + n
        tier[(tier_name, f)] = tier.get((tier_name, f), 0) + n
    _count_trunks(net, tier, rack, list(trunks))

    def srt(d: dict) -> tuple:
        return tuple(sorted(d.items()))

    per_network = _summed(net)
    # every row is in `net` once, so the total is the sum over networks
    total = rollup(("total", fc, 1) for fc in per_network.values()).get("total", ZERO)
    return FiberTotals(srt(per_network), srt(_summed(tier)), srt(_summed(rack)), total)


_TRUNK_FIGURES = attrgetter("active_fibers", "fibers", "dark_fibers", "spare_fibers")  # trunk_fibers' order
_FIRST, _SECOND = itemgetter(0), itemgetter(1)
_TIER, _RACK_A, _RACK_B = attrgetter("tier"), attrgetter("rack_a"), attrgetter("rack_b")


def _count_trunks(net: dict, tier: dict, rack: dict, trunks: list[tuple[str, TrunkRun]]) -> None:
    """Add (network, TrunkRun) pairs to counts by (key, four figures), counted in C: trunks of a size repeat."""
    runs = list(map(_SECOND, trunks))
    # each trunk's figures as the number of their first trunk (`setdefault` in C): the four counts below hash an
    # int, not a tuple of four, per trunk (178,750 trunks at 512K GPUs: 0.198 -> 0.162 s)
    number: dict[tuple[int, int, int, int], int] = {}
    figures = list(map(number.setdefault, map(_TRUNK_FIGURES, runs), count()))
    figures_of = {k: f for f, k in number.items()}
    rack_a, rack_b = list(map(_RACK_A, runs)), list(map(_RACK_B, runs))
    for counted, more in (
        (net, Counter(zip(map(_FIRST, trunks), figures))),
        (tier, Counter(zip(map(_TIER, runs), figures))),
        (rack, Counter(zip(rack_a, figures))),
        (rack, Counter(compress(zip(rack_b, figures), map(ne, rack_b, rack_a)))),
    ):
        for (key, k), n in more.items():
            both = (key, figures_of[k])
            counted[both] = counted.get(both, 0) + n


def _summed(counted: dict[tuple, int]) -> dict[Hashable, FiberCount]:
    """{key: FiberCount} from counts by (key, four figures)."""
    acc: dict[Hashable, list[int]] = {}
    for (key, f), n in counted.items():
        s = acc.get(key)
        if s is None:
            s = acc[key] = [0, 0, 0, 0]
        s[0] += f[0] * n
        s[1] += f[1] * n
        s[2] += f[2] * n
        s[3] += f[3] * n
    return {key: FiberCount(*s) for key, s in acc.items()}
