"""Physical first: flagged links grouped by what they share, so six links through one panel read as one cause.

A link shares a trunk (the trunk cable its channel runs through), a patch panel (the panels its two cords are
patched into, with their front ports: engine/physical/paths.py, never the trunk's recorded ends, since a
trunk's legs can continue on the next panel), a transceiver part, a rack (of either end) and, when its fibers
were measured, a high measured loss. Every component that at least `min_group_links` flagged links run through
is a suspect. Suspects are ranked physical first: a shared component (trunk, panel) before measured loss,
before a rack, before a part type; within each, by flagged links times the share of the component's links
that are flagged (six of a panel's 24 links beat seven of its rack's 300). A rack that only holds two real
groups never outranks them.

The action is the article's checklist for links that flap or show rising error counters (seeds/004, "common
problems", item 1: start at the physical layer; inspect and clean both end faces, reseat the optics, check
the fiber route and polarity; note the counters before clearing them), aimed at the shared component.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .drift import FLAGS
from .thresholds import Thresholds

KINDS = ("trunk", "panel", "loss", "part", "rack")
# Rank of each kind, physical first: a shared component, then measured loss, then a rack, then a part type.
RANK = {"trunk": 0, "panel": 0, "loss": 1, "rack": 2, "part": 3}
KIND_TEXT = {
    "trunk": "trunk",
    "panel": "patch panel",
    "loss": "measured loss",
    "part": "transceiver part",
    "rack": "rack",
}
CHECKLIST = (
    "Note the error counters before clearing them: later troubleshooting starts from them.",
    "Inspect and clean both end faces of every connection on the path.",
    "Reseat the optics at both ends.",
    "Check the fiber route and the polarity.",
)
_AIM = {
    "trunk": "Trunk {key}: inspect and clean both of its ends at the panels and the cords patched into them; "
    "check its route and polarity end to end.",
    "panel": "Patch panel {key}{where}: inspect and clean its adapters and the end faces of the cords and trunk "
    "connectors patched there for these links; reseat them; check polarity through the panel.",
    "loss": "These links' fibers measured {key}: clean and re-test them first; a dirty or damaged connector "
    "raises both the loss and the error rate.",
    "part": "Transceiver part {key}: reseat and inspect the modules of these links; swap one for a known-good "
    "module to tell the part from the path.",
    "rack": "Rack {key}: inspect the cords and optics of these links in this rack (bend radius, strain, "
    "unseated modules).",
}


# Two panels (or trunks) holding exactly the same flagged links: the two ends of the same trunks.
_AIM_BOTH = {
    "trunk": "Trunks {key}: inspect and clean both ends of each at the panels and the cords patched into them; "
    "check their route and polarity end to end.",
    "panel": "Patch panels {key} (the two ends of the same links){where}: inspect and clean their adapters and the end "
    "faces of the cords and trunk connectors patched there for these links; reseat them; check polarity "
    "through both panels.",
}


@dataclass(frozen=True)
class LinkFacts:
    """What a link is made of, for grouping. `margin_db` is its measured margin (None: not measured)."""

    link_id: int
    trunks: tuple[str, ...] = ()
    panels: tuple[str, ...] = ()
    parts: tuple[str, ...] = ()
    racks: tuple[str, ...] = ()
    margin_db: float | None = None
    panel_ports: tuple[tuple[str, str], ...] = ()  # (panel, front port) its cords are patched into


@dataclass(frozen=True)
class SuspectGroup:
    """A suspect component. Components of one kind through which exactly the same flagged links run (the two
    panels at the ends of the same trunks) are one suspect with several `keys`."""

    kind: str
    keys: tuple[str, ...]
    links: tuple[int, ...]  # flagged links through it, in id order
    flags: Mapping[str, int]  # flag -> how many of those links carry it
    population: int  # links (flagged or not) through it
    action: tuple[str, ...]
    ports: int | None = None  # a panel's front ports (each of `keys`), when known
    front_ports: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # panel -> flagged links' ports

    @property
    def key(self) -> str:
        return " / ".join(self.keys)

    @property
    def share(self) -> float:
        return len(self.links) / self.population if self.population else 1.0

    @property
    def score(self) -> float:
        return len(self.links) * self.share


def components(f: LinkFacts, t: Thresholds) -> list[tuple[str, str]]:
    out = [("trunk", k) for k in f.trunks] + [("panel", k) for k in f.panels]
    if f.margin_db is not None and f.margin_db < t.low_margin_db:
        out.append(("loss", f"within {t.low_margin_db:g} dB of their limit"))
    out += [("part", k) for k in f.parts] + [("rack", k) for k in f.racks]
    return list(dict.fromkeys(out))


def _port_key(port: str) -> tuple:
    return (0, int(port), "") if port.isdigit() else (1, 0, port)


def _where(keys: tuple[str, ...], fronts: Mapping[str, tuple[str, ...]], ports: int | None) -> str:
    of = f" of its {ports}" if ports else ""
    parts = [
        f"{k} front port{'s' if len(fronts[k]) > 1 else ''} {', '.join(fronts[k])}{of}" for k in keys if fronts.get(k)
    ]
    return f" ({'; '.join(parts)})" if parts else ""


def suspects(
    flagged: Mapping[int, tuple[str, ...]],
    facts: Mapping[int, LinkFacts],
    population: Mapping[tuple[str, str], int],
    t: Thresholds,
    ports: Mapping[str, int] | None = None,
) -> tuple[list[SuspectGroup], list[int]]:
    """(suspect groups, best first; flagged links in no group). `flagged`: link id -> its flags;
    `facts`: what each flagged link is made of; `population`: (kind, key) -> links through the component;
    `ports`: panel -> its front ports."""
    ports = ports or {}
    members: dict[tuple[str, str], list[int]] = {}
    for link_id in sorted(flagged):
        f = facts.get(link_id)
        if f is None:
            continue
        for comp in components(f, t):
            members.setdefault(comp, []).append(link_id)
    same: dict[tuple, list[str]] = {}
    for (kind, key), links in members.items():
        if len(links) >= t.min_group_links:
            pop = max(population.get((kind, key), len(links)), len(links))
            same.setdefault((kind, tuple(links), pop), []).append(key)
    groups = []
    for (kind, links, pop), keys in same.items():
        counts = {flag: sum(flag in flagged[i] for i in links) for flag in FLAGS}
        keys.sort()
        name = " and ".join(keys)
        fronts: dict[str, tuple[str, ...]] = {}
        n_ports = None
        if kind == "panel":
            for k in keys:
                used = {p for i in links for panel, p in facts[i].panel_ports if panel == k}
                fronts[k] = tuple(sorted(used, key=_port_key))
            n_ports = max((ports[k] for k in keys if ports.get(k)), default=None)
        where = _where(tuple(keys), fronts, n_ports) if kind == "panel" else ""
        aim = (_AIM_BOTH if len(keys) > 1 and kind in _AIM_BOTH else _AIM)[kind].format(key=name, where=where)
        groups.append(
            SuspectGroup(
                kind,
                tuple(keys),
                links,
                {k: v for k, v in counts.items() if v},
                pop,
                (aim, *CHECKLIST),
                n_ports,
                {k: v for k, v in fronts.items() if v},
            )
        )
    groups.sort(key=lambda g: (RANK[g.kind], -g.score, KINDS.index(g.kind), -len(g.links), g.key))
    grouped = {i for g in groups for i in g.links}
    return groups, [i for i in sorted(flagged) if i not in grouped]
