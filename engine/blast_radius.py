"""Blast radius: what one failed part does to the GPUs' scale-out (compute fabric) bandwidth.

Read from a design's devices and links alone. A GPU here is one server compute port as the catalog names it
(one per GPU in every shipped server model); with two planes that port is split into two sub-ports
("OSFP1/1", "OSFP1/2"), one per plane, and stays up while either sub-port has a link.

For each kind of single failure the worst part of that kind (the most GPUs hit, then the first) is shown, with
every other part of the kind counted in a range:

- a node-leaf cable: the one link it carries;
- a transceiver at the server end or the leaf end: every node-leaf link of its cage (a twin-port OSFP cage
  carries two ports; a DGX B300 cage carries both planes' sub-ports). With a DAC or AOC the modules are part
  of the cable; the cage's links fail together all the same;
- a leaf: its node-leaf links;
- a leaf-spine cable and a spine: the leaves lose that share of their uplinks, so the GPUs under them lose
  that share of their bandwidth to GPUs under other leaves (same-leaf traffic is untouched);
- a core (3 tiers): each spine it serves loses that share of its uplinks, so traffic leaving the pod loses
  the spines' average share;
- a plane of a multi-plane fabric: every link of the plane;
- a transceiver at a leaf's uplink, a spine's downlink (3 tiers: a spine's uplink, a core): every link of its cage;
- with a computed result (blast_radius_of): a trunk, every link whose legs it carries; a patch panel, every link
  whose cords are patched into it (engine/physical/paths.py); a rack, every device in it; a rack's power feed
  (where the layout has PDUs), as the rack. These lose links of several tiers at once: a GPU losing its own link
  is counted for it, the others for their leaves' lost uplinks.

A GPU is isolated when it loses its port, or when its leaf loses every uplink (it reaches no GPU under another
leaf); the other GPUs hit are degraded. Trunks, panels, racks and the uplink transceiver positions show the part
isolating the most GPUs, then hitting the most.

A GPU whose every link is gone has lost its scale-out port: a job using it likely aborts (an NCCL job usually
aborts when a NIC port it uses goes down, and restarts from a checkpoint). A GPU that keeps a link continues
degraded: a DGX B300 on a twin-plane fabric that loses one plane's leaf continues at half bandwidth.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

from .model import Device, Link

NETWORK = "compute"
ALL, BEYOND_LEAF, BEYOND_POD = "all", "beyond-leaf", "beyond-pod"
SCOPE_WORDS = {
    ALL: "of all their scale-out bandwidth",
    BEYOND_LEAF: "of their bandwidth to GPUs under other leaves",
    BEYOND_POD: "of their bandwidth to other pods",
}
ABORT, DEGRADED, NONE = "abort", "degraded", "none"
_PLANE_SUFFIX = re.compile(r"/\d+$")


@dataclass(frozen=True)
class GpuGroup:
    """GPUs that one failure hits alike."""

    gpus: int
    servers: int
    share_lost: Fraction  # of the scope's bandwidth
    scope: str  # all | beyond-leaf | beyond-pod
    port_lost: bool
    ports: tuple[str, ...]  # the server ports (GPU NICs) hit, as the catalog names them
    sus: tuple[int, ...]

    @property
    def isolated(self) -> bool:
        """Cut off: the GPU's port is down, or its leaf lost every uplink (it reaches no GPU under another leaf)."""
        return self.port_lost or (self.scope == BEYOND_LEAF and self.share_lost >= 1)

    def describe(self) -> str:
        per = " (one per server)" if self.gpus == self.servers else ""
        where = f"port{'s' if len(self.ports) > 1 else ''} {_list(self.ports)}"
        su = f" in SU{'s' if len(self.sus) > 1 else ''} {_list(map(str, self.sus))}" if self.sus else ""
        what = (
            "lose their scale-out port" if self.port_lost else f"lose {_pct(self.share_lost)} {SCOPE_WORDS[self.scope]}"
        )
        return f"{self.gpus:,} GPU{'s' if self.gpus != 1 else ''}{per}, {where} of {self.servers:,} server{'s' if self.servers != 1 else ''}{su}, {what}"

    def to_dict(self) -> dict:
        return {
            "gpus": self.gpus,
            "servers": self.servers,
            "share_lost": round(float(self.share_lost), 6),
            "scope": self.scope,
            "port_lost": self.port_lost,
            "isolated": self.isolated,
            "ports": list(self.ports),
            "sus": list(self.sus),
            "text": self.describe(),
        }


@dataclass(frozen=True)
class FailureImpact:
    """One kind of single failure: its worst part and how many GPUs every part of the kind hits."""

    kind: str
    title: str
    parts: int  # parts of this kind in the design
    example: str  # the part shown: the one hitting the most GPUs
    groups: tuple[GpuGroup, ...]
    min_gpus: int
    max_gpus: int
    jobs: str  # abort | degraded | none

    @property
    def gpus(self) -> int:
        return sum(g.gpus for g in self.groups)

    @property
    def gpus_losing_port(self) -> int:
        return sum(g.gpus for g in self.groups if g.port_lost)

    @property
    def gpus_isolated(self) -> int:
        return sum(g.gpus for g in self.groups if g.isolated)

    @property
    def gpus_degraded(self) -> int:
        return self.gpus - self.gpus_isolated

    def verdict(self) -> str:
        if self.jobs == ABORT and not self.gpus_losing_port:
            return (
                "jobs using these GPUs likely abort: their leaf loses every uplink, so they reach no GPU under "
                "another leaf and collectives across leaves stall until they time out"
            )
        if self.jobs == ABORT:
            return (
                "jobs using these GPUs likely abort: an NCCL job usually aborts when a NIC port it uses goes down, "
                "and restarts from its checkpoint without them or after the repair"
            )
        if self.jobs == DEGRADED:
            worst = max(self.groups, key=lambda g: g.share_lost)
            if worst.scope == ALL and worst.share_lost == Fraction(1, 2):
                return "jobs continue at half bandwidth on these GPUs: every GPU keeps a link on its other plane"
            return "jobs continue degraded: no GPU loses its port, traffic takes the remaining links"
        return "no GPU is affected"

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "title": self.title,
            "parts": self.parts,
            "example": self.example,
            "gpus_affected": self.gpus,
            "gpus_losing_port": self.gpus_losing_port,
            "gpus_isolated": self.gpus_isolated,
            "gpus_degraded": self.gpus_degraded,
            "min_gpus": self.min_gpus,
            "max_gpus": self.max_gpus,
            "jobs": self.jobs,
            "verdict": self.verdict(),
            "groups": [g.to_dict() for g in self.groups],
        }


@dataclass(frozen=True)
class BlastRadius:
    gpus: int  # GPU ports on the compute fabric
    planes: int
    tiers: int
    failures: tuple[FailureImpact, ...]

    def to_dict(self) -> dict:
        return {
            "gpus": self.gpus,
            "planes": self.planes,
            "tiers": self.tiers,
            "failures": [f.to_dict() for f in self.failures],
        }


def _list(items: Iterable[str], most: int = 4) -> str:
    items = list(items)
    return ", ".join(items) if len(items) <= most else ", ".join(items[:most]) + f" and {len(items) - most:,} more"


def _pct(f: Fraction) -> str:
    v = (Decimal(f.numerator) * 100 / Decimal(f.denominator)).quantize(Decimal("0.001"), ROUND_HALF_UP)
    return f"{v.normalize():f} %"


class _Fabric:
    """The compute fabric's graph, indexed for failures."""

    def __init__(self, devices: Sequence[Device], links: Iterable[Link]):
        self.devices = devices
        comp = [ln for ln in links if ln.network == NETWORK]
        self.planes = len({ln.plane for ln in comp}) or 1
        self.gpu_of: dict[tuple[int, str], int] = {}
        self.gpu_bw: list[int] = []
        self.gpu_server: list[int] = []
        self.gpu_port: list[str] = []
        self.node: list[tuple[Link, int]] = []  # node-leaf links with their GPU
        self.gpu_of_link: dict[int, int] = {}  # node-leaf link id -> its GPU
        self._leaf_gpus: dict[int, frozenset[int]] = {}
        self._under_spines: dict[frozenset[int], tuple[frozenset[int], int]] = {}
        self.gpu_leaf: list[int] = []  # GPU -> the leaf of its (first) link
        self.links = comp
        self.down_links: list[Link] = []  # spine-core links
        self.leaf_down: dict[int, list[tuple[int, int]]] = defaultdict(list)  # leaf -> [(gpu, Gb/s)]
        self.up_bw: Counter[int] = Counter()  # leaf -> uplink Gb/s
        self.up_links: list[Link] = []
        self.spine_leaves: dict[int, Counter[int]] = defaultdict(Counter)  # spine -> leaf -> Gb/s
        self.core_bw: Counter[int] = Counter()  # spine -> core-facing Gb/s
        self.core_spines: dict[int, Counter[int]] = defaultdict(Counter)  # core -> spine -> Gb/s
        for ln in comp:
            if ln.tier == "node-leaf" and devices[ln.a].role == "server":
                base = _PLANE_SUFFIX.sub("", ln.a_port) if self.planes > 1 else ln.a_port
                g = self.gpu_of.setdefault((ln.a, base), len(self.gpu_bw))
                if g == len(self.gpu_bw):
                    self.gpu_leaf.append(ln.b)
                    self.gpu_bw.append(0)
                    self.gpu_server.append(ln.a)
                    self.gpu_port.append(base)
                self.gpu_bw[g] += ln.speed_gbps
                self.node.append((ln, g))
                self.gpu_of_link[ln.id] = g
                self.leaf_down[ln.b].append((g, ln.speed_gbps))
            elif ln.tier == "leaf-spine":
                self.up_bw[ln.a] += ln.speed_gbps
                self.up_links.append(ln)
                self.spine_leaves[ln.b][ln.a] += ln.speed_gbps
            elif ln.tier == "spine-core":
                self.down_links.append(ln)
                self.core_bw[ln.a] += ln.speed_gbps
                self.core_spines[ln.b][ln.a] += ln.speed_gbps
        self.tiers = 3 if self.core_spines else 2

    # --- impacts: gpu -> (share lost, scope) ---------------------------------------------------------------

    def direct(self, lost: Iterable[tuple[int, int]]) -> dict[int, Fraction]:
        """GPUs losing these (gpu, Gb/s) links: the share of their bandwidth gone."""
        gone: Counter[int] = Counter()
        for g, bw in lost:
            gone[g] += bw
        return {g: Fraction(bw, self.gpu_bw[g]) for g, bw in gone.items()}

    def beyond(self, leaf_frac: dict[int, Fraction]) -> dict[int, Fraction]:
        """GPUs under leaves that lose `leaf_frac` of their uplinks (or of the paths beyond them)."""
        share: dict[int, Fraction] = {}
        for leaf, frac in leaf_frac.items():
            scaled: dict[tuple[int, int], Fraction] = {}  # few distinct link/GPU speeds: each Fraction built once
            for g, bw in self.leaf_down.get(leaf, ()):
                key = (bw, self.gpu_bw[g])
                part = scaled.get(key)
                if part is None:
                    part = scaled[key] = frac * Fraction(bw, key[1])
                share[g] = share[g] + part if g in share else part
        return share

    def leaf_fracs_of_spine(self, spine: int) -> dict[int, Fraction]:
        return {leaf: Fraction(bw, self.up_bw[leaf]) for leaf, bw in self.spine_leaves[spine].items()}

    def leaf_fracs_of_core(self, core: int) -> dict[int, Fraction]:
        out: dict[int, Fraction] = defaultdict(Fraction)
        for spine, bw in self.core_spines[core].items():
            sfrac = Fraction(bw, self.core_bw[spine])
            for leaf, lbw in self.spine_leaves[spine].items():
                out[leaf] += sfrac * Fraction(lbw, self.up_bw[leaf])
        return dict(out)

    def gpus_under(self, leaves: Iterable[int]) -> int:
        # Counts downlinks: a GPU has one link per plane, and a leaf, spine or core serves one plane.
        down = self.leaf_down
        return sum(len(down[leaf]) for leaf in leaves if leaf in down)

    def lose(self, lost: Iterable[Link]) -> tuple[dict[int, Fraction], dict[int, Fraction], str]:
        """What losing a set of links does (a trunk, a panel, a rack: links of several tiers at once): (GPUs
        losing their own links -> share of all their bandwidth; the other GPUs -> share lost beyond their leaf,
        or beyond their pod when only spine-core links are lost; that scope). A GPU losing its own links is
        counted there only. Spine-core losses are counted only when no leaf-spine link is lost with them."""
        own: list[tuple[int, int]] = []
        leaf_lost: Counter[int] = Counter()
        spine_lost: Counter[int] = Counter()
        for ln in lost:
            if ln.tier == "node-leaf":
                g = self.gpu_of_link.get(ln.id)
                if g is not None:
                    own.append((g, ln.speed_gbps))
            elif ln.tier == "leaf-spine":
                leaf_lost[ln.a] += ln.speed_gbps
            elif ln.tier == "spine-core":
                spine_lost[ln.a] += ln.speed_gbps
        direct = self.direct(own)
        scope = BEYOND_LEAF
        if leaf_lost:
            fracs = {leaf: Fraction(bw, self.up_bw[leaf]) for leaf, bw in leaf_lost.items()}
        else:
            scope = BEYOND_POD
            acc: dict[int, Fraction] = defaultdict(Fraction)
            for spine, bw in spine_lost.items():
                sfrac = Fraction(bw, self.core_bw[spine])
                for leaf, lbw in self.spine_leaves[spine].items():
                    acc[leaf] += sfrac * Fraction(lbw, self.up_bw[leaf])
            fracs = dict(acc)
        beyond = {g: v for g, v in self.beyond(fracs).items() if g not in direct}
        return direct, beyond, scope

    def tally(self, lost: Sequence[Link]) -> tuple[int, int]:
        """(GPUs isolated, GPUs hit) by losing `lost`, as lose() counts them, in whole Gb/s and GPU sets (no
        fractions: a design has tens of thousands of trunks and panels to count)."""
        common = self._tally_one_switch(lost)
        if common is not None:
            return common
        own: Counter[int] = Counter()
        leaf_lost: Counter[int] = Counter()
        spines: set[int] = set()
        for ln in lost:
            if ln.tier == "node-leaf":
                g = self.gpu_of_link.get(ln.id)
                if g is not None:
                    own[g] += ln.speed_gbps
            elif ln.tier == "leaf-spine":
                leaf_lost[ln.a] += ln.speed_gbps
            elif ln.tier == "spine-core":
                spines.add(ln.a)
        bw = self.gpu_bw
        iso = sum(1 for g, lost_bw in own.items() if lost_bw >= bw[g])
        if leaf_lost:
            leaves: frozenset[int] = frozenset(leaf_lost)
            under = self.gpus_under_leaves(leaves)
        elif spines:
            leaves, under = self.leaves_of_spines(frozenset(spines))
        else:
            return iso, len(own)
        if own:  # a GPU losing its own link is counted once, for it
            if self.planes == 1:
                under -= sum(1 for g in own if self.gpu_leaf[g] in leaves)
            else:
                under = len(set().union(*(self.gpus_of_leaf(leaf) for leaf in leaves)).difference(own))
        cut: Counter[int] = Counter()
        for leaf, lost_bw in leaf_lost.items():  # a leaf without uplinks cuts its GPUs off
            if lost_bw >= self.up_bw[leaf]:
                for g, gbw in self.leaf_down.get(leaf, ()):
                    if g not in own:
                        cut[g] += gbw
        iso += sum(1 for g, c in cut.items() if c >= bw[g])
        return iso, len(own) + under

    def _tally_one_switch(self, lost: Sequence[Link]) -> tuple[int, int] | None:
        """tally() of the common part, uplinks of one leaf (a leaf's cage, a small trunk) or of one spine (a
        spine's cage) in a one-plane fabric, without sorting the links; None for anything else."""
        first = lost[0] if lost else None
        if (
            first is None
            or self.planes != 1
            or first.tier == "node-leaf"
            or not all(ln.tier == first.tier and ln.a == first.a for ln in lost)
        ):
            return None
        if first.tier == "leaf-spine":
            n = len(self.leaf_down.get(first.a, ()))
            cut_off = sum(ln.speed_gbps for ln in lost) >= self.up_bw[first.a]
            return (n if cut_off else 0), n
        if first.tier == "spine-core":
            return self.tally_spines(frozenset((first.a,)))
        return None

    def leaves_of_spines(self, spines: frozenset[int]) -> tuple[frozenset[int], int]:
        """The leaves under `spines` and the GPUs under those leaves, worked out once per set of spines."""
        known = self._under_spines.get(spines)
        if known is None:
            lv = frozenset(leaf for s in spines for leaf in self.spine_leaves[s])
            known = self._under_spines[spines] = (lv, self.gpus_under_leaves(lv))
        return known

    def tally_spines(self, spines: frozenset[int]) -> tuple[int, int]:
        # spine-core links only: their leaves lose paths beyond the pod, none is cut off
        return 0, self.leaves_of_spines(spines)[1]

    def gpus_under_leaves(self, leaves: frozenset[int]) -> int:
        """GPUs with a link to any of `leaves`: on one plane a GPU has one link, so the leaves' downlinks."""
        if self.planes == 1:
            down = self.leaf_down
            return sum(len(down[leaf]) for leaf in leaves if leaf in down)
        return len(set().union(*(self.gpus_of_leaf(leaf) for leaf in leaves)))

    def gpus_of_leaf(self, leaf: int) -> frozenset[int]:
        known = self._leaf_gpus.get(leaf)
        if known is None:
            known = self._leaf_gpus[leaf] = frozenset(g for g, _ in self.leaf_down.get(leaf, ()))
        return known

    def lose_groups(self, lost: Sequence[Link]) -> tuple[GpuGroup, ...]:
        direct, beyond, scope = self.lose(lost)
        return self.groups(direct, ALL) + self.groups(beyond, scope)

    # --- grouping -----------------------------------------------------------------------------------------

    def groups(self, shares: dict[int, Fraction], scope: str) -> tuple[GpuGroup, ...]:
        by: dict[tuple[int, int], list[int]] = defaultdict(list)  # keyed by plain ints: hashing a Fraction is slow
        for g, share in shares.items():
            if share:
                by[(share.numerator, share.denominator)].append(g)
        out = []
        keyed = [(Fraction(n, d), gs) for (n, d), gs in by.items()]
        for share, gs in sorted(keyed, key=lambda kv: -kv[0]):
            lost = scope == ALL and share >= 1
            servers = {self.gpu_server[g] for g in gs}
            out.append(
                GpuGroup(
                    gpus=len(gs),
                    servers=len(servers),
                    share_lost=min(share, Fraction(1)),
                    scope=scope,
                    port_lost=lost,
                    ports=tuple(sorted({self.gpu_port[g] for g in gs})),
                    sus=tuple(sorted({self.devices[s].su for s in servers if self.devices[s].su})),
                )
            )
        return tuple(out)


def _impact(kind: str, title: str, parts: list, count, shares, name) -> FailureImpact | None:
    """The impact of the part of `parts` hitting the most GPUs (`count(part)`), computed in full."""
    if not parts:
        return None
    counts = [count(p) for p in parts]
    worst = max(range(len(parts)), key=lambda i: (counts[i], -i))
    groups = shares(parts[worst])
    jobs = ABORT if any(g.isolated for g in groups) else DEGRADED if groups else NONE
    return FailureImpact(kind, title, len(parts), name(parts[worst]), groups, min(counts), max(counts), jobs)


def _impact_of_sets(f: _Fabric, kind: str, title: str, parts: dict, label=str) -> FailureImpact | None:
    """The impact of the part losing the links it carries that isolates the most GPUs, then hits the most, then
    comes first by key; every part's GPUs hit are counted for the range. `label(key)` names the part shown."""
    if not parts:
        return None
    names = sorted(parts)
    tallies = [f.tally(parts[n]) for n in names]
    worst = max(range(len(names)), key=lambda i: (tallies[i], -i))
    groups = f.lose_groups(parts[names[worst]])
    jobs = ABORT if any(g.isolated for g in groups) else DEGRADED if groups else NONE
    hit = [t[1] for t in tallies]
    return FailureImpact(kind, title, len(names), label(names[worst]), groups, min(hit), max(hit), jobs)


def _physical_parts(
    f: _Fabric, devices: Sequence[Device], physical, places, racks
) -> list[tuple[str, str, dict[str, list[Link]]]]:
    """(kind, title, part name -> the compute links it carries) of trunks, patch panels, racks and racks' power."""
    from .physical.paths import physical_paths

    out: list[tuple[str, str, dict[str, list[Link]]]] = []
    by_id = {ln.id: ln for ln in f.links}
    if physical is not None:
        paths = physical_paths(physical)
        trunks = {f"C{t:06d}": [by_id[i] for i in ids if i in by_id] for t, ids in sorted(paths.trunk_links.items())}
        out.append(("trunk", "A trunk cable (every link it carries)", {k: v for k, v in trunks.items() if v}))
        panels = {k: [by_id[i] for i in ids if i in by_id] for k, ids in paths.panel_links().items()}
        out.append(
            (
                "patch-panel",
                "A patch panel (its front ports and the trunk connectors at its rear)",
                {k: v for k, v in panels.items() if v},
            )
        )
    if places is not None and racks is not None:
        rack_of = [None if p is None else racks[p.rack].id for p in places]
        in_rack: dict[str, list[Link]] = defaultdict(list)
        for ln in f.links:
            ra, rb = rack_of[ln.a], rack_of[ln.b]
            if ra is not None:
                in_rack[ra].append(ln)
            if rb is not None and rb != ra:
                in_rack[rb].append(ln)
        out.append(("rack", "A whole rack (every device in it down)", dict(in_rack)))
        powered = {rack_of[i] for i, d in enumerate(devices) if d.role == "pdu" and rack_of[i] is not None}
        feeds = {k: v for k, v in in_rack.items() if k in powered}
        out.append(("rack-power", "A rack's power feed (every PDU of one rack)", feeds))
    return out


def blast_radius_of(result) -> BlastRadius:
    """blast_radius() of a computed design, with its trunks, patch panels, racks and PDUs."""
    return blast_radius(
        result.devices,
        result.links,
        physical=result if result.physical else None,
        places=result.places,
        racks=result.racks,
    )


def blast_radius(
    devices: Sequence[Device], links: Iterable[Link], *, physical=None, places=None, racks=None
) -> BlastRadius:
    """Every kind of single failure of the compute fabric and the GPUs it hits (module docstring). With
    `physical` (a computed result with a physical layer), `places` and `racks`, its trunks, patch panels,
    racks and rack power feeds too."""
    f = _Fabric(devices, links)
    name = devices.__getitem__
    out: list[FailureImpact | None] = []

    cables = f.node
    out.append(
        _impact(
            "node-leaf-cable",
            "A node-leaf cable",
            cables,
            lambda _c: 1,
            lambda c: f.groups(f.direct([(c[1], c[0].speed_gbps)]), ALL),
            lambda c: f"{name(c[0].a).name} {c[0].a_port} - {name(c[0].b).name} {c[0].b_port}",
        )
    )
    for end, title in (("server", "A transceiver at the server end"), ("leaf", "A transceiver at the leaf end")):
        cages: dict[tuple[int, str], list[tuple[int, int]]] = defaultdict(list)
        for ln, g in f.node:
            key = (ln.a, ln.a_cage) if end == "server" else (ln.b, ln.b_cage)
            cages[key].append((g, ln.speed_gbps))
        keys = list(cages)
        out.append(
            _impact(
                f"{end}-transceiver",
                title,
                keys,
                lambda k, cages=cages: len({g for g, _ in cages[k]}),
                lambda k, cages=cages: f.groups(f.direct(cages[k]), ALL),
                lambda k: f"{name(k[0]).name} cage {k[1]}",
            )
        )
    leaves = sorted(f.leaf_down)
    out.append(
        _impact(
            "leaf",
            "A leaf switch",
            leaves,
            lambda leaf: len({g for g, _ in f.leaf_down[leaf]}),
            lambda leaf: f.groups(f.direct(f.leaf_down[leaf]), ALL),
            lambda leaf: name(leaf).name,
        )
    )
    out.append(
        _impact(
            "leaf-spine-cable",
            "A leaf-spine cable",
            f.up_links,
            lambda ln: f.gpus_under([ln.a]),
            lambda ln: f.groups(f.beyond({ln.a: Fraction(ln.speed_gbps, f.up_bw[ln.a])}), BEYOND_LEAF),
            lambda ln: f"{name(ln.a).name} {ln.a_port} - {name(ln.b).name} {ln.b_port}",
        )
    )
    spines = sorted(f.spine_leaves)
    out.append(
        _impact(
            "spine",
            "A spine switch",
            spines,
            lambda s: f.gpus_under(f.spine_leaves[s]),
            lambda s: f.groups(f.beyond(f.leaf_fracs_of_spine(s)), BEYOND_LEAF),
            lambda s: name(s).name,
        )
    )
    cores = sorted(f.core_spines)
    under_spines: dict[frozenset[int], int] = {}  # the cores of one group serve the same spines: count once

    def gpus_under_core(c: int) -> int:
        spines = frozenset(f.core_spines[c])
        if spines not in under_spines:
            under_spines[spines] = f.gpus_under({leaf for s in spines for leaf in f.spine_leaves[s]})
        return under_spines[spines]

    out.append(
        _impact(
            "core",
            "A core switch",
            cores,
            gpus_under_core,
            lambda c: f.groups(f.beyond(f.leaf_fracs_of_core(c)), BEYOND_POD),
            lambda c: name(c).name,
        )
    )
    positions = [
        ("leaf-uplink-transceiver", "A transceiver at a leaf's uplink", f.up_links, lambda ln: (ln.a, ln.a_cage)),
        ("spine-transceiver", "A transceiver at a spine's downlink", f.up_links, lambda ln: (ln.b, ln.b_cage)),
        ("spine-uplink-transceiver", "A transceiver at a spine's uplink", f.down_links, lambda ln: (ln.a, ln.a_cage)),
        ("core-transceiver", "A transceiver at a core", f.down_links, lambda ln: (ln.b, ln.b_cage)),
    ]
    for kind, title, pool, cage_of in positions:
        at_cage: dict[tuple[int, str], list[Link]] = defaultdict(list)
        for ln in pool:
            at_cage[cage_of(ln)].append(ln)
        out.append(_impact_of_sets(f, kind, title, dict(at_cage), lambda k: f"{name(k[0]).name} cage {k[1]}"))
    for kind, title, parts in _physical_parts(f, devices, physical, places, racks):
        out.append(_impact_of_sets(f, kind, title, parts))
    if f.planes > 1:
        by_plane: dict[int, list[tuple[int, int]]] = defaultdict(list)
        for ln, g in f.node:
            by_plane[ln.plane].append((g, ln.speed_gbps))
        planes = sorted(by_plane)
        out.append(
            _impact(
                "plane",
                "A whole plane (every link of one plane)",
                planes,
                lambda p: len({g for g, _ in by_plane[p]}),
                lambda p: f.groups(f.direct(by_plane[p]), ALL),
                lambda p: f"plane {'AB'[p] if p < 2 else p + 1}",
            )
        )
    return BlastRadius(len(f.gpu_bw), f.planes, f.tiers, tuple(x for x in out if x is not None))


__all__ = ["blast_radius", "blast_radius_of", "BlastRadius", "FailureImpact", "GpuGroup", "ABORT", "DEGRADED", "NONE"]
