"""Invariants checked on every result. A failure is a bug in the engine, never a silent result."""

from __future__ import annotations

from collections import Counter, defaultdict
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


def verify(  # noqa: C901
    *, devices: Any, links: Any, switches: Any, compute_plan: Any, server_model: Any, n_servers: int, gpus: int
) -> list[str]:
    """Raise EngineInvariantError on the first broken invariant; return the names of the checks run."""
    checks = []

    # 1. No port used twice, on any device of any network.
    seen: set[tuple[int, str]] = set()
    add = seen.add
    for link in links:
        add((link.a, link.a_port))
        add((link.b, link.b_port))
    if len(seen) != 2 * len(links):
        dup = Counter(x for link in links for x in ((link.a, link.a_port), (link.b, link.b_port)))
        (dev, port), n = dup.most_common(1)[0]
        _fail(f"port {devices[dev].name} {port} is used by {n} links")
    checks.append("no-port-used-twice")

    # 2. No switch port beyond the device's radix at the link's speed. The switch ends in use are gathered
    #    per (model, speed) and compared with that model's port names as sets; only a design that breaks
    #    the rule walks its links again, to name the first bad port.
    model_of = [d.model if d.model in switches and d.role not in APPLIANCE_ROLES else None for d in devices]
    used: dict[tuple[str, int], set] = defaultdict(set)
    for link in links:
        speed = link.speed_gbps
        # OOB links land on management ports (not data ports) at the managed end; only the OOB
        # switch's copper ports are numbered against its radix. Uplink ports are named up1/up2.
        if link.network == "oob":
            if link.tier == "device-oob" and model_of[link.b] is not None:
                used[(model_of[link.b], speed)].add(link.b_port)
            continue
        if model_of[link.a] is not None:
            used[(model_of[link.a], speed)].add(link.a_port)
        if model_of[link.b] is not None:
            used[(model_of[link.b], speed)].add(link.b_port)
    for (model, speed), ports in used.items():
        sw = switches[model]
        if sw.ports_per_cage(speed) is None or not ports <= frozenset(switch_port_names(sw, speed)[0]):
            _first_port_beyond_radix(devices, links, switches)
            _fail(f"a {model} port in use at {speed} Gb/s is not one of its ports")  # not reached
    checks.append("ports-within-radix")

    compute = [link for link in links if link.network == "compute"]
    if compute_plan is not None:
        p = compute_plan
        # 3. Every rail on its own leaf, and every (plane, SU, rail) on exactly one leaf.
        rail_of = {port.name: port.rail for port in server_model.compute_ports}
        leaf_rails: dict[int, set] = defaultdict(set)
        rail_leaf: dict[tuple, set] = defaultdict(set)
        for link in compute:
            if link.tier != "node-leaf":
                continue
            rail = rail_of[link.a_port.split("/")[0] if p.planes > 1 else link.a_port]
            leaf_rails[link.b].add(rail)
            rail_leaf[(link.plane, devices[link.a].su, rail)].add(link.b)
        for leaf, rails in leaf_rails.items():
            if len(rails) != 1:
                _fail(f"leaf {devices[leaf].name} carries rails {sorted(rails)}")
        for key, leaves in rail_leaf.items():
            if len(leaves) != 1:
                _fail(f"plane/SU/rail {key} is spread over {len(leaves)} leaves")
        checks.append("one-rail-per-leaf")

        # 4. Equal links from each leaf to each spine of its group (and spine to core group).
        for tier, _lower, upper_role, per in (
            ("leaf-spine", "leaf", "spine", p.spines_per_pod),
            ("spine-core", "spine", "core", p.cores_per_group),
        ):
            pairs = Counter((link.a, link.b) for link in compute if link.tier == tier)
            if not pairs:
                continue
            by_lower: dict[int, list[int]] = defaultdict(list)
            for (lo, _up), n in pairs.items():
                by_lower[lo].append(n)
            for lo, counts in by_lower.items():
                if len(set(counts)) != 1 or len(counts) != per:
                    _fail(
                        f"{devices[lo].name} stripes {tier} links unevenly: {sorted(counts)} over {len(counts)} "
                        f"{upper_role}s (expected {per})"
                    )
        checks.append("even-striping")

        # 5. Per-tier oversubscription as planned: every leaf has exactly leaf_up uplinks and at most
        #    leaf_down node-facing links; every 3-tier spine has spine_up uplinks.
        up = Counter(link.a for link in compute if link.tier == "leaf-spine")
        down = Counter(link.b for link in compute if link.tier in ("node-leaf", "ufm-leaf"))
        for leaf, n in up.items():
            if n != p.leaf_up:
                _fail(f"leaf {devices[leaf].name} has {n} uplinks, planned {p.leaf_up}")
            if down.get(leaf, 0) > p.leaf_down:
                _fail(f"leaf {devices[leaf].name} has {down[leaf]} downlinks, above its {p.leaf_down}")
        if p.tiers == 3:
            sup = Counter(link.a for link in compute if link.tier == "spine-core")
            for spine, n in sup.items():
                if n != p.spine_up:
                    _fail(f"spine {devices[spine].name} has {n} uplinks, planned {p.spine_up}")
        checks.append("oversubscription")

        # 6. GPU and endpoint counts.
        node_links = sum(1 for link in compute if link.tier == "node-leaf")
        expected = n_servers * len(server_model.compute_ports) * p.planes
        if node_links != expected:
            _fail(f"{node_links} node-leaf links, expected {expected}")
        if sum(1 for d in devices if d.role == "server") * server_model.gpus != gpus:
            _fail("GPU count does not match the servers placed")
        checks.append("gpu-count")
    return checks
