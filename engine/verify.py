"""Invariants checked on every result. A failure is a bug in the engine, never a silent result."""

from __future__ import annotations

from collections import Counter, defaultdict, deque
from itertools import groupby, repeat
from operator import itemgetter, setitem
from typing import Any

from .errors import EngineInvariantError
from .model import APPLIANCE_ROLES
from .topology.builder import switch_port_names


def _fail(msg: str) -> None:
    raise EngineInvariantError(msg)


def _first_port_beyond_radix(devices: Any, links: Any, switches: Any) -> None:
    """Fail on the first link end, in link order, on a port its switch does not have at the link's speed."""
    valid: dict[tuple[str, int], frozenset] = {}
    for link in links:
        ends: tuple[tuple[int, str], ...]
        if link.network == "oob":
            ends = ((link.b, link.b_port),) if link.tier == "device-oob" else ()
        else:
            ends = ((link.a, link.a_port), (link.b, link.b_port))
        for dev, port in ends:
            d = devices[dev]
            sw = switches.get(d.model)
            if sw is None or d.role in APPLIANCE_ROLES:
                continue
            key = (d.model, link.speed_gbps)
            names = valid.get(key)
            if names is None:
                if sw.ports_per_cage(link.speed_gbps) is None:
                    _fail(f"{d.name} ({d.model}) has no {link.speed_gbps} Gb/s ports")
                names = valid[key] = frozenset(switch_port_names(sw, link.speed_gbps)[0])
            if port not in names:
                _fail(f"{d.name} port {port} does not exist on a {d.model} at {link.speed_gbps} Gb/s")


_MARKS_MAX = 1 << 26  # bytes: a mark per (device, port name), up to 64 MiB (440,000 devices of 152 names); then a dict


# Link fields by position (model.Link is a NamedTuple): itemgetter over them runs in C, so a check over
# 1.6 million links builds its keys without a Python frame per link.
_NETWORK_TIER = itemgetter(1, 3)
_A, _A_PORT, _B, _B_PORT, _SPEED = itemgetter(4), itemgetter(5), itemgetter(7), itemgetter(8), itemgetter(10)


class _Marks(dict):
    """Port name -> the marks of its ends by device index, made when the name is first met (no pass to gather the
    names first): a bytearray (a byte per device) while they fit in _MARKS_MAX bytes in all, then a dict (a key
    per marked device). `marks[name][device] = 1` marks an end either way; distinct() counts the ends marked.
    Also engine.verify_cabling's, for cable ends."""

    def __init__(self, n_devices: int) -> None:
        super().__init__()
        self.n_devices = n_devices

    def __missing__(self, name: Any) -> bytearray | dict:
        fits = (len(self) + 1) * self.n_devices <= _MARKS_MAX
        marks = self[name] = bytearray(self.n_devices) if fits else {}
        return marks

    def distinct(self) -> int:
        return sum(m.count(1) if isinstance(m, bytearray) else len(m) for m in self.values())


def _distinct_ends(links: Any, n_devices: int) -> int:
    """How many distinct (device, port name) ends `links` have. A byte is marked per end in C, in a bytearray per
    port name indexed by device (_Marks): no int is made per end (an int per end, device x names + the name's
    number, marked in one bytearray took 0.14 s at 128K GPUs against 0.06 s), and nothing is kept in a set. A
    device index past the last is a link naming a device that does not exist (caught while the marks are
    bytearrays)."""
    marks = _Marks(n_devices)
    of_name = marks.__getitem__
    try:
        deque(map(setitem, map(of_name, map(_A_PORT, links)), map(_A, links), repeat(1)), 0)
        deque(map(setitem, map(of_name, map(_B_PORT, links)), map(_B, links), repeat(1)), 0)
    except IndexError:
        _fail("a link names a device that does not exist")
    return marks.distinct()


def _ports_within_radix(devices: Any, links: Any, switches: Any, by_tier: dict) -> None:
    """Check 2: no switch port beyond the device's radix at the link's speed. The switch ends in use are gathered
    per (model, speed) and compared with that model's port names as sets; only a design that breaks the rule
    walks its links again, to name the first bad port. `by_tier`: the links by (network, tier)."""
    model_of = [d.model if d.model in switches and d.role not in APPLIANCE_ROLES else None for d in devices]
    model_at = model_of.__getitem__
    used: dict[tuple[str, int], set] = defaultdict(set)
    for (network, tier), tier_links in by_tier.items():
        # OOB links land on management ports (not data ports) at the managed end; only the OOB
        # switch's copper ports are numbered against its radix. Uplink ports are named up1/up2.
        ends = [(_B, _B_PORT)] if network != "oob" or tier == "device-oob" else []
        if network != "oob":
            ends.append((_A, _A_PORT))
        tier_speeds = set(map(_SPEED, tier_links))
        for dev, port in ends:
            models = set(map(model_at, set(map(dev, tier_links))))  # of the distinct devices at this end
            if len(models) == 1 and len(tier_speeds) == 1:
                # one model at one speed at this end of the tier (the rule): its port names alone, no triples
                model, speed = next(iter(models)), next(iter(tier_speeds))
                if model is not None:
                    used[(model, speed)].update(map(port, tier_links))
                continue
            # distinct (model, speed, port) of this tier's ends: a few hundred at most
            triples = zip(map(model_at, map(dev, tier_links)), map(_SPEED, tier_links), map(port, tier_links))
            for model, speed, name in set(triples):
                if model is not None:
                    used[(model, speed)].add(name)
    for (model, speed), ports in used.items():
        sw = switches[model]
        if sw.ports_per_cage(speed) is None or not ports <= frozenset(switch_port_names(sw, speed)[0]):
            _first_port_beyond_radix(devices, links, switches)
            _fail(f"a {model} port in use at {speed} Gb/s is not one of its ports")  # not reached


def _links_by_tier(links: Any, runs: list | None) -> dict[tuple[str, str], list]:
    """{(network, tier): its links, in link order}, from `runs` (summary.tier_runs) when given; else each run of
    one (network, tier) joined as it comes (cheaper than working out the runs to slice by, for a check alone)."""
    by_tier: dict[tuple[str, str], list] = defaultdict(list)
    if runs is None:
        for key, group in groupby(links, _NETWORK_TIER):
            by_tier[key] += group
    else:
        for key, start, stop in runs:
            by_tier[key] += links[start:stop]
    return by_tier


def verify(  # noqa: C901
    *,
    devices: Any,
    links: Any,
    switches: Any,
    compute_plan: Any,
    server_model: Any,
    n_servers: int,
    gpus: int,
    runs: list | None = None,
) -> list[str]:
    """Raise EngineInvariantError on the first broken invariant; return the names of the checks run. `runs`:
    summary.tier_runs(links), when the caller has it."""
    checks = []

    # 1. No port used twice, on any device of any network.
    if _distinct_ends(links, len(devices)) != 2 * len(links):
        dup = Counter(x for link in links for x in ((link.a, link.a_port), (link.b, link.b_port)))
        (dev, port), n = dup.most_common(1)[0]
        _fail(f"port {devices[dev].name} {port} is used by {n} links")
    checks.append("no-port-used-twice")

    # Links by (network, tier), in link order: the checks below read one tier at a time.
    by_tier = _links_by_tier(links, runs)

    _ports_within_radix(devices, links, switches, by_tier)
    checks.append("ports-within-radix")

    if compute_plan is not None:
        p = compute_plan
        node_leaf = by_tier.get(("compute", "node-leaf"), [])
        leaf_spine = by_tier.get(("compute", "leaf-spine"), [])
        spine_core = by_tier.get(("compute", "spine-core"), [])
        # 3. Every rail on its own leaf, and every (plane, SU, rail) on exactly one leaf.
        rail_of = {port.name: port.rail for port in server_model.compute_ports}
        if p.planes > 1:
            rail_of = {name: rail_of[name.split("/")[0]] for name in {link.a_port for link in node_leaf}}
        su_of = [d.su for d in devices]
        # node-leaf links per (leaf, rail, plane, SU); summed per leaf, they are its downlinks (check 5)
        pairs = Counter(
            zip(
                map(_B, node_leaf),
                map(rail_of.__getitem__, map(_A_PORT, node_leaf)),
                map(itemgetter(2), node_leaf),
                map(su_of.__getitem__, map(_A, node_leaf)),
            )
        )
        leaf_rails: dict[int, set] = defaultdict(set)
        rail_leaf: dict[tuple, set] = defaultdict(set)
        down: Counter[int] = Counter()
        for (leaf, rail, plane, su), n in pairs.items():
            leaf_rails[leaf].add(rail)
            rail_leaf[(plane, su, rail)].add(leaf)
            down[leaf] += n
        for leaf, rails in leaf_rails.items():
            if len(rails) != 1:
                _fail(f"leaf {devices[leaf].name} carries rails {sorted(rails)}")
        for key, leaves in rail_leaf.items():
            if len(leaves) != 1:
                _fail(f"plane/SU/rail {key} is spread over {len(leaves)} leaves")
        checks.append("one-rail-per-leaf")

        # 4. Equal links from each leaf to each spine of its group (and spine to core group).
        uplinks: dict[str, dict[int, int]] = {}  # per tier: uplinks per lower device, in first-link order (check 5)
        for tier, tier_links, upper_role, per in (
            ("leaf-spine", leaf_spine, "spine", p.spines_per_pod),
            ("spine-core", spine_core, "core", p.cores_per_group),
        ):
            # links per upper device, per lower device (in first-link order): the builder emits a lower device's
            # links together, so each run of one lower device is counted in C (a Counter of (lower, upper) pairs
            # took twice as long: 131,000 distinct pairs at 128K GPUs)
            by_lower: dict[int, Counter[int]] = {}
            for lo, run in groupby(tier_links, _A):
                to_upper = by_lower.get(lo)
                if to_upper is None:
                    to_upper = by_lower[lo] = Counter()
                to_upper.update(map(_B, run))
            for lo, to_upper in by_lower.items():
                counts = to_upper.values()
                if len(set(counts)) != 1 or len(counts) != per:
                    _fail(
                        f"{devices[lo].name} stripes {tier} links unevenly: {sorted(counts)} over {len(counts)} "
                        f"{upper_role}s (expected {per})"
                    )
            uplinks[tier] = {lo: to_upper.total() for lo, to_upper in by_lower.items()}
        checks.append("even-striping")

        # 5. Per-tier oversubscription as planned: every leaf has exactly leaf_up uplinks and at most
        #    leaf_down node-facing links; every 3-tier spine has spine_up uplinks.
        up = uplinks["leaf-spine"]
        down.update(map(_B, by_tier.get(("compute", "ufm-leaf"), [])))
        for leaf, n in up.items():
            if n != p.leaf_up:
                _fail(f"leaf {devices[leaf].name} has {n} uplinks, planned {p.leaf_up}")
            if down.get(leaf, 0) > p.leaf_down:
                _fail(f"leaf {devices[leaf].name} has {down[leaf]} downlinks, above its {p.leaf_down}")
        if p.tiers == 3:
            for spine, n in uplinks["spine-core"].items():
                if n != p.spine_up:
                    _fail(f"spine {devices[spine].name} has {n} uplinks, planned {p.spine_up}")
        checks.append("oversubscription")

        # 6. GPU and endpoint counts.
        node_links = len(node_leaf)
        expected = n_servers * len(server_model.compute_ports) * p.planes
        if node_links != expected:
            _fail(f"{node_links} node-leaf links, expected {expected}")
        if sum(1 for d in devices if d.role == "server") * server_model.gpus != gpus:
            _fail("GPU count does not match the servers placed")
        checks.append("gpu-count")
    return checks
