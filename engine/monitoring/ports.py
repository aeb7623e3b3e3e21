"""The design's ports as an exporter sees them: which interface of which device carries which tier, rail, SU,
plane and spine, grouped so one Prometheus selector covers many ports.

Prometheus gets the per-device labels from the scrape targets (prometheus-targets.json, `targets()` here:
fabric_device, fabric_role, fabric_model, network, plane, pod, su, rail for leaves, spine for spines). What
differs per port of a device (the tier, the direction, the rail and SU behind a spine port, the spine behind a
leaf uplink) goes into the recording rules' labels. Ports of devices of one class (same role, model, network,
plane, pod) that carry the same labels share one selector: `{fabric_role="leaf", ..., device=~"swp33|swp34"}`.
The design places every leaf's ports alike, so a design's rules stay small (a few selectors per class),
whatever its size.

Direction: every link is stored lower end first (server -> leaf -> spine -> core); a port's transmit counter
measures traffic "up" at the lower end and "down" at the upper one. A server's port also has its receive counter
recorded (the downward direction), because InfiniBand switches run no node_exporter: on an InfiniBand fabric the
hosts' counters are often the only ones scraped.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

from ..ifnames import build_interface_map, technology_of

MONITORED_ROLES = ("server", "leaf", "spine", "core")
MONITORED_NETWORKS = ("compute", "storage", "inband")  # the OOB network (1G management) is left out
CLASS_KEYS = ("fabric_role", "fabric_model", "network", "plane", "pod")


@dataclass(frozen=True)
class PortGroup:
    """Ports of one device class that carry the same labels; one selector in the rules."""

    technology: str  # infiniband | ethernet: which metric names apply
    selector: tuple[tuple[str, str], ...]  # target labels naming the device class
    ports: tuple[str, ...]  # interface names (values of the exporter's port label)
    labels: tuple[tuple[str, str], ...]  # per-port labels the targets do not carry
    speed_gbps: int
    host: bool  # a server's port: its receive counter is recorded too (the downward direction)


def rails_of_leaves(result) -> dict[int, int]:
    """Compute leaf device index -> its rail, 1-based (a leaf carries one rail: engine/verify.py)."""
    catalog = result.catalog
    if catalog is None:
        return {}
    server = catalog.server(result.spec.servers.model)
    rail_of = {p.name: p.rail for p in server.compute_ports}
    out: dict[int, int] = {}
    for lk in result.links:
        if lk.network == "compute" and lk.tier == "node-leaf":
            rail = rail_of.get(lk.a_port.split("/")[0])
            if rail is not None:
                out[lk.b] = rail + 1
    return out


def target_labels(result, idx: int, rails: dict[int, int]) -> dict[str, str]:
    d = result.devices[idx]
    labels = {"fabric_device": d.name, "fabric_role": d.role, "fabric_model": d.model}
    if d.role != "server":
        labels["network"] = d.network
        labels["plane"] = str(d.plane)
    if d.pod:
        labels["pod"] = str(d.pod)
    if d.su:
        labels["su"] = str(d.su)
    if idx in rails:
        labels["rail"] = str(rails[idx])
    if d.role == "spine":
        labels["spine"] = d.name
    return labels


def monitored_devices(result) -> Iterator[int]:
    used = {i for lk in result.links if lk.network in MONITORED_NETWORKS for i in (lk.a, lk.b)}
    for i, d in enumerate(result.devices):
        if d.role in MONITORED_ROLES and i in used:
            yield i


def _link_labels(result, lk, rails: dict[int, int]) -> dict[str, str]:
    devs = result.devices
    a, b = devs[lk.a], devs[lk.b]
    out = {"network": lk.network, "tier": lk.tier, "plane": str(lk.plane)}
    if lk.network == "compute":
        leaf = lk.b if b.role == "leaf" else lk.a if a.role == "leaf" else None
        if leaf is not None and leaf in rails:
            out["rail"] = str(rails[leaf])
        su = devs[leaf].su if leaf is not None else 0
        if su:
            out["su"] = str(su)
    for d in (a, b):
        if d.role == "spine":
            out["spine"] = d.name
        if d.pod:
            out["pod"] = str(d.pod)
    return out


def interface_namer(result, ethernet_os: str | None = None):
    """(device index, design port, speed) -> the interface name the device reports, memoized per platform, model,
    port and speed (every leaf of a model names its ports alike; a 16K-GPU design asks ~100,000 times)."""
    catalog = result.catalog
    if catalog is None:
        return lambda idx, port, speed: port
    names = build_interface_map(result, catalog, ethernet_os)
    devs = result.devices
    memo: dict[tuple, str] = {}

    def name(idx: int, port: str, speed: int) -> str:
        key = (names.platforms[idx], devs[idx].model, port, speed)
        got = memo.get(key)
        if got is None:
            got = memo[key] = names.name(idx, port, speed)
        return got

    return name


def port_groups(result, ethernet_os: str | None = None) -> tuple[list[PortGroup], list[str]]:
    """(groups, notes). Devices of one class whose ports carry different labels on the same interface (a storage
    leaf facing servers and one facing appliances) are told apart by their names in the selector; a note says so."""
    name_of = interface_namer(result, ethernet_os)
    rails = rails_of_leaves(result)
    devs = result.devices
    targets = {i: target_labels(result, i, rails) for i in monitored_devices(result)}
    # device -> {interface: (labels, speed, technology, host)}
    ports_of: dict[int, dict[str, tuple]] = defaultdict(dict)
    target_items = {i: frozenset(t.items()) for i, t in targets.items()}
    technology = {n: technology_of(result.spec, n) for n in MONITORED_NETWORKS}
    is_core = {i for i in targets if devs[i].role == "core"}
    is_server = {i for i in targets if devs[i].role == "server"}
    # (base labels, device's target labels, direction, core) -> the end's labels: a leaf's 32 downlinks share
    # one entry, so a 128K-GPU design's 800,000 link ends cost a dictionary lookup each.
    memo: dict[tuple, tuple] = {}
    for lk in result.links:
        if lk.network not in MONITORED_NETWORKS:
            continue
        base = tuple(_link_labels(result, lk, rails).items())
        for idx, port, direction in ((lk.a, lk.a_port, "up"), (lk.b, lk.b_port, "down")):
            t = target_items.get(idx)
            if t is None:
                continue
            core = idx in is_core
            key = (base, t, direction, core)
            labels = memo.get(key)
            if labels is None:
                # A core's ports face spine j of every pod, and which j differs from core group to core group:
                # kept, it would give every core group rules of its own. The spine's end records the link.
                kept = tuple(kv for kv in base if kv not in t and not (core and kv[0] == "spine"))
                labels = memo[key] = tuple(sorted(kept + (("direction", direction),)))
            ifname = name_of(idx, port, lk.speed_gbps)
            ports_of[idx][ifname] = (labels, lk.speed_gbps, technology[lk.network], idx in is_server)
    # class -> port signature -> devices
    classes: dict[tuple, dict[tuple, list[int]]] = defaultdict(lambda: defaultdict(list))
    for idx, ports in ports_of.items():
        own = targets[idx]
        cls = tuple((k, own[k]) for k in CLASS_KEYS if k in own)
        classes[cls][tuple(sorted(ports.items()))].append(idx)
    notes: set[str] = set()
    groups: list[PortGroup] = []
    for cls, signatures in classes.items():
        for signature, members in signatures.items():
            selector = cls
            if len(signatures) > 1:
                notes.add(
                    f"{dict(cls).get('network', '')} {dict(cls)['fabric_role']} switches are wired differently from each "
                    "other: their rules name the devices"
                )
                selector = cls + (("fabric_device", "|".join(sorted(devs[i].name for i in members))),)
            by_labels: dict[tuple, list[str]] = defaultdict(list)
            for ifname, (labels, speed, tech, host) in signature:
                by_labels[(labels, speed, tech, host)].append(ifname)
            for (labels, speed, tech, host), ifnames in by_labels.items():
                groups.append(PortGroup(tech, selector, tuple(sorted(ifnames, key=_natural)), labels, speed, host))
    groups.sort(key=lambda g: (g.selector, g.labels, g.ports))
    return groups, sorted(notes)


def targets(result, port: int) -> list[dict]:
    """Prometheus file_sd target groups: one per monitored device, `<name>:<port>` with its labels."""
    rails = rails_of_leaves(result)
    return [
        {"targets": [f"{result.devices[i].name}:{port}"], "labels": target_labels(result, i, rails)}
        for i in monitored_devices(result)
    ]


def _natural(s: str) -> tuple:
    import re

    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", s))
