"""QoS and congestion control: policy -> per-switch vendor configs, host script, subnet-manager settings,
PFC headroom per port and consistency warnings. API documented at the top of docs/qos.md.

    plan = plan_qos(policy, switches, host, technology)
    plan.files            [(path under configs/, text)], one file per Ethernet switch in its own OS syntax
    plan.warnings         [QosWarning(code, message, where)]
    plan.headroom_table   one HeadroomRow per lossless switch port
    plan.summary()        plain dict

Cost is O(ports): switch-wide config parts are built once per policy, headroom is memoised per
(speed, cable length to 0.1 m), and per-port work is string building.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import NamedTuple

from .checks import QosWarning, check_consistency
from .headroom import Headroom, HeadroomTerms, bytes_to_us, headroom_bytes, per_speed_bits
from .inputs import HostInfo, IbFabric, PortInfo, SwitchPorts, ib_fabric_facts
from .policy import QosPolicy
from .render import render_hosts, render_root_nodes, render_subnet_manager, render_switch


class HeadroomRow(NamedTuple):
    switch: str
    port: str
    peer: str
    speed_gbps: int
    cable_m: float
    headroom_bytes: int  # per lossless priority


@dataclass(frozen=True)
class QosPlan:
    policy: QosPolicy
    files: tuple[tuple[str, str], ...]
    warnings: tuple[QosWarning, ...]
    headroom_table: tuple[HeadroomRow, ...]
    switches_by_os: tuple[tuple[str, int], ...]
    speeds: tuple[int, ...]
    ib_fabrics: tuple[IbFabric, ...] = ()

    def summary(self) -> dict:
        p = self.policy
        hr: dict[int, dict] = {}
        for r in self.headroom_table:
            d = hr.setdefault(
                r.speed_gbps,
                {"ports": 0, "min_bytes": r.headroom_bytes, "max_bytes": r.headroom_bytes, "max_cable_m": r.cable_m},
            )
            d["ports"] += 1
            d["min_bytes"] = min(d["min_bytes"], r.headroom_bytes)
            d["max_bytes"] = max(d["max_bytes"], r.headroom_bytes)
            d["max_cable_m"] = max(d["max_cable_m"], r.cable_m)
        e = p.ecn
        return {
            "technology": p.technology,
            "mode": p.mode,
            "classes": [{"name": c.name, **c.to_dict()} for c in p.classes],
            "pfc_priorities": list(p.pfc_priorities),
            "ecn": {
                "enabled": p.ecn_enabled,
                "min_bytes": e.min_bytes,
                "max_bytes": e.max_bytes,
                "probability": e.probability,
                "by_speed": {
                    str(s): {
                        "min_us": round(bytes_to_us(e.min_bytes, s), 3),
                        "max_us": round(bytes_to_us(e.max_bytes, s), 3),
                    }
                    for s in self.speeds
                },
            },
            "dcqcn": p.dcqcn_enabled,
            "headroom": {
                "per_priority_bytes_by_speed": {str(k): v for k, v in sorted(hr.items())},
                "lossless_ports": len(self.headroom_table),
            },
            "switches_by_os": dict(self.switches_by_os),
            "subnet_managers": [f.name for f in self.ib_fabrics],
            "files": len(self.files),
            "warnings": [w.to_dict() for w in self.warnings],
        }


def plan_qos(policy: QosPolicy | None, switches: list[SwitchPorts], host: HostInfo | None, technology: str) -> QosPlan:
    policy = policy or QosPolicy.defaults(technology)
    files: list[tuple[str, str]] = []
    rows: list[HeadroomRow] = []
    totals: dict[str, int] = {}
    memo: dict[tuple[int, float], int] = {}
    n_pfc = len(policy.pfc_priorities)
    mtu, terms = policy.mtu.switch, policy.headroom
    cache: dict = {}
    eth = [s for s in switches if s.os != "ib"]
    ib = [s for s in switches if s.os == "ib"]
    by_os: dict[str, int] = {}
    for s in switches:
        by_os[s.os] = by_os.get(s.os, 0) + 1
    for s in eth:
        files.append(render_switch(policy, s, cache))
        if n_pfc:
            total = 0
            for p in s.ports:
                key = (p.speed_gbps, round(p.cable_m, 1))
                hb = memo.get(key)
                if hb is None:
                    hb = memo[key] = headroom_bytes(p.speed_gbps, p.cable_m, mtu, terms).total_bytes
                rows.append(HeadroomRow(s.name, p.port, p.peer, p.speed_gbps, p.cable_m, hb))
                total += hb
            totals[s.name] = total * n_pfc
    fabrics: list[IbFabric] = []
    groups: dict[tuple[str, int], list[SwitchPorts]] = {}
    for s in ib:
        groups.setdefault((s.network, s.plane), []).append(s)
    for (network, plane), group in sorted(groups.items()):
        fabric = ib_fabric_facts(group, f"{network}-plane{plane}" if plane else network)
        fabrics.append(fabric)
        files.append(render_subnet_manager(policy, fabric))
        files.append(render_root_nodes(fabric))
    roce_host = host if host is not None and (policy.technology == "ethernet" or bool(eth)) else None
    if roce_host is not None:
        files.append(render_hosts(policy, roce_host))
    warnings = check_consistency(policy, switches, [roce_host] if roce_host is not None else [], totals)
    speeds = tuple(
        sorted(
            {p.speed_gbps for s in eth for p in s.ports} | ({roce_host.speed_gbps} if roce_host is not None else set())
        )
    )
    files.append(("qos/policy.json", json.dumps(policy.to_dict(), indent=2, sort_keys=True) + "\n"))
    if rows:
        files.append(("qos/headroom.csv", headroom_csv(rows)))
    plan = QosPlan(
        policy=policy,
        # summary.json counts every file, itself included: a placeholder stands for it while it is written
        files=(*files, ("qos/summary.json", "")),
        warnings=tuple(warnings),
        headroom_table=tuple(rows),
        switches_by_os=tuple(sorted(by_os.items())),
        speeds=speeds,
        ib_fabrics=tuple(fabrics),
    )
    files.append(("qos/summary.json", json.dumps(plan.summary(), indent=2, sort_keys=True) + "\n"))
    return replace(plan, files=tuple(files))


def headroom_csv(rows: list[HeadroomRow]) -> str:
    lines = ["switch,port,peer,speed_gbps,cable_m,headroom_bytes_per_priority"]
    lines += [f"{r.switch},{r.port},{r.peer},{r.speed_gbps},{r.cable_m:g},{r.headroom_bytes}" for r in rows]
    return "\n".join(lines) + "\n"


__all__ = [
    "Headroom",
    "HeadroomRow",
    "HeadroomTerms",
    "HostInfo",
    "IbFabric",
    "PortInfo",
    "QosPlan",
    "QosPolicy",
    "QosWarning",
    "SwitchPorts",
    "bytes_to_us",
    "check_consistency",
    "headroom_bytes",
    "ib_fabric_facts",
    "per_speed_bits",
    "plan_qos",
    "render_hosts",
    "render_root_nodes",
    "render_subnet_manager",
    "render_switch",
]
