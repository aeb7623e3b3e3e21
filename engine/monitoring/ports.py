"""The design's ports as an exporter sees them: which interface of which device carries which tier, rail, SU,
plane and spine, grouped so one Prometheus selector covers many ports.

Prometheus gets the per-device labels from the scrape targets (prometheus-targets.json, `targets()` here:
fabric_device, fabric_role, fabric_model, network, plane, pod, su, rail for leaves, spine for spines). What
differs per port of a device (the tier, the direction, the rail and SU behind a spine port, the spine behind a
leaf uplink) goes into the recording rules' labels. Ports of devices of one class (same role, model, network,
plane, pod) that carry the same labels share one selector: `{fabric_role="leaf", ..., device=~"swp33|swp34"}`.
The design places every leaf's ports alike, so a design's rules stay small (a few selectors per class),
whatever its size.

One end per link: every link is recorded at one end only, so a busy link raises one alert, not one per end.
That end is the link's lower end (links are stored lower end first: server -> leaf -> spine -> core), whose
transmit counter measures traffic "up" and whose receive counter measures "down". On an InfiniBand fabric the
hosts are where node_exporter runs (InfiniBand switches run none), so the server end is the one scraped.
When the lower end cannot be named as its exporter names it (a server model whose catalog entry has no RDMA
device or netdev for that port: docs/data-gaps.md, "Monitoring"), no rule selects it, since such a rule could
never match; the link is recorded at its upper (switch) end instead and a note in the rules file says so.

Exporter names of a server port (node_exporter, collector/infiniband_linux.go and ethtool_linux.go): the
`infiniband` collector labels a port `device="<RDMA device>", port="<port number>"` (mlx5_11, 1), the `ethtool`
collector `device="<netdev>"`. Both come from the server model's catalog maps (`rdma_devices`, `netdevs`), the
same `rdma_devices` map the as-built import matches HCAs with (engine/asbuilt/matching.py).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

from ..ifnames import build_interface_map, technology_of

MONITORED_ROLES = ("server", "leaf", "spine", "core")
# mlx5 gives every port (every PCI function of a ConnectX) an RDMA device of its own, so its only port is 1;
# the `infiniband` collector's label for it is `port`.
IB_PORT_LABEL = "port"
MLX5_PORT = "1"
NOTE_PORTS = 8  # ports named in a note before "and N more" (a GB200 NVL72 rack has 72)
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
    lower: bool  # the ports are their links' lower ends: transmit is "up", receive "down" (else the reverse)
    port_selector: tuple[tuple[str, str], ...] = ()  # further exporter labels: the infiniband collector's port


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
        return lambda _idx, port, _speed: port
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


def exporter_namer(result, ethernet_os: str | None = None):
    """(device index, design port, speed, technology) -> (the exporter's `device` label, its InfiniBand `port`
    label or "") for that port, or None where the catalog cannot say: a server port without an entry in its
    model's `rdma_devices` (InfiniBand) or `netdevs` (Ethernet) map. Switch ports are named by engine/ifnames.py."""
    name_of = interface_namer(result, ethernet_os)
    catalog = result.catalog
    servers = getattr(catalog, "servers", None) or {}
    devs = result.devices
    memo: dict[tuple, tuple[str, str] | None] = {}

    def name(idx: int, port: str, speed: int, technology: str) -> tuple[str, str] | None:
        d = devs[idx]
        if d.role != "server":
            return name_of(idx, port, speed), ""
        key = (d.model, port, technology)
        if key not in memo:
            model = servers.get(d.model)
            if technology == "infiniband":
                rdma = (getattr(model, "rdma_devices", None) or {}).get(port)
                memo[key] = (rdma, MLX5_PORT) if rdma else None
            else:
                netdev = (getattr(model, "netdevs", None) or {}).get(port)
                memo[key] = (netdev, "") if netdev else None
        return memo[key]

    return name


def port_groups(result, ethernet_os: str | None = None) -> tuple[list[PortGroup], list[str]]:  # noqa: C901
    """(groups, notes). Each monitored link's recording end (module docstring) in groups of one selector each.
    Devices of one class whose ports carry different labels on the same interface (a storage leaf facing servers
    and one facing appliances) are told apart by their names in the selector; a note says so, and one names
    each server model's ports that have no exporter name (their links are recorded at the switch end)."""
    name_of = exporter_namer(result, ethernet_os)
    rails = rails_of_leaves(result)
    devs = result.devices
    targets = {i: target_labels(result, i, rails) for i in monitored_devices(result)}
    # device -> {interface: (labels, speed, technology, lower, port selector)}
    ports_of: dict[int, dict[str, tuple]] = defaultdict(dict)
    target_items = {i: frozenset(t.items()) for i, t in targets.items()}
    technology = {n: technology_of(result.spec, n) for n in MONITORED_NETWORKS}
    is_core = {i for i in targets if devs[i].role == "core"}
    # (server model, network, technology) -> design ports the exporter cannot be matched on
    unnamed: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    # (base labels, device's target labels, core, server port) -> the end's labels: a leaf's 32 downlinks share
    # one entry, so a 128K-GPU design's 400,000 links cost a dictionary lookup each.
    memo: dict[tuple, tuple] = {}
    for lk in result.links:
        if lk.network not in MONITORED_NETWORKS:
            continue
        tech = technology[lk.network]
        chosen = None
        for idx, port, lower in ((lk.a, lk.a_port, True), (lk.b, lk.b_port, False)):
            if idx not in target_items:
                continue
            named = name_of(idx, port, lk.speed_gbps, tech)
            if named is None:
                unnamed[(devs[idx].model, lk.network, tech)].add(port)
                continue
            chosen = (idx, port, lower, named)
            break
        if chosen is None:
            continue
        idx, port, lower, (ifname, ib_port) = chosen
        t = target_items[idx]
        core = idx in is_core
        server_port = port if devs[idx].role == "server" else ""
        base = tuple(_link_labels(result, lk, rails).items())
        key = (base, t, core, server_port)
        labels = memo.get(key)
        if labels is None:
            # A core's ports face spine j of every pod, and which j differs from core group to core group:
            # kept, it would give every core group rules of its own.
            kept = tuple(kv for kv in base if kv not in t and not (core and kv[0] == "spine"))
            # A server port's design name rides along (a DGX's 8 ports differ by rail already: no extra rule).
            if server_port:
                kept += (("fabric_port", server_port),)
            labels = memo[key] = tuple(sorted(kept))
        port_sel = ((IB_PORT_LABEL, ib_port),) if ib_port else ()
        ports_of[idx][ifname] = (labels, lk.speed_gbps, tech, lower, port_sel)
    # class -> port signature -> devices
    classes: dict[tuple, dict[tuple, list[int]]] = defaultdict(lambda: defaultdict(list))
    for idx, ports in ports_of.items():
        own = targets[idx]
        cls = tuple((k, own[k]) for k in CLASS_KEYS if k in own)
        classes[cls][tuple(sorted(ports.items()))].append(idx)
    notes: set[str] = set()
    for (model, network, tech), missing in unnamed.items():
        what = "RDMA device (infiniband collector)" if tech == "infiniband" else "netdev (ethtool collector)"
        names = sorted(missing, key=_natural)
        shown = ", ".join(names[:NOTE_PORTS]) + (
            f" and {len(names) - NOTE_PORTS} more" if len(names) > NOTE_PORTS else ""
        )
        notes.add(
            f"{model} {network} ports {shown}: the catalog names no {what} for "
            "them, so no rule selects them (it could never match); their links are recorded at the switch end. "
            f"Add the model's {'rdma_devices' if tech == 'infiniband' else 'netdevs'} map (docs/data-gaps.md)"
        )
    groups: list[PortGroup] = []
    for cls, signatures in classes.items():
        for signature, members in signatures.items():
            selector = cls
            if len(signatures) > 1:
                notes.add(
                    f"{dict(cls).get('network', '')} {dict(cls)['fabric_role']} switches are wired differently from each "
                    "other: their rules name the devices"
                )
                selector = (*cls, ("fabric_device", "|".join(sorted(devs[i].name for i in members))))
            by_labels: dict[tuple, list[str]] = defaultdict(list)
            for ifname, (labels, speed, tech, lower, port_sel) in signature:
                by_labels[(labels, speed, tech, lower, port_sel)].append(ifname)
            for (labels, speed, tech, lower, port_sel), ifnames in by_labels.items():
                groups.append(
                    PortGroup(tech, selector, tuple(sorted(ifnames, key=_natural)), labels, speed, lower, port_sel)
                )
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
