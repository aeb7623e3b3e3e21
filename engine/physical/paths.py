"""Where each patch-panel link physically runs: its two panels, their front ports and its trunk, read from the
cable rows the physical stage made for it (cord A ends on a panel port, the trunk joins the two panels, cord B
starts on the far panel's port).

A trunk's own row records the panels of its first leg only: a trunk whose legs continue on the next panel of
its rack (a 24-port panel holding 18 legs of one trunk and 6 of the next) lands on two panels at each end. So a
link's panels are those its cords are patched into, never the trunk's recorded ends; a panel's population is the
links whose cords land on it, which never exceeds its ports times the links a port carries (1, or 2 for a 1:2
splitter's legs).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import chain
from operator import attrgetter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.result import DesignDraft, DesignResult


@dataclass(frozen=True, slots=True)
class PanelInfo:
    """One placed patch panel: its name (as cable rows and labels name it), rack, unit, kind, part and ports."""

    name: str
    rack: str
    u: int
    tier: str
    kind: str
    sku: str
    ports: int  # front ports: adapter positions, or positions x LC ports of a cassette


@dataclass(frozen=True, slots=True)
class LinkPath:
    """A patch-panel link's physical path: the trunk (cable id) and the panel and front port at each end."""

    link_id: int
    trunk: int
    a_panel: str
    a_port: str
    b_panel: str
    b_port: str


@dataclass(frozen=True)
class PhysicalPaths:
    # Panels by name, or what builds them on the first read of `panels`: naming a panel renders its rack's label
    # template, and a caller asking for a few links' paths (the diversity check: 8,640 panels at 128K GPUs, for
    # leaf-spine links that run through none of them) reads no panel.
    panels_by_name: dict[str, PanelInfo] | Callable[[], dict[str, PanelInfo]]
    links: dict[int, LinkPath]  # by link id; patch-panel links only
    trunk_links: dict[int, tuple[int, ...]]  # trunk cable id -> the links it carries
    trunk_panels: dict[int, tuple[str, ...]]  # trunk cable id -> every panel its links' cords land on

    @property
    def panels(self) -> dict[str, PanelInfo]:
        """Every placed panel, by name."""
        made = self.panels_by_name
        if not isinstance(made, dict):
            made = made()
            object.__setattr__(self, "panels_by_name", made)
        return made

    def panel_links(self) -> dict[str, tuple[int, ...]]:
        """Panel name -> the links whose cords land on it, in id order."""
        out: dict[str, list[int]] = defaultdict(list)
        for p in self.links.values():
            out[p.a_panel].append(p.link_id)
            out[p.b_panel].append(p.link_id)
        return {k: tuple(sorted(v)) for k, v in out.items()}


def _port_counts(ph: Any) -> dict[tuple[str, str], int]:
    """(panel part, panel kind) -> front ports, from the panel parts of the design's media choices."""
    out: dict[tuple[str, str], int] = {}
    for choice in ph.distinct_choices:
        sp = getattr(choice, "structured", None)
        if sp is None:
            continue
        lc = sp.cassette.lc_ports if sp.cassette else 1
        out[(sp.panel.sku, sp.panel.kind)] = sp.panel.positions * lc
    return out


def physical_paths(result: DesignDraft | DesignResult, only: set[int] | None = None) -> PhysicalPaths:
    """Every placed panel and every patch-panel link's path (of the links in `only`, when given), from a computed
    result's physical layer."""
    from engine.cable_schedule import EndRenderer

    ph = result.physical
    if ph is None:
        return PhysicalPaths({}, {}, {}, {})
    ends = EndRenderer(result, ph.policy.labels)
    racks = result.racks

    names: dict[tuple[int, int], str] = {}

    def panel_name(rack_i: int, u: int) -> str:
        name = names.get((rack_i, u))
        if name is None:
            name = names[(rack_i, u)] = (ends.by_panel.get((rack_i, u)) or ends.panel(rack_i, u))[1]
        return name

    def panels() -> dict[str, PanelInfo]:
        ports = _port_counts(ph)
        out = {}
        for place in ph.panel_places:
            name = panel_name(place.rack, place.u)
            out[name] = PanelInfo(
                name,
                racks[place.rack].id,
                place.u,
                place.tier,
                place.panel_kind,
                place.panel_sku,
                ports.get((place.panel_sku, place.panel_kind), 0),
            )
        return out

    rows = ph.cable_rows
    ids_dense = all(r[0] == i + 1 for i, r in enumerate(rows[:1000])) and (not rows or rows[-1][0] == len(rows))
    by_id = None if ids_dense else {r[0]: r for r in rows}

    def row(cid: int) -> Any:
        return rows[cid - 1] if by_id is None else by_id[cid]

    links: dict[int, LinkPath] = {}
    trunk_links: dict[int, tuple[int, ...]] = {}
    trunk_panels: dict[int, dict[str, None]] = defaultdict(dict)
    for r in rows:
        if r[1] == "trunk":
            trunk_links[r[0]] = tuple(r[6])
    all_links, cables = result.links, ph.cables
    for i in _carried_indexes(all_links, trunk_links, only):
        lk, cids = all_links[i], cables[i]
        if len(cids) != 3 or cids[1] not in trunk_links:
            continue
        a_end, b_end = row(cids[0])[5], row(cids[2])[4]
        if a_end[0] != "panel" or b_end[0] != "panel":
            continue
        pa = names.get((a_end[1], a_end[2])) or panel_name(a_end[1], a_end[2])
        pb = names.get((b_end[1], b_end[2])) or panel_name(b_end[1], b_end[2])
        links[lk.id] = LinkPath(lk.id, cids[1], pa, str(a_end[3]), pb, str(b_end[3]))
        trunk_panels[cids[1]].update({pa: None, pb: None})
    return PhysicalPaths(panels, links, trunk_links, {k: tuple(v) for k, v in trunk_panels.items()})


def _carried_indexes(links: Any, trunk_links: dict[int, tuple[int, ...]], only: set[int] | None) -> Iterable[int]:
    """The indexes, in link order, of the links some trunk carries (of those in `only`, when given): a path runs
    through a trunk, so only they can have one. Read from the trunks' rows, not by a pass over every link (at 128K
    GPUs a quarter of the links run through panels, and the diversity check asks for the leaf-spine links, none of
    which does)."""
    carried = set(chain.from_iterable(trunk_links.values()))
    if only is not None:
        carried &= only
    ids = sorted(carried)
    # link ids are their index + 1 wherever the engine numbered them; otherwise look the ids up
    if not ids or (ids[0] > 0 and ids[-1] <= len(links)):
        at = [lid - 1 for lid in ids]
        if list(map(_ID, map(links.__getitem__, at))) == ids:
            return at
    return [i for i, lk in enumerate(links) if lk.id in carried]


_ID = attrgetter("id")
