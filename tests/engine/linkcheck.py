"""An independent re-check of a design from its links.csv rows alone.

It shares no code with engine/verify.py: it reads the exported rows (LINK_COLUMNS order:
id, network, plane, tier, speed_gbps, a_device, a_port, a_rack, a_u, b_device, b_port, b_rack, b_u,
run_length_m) plus facts from the catalog (which server port is on which rail) and the spec
(servers, planes, ratio), and re-derives every invariant of a rail-optimized fat tree:

- no (device, port) is used twice, and link ids are unique;
- every compute switch lives in one plane, and every link stays inside its plane;
- node-leaf links = servers x compute ports x planes, each server port once per plane;
- every leaf carries one rail, and every rail cuts the servers into the same groups (the SUs);
- leaves stripe evenly: the same number of links to each spine they reach; leaves of a plane reach
  either the same spine set (pod peers) or disjoint ones; the leaves of one SU (the leaves its servers
  reach) reach the same spines; every leaf has the same uplink count;
  spines stripe evenly over cores the same way;
- a leaf's node-facing links fit its uplinks at the ratio (down <= up x ratio);
- each plane is one connected fabric; compute link speeds are uniform per plane.

`check_links(...)` returns a list of problems (empty when the design is sound).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

COLUMNS = (
    "id",
    "network",
    "plane",
    "tier",
    "speed_gbps",
    "a_device",
    "a_port",
    "a_rack",
    "a_u",
    "b_device",
    "b_port",
    "b_rack",
    "b_u",
    "run_length_m",
)


@dataclass(frozen=True)
class Row:
    id: str
    network: str
    plane: int
    tier: str
    speed_gbps: int
    a_device: str
    a_port: str
    a_rack: str
    a_u: object
    b_device: str
    b_port: str
    b_rack: str
    b_u: object
    run_length_m: float


def read_rows(rows: Iterable[Sequence]) -> list[Row]:
    return [Row(*r) for r in rows]


@dataclass
class Report:
    problems: list[str] = field(default_factory=list)
    limit: int = 25

    def add(self, msg: str) -> None:
        if len(self.problems) < self.limit:
            self.problems.append(msg)


def base_port(port: str, rail_of_port: Mapping[str, int]) -> str:
    """The catalog port behind a fabric port: 'OSFP1P1' itself, or 'OSFP1P1' for a plane sub-port 'OSFP1P1/2'."""
    if port in rail_of_port:
        return port
    head, _, _ = port.rpartition("/")
    return head


def check_links(
    rows: Iterable[Sequence] | Sequence[Row],
    *,
    rail_of_port: Mapping[str, int],
    servers: int,
    planes: int = 1,
    leaf_ratio: Fraction | None = None,
    speed_gbps: int | None = None,
    radix_by_device: Mapping[str, int] | None = None,
) -> list[str]:
    rows = [r if isinstance(r, Row) else Row(*r) for r in rows]
    rep = Report()
    _check_ports_unique(rows, rep)
    compute = [r for r in rows if r.network == "compute"]
    _check_planes(compute, rep)
    _check_node_ports(compute, rep, rail_of_port, servers, planes)
    _check_rails(compute, rep, rail_of_port)
    _check_striping(compute, rep, "leaf-spine")
    _check_su_peers(compute, rep)
    _check_striping(compute, rep, "spine-core")
    _check_ratio(compute, rep, leaf_ratio)
    _check_connected(compute, rep)
    speeds = {(r.plane, r.speed_gbps) for r in compute}
    if len({s for _, s in speeds}) > 1:
        rep.add(f"compute links run at several speeds: {sorted(speeds)}")
    if speed_gbps is not None and compute and {s for _, s in speeds} != {speed_gbps}:
        rep.add(f"compute links run at {sorted({s for _, s in speeds})} Gb/s, expected {speed_gbps}")
    if radix_by_device:
        # Data ports of the compute fabric only; a switch's management port sits on the OOB network.
        used = Counter()
        for r in compute:
            used[r.a_device] += 1
            used[r.b_device] += 1
        for dev, n in used.items():
            if dev in radix_by_device and n > radix_by_device[dev]:
                rep.add(f"{dev} uses {n} compute ports, more than its {radix_by_device[dev]}")
    return rep.problems


def _check_ports_unique(rows: list[Row], rep: Report) -> None:
    ids = Counter(r.id for r in rows)
    for i, n in ids.items():
        if n > 1:
            rep.add(f"link id {i} appears {n} times")
    ends = Counter()
    for r in rows:
        ends[(r.a_device, r.a_port)] += 1
        ends[(r.b_device, r.b_port)] += 1
    for (dev, port), n in ends.items():
        if n > 1:
            rep.add(f"port {dev} {port} is used by {n} links")


def _check_planes(compute: list[Row], rep: Report) -> None:
    plane_of: dict[str, set] = defaultdict(set)
    for r in compute:
        if r.tier != "node-leaf":  # servers sit in every plane; switches and UFMs in one
            plane_of[r.a_device].add(r.plane)
        plane_of[r.b_device].add(r.plane)
    for dev, ps in plane_of.items():
        if len(ps) != 1:
            rep.add(f"{dev} has links in planes {sorted(ps)}")


def _check_node_ports(compute, rep, rail_of_port, servers, planes) -> None:
    node = [r for r in compute if r.tier == "node-leaf"]
    expected = servers * len(rail_of_port) * planes
    if len(node) != expected:
        rep.add(
            f"{len(node)} node-leaf links, expected {servers} servers x {len(rail_of_port)} ports "
            f"x {planes} planes = {expected}"
        )
    per_port: dict[tuple, list[int]] = defaultdict(list)
    for r in node:
        bp = base_port(r.a_port, rail_of_port)
        if bp not in rail_of_port:
            rep.add(f"{r.a_device} port {r.a_port} is not a compute port of the server model")
            continue
        per_port[(r.a_device, bp)].append(r.plane)
    names = {dev for dev, _ in per_port}
    if len(names) != servers:
        rep.add(f"{len(names)} servers have compute links, expected {servers}")
    for (dev, port), ps in per_port.items():
        if sorted(ps) != list(range(planes)):
            rep.add(f"{dev} {port} reaches planes {sorted(ps)}, expected one link in each of {planes}")


def _check_rails(compute, rep, rail_of_port) -> None:
    by_plane: dict[int, list[Row]] = defaultdict(list)
    for r in compute:
        if r.tier == "node-leaf":
            by_plane[r.plane].append(r)
    for plane, node in by_plane.items():
        leaf_rails: dict[str, set] = defaultdict(set)
        # rail -> leaf -> servers on it; every rail must cut the servers into the same groups.
        groups: dict[int, dict[str, set]] = defaultdict(lambda: defaultdict(set))
        server_rail_leaf: dict[tuple, set] = defaultdict(set)
        for r in node:
            rail = rail_of_port.get(base_port(r.a_port, rail_of_port))
            if rail is None:
                continue
            leaf_rails[r.b_device].add(rail)
            groups[rail][r.b_device].add(r.a_device)
            server_rail_leaf[(r.a_device, rail)].add(r.b_device)
        for leaf, rails in leaf_rails.items():
            if len(rails) != 1:
                rep.add(f"plane {plane}: leaf {leaf} carries rails {sorted(rails)}")
        for (srv, rail), leaves in server_rail_leaf.items():
            if len(leaves) != 1:
                rep.add(f"plane {plane}: {srv} spreads rail {rail} over leaves {sorted(leaves)}")
        partitions = {rail: frozenset(frozenset(s) for s in by_leaf.values()) for rail, by_leaf in groups.items()}
        if len(set(partitions.values())) > 1:
            rep.add(f"plane {plane}: rails group the servers differently (SU membership differs per rail)")


def _check_striping(compute, rep, tier: str) -> None:
    by_plane: dict[int, dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))
    for r in compute:
        if r.tier == tier:
            by_plane[r.plane][r.a_device][r.b_device] += 1
    for plane, lowers in by_plane.items():
        totals = Counter()
        sets: set[frozenset] = set()
        for lower, uppers in lowers.items():
            counts = set(uppers.values())
            if len(counts) != 1:
                rep.add(f"plane {plane} {tier}: {lower} stripes unevenly {sorted(uppers.values())}")
            totals[sum(uppers.values())] += 1
            sets.add(frozenset(uppers))
        if len(totals) != 1:
            rep.add(f"plane {plane} {tier}: uplink counts differ between devices: {dict(totals)}")
        sets_list = list(sets)
        for i, s in enumerate(sets_list):
            for t in sets_list[i + 1 :]:
                if s & t:
                    rep.add(
                        f"plane {plane} {tier}: two groups share upper devices but are not the same group "
                        f"({len(s & t)} in common)"
                    )
                    return


def _check_su_peers(compute, rep) -> None:
    """Leaves that share servers (the rails of one SU) are pod peers: they must reach the same spines."""
    ups: dict[str, set] = defaultdict(set)
    for r in compute:
        if r.tier == "leaf-spine":
            ups[r.a_device].add(r.b_device)
    spines = {leaf: frozenset(s) for leaf, s in ups.items()}
    leaves_of: dict[tuple, set] = defaultdict(set)
    for r in compute:
        if r.tier == "node-leaf":
            leaves_of[(r.plane, r.a_device)].add(r.b_device)
    seen: set[frozenset] = set()
    for (plane, server), leaves in leaves_of.items():
        key = frozenset(leaves)
        if key in seen:
            continue
        seen.add(key)
        sets = {spines.get(leaf, frozenset()) for leaf in leaves}
        if len(sets) != 1:
            rep.add(f"plane {plane}: the leaves of {server}'s SU reach different spine sets")


def _check_ratio(compute, rep, ratio: Fraction | None) -> None:
    if ratio is None:
        return
    down = Counter(r.b_device for r in compute if r.tier in ("node-leaf", "ufm-leaf"))
    up = Counter(r.a_device for r in compute if r.tier == "leaf-spine")
    for leaf, d in down.items():
        u = up.get(leaf, 0)
        if u and Fraction(d, u) > ratio:
            rep.add(f"leaf {leaf}: {d} node-facing links over {u} uplinks exceeds {ratio}")


def _find(parent: dict[str, str], x: str) -> str:
    parent.setdefault(x, x)
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def _check_connected(compute, rep) -> None:
    by_plane: dict[int, list[Row]] = defaultdict(list)
    for r in compute:
        by_plane[r.plane].append(r)
    for plane, links in by_plane.items():
        parent: dict[str, str] = {}  # union-find over device names
        for r in links:
            ra, rb = _find(parent, r.a_device), _find(parent, r.b_device)
            if ra != rb:
                parent[ra] = rb
        roots = {_find(parent, x) for x in list(parent)}
        if len(roots) != 1:
            rep.add(f"plane {plane}: the compute fabric falls apart into {len(roots)} pieces")


def rail_map(server_model) -> dict[str, int]:
    """{port name: rail} from a catalog ServerModel (catalog data, not engine output)."""
    return {p.name: p.rail for c in server_model.cages for p in c.ports}
