"""Readers of what people collect from a built fabric, each -> an Observation (engine.asbuilt.records).

* ibnetdiscover (infiniband-diags): node blocks and `[port] "peer"[port] # ... <width>x<speed>` lines; a CA
  line's peer is a switch and vice versa, so every link is printed twice and kept once.
* iblinkinfo (infiniband-diags): `CA: <desc>:` / `Switch: <guid> <desc>:` then one line per port,
  `<lid> <port>[..] ==( <width>X <rate> Gbps <phys>/ <logical>)==> <lid> <port>[..] "<peer desc>" ( ... )`.
* lldpctl -f json (lldpd 1.0: hosts, SONiC): {"lldp": {"interface": {...} | [{...}, ...]}}; a single-element
  list is printed as an object. Neighbour name: the chassis key; neighbour port: `port.id` when its type
  is ifname/local, else `port.descr` (lldpd sends the MAC as the id by default and the ifname as descr).
  lldpctl does not name the local system, so one dump needs `device=`; a bundle {"<host>": <dump>, ...}
  names each.
* NVUE (Cumulus Linux 5): `nv show interface -o json` with an `lldp.neighbor` object per interface, or one
  interface's `nv show interface <swp> lldp -o json` ({"neighbor": {...}} needs `device=` and `port=`).
* Arista EOS: `show lldp neighbors | json` ({"lldpNeighbors": [{"port", "neighborDevice", "neighborPort"}]})
  or `show lldp neighbors detail | json` ({"lldpNeighbors": {"<port>": {"lldpNeighborInfo": [...]}}}).
* CSV: `device,port,neighbor_device,neighbor_port` (header required; optional width, speed_gbps).

Every reader raises AsBuiltParseError (a line when it has one, and why) on input it cannot read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from engine.inputgate import UPLOAD_MAX_NODES, InputRefused, csv_rows, load_json

from .records import Observation, ObservedEnd, ObservedLink

FORMATS = ("ibnetdiscover", "iblinkinfo", "lldpctl", "nvue", "eos", "csv")

# Per-lane data rate (Gb/s) of each InfiniBand speed name, and of the signalling rates iblinkinfo prints.
IB_LANE_GBPS = {"SDR": 2.5, "DDR": 5, "QDR": 10, "FDR10": 10, "FDR": 14, "EDR": 25, "HDR": 50, "NDR": 100, "XDR": 200}
_IB_SIGNAL_GBPS = {
    2.5: 2.5,
    5.0: 5,
    10.0: 10,
    14.0625: 14,
    25.78125: 25,
    53.125: 50,
    106.25: 100,
    212.5: 200,
}


class AsBuiltParseError(ValueError):
    def __init__(self, message: str, line: int | None = None):
        super().__init__(message if line is None else f"line {line}: {message}")
        self.message = message
        self.line = line


def parse(fmt: str, text: str, *, device: str = "", port: str = "") -> Observation:
    """The Observation of `text` in format `fmt` (one of FORMATS)."""
    if fmt not in FORMATS:
        raise AsBuiltParseError(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")
    if "\x00" in text:
        raise AsBuiltParseError("the file holds NUL characters: not a text export")
    if fmt == "ibnetdiscover":
        return parse_ibnetdiscover(text)
    if fmt == "iblinkinfo":
        return parse_iblinkinfo(text)
    if fmt == "lldpctl":
        return parse_lldpctl(text, device=device)
    if fmt == "nvue":
        return parse_nvue(text, device=device, port=port)
    if fmt == "eos":
        return parse_eos(text, device=device)
    return parse_csv(text)


def _dedupe(links: list[ObservedLink]) -> tuple[ObservedLink, ...]:
    """One link per pair of ends (tools print each link from both sides)."""
    seen: set[tuple[str, str, str, str]] = set()
    out = []
    for lk in links:
        a, b = lk.a, lk.b
        key = (a.device, a.port, b.device, b.port)
        if key in seen or (b.device, b.port, a.device, a.port) in seen:
            continue
        seen.add(key)
        out.append(lk)
    return tuple(out)


# --- InfiniBand ------------------------------------------------------------------------------------------

_IBND_GUID = re.compile(r"^(switchguid|caguid|rtguid)=0x([0-9a-fA-F]+)")
_IBND_HEADER = re.compile(r'^(Switch|Ca|Rt)\s+(\d+)\s+"([^"]+)"\s*#\s*"([^"]*)"')
_IBND_PORT = re.compile(
    r'^\[(\d+)\](?:\[ext \d+\])?(?:\(([0-9a-fA-F]+)\))?\s*"([^"]+)"\[(\d+)\](?:\(([0-9a-fA-F]+)\))?(.*)$'
)
_IBND_RATE = re.compile(r"\b(\d+)x(SDR|DDR|QDR|FDR10|FDR|EDR|HDR|NDR|XDR)\b")


def parse_ibnetdiscover(text: str) -> Observation:
    desc: dict[str, str] = {}  # node name -> node description
    kind: dict[str, str] = {}
    raw: list[tuple[str, int, str, str, int, str, int | None, float | None]] = []
    current = None
    for n, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#") or _IBND_GUID.match(line) or "=" in line.split(" ")[0]:
            continue
        m = _IBND_HEADER.match(line)
        if m:
            current = m.group(3)
            desc[current] = m.group(4)
            kind[current] = m.group(1)
            continue
        m = _IBND_PORT.match(line)
        if m:
            if current is None:
                raise AsBuiltParseError("a port line before any Switch or Ca line", n)
            rate = _IBND_RATE.search(m.group(6) or "")
            width = int(rate.group(1)) if rate else None
            lane = IB_LANE_GBPS[rate.group(2)] if rate else None
            raw.append(
                (current, int(m.group(1)), m.group(2) or "", m.group(3), int(m.group(4)), m.group(5) or "", width, lane)
            )
            continue
        if line.startswith("["):
            raise AsBuiltParseError(f"cannot read the port line {line[:80]!r}", n)
    if not desc:
        raise AsBuiltParseError("no Switch or Ca node: not ibnetdiscover output")
    links = []
    for node, port, guid, peer, pport, pguid, width, lane in raw:
        if peer not in desc:
            continue  # a peer outside the sweep (cut off by a hop limit): nothing to name it by
        a = ObservedEnd(desc[node], str(port), f"0x{guid}" if guid else "")
        b = ObservedEnd(desc[peer], str(pport), f"0x{pguid}" if pguid else "")
        links.append(ObservedLink(a, b, width, lane))
    return Observation("ibnetdiscover", _dedupe(links), frozenset(desc.values()))


_ILI_CA = re.compile(r"^CA:\s+(.*?):\s*$")
_ILI_SW = re.compile(r"^Switch:\s+(0x[0-9a-fA-F]+)\s+(.*?):\s*$")
_ILI_PORT = re.compile(
    r"^\s*(?:(0x[0-9a-fA-F]+)\s+)?\d+\s+(\d+)\[[^\]]*\]\s+==\(\s*(.*?)\)==>\s*(?:\d+\s+(\d+)\[[^\]]*\]\s+\"([^\"]*)\")?"
)
_ILI_STATE = re.compile(r"^(\d+)X\s+([\d.]+)\s+Gbps\s+(\w+)\s*/\s*(\w+)")


def parse_iblinkinfo(text: str) -> Observation:
    links = []
    nodes: set[str] = set()
    current = None
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        m = _ILI_CA.match(line) or _ILI_SW.match(line)
        if m:
            current = m.group(m.lastindex or 1)
            nodes.add(current)
            continue
        m = _ILI_PORT.match(line)
        if not m:
            raise AsBuiltParseError(f"cannot read {line.strip()[:80]!r}", n)
        if current is None:
            raise AsBuiltParseError("a port line before any CA: or Switch: line", n)
        guid, port, state, pport, peer = m.groups()
        st = _ILI_STATE.match(state.strip())
        if st is None or not peer:
            continue  # Down / Polling: nothing on the other end
        rate = float(st.group(2))
        lane = _IB_SIGNAL_GBPS.get(rate, rate)
        a = ObservedEnd(current, port, guid or "")
        links.append(ObservedLink(a, ObservedEnd(peer, pport), int(st.group(1)), lane))
    if not nodes:
        raise AsBuiltParseError("no CA: or Switch: line: not iblinkinfo output")
    return Observation("iblinkinfo", _dedupe(links), frozenset(nodes))


# --- LLDP ------------------------------------------------------------------------------------------------


def _json(text: str) -> Any:
    try:
        return load_json(text, max_chars=len(text), max_nodes=UPLOAD_MAX_NODES)  # size bounded at the upload
    except InputRefused as exc:
        raise AsBuiltParseError(exc.message, exc.line) from None


def _items(x: object) -> list[tuple[str, Mapping]]:
    """lldpd prints a one-element list as an object: {"k": v} or [{"k": v}, ...] -> [(k, v), ...]."""
    if isinstance(x, Mapping):
        return [(k, v) for k, v in x.items() if isinstance(v, Mapping)]
    if isinstance(x, list):
        return [pair for item in x if isinstance(item, Mapping) for pair in _items(item)]
    return []


def _lldpd_port(port: Mapping) -> str:
    pid = port.get("id")
    if isinstance(pid, Mapping) and pid.get("type") in ("ifname", "local") and pid.get("value"):
        return str(pid["value"])
    return str(port.get("descr") or (pid.get("value") if isinstance(pid, Mapping) else pid) or "")


def _lldpd_links(device: str, dump: Mapping) -> list[ObservedLink]:
    lldp = dump.get("lldp")
    if not isinstance(lldp, Mapping):
        raise AsBuiltParseError('no "lldp" object: not `lldpctl -f json` output')
    links = []
    for ifname, entry in _items(lldp.get("interface") or {}):
        chassis = _items(entry.get("chassis") or {})
        port = entry.get("port") or {}
        if not chassis or not isinstance(port, Mapping):
            continue
        peer = chassis[0][0]
        links.append(ObservedLink(ObservedEnd(device, ifname), ObservedEnd(peer, _lldpd_port(port))))
    return links


def parse_lldpctl(text: str, *, device: str = "") -> Observation:
    data = _json(text)
    if not isinstance(data, Mapping):
        raise AsBuiltParseError("expected a JSON object")
    if "lldp" in data:
        if not device:
            raise AsBuiltParseError("lldpctl does not name the local system: give the device the dump is from")
        return Observation("lldpctl", _dedupe(_lldpd_links(device, data)), frozenset([device]))
    if not data:
        raise AsBuiltParseError('no "lldp" object: not `lldpctl -f json` output (nor a bundle {"<host>": <dump>})')
    links = []
    for host, dump in data.items():
        if not isinstance(dump, Mapping):
            raise AsBuiltParseError(f"{host!r}: expected an lldpctl -f json object")
        links += _lldpd_links(str(host), dump)
    return Observation("lldpctl", _dedupe(links), frozenset(str(h) for h in data))


_MAC = re.compile(r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$")


def _nvue_neighbors(device: str, ifname: str, lldp: Mapping) -> list[ObservedLink]:
    out = []
    for key, nb in _items(lldp.get("neighbor") or {}):
        chassis = nb.get("chassis") or {}
        port = nb.get("port") or {}
        name = str(chassis.get("system-name") or key)
        pname = str(port.get("name") or "")
        if port.get("type") == "mac" or _MAC.match(pname):
            # A host's lldpd sends its MAC as the port id by default; the interface name is the description.
            pname = str(port.get("description") or pname)
        out.append(ObservedLink(ObservedEnd(device, ifname), ObservedEnd(name, pname)))
    return out


def parse_nvue(text: str, *, device: str = "", port: str = "") -> Observation:
    data = _json(text)
    if not isinstance(data, Mapping):
        raise AsBuiltParseError("expected a JSON object")
    if not device:
        raise AsBuiltParseError("NVUE's JSON does not name the switch: give the device it is from")
    if "neighbor" in data:
        if not port:
            raise AsBuiltParseError("one interface's LLDP JSON: give the interface (port) it is from")
        return Observation("nvue", _dedupe(_nvue_neighbors(device, port, data)), frozenset([device]))
    links = []
    for ifname, entry in _items(data):
        lldp = entry.get("lldp")
        if isinstance(lldp, Mapping):
            links += _nvue_neighbors(device, ifname, lldp)
    return Observation("nvue", _dedupe(links), frozenset([device]))


def parse_eos(text: str, *, device: str = "") -> Observation:
    data = _json(text)
    nbs = data.get("lldpNeighbors") if isinstance(data, Mapping) else None
    if nbs is None:
        raise AsBuiltParseError('no "lldpNeighbors": not `show lldp neighbors | json` output')
    if not device:
        raise AsBuiltParseError("EOS's JSON does not name the switch: give the device it is from")
    links = []
    if isinstance(nbs, list):
        for nb in nbs:
            if isinstance(nb, Mapping) and nb.get("port") and nb.get("neighborDevice"):
                a = ObservedEnd(device, str(nb["port"]))
                links.append(ObservedLink(a, ObservedEnd(str(nb["neighborDevice"]), str(nb.get("neighborPort", "")))))
    elif isinstance(nbs, Mapping):
        for ifname, entry in nbs.items():
            for info in (entry or {}).get("lldpNeighborInfo") or []:
                nii = info.get("neighborInterfaceInfo") or {}
                pname = str(nii.get("interfaceId_v2") or nii.get("interfaceId") or "").strip('"')
                peer = str(info.get("systemName") or "")
                if peer:
                    links.append(ObservedLink(ObservedEnd(device, str(ifname)), ObservedEnd(peer, pname)))
    return Observation("eos", _dedupe(links), frozenset([device]))


# --- CSV -------------------------------------------------------------------------------------------------

CSV_COLUMNS = ("device", "port", "neighbor_device", "neighbor_port")


def _csv_rows(text: str) -> Iterator[list[str]]:
    try:
        yield from csv_rows(text, max_chars=len(text))  # size bounded at the upload
    except InputRefused as exc:
        raise AsBuiltParseError(exc.message, exc.line) from None


def parse_csv(text: str) -> Observation:
    reader = _csv_rows(text)
    header = [h.strip().lower() for h in next(reader, [])]
    missing = [c for c in CSV_COLUMNS if c not in header]
    if missing:
        raise AsBuiltParseError(f"the header lacks {', '.join(missing)} (columns: {', '.join(CSV_COLUMNS)})", 1)
    col = {h: i for i, h in enumerate(header)}
    i_dev, i_port, i_ndev, i_nport = (col[c] for c in CSV_COLUMNS)
    i_width, i_speed = col.get("width"), col.get("speed_gbps")
    links = []
    devices = set()
    for n, row in enumerate(reader, start=2):
        if len(row) < len(header):
            if not any(c.strip() for c in row):
                continue
            raise AsBuiltParseError(f"{len(row)} cells, the header has {len(header)}", n)
        dev, port, ndev, nport = row[i_dev].strip(), row[i_port].strip(), row[i_ndev].strip(), row[i_nport].strip()
        if not (dev and port and ndev and nport):
            if not any(c.strip() for c in row):
                continue
            empty = [c for c, v in zip(CSV_COLUMNS, (dev, port, ndev, nport)) if not v]
            raise AsBuiltParseError(f"{', '.join(empty)} empty", n)
        width = speed = None
        try:
            if i_width is not None and row[i_width].strip():
                width = int(row[i_width].strip().rstrip("xX"))
            if i_speed is not None and row[i_speed].strip():
                speed = float(row[i_speed])
        except ValueError:
            raise AsBuiltParseError("width must be a whole number of lanes and speed_gbps a number", n) from None
        links.append(ObservedLink(ObservedEnd(dev, port), ObservedEnd(ndev, nport), width, None, speed))
        devices.add(dev)
    return Observation("csv", _dedupe(links), frozenset(devices))
