"""Storage and in-band networks: two-tier leaf-spine fabrics that are not rail-optimized.

Each server's ports of the network are dual-homed: its port *j* goes to a leaf of side *j*, so a
leaf failure never cuts a server off (H100-RA: in-band and storage ports come in pairs for two
parallel paths). Servers attach at the network's ratio; appliances (storage controllers,
management servers) attach to their own leaves at 1:1 (H100-RA p.12: storage devices 1:1).
Fabric-manager (UFM) appliances take reserved ports on the server leaves, after the servers' ports and
alternating over the sides (H100-RA Tables 1 and 7: UFM on leaf ports of the compute and the storage fabric,
the "+4" cables; fabrics-qos-traffic.md A.8).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil

from ..catalog import Catalog, SwitchModel
from ..errors import SpecError
from ..spec import DesignSpec, Ratio
from . import sizing
from .builder import Builder, switch_port_names
from .compute import ComputePlan


@dataclass(frozen=True)
class AccessPlan:
    network: str
    path: str  # spec section, for error messages
    switch: SwitchModel
    speed_gbps: int
    server_down: int
    server_up: int
    appliance_down: int
    appliance_up: int
    server_ports: int  # ports per server on this network
    server_leaves: int
    appliance_ports_total: int
    appliance_leaves: int
    spines: int
    reserved_ports: int = 0  # fabric-manager (UFM) ports on the server leaves


def plan_access(
    *,
    network: str,
    path: str,
    switch_key: str,
    technology: str,
    ratio: Ratio,
    speed_gbps: int,
    servers: int,
    server_ports: int,
    appliance_ports_total: int,
    catalog: Catalog,
    reserved_ports: int = 0,
) -> AccessPlan:
    sw = catalog.switch(switch_key, f"{path}.switch")
    if technology not in sw.technology:
        raise SpecError.at(f"{path}.switch", f"{sw.key} is a {'/'.join(sw.technology)} switch, not {technology}")
    radix = sw.radix(speed_gbps)
    if radix is None:
        offered = ", ".join(str(s) for s in sorted(sw.speeds, reverse=True))
        raise SpecError.at(
            f"{path}.switch",
            f"{sw.key} has no {speed_gbps} Gb/s ports for the servers' {network} ports (it offers {offered} Gb/s)",
        )
    split = sizing.split_auto(radix, ratio)
    if split is None:
        raise SpecError.at(f"{path}.oversubscription", f"no split of a {radix}-port {sw.key} gives exactly {ratio}")
    down, up = split
    a_down, a_up = sizing.split_one_to_one(radix)
    # Without server leaves there is no reserved port to give (the pipeline passes none then).
    reserved_ports = reserved_ports if server_ports else 0
    # Each side's leaves hold its servers plus its share of the reserved (UFM) ports.
    per_side = servers + ceil(reserved_ports / server_ports) if server_ports else 0
    server_leaves = server_ports * ceil(per_side / down) if server_ports else 0
    appliance_leaves = ceil(appliance_ports_total / a_down) if appliance_ports_total else 0
    # Spines: every server leaf stripes its uplinks evenly, so the spine count divides them.
    # Appliance leaves send as many whole links per spine as their 1:1 uplinks allow.
    leaves = server_leaves + appliance_leaves
    spines = 0
    # A twin-port cage at a quarter of its rate (SN5600 at 200G) carries two ports per module connector, and
    # one cord can join them only to one far connector: leaves then send an even number of links to each
    # spine when a spine count allows it (docs/physical-layer.md 3.1), else the first count that fits.
    pair = 2 if sw.ports_per_cage(speed_gbps) == 4 and sw.ports_per_cage(2 * speed_gbps) == 2 else 1
    a_per = 0
    if leaves > 1:
        fits = []
        for count in sizing.divisors(up if server_leaves else a_up):
            if count > a_up and appliance_leaves:
                break
            per = a_up // count
            paired = not (server_leaves and (up // count) % pair) and (not appliance_leaves or per >= pair)
            per -= per % pair if paired else 0
            per_spine = server_leaves * (up // count) + appliance_leaves * per
            if per_spine <= radix:
                fits.append((not paired, count, per))
                if paired:
                    break
        if not fits:
            raise SpecError.at(path, f"{leaves} {network} leaves do not fit under {sw.key} spines in two tiers")
        _, spines, a_per = min(fits)
        if appliance_leaves:
            a_up = a_per * spines
    return AccessPlan(
        network,
        path,
        sw,
        speed_gbps,
        down,
        up,
        a_down,
        a_up,
        server_ports,
        server_leaves,
        appliance_ports_total,
        appliance_leaves,
        spines,
        reserved_ports,
    )


def storage_ufm_links(spec: DesignSpec, compute_plan: ComputePlan) -> int:
    """Fabric-manager links on the storage fabric: one per UFM appliance when that fabric is InfiniBand."""
    if not spec.storage.enabled or spec.storage.technology != "infiniband":
        return 0
    return compute_plan.fabric_managers * compute_plan.planes


def build_access(
    plan: AccessPlan,
    b: Builder,
    prefix: str,
    servers: list[int],
    server_port_names: tuple[str, ...],
    appliances: list[tuple[int, tuple[str, ...]]],
    appliance_tier: str,
    reserved: tuple[tuple[int, str], ...] = (),
) -> dict:
    """Wire the network into `b`. `reserved`: (device, port name) of each fabric-manager link, placed on the
    server leaves' reserved ports: after the servers', side by side, so a UFM pair sits on two leaves."""
    ports, cages = switch_port_names(plan.switch, plan.speed_gbps)
    sw, speed, net = plan.switch, plan.speed_gbps, plan.network
    mk = lambda name: b.device(name, "leaf", sw.key, network=net, rack_units=sw.rack_units, power_kw=sw.power_kw)  # noqa: E731
    per_side = plan.server_leaves // plan.server_ports if plan.server_ports else 0
    leaves = []
    for side in range(plan.server_ports):
        side_leaves = [mk(f"{prefix}-L{side * per_side + i + 1:02d}") for i in range(per_side)]
        leaves += side_leaves
        for n, dev in enumerate(servers):
            leaf_i, lp = divmod(n, plan.server_down)
            b.link(
                net,
                0,
                "node-leaf",
                dev,
                server_port_names[side],
                server_port_names[side],
                side_leaves[leaf_i],
                ports[lp],
                cages[lp],
                speed,
            )
    sides = [leaves[side * per_side : (side + 1) * per_side] for side in range(plan.server_ports)]
    for i, (dev, name) in enumerate(reserved[: plan.reserved_ports]):
        side, nth = i % plan.server_ports, i // plan.server_ports
        leaf_i, lp = divmod(len(servers) + nth, plan.server_down)
        b.link(net, 0, "ufm-leaf", dev, name, name, sides[side][leaf_i], ports[lp], cages[lp], speed)
    app_leaves = [mk(f"{prefix}-AL{i + 1:02d}") for i in range(plan.appliance_leaves)]
    k = 0
    for dev, names in appliances:
        for name in names:
            leaf_i, lp = divmod(k, plan.appliance_down)
            b.link(net, 0, appliance_tier, dev, name, name, app_leaves[leaf_i], ports[lp], cages[lp], speed)
            k += 1
    spines = [
        b.device(f"{prefix}-S{j + 1:02d}", "spine", sw.key, network=net, rack_units=sw.rack_units, power_kw=sw.power_kw)
        for j in range(plan.spines)
    ]
    sp_next = [0] * len(spines)
    for leaf, (down, up) in [(x, (plan.server_down, plan.server_up)) for x in leaves] + [
        (x, (plan.appliance_down, plan.appliance_up)) for x in app_leaves
    ]:
        if not spines:
            break
        m = up // len(spines)
        for j, spine in enumerate(spines):
            for t in range(m):
                lp = down + j * m + t
                sp = sp_next[j]
                sp_next[j] += 1
                b.link(net, 0, "leaf-spine", leaf, ports[lp], cages[lp], spine, ports[sp], cages[sp], speed)
    return {"leaf": leaves + app_leaves, "spine": spines}
