"""Reads ibnetdiscover's topology format (infiniband-diags; also what ibsim loads): the nodes and the links of a
discovered fabric. An as-built discovery is compared with the plan through it, and the discovered GUIDs of
the root switches fill each fabric's OpenSM root-node file (engine.qos.infiniband.render_root_nodes).

Format (rdma-core infiniband-diags/ibnetdiscover.c): a node block is `vendid=`, `devid=`, `sysimgguid=`,
`switchguid=0x<guid>(<port guid>)` or `caguid=0x<guid>`, then `Switch|Ca <ports> "<node name>"  # "<desc>" ...`
and one `[port](port guid) "<peer node name>"[peer port] # ...` line per connected port.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_HEADER = re.compile(r'^(Switch|Ca|Rt)\s+(\d+)\s+"([^"]+)"\s*#\s*"([^"]*)"')
_GUID = re.compile(r"^(switchguid|caguid|rtguid)=0x([0-9a-fA-F]+)")
_PORT = re.compile(r'^\[(\d+)\](?:\[ext \d+\])?(?:\(([0-9a-fA-F]+)\))?\s*"([^"]+)"\[(\d+)\]')


@dataclass(frozen=True)
class IbNode:
    kind: str  # Switch | Ca | Rt
    name: str  # the node name ibnetdiscover prints, e.g. "S-0002c9fa11b12cc0"
    guid: int
    ports: int  # NumPorts as reported (for a switch, the number after `Switch`)
    description: str


@dataclass(frozen=True)
class IbTopology:
    nodes: dict[str, IbNode]  # by node name
    links: frozenset[frozenset[tuple[str, int]]]  # {(node name, port), (node name, port)}

    def by_description(self) -> dict[str, IbNode]:
        return {n.description: n for n in self.nodes.values()}

    def described_links(self) -> set[frozenset[tuple[str, int]]]:
        """The links with node descriptions instead of node names (comparable across GUID schemes)."""
        d = {k: n.description for k, n in self.nodes.items()}
        return {frozenset((d.get(a, a), p) for a, p in link) for link in self.links}


def parse_ibnetdiscover(text: str) -> IbTopology:
    nodes: dict[str, IbNode] = {}
    links: set[frozenset[tuple[str, int]]] = set()
    guid = 0
    current = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = _GUID.match(line)
        if m:
            guid = int(m.group(2), 16)
            continue
        m = _HEADER.match(line)
        if m:
            kind, ports, name, desc = m.group(1), int(m.group(2)), m.group(3), m.group(4)
            nodes[name] = IbNode(kind, name, guid, ports, desc)
            current = name
            continue
        m = _PORT.match(line)
        if m and current is not None:
            links.add(frozenset(((current, int(m.group(1))), (m.group(3), int(m.group(4))))))
    return IbTopology(nodes, frozenset(links))


def root_guids(topology: IbTopology, names: Any) -> dict[str, str]:
    """{switch name: "0x<16 hex digits>"} for the switches among `names` whose node description holds the name
    as a whole word (a Quantum switch describes itself as e.g. "MF0;<hostname>:MQM9700/U1")."""
    wanted = set(names)
    out: dict[str, str] = {}
    for node in topology.nodes.values():
        if node.kind != "Switch":
            continue
        words = set(re.split(r"[;:/\s]+", node.description))
        for name in wanted & words:
            out[name] = f"0x{node.guid:016x}"
    return out
