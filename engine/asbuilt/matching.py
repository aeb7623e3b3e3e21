"""Observed port identity -> the plan's port and link: the one matcher the as-built comparison (issue 28) and
the counter checks (issue 29) share.

A tool names a port its own way; the plan writes device names and design port names (`OSFP1P1`, `17/2`). The
matcher knows, per planned end, every name the port goes by:

* the design port name itself;
* the platform's interface name from engine.ifnames (the map the switch configs use): `swp17s1` (NVUE),
  `Ethernet132` (SONiC), `Ethernet17/5` (EOS), the IB port number `34` (Quantum), a host's netdev;
* on an InfiniBand host port, the RDMA device (`mlx5_3`) from the server model's catalog map
  (`rdma_devices`, with its source) or a user-supplied map, and `HCA-<n>` as the planned ibnetdiscover file
  names its CAs (apps/exports/renderers/topology.py);
* anything the user-supplied map adds: an RDMA device or netdev name, or a port GUID, per device or for
  every server.

Devices are matched by name without regard to case, then without a DNS domain (`dgx-01.cluster` ->
`dgx-01`), then, for an InfiniBand node description, by its words: an HCA describes itself as
`<hostname> mlx5_N` (the last word is then the port's RDMA device) and a Quantum switch as
`MF0;<hostname>:MQM9700/U1`.

A port the plan leaves unused (a stray cable's) is named back to the design's name by the switch's platform
rules (SpareNames, engine.ifnames.design_port_name: `swp13s0`, `Ethernet13/1`, IB port 25 -> `13/1`).

Interface (kept stable for engine.asbuilt.classify and the counters): PortMatcher(links, aliases, user_map,
spare=None),
.device(reported) -> device or None, .port(ObservedEnd) -> PortRef or None, .resolve(ObservedEnd) -> PortRef
(the design's names where known, for printing), .link_at(PortRef) -> PlannedLink or None, .ends(PlannedLink) -> (PortRef, PortRef); port_aliases(result) builds `aliases` from a computed
design, and parse_user_map(text) reads the user's map.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import NamedTuple

from engine.ifnames import build_interface_map, design_port_name, lanes_per_cage, technology_of
from engine.inputgate import InputRefused, csv_rows

from .records import ObservedEnd, PlannedLink


class PortRef(NamedTuple):
    """A planned port: (device name, design port name), exactly as the plan writes them."""

    device: str
    port: str


@dataclass(frozen=True)
class UserMapEntry:
    """One line of a user-supplied map: on `device` (empty: every device), the port a tool names `ident`
    (an RDMA device `mlx5_3`, a netdev, or a port GUID `0x...`) is the plan's `port`."""

    device: str
    ident: str
    port: str


@dataclass(frozen=True)
class SpareNames:
    """How a switch names the ports its plan leaves unused (a stray cable's), for the fix list: the settings of
    engine.ifnames.design_port_name, taken from the device's model and its planned links."""

    naming: str  # the interface naming of the switch's OS (catalog `os`, engine.ifnames)
    lanes: int
    split: int
    cages: int
    slashed: bool

    def design_port(self, name: str) -> str | None:
        return design_port_name(
            name, self.naming, lanes=self.lanes, split=self.split, cages=self.cages, slashed=self.slashed
        )


class UserMapError(ValueError):
    """A line of the user's map that cannot be read (its 1-based line number and why)."""

    def __init__(self, line: int, message: str):
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


_GUID = re.compile(r"^(?:0x)?([0-9a-fA-F]{1,16})$")
_WORDS = re.compile(r"[;:/,\s]+")
_RDMA = re.compile(r"^(?:mlx\d+_\d+|HCA-\d+)$", re.IGNORECASE)


def norm_guid(text: str) -> str:
    """A GUID as one key: "0x" + lower-case hex without leading zeros ("0x0002C9..." -> "0x2c9...")."""
    m = _GUID.match(text.strip())
    if not m:
        return ""
    return f"0x{int(m.group(1), 16):x}"


def _csv_rows(text: str) -> Iterator[list[str]]:
    try:
        yield from csv_rows(text, max_chars=len(text))  # size bounded where the map was received
    except InputRefused as exc:
        raise UserMapError(exc.line or 1, exc.message) from None


def parse_user_map(text: str) -> tuple[UserMapEntry, ...]:
    """The user's port map as CSV: `device,ident,port` (header optional; device may be empty for every
    server). A GUID identifies the port on its own, so its device may stay empty."""
    out: list[UserMapEntry] = []
    for n, row in enumerate(_csv_rows(text), start=1):
        cells = [c.strip() for c in row]
        if not cells or not any(cells) or cells[0].startswith("#"):
            continue
        if n == 1 and [c.lower() for c in cells[:3]] == ["device", "ident", "port"]:
            continue
        if len(cells) != 3:
            raise UserMapError(n, f"expected 3 columns (device, ident, port), got {len(cells)}")
        device, ident, port = cells
        if not ident or not port:
            raise UserMapError(n, "ident and port must not be empty")
        out.append(UserMapEntry(device, ident, port))
    return tuple(out)


def _key(text: str) -> str:
    return text.strip().lower()


class PortMatcher:
    """Resolves observed ends to planned ports (see the module docstring)."""

    def __init__(
        self,
        links: Iterable[PlannedLink],
        aliases: Mapping[PortRef, Iterable[str]] | None = None,
        user_map: Iterable[UserMapEntry] = (),
        spare: Mapping[str, SpareNames] | None = None,
    ):
        self._spare = {k.lower(): v for k, v in (spare or {}).items()}
        self._links: dict[PortRef, PlannedLink] = {}
        self._devices: dict[str, str] = {}  # lower-case name -> plan's name
        # (lower-case device, lower-case port name) -> design port; design names first, so a platform name
        # that happens to equal another port's design name wins (it is what the tools print).
        self._ports: dict[tuple[str, str], str] = {}
        lower: dict[str, str] = {}  # device name -> lower-case, once per device (400,000 links, 20,000 devices)
        links_at, ports = self._links, self._ports
        for lk in links:
            for device, port in ((lk.a_device, lk.a_port), (lk.b_device, lk.b_port)):
                links_at[PortRef(device, port)] = lk
                dk = lower.get(device)
                if dk is None:
                    dk = lower[device] = device.lower()
                    self._devices[dk] = device
                ports.setdefault((dk, port.lower()), port)
        self._ib_numbered: dict[str, bool] = {}  # device -> its IB port numbers name twin-port cages (c/p)
        for ref, names in (aliases or {}).items():
            dk = lower.get(ref.device) or ref.device.lower()
            self._devices.setdefault(dk, ref.device)
            for name in names:
                if name:
                    ports[(dk, name.lower())] = ref.port
                    if name.isdigit() and name != ref.port:
                        self._ib_numbered[dk] = "/" in ref.port
        self._short: dict[str, str] = {}
        for dk, name in self._devices.items():
            self._short.setdefault(dk.split(".")[0], name)
        self._device_memo: dict[str, str | None] = {}
        self._guids: dict[str, PortRef] = {}
        self._any_device: dict[str, str] = {}  # ident -> port, on every device
        for e in user_map:
            guid = norm_guid(e.ident) if e.ident.lower().startswith("0x") else ""
            known = self.device(e.device) if e.device else None
            if guid:
                if known is None:
                    # A GUID alone: the device comes from the node description when matched.
                    self._any_device[guid] = e.port
                else:
                    self._guids[guid] = PortRef(known, e.port)
            elif known is not None:
                self._ports[(_key(known), _key(e.ident))] = e.port
            elif not e.device:
                self._any_device[_key(e.ident)] = e.port

    # -- devices -----------------------------------------------------------------------------------------

    def device(self, reported: str) -> str | None:
        """The plan's device a reported name means, or None."""
        try:
            return self._device_memo[reported]  # a file names each device once per port it reports
        except KeyError:
            pass
        hit = self._device(reported)
        self._device_memo[reported] = hit
        return hit

    def _device(self, reported: str) -> str | None:
        k = _key(reported)
        if not k:
            return None
        hit = self._devices.get(k) or self._short.get(k) or self._short.get(k.split(".")[0])
        if hit is not None:
            return hit
        for word in _WORDS.split(k):
            hit = self._devices.get(word) or self._short.get(word.split(".")[0])
            if hit is not None:
                return hit
        return None

    # -- ports -------------------------------------------------------------------------------------------

    def port(self, end: ObservedEnd) -> PortRef | None:
        """The planned port an observed end is, or None (unknown device, or a port the plan does not name:
        then `device(end.device)` still says whose port it is)."""
        guid = norm_guid(end.guid) if end.guid else ""
        if guid and guid in self._guids:
            return self._guids[guid]
        device = self.device(end.device)
        if device is None:
            return None
        dk = device.lower()
        name = end.port
        if " " in end.device:
            words = end.device.split()
            if _RDMA.match(words[-1]):
                # "<hostname> mlx5_N": the HCA is the port; its IB port number (1) says nothing more.
                name = words[-1]
        k = name.lower()
        port = self._ports.get((dk, k))
        if port is None:
            k = k.strip()
            port = self._ports.get((dk, k))
        if port is None and guid:
            port = self._any_device.get(guid)
        if port is None and self._any_device:
            port = self._any_device.get(k)
        return None if port is None else PortRef(device, port)

    def design_port(self, device: str, reported: str) -> str:
        """The design's name of a port the plan may not use (a cable on a spare port): the planned port when
        known; on an InfiniBand switch, IB port n of a twin-port cage as "<cage>/<port>"; else as reported."""
        dk = _key(device)
        port = self._ports.get((dk, _key(reported)))
        if port is not None:
            return port
        namer = self._spare.get(dk)
        if namer is not None:
            return namer.design_port(reported.strip()) or reported
        if reported.isdigit() and dk in self._ib_numbered:
            n = int(reported)
            return f"{(n + 1) // 2}/{2 - n % 2}" if self._ib_numbered[dk] else str(n)
        return reported

    def resolve(self, end: ObservedEnd) -> PortRef:
        """Where an observed end sits, named as the design names it: the planned port when known; else the
        plan's device (from a node description such as `MF0;<host>:MQM9700/U1` or `<host>.cm.cluster mlx5_11`)
        and the port by its design name where it can be worked out (design_port; an HCA by its RDMA device);
        else as reported. What a fix list prints for any end, planned or not."""
        ref = self.port(end)
        if ref is not None:
            return ref
        device = self.device(end.device)
        if device is None:
            return PortRef(end.device, end.port)
        words = end.device.split()
        if len(words) > 1 and _RDMA.match(words[-1]):
            return PortRef(device, self.design_port(device, words[-1]))
        return PortRef(device, self.design_port(device, end.port))

    def link_at(self, ref: PortRef | None) -> PlannedLink | None:
        return None if ref is None else self._links.get(ref)

    @staticmethod
    def ends(link: PlannedLink) -> tuple[PortRef, PortRef]:
        return PortRef(link.a_device, link.a_port), PortRef(link.b_device, link.b_port)


def _natural(s: str):
    return [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", str(s))]


def spare_names(result, catalog=None, ethernet_os: str | None = None) -> dict[str, SpareNames]:
    """Per switch of a computed design, how it names the ports its plan does not use (SpareNames)."""
    catalog = catalog if catalog is not None else getattr(result, "catalog", None)
    if catalog is None:
        return {}
    names = build_interface_map(result, catalog, ethernet_os)
    speeds: Counter = Counter()  # (device, speed) -> planned ends
    slashed: set[int] = set()
    for lk in result.links:
        speeds[(lk.a, lk.speed_gbps)] += 1
        speeds[(lk.b, lk.speed_gbps)] += 1
        if "/" in lk.a_port:
            slashed.add(lk.a)
        if "/" in lk.b_port:
            slashed.add(lk.b)
    splits: dict[int, Counter] = {}
    for (d, speed), n in speeds.items():
        if names.switch_model(d) is not None:
            splits.setdefault(d, Counter())[names.split(d, speed)] += n
    out = {}
    for d, count in splits.items():
        sw = names.switch_model(d)
        assert sw is not None
        split = count.most_common(1)[0][0]
        out[result.devices[d].name] = SpareNames(names.naming(d), lanes_per_cage(sw), split, sw.cages, d in slashed)
    return out


def port_aliases(result, catalog=None, ethernet_os: str | None = None) -> dict[PortRef, tuple[str, ...]]:
    """Every other name of every planned port of a computed design (see the module docstring)."""
    catalog = catalog if catalog is not None else getattr(result, "catalog", None)
    devs = result.devices
    spec = result.spec
    names = build_interface_map(result, catalog, ethernet_os) if catalog is not None else None
    servers = getattr(catalog, "servers", {}) if catalog is not None else {}
    ib_ports: dict[int, set[str]] = {}
    out: dict[PortRef, list[str]] = {}
    # A name depends on the device's model and platform, the port and the speed, not on the device: worked
    # out once per distinct combination (a few hundred in a 400,000-link design).
    memo: dict[tuple, str] = {}
    tech = {n: technology_of(spec, n) for n in {lk.network for lk in result.links}}
    dname = [d.name for d in devs]
    kind = [(d.model, names.platform(i) if names is not None else "", d.role == "server") for i, d in enumerate(devs)]
    rdma_of = {k: dict(getattr(m, "rdma_devices", None) or {}) for k, m in servers.items()}
    for lk in result.links:
        ib = tech[lk.network] == "infiniband"
        speed = lk.speed_gbps
        for d, p in ((lk.a, lk.a_port), (lk.b, lk.b_port)):
            ref = PortRef(dname[d], p)
            found = out.get(ref)
            if found is None:
                found = out[ref] = []
            model, platform, server = kind[d]
            if names is not None:
                key = (model, platform, p, speed)
                name = memo.get(key)
                if name is None:
                    name = memo[key] = names.name(d, p, speed)
                found.append(name)
            if ib and server:
                ib_ports.setdefault(d, set()).add(p)
                rdma = rdma_of.get(model, {}).get(p)
                if rdma:
                    found.append(rdma)
    # The planned ibnetdiscover file's CA names: "<server> HCA-<n>", n in natural port order.
    for d, ports in ib_ports.items():
        for k, p in enumerate(sorted(ports, key=_natural)):
            out[PortRef(devs[d].name, p)].append(f"HCA-{k + 1}")
    return {ref: tuple(dict.fromkeys(v)) for ref, v in out.items()}
