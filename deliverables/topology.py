"""Topology files of the intended cabling:

* topology.dot: Graphviz, one edge per link, ``"dev":"port" -- "dev":"port";`` as Cumulus PTM
  checks it (the ports are the design's port names; map them to the NOS's interface names, e.g.
  swp, if they differ).
* topology.ibnetdiscover: the InfiniBand networks in ibnetdiscover's text format (Switch and Ca
  blocks with ``[port] "peer"[port]`` lines). Simplifications: no GUIDs exist before install, so
  every GUID is a deterministic placeholder derived from the device name (and HCA index); LIDs
  are 0; a server's compute port is one single-port CA (HCA-n, n = its port order on the server);
  switch port numbers are logical (cage c, port p of a twin-port cage -> 2(c-1)+p).
The NetBox import files are in netbox.py.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from engine.ifnames import build_interface_map, ib_port_number
from engine.result import DesignResult

from ._view import DesignView


def _view(result: DesignResult | DesignView) -> DesignView:
    return result if isinstance(result, DesignView) else DesignView(result)


def _q(s: str) -> str:
    """A DOT quoted ID. Graphviz reads a backslash in a quoted string literally except before a double quote
    (`\\"` is a quote; `\\\\` stays two backslashes), so only quotes are escaped. A backslash right before a
    quote or at the end cannot be written in a quoted ID at all; it is doubled there (the only lossy case)."""
    s = str(s)
    out = []
    for i, ch in enumerate(s):
        if ch == '"':
            out.append('\\"')
        elif ch == "\\" and (i + 1 == len(s) or s[i + 1] == '"'):
            out.append("\\\\")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


_RECORD_SPECIAL = re.compile(r'([{}|<>\s"\\])')


def _rec(s: str) -> str:
    """Text inside a record label (field ids and field text): Graphviz escapes {}|<>, spaces and quotes there."""
    return _RECORD_SPECIAL.sub(r"\\\1", str(s))


def iter_topology_dot(result: DesignResult | DesignView) -> Iterator[str]:
    """Cumulus PTM's topology.dot: one `"host":"port" -- "host":"port";` edge per link that ends on a Cumulus
    (NVUE) switch, with the interface names LLDP reports (engine.ifnames: swpN / swpNsM on the switch, the
    peer's own name on the other end). Every node is declared as a record whose fields are its ports, so
    Graphviz draws the file as it is (without a record, `dot` warns "port ... unrecognized" per edge end)."""
    v = _view(result)
    devs = v.devices
    catalog = getattr(v.result, "catalog", None)
    names = build_interface_map(v.result, catalog) if catalog is not None else None
    yield f"graph {_q(v.result.spec.name)} {{\n"
    yield "// Cumulus PTM topology (ptmd): the links of the Cumulus Linux switches, by LLDP interface names.\n"
    edges = []
    ports: dict[int, dict[str, None]] = defaultdict(dict)
    if names is not None:
        for lk in v.links:
            if names.platform(lk.a) != "nvue" and names.platform(lk.b) != "nvue":
                continue
            a = names.name(lk.a, lk.a_port, lk.speed_gbps)
            b = names.name(lk.b, lk.b_port, lk.speed_gbps)
            ports[lk.a][a] = None
            ports[lk.b][b] = None
            edges.append((lk.a, a, lk.b, b))
    if not edges:
        yield "// No Cumulus Linux switch in this design.\n"
    yield "node [shape=record];\n"
    for d in sorted(ports, key=lambda i: devs[i].name):
        fields = "|".join(f"<{_rec(p)}> {_rec(p)}" for p in sorted(ports[d], key=_natural))
        yield f"{_q(devs[d].name)} [label={_q('{' + _rec(devs[d].name) + '|{' + fields + '}}')}];\n"
    for da, pa, db, pb in edges:
        yield f"{_q(devs[da].name)}:{_q(pa)} -- {_q(devs[db].name)}:{_q(pb)};\n"
    yield "}\n"


def _natural(s: str) -> list[int | str]:
    return [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", str(s))]


# ----- ibnetdiscover --------------------------------------------------------------------------------

IB_WIDTH = {100: "4xEDR", 200: "2xNDR", 400: "4xNDR", 800: "4xXDR", 1600: "8xXDR"}
# PCI device ids of NVIDIA switch ASICs that are certain; others print 0x0 (a placeholder).
IB_DEVID = {"qm9700": "0xd2f0", "qm9790": "0xd2f0"}
_SWITCH_ROLES = {"leaf", "spine", "core"}


def guid(*parts: object) -> str:
    """Deterministic 64-bit placeholder GUID: NVIDIA's OUI 00:02:c9 + 40 bits of BLAKE2b(name), 16 hex digits."""
    h = hashlib.blake2b("|".join(str(p) for p in parts).encode(), digest_size=5).hexdigest()
    return "0x0002c9" + h


def _hex(g: str) -> str:
    """A GUID as ibnetdiscover prints it in values: PRIx64, no zero padding ("0x2c9fa11b12cc0")."""
    return f"{int(g, 16):x}"


def ib_networks(spec: Any) -> set:
    out = set()
    if spec.compute.technology == "infiniband":
        out.add("compute")
    if spec.storage.enabled and spec.storage.technology == "infiniband":
        out.add("storage")
    return out


def _reported_ports(model: Any, highest: int) -> int:
    """NumPorts of a switch: the catalog's `ib_reported_ports`, else its logical ports (never below the highest
    cabled port, so the file always loads)."""
    n = getattr(model, "ib_reported_ports", None) if model is not None else None
    if n is None and model is not None:
        n = model.cages * max(model.speeds.values(), default=1)
    return max(n or 0, highest, 1)


def iter_ibnetdiscover(result: DesignResult | DesignView) -> Iterator[str]:
    """The InfiniBand fabrics in ibnetdiscover's format, as infiniband-diags prints it (rdma-core
    ibnetdiscover.c: `sysimgguid=0x%PRIx64`, node names `S-%016PRIx64` / `H-...`, a CA peer's port GUID after
    the switch port). Raises ValueError for a design without InfiniBand (there is no such file)."""
    v = _view(result)
    nets = ib_networks(v.result.spec)
    if not nets:
        raise ValueError("topology.ibnetdiscover: this design has no InfiniBand network")
    devs = v.devices
    catalog = getattr(v.result, "catalog", None)
    switches = getattr(catalog, "switches", {}) if catalog is not None else {}
    yield "#\n# Topology file: intended cabling of " + v.result.spec.name + " (fabricdesign)\n"
    yield "# Placeholder GUIDs (derived from device names) and LIDs (0): nothing is installed yet.\n#\n"
    hca_of: dict = {}
    ports_by_dev: dict = defaultdict(list)
    for i, lk in enumerate(v.links):
        if lk.network not in nets:
            continue
        ports_by_dev[lk.a].append((lk.a_port, i, "a"))
        ports_by_dev[lk.b].append((lk.b_port, i, "b"))
    for d, plist in ports_by_dev.items():
        if devs[d].role not in _SWITCH_ROLES:
            names = sorted(
                {p for p, _, _ in plist},
                key=lambda s: [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", str(s))],
            )
            for k, p in enumerate(names):
                hca_of[(d, p)] = k + 1

    def node(d: int, port: str) -> tuple[bool, str, int, str, str]:
        """(is switch, node name, port number, node description, port GUID)."""
        if devs[d].role in _SWITCH_ROLES:
            return (True, f"S-{guid(devs[d].name)[2:]}", ib_port_number(port) or 0, devs[d].name, "")
        k = hca_of[(d, port)]
        g = guid(devs[d].name, k)
        return (False, f"H-{g[2:]}", 1, f"{devs[d].name} HCA-{k}", _hex(g))

    links = v.links
    for d in sorted(ports_by_dev, key=lambda x: (devs[x].role not in _SWITCH_ROLES, devs[x].name)):
        dev = devs[d]
        plist = ports_by_dev[d]
        if dev.role in _SWITCH_ROLES:
            g = guid(dev.name)
            highest = max([ib_port_number(p) or 0 for p, _, _ in plist] + [1])
            nports = _reported_ports(switches.get(dev.model), highest)
            yield (
                f"\nvendid=0x2c9\ndevid={IB_DEVID.get(dev.model, '0x0')}\nsysimgguid=0x{_hex(g)}\n"
                f"switchguid=0x{_hex(g)}({_hex(g)})\n"
            )
            yield f'Switch\t{nports} "S-{g[2:]}"\t\t# "{dev.name}" base port 0 lid 0 lmc 0\n'
            rows = []
            for port, i, side in plist:
                lk = links[i]
                od, op = (lk.b, lk.b_port) if side == "a" else (lk.a, lk.a_port)
                is_sw, key, pn, desc, pguid = node(od, op)
                mine = ib_port_number(port) or 0
                peer = "" if is_sw else f"({pguid}) "
                rows.append(
                    (
                        mine,
                        f'[{mine}]\t"{key}"[{pn}]{peer}\t\t# "{desc}" lid 0 {IB_WIDTH.get(lk.speed_gbps, "4xNDR")}\n',
                    )
                )
            for _, line in sorted(rows):
                yield line
        else:
            for port, i, side in sorted(plist, key=lambda t: hca_of[(d, t[0])]):
                lk = links[i]
                k = hca_of[(d, port)]
                g = guid(dev.name, k)
                od, op = (lk.b, lk.b_port) if side == "a" else (lk.a, lk.a_port)
                _, key, pn, desc, _ = node(od, op)
                yield f"\nvendid=0x2c9\ndevid=0x0\nsysimgguid=0x{_hex(guid(dev.name))}\ncaguid=0x{_hex(g)}\n"
                yield f'Ca\t1 "H-{g[2:]}"\t\t# "{dev.name} HCA-{k}"\n'
                yield (
                    f'[1]({_hex(g)}) \t"{key}"[{pn}]\t\t# lid 0 lmc 0 "{desc}" lid 0 '
                    f"{IB_WIDTH.get(lk.speed_gbps, '4xNDR')}\n"
                )
