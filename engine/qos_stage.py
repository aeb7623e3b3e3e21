"""Builds the QoS stage's inputs from a computed design and runs it (on demand: configs are a deliverable).
Port names come from the interface-name map (engine/ifnames.py), the same one the topology files use."""

from __future__ import annotations

from .catalog import Catalog
from .ifnames import build_interface_map
from .qos import plan_qos
from .qos.inputs import HostInfo, PortInfo, SwitchPorts
from .qos.policy import QosPolicy
from .result import DesignResult

SWITCH_ROLES = ("leaf", "spine", "core")
# Only fabrics that carry RDMA get a lossless class; in-band and OOB management stay best-effort.
QOS_NETWORKS = ("compute", "storage")


def build_qos(result: DesignResult, catalog: Catalog):
    spec = result.spec
    policy = QosPolicy.from_dict(spec.qos or {}, spec.compute.technology)
    devices, lengths = result.devices, result.lengths_m
    names = build_interface_map(result, catalog, policy.ethernet_os)
    ports: dict[int, list[PortInfo]] = {}
    breakouts: dict[int, dict[str, str]] = {}
    os_of: dict[int, str] = {}
    longest_host = 0.0
    for link, length in zip(result.links, lengths):
        if link.network not in QOS_NETWORKS:
            continue
        for me, my_port, other, other_port in (
            (link.a, link.a_port, link.b, link.b_port),
            (link.b, link.b_port, link.a, link.a_port),
        ):
            d = devices[me]
            if d.role not in SWITCH_ROLES:
                if d.role == "server" and link.network == "compute":
                    longest_host = max(longest_host, length)
                continue
            # The switch's OS (config dialect) from its catalog entry, as the interface map chose it.
            os_name = os_of[me] = names.platform(me)
            ports.setdefault(me, []).append(
                PortInfo(
                    names.name(me, my_port, link.speed_gbps),
                    link.speed_gbps,
                    length,
                    f"{devices[other].name}:{other_port}",
                )
            )
            if os_name == "nvue":
                b = names.breakout(me, my_port, link.speed_gbps)
                if b is not None:
                    breakouts.setdefault(me, {})[b[0]] = b[1]
    switches = []
    for idx in sorted(ports):
        d = devices[idx]
        sw = catalog.switches[d.model]
        switches.append(
            SwitchPorts(
                name=d.name,
                model=d.model,
                os=os_of[idx],
                buffer_mb=sw.buffer_mb,
                sharp=sw.sharp,
                ports=tuple(ports[idx]),
                role=d.role,
                network=d.network,
                plane=d.plane,
                subnet_manager=sw.subnet_manager,
                breakouts=tuple(sorted(breakouts.get(idx, {}).items(), key=lambda kv: int(kv[0][3:]))),
            )
        )
    server = catalog.servers[spec.servers.model]
    host = HostInfo(
        nic="connectx-8" if server.nic_speed_gbps >= 800 else "connectx-7",
        # Host netdev names: the server model's `netdevs` setting, else the design's port names.
        ports=tuple(server.netdevs.get(p.name, p.name) for p in server.compute_ports),
        speed_gbps=server.nic_speed_gbps // spec.compute.planes,
        cable_m=longest_host or None,
    )
    return plan_qos(policy, switches, host, spec.compute.technology)
