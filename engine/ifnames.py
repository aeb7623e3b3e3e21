"""Interface names as each platform spells them: the one map from the design's port names to the names a
switch OS or a host prints (and LLDP reports). Used by the switch configs (engine.qos_stage), the PTM
topology file, the ibnetdiscover file, and meant for as-built matching and the NetBox export.

The design names a switch port "<cage>" (one port per cage) or "<cage>/<n>" (port n of a cage split into
several ports); a cage has `lanes` electrical lanes (catalog: the fastest cage mode / `lanes_gbps`, e.g. an
800G OSFP at 100G per lane = 8). A switch's platform is the OS it runs (nvue, sonic, eos, ib) and the OS's
interface naming, both from its catalog entry (`os` in switches.yaml: OS -> naming; the design's
qos.ethernet_os chooses when a model runs several), never from its key or name. The namings:

* `swp` (Cumulus Linux / NVUE): `swp<cage>`; a broken-out cage's ports are `swp<cage>s<i>`, i from 0
  (Cumulus Linux 5.x user guide, "Switch Port Attributes": breakout ports `swp1s0` ... `swp1s3`). The
  management port is `eth0`.
* `ethernet-lane` (SONiC): `Ethernet<first lane>`, lanes counted from 0 over the whole front panel (the port_config
  / platform.json convention: cage c of an 8-lane OSFP switch starts at Ethernet<8(c-1)>; a 2-way split
  port 2 starts 4 lanes later). Management: `eth0`.
* `ethernet-cage-lane` (Arista EOS): `Ethernet<cage>/<first lane>`, lanes counted from 1 inside the cage (EOS manual,
  "Ethernet Ports": multi-lane ports are named by their lowest lane, so a 2 x 400G OSFP is Ethernet1/1 and
  Ethernet1/5, a 4 x 200G one Ethernet1/1, /3, /5, /7). Management: `Management1`.
* `ib-port` (InfiniBand switches): the IB port number ibnetdiscover and OpenSM print; cage c, port p of a
  twin-port cage is 2(c-1)+p (Quantum-2 OSFP cages carry 2 logical ports, optics-and-cabling.md D1).
* Hosts (`host`): the server model's `netdevs` (catalog servers.yaml, a setting per server model: the
  names depend on the OS image and PCI layout, which the reference does not give; docs/data-gaps.md);
  ports without one keep their design name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import CatalogError

if TYPE_CHECKING:
    from .catalog import SwitchModel

SWITCH_ROLES = frozenset(("leaf", "spine", "core", "oob", "oob-agg"))
# A device's platform: a switch's OS (engine.catalog.SWITCH_OSES), "host" for a server, "other" otherwise.
PLATFORMS = ("nvue", "sonic", "eos", "ib", "host", "other")
# The management port each naming prints (the NOS's own name for the design's `mgmt0`).
MGMT_PORT = {"swp": "eth0", "ethernet-lane": "eth0", "ethernet-cage-lane": "Management1", "ib-port": "mgmt0"}
_PORT = re.compile(r"^(\d+)(?:/(\d+))?$")
_UPLINK = re.compile(r"^up(\d+)$")


def split_port(port: str) -> tuple[int, int | None] | None:
    """("17/2") -> (17, 2); ("17") -> (17, None); anything else (mgmt0, up1, NIC1) -> None."""
    m = _PORT.match(str(port))
    if not m:
        return None
    return int(m.group(1)), (int(m.group(2)) if m.group(2) else None)


def lanes_per_cage(switch: SwitchModel) -> int:
    """Electrical lanes of one cage: the fastest whole-cage mode over the lane rate (800G / 100G = 8)."""
    lane = max(1, int(getattr(switch, "lanes_gbps", 0) or 1))
    widest = max((int(s) * int(n) for s, n in (switch.speeds or {}).items()), default=lane)
    return max(1, widest // lane)


def ib_port_number(port: str) -> int | None:
    """IB port number of a design switch port: cage c alone -> c; cage c, port p -> 2(c-1)+p."""
    sp = split_port(port)
    if sp is None:
        return None
    c, p = sp
    return c if p is None else 2 * (c - 1) + p


def switch_port_name(
    port: str, naming: str, *, lanes: int = 8, split: int = 1, cages: int = 0, uplink_lanes: int = 4
) -> str:
    """A switch port's name under `naming` (the catalog's naming for the switch's OS). `split` = ports the cage
    is divided into at this link's speed; `cages` (front-panel cages) places the separate uplink ports `up<n>`
    after them."""
    if port == "mgmt0":
        return MGMT_PORT.get(naming, port)
    up = _UPLINK.match(str(port))
    if up and cages:
        n = int(up.group(1))
        if naming == "swp":
            return f"swp{cages + n}"
        if naming == "ethernet-lane":
            return f"Ethernet{cages * lanes + (n - 1) * uplink_lanes}"
        if naming == "ethernet-cage-lane":
            return f"Ethernet{cages + n}/1"
        return port
    sp = split_port(port)
    if sp is None:
        return port
    c, s = sp
    if naming == "ib-port":
        return str(ib_port_number(port))
    split = max(1, split)
    step = max(1, lanes // split)
    sub = 0 if s is None else s - 1
    if naming == "swp":
        return f"swp{c}" if s is None or split == 1 else f"swp{c}s{sub}"
    if naming == "ethernet-lane":
        return f"Ethernet{(c - 1) * lanes + sub * step}"
    if naming == "ethernet-cage-lane":
        return f"Ethernet{c}/{sub * step + 1}"
    return port


_NVUE_IF = re.compile(r"^swp(\d+)(?:s(\d+))?$")
_SONIC_IF = re.compile(r"^Ethernet(\d+)$")
_EOS_IF = re.compile(r"^Ethernet(\d+)(?:/(\d+))?$")


def design_port_name(
    name: str,
    naming: str,
    *,
    lanes: int = 8,
    split: int = 1,
    cages: int = 0,
    uplink_lanes: int = 4,
    slashed: bool = True,
) -> str | None:
    """The design's name of a switch port a naming prints, the inverse of switch_port_name for a port the plan
    may not use (a stray cable's), or None when `name` is not one of the naming's port names. The port's
    speed is not known there: `split` is the split the device's cages use in the plan, `slashed` whether the
    design names its ports "<cage>/<n>" (twin-port cages) or "<cage>"."""
    if name == MGMT_PORT.get(naming):
        return "mgmt0"
    step = max(1, lanes // max(1, split))
    if naming == "ib-port":
        if not name.isdigit() or int(name) < 1:
            return None
        n = int(name)
        return f"{(n + 1) // 2}/{2 - n % 2}" if slashed else str(n)
    if naming == "swp":
        m = _NVUE_IF.match(name)
        if not m:
            return None
        c = int(m.group(1))
        if cages and c > cages:
            return f"up{c - cages}"
        return f"{c}/{int(m.group(2)) + 1}" if m.group(2) is not None else str(c)
    if naming == "ethernet-lane":
        m = _SONIC_IF.match(name)
        if not m:
            return None
        n = int(m.group(1))
        if cages and n >= cages * lanes:
            return f"up{(n - cages * lanes) // max(1, uplink_lanes) + 1}"
        c, sub = n // lanes + 1, (n % lanes) // step
        return f"{c}/{sub + 1}" if slashed else str(c)
    if naming == "ethernet-cage-lane":
        m = _EOS_IF.match(name)
        if not m:
            return None
        c = int(m.group(1))
        if cages and c > cages:
            return f"up{c - cages}"
        if m.group(2) is None:
            return str(c)
        return f"{c}/{(int(m.group(2)) - 1) // step + 1}" if slashed else str(c)
    return None


def breakout_mode(split: int, speed_gbps: int) -> str:
    """NVUE's explicit breakout value, `<ports>x<speed>G` (e.g. 2x400G)."""
    return f"{split}x{speed_gbps}G"


@dataclass(frozen=True)
class InterfaceMap:
    """Design (device, port, speed) -> platform interface name, for one computed design."""

    platforms: tuple[str, ...]  # per device index: the switch's OS, "host" or "other"
    _switch_models: Mapping[int, SwitchModel]  # device index -> catalog SwitchModel (switches only)
    _netdevs: Mapping[str, Mapping[str, str]]  # server model -> {design port: netdev}
    _models: tuple[str, ...]
    _namings: Mapping[int, str]  # device index -> the interface naming of its OS (switches only)

    def platform(self, device: int) -> str:
        return self.platforms[device]

    def naming(self, device: int) -> str:
        """The interface naming of a switch's OS (catalog `os`); "" for a device that is not a switch."""
        return self._namings.get(device, "")

    def split(self, device: int, speed_gbps: int) -> int:
        sw = self._switch_models.get(device)
        if sw is None:
            return 1
        return int(sw.speeds.get(speed_gbps) or 1)

    def name(self, device: int, port: str, speed_gbps: int = 0) -> str:
        platform = self.platforms[device]
        if platform == "host":
            return self._netdevs.get(self._models[device], {}).get(port, port)
        sw = self._switch_models.get(device)
        if sw is None:
            return port
        return switch_port_name(
            port, self._namings[device], lanes=lanes_per_cage(sw), split=self.split(device, speed_gbps), cages=sw.cages
        )

    def switch_model(self, device: int) -> SwitchModel | None:
        return self._switch_models.get(device)

    def breakout(self, device: int, port: str, speed_gbps: int) -> tuple[str, str] | None:
        """(cage interface, NVUE breakout mode) when the port sits in a split cage, else None."""
        sp = split_port(port)
        split = self.split(device, speed_gbps)
        if sp is None or sp[1] is None or split <= 1:
            return None
        return f"swp{sp[0]}", breakout_mode(split, speed_gbps)


def technology_of(spec: Any, network: str) -> str:
    if network == "compute":
        return spec.compute.technology
    if network == "storage" and spec.storage.enabled:
        return spec.storage.technology
    return "ethernet"


def build_interface_map(result: Any, catalog: Any, ethernet_os: str | None = None) -> InterfaceMap:
    """The map for a computed design. A switch's OS and naming come from its catalog entry (SwitchModel.os_for);
    `ethernet_os` (nvue | sonic), the choice for models that run several, defaults to the design's QoS policy.
    CatalogError for a switch whose model the catalog does not hold or names no OS for its fabric."""
    spec = result.spec
    if ethernet_os is None:
        ethernet_os = (spec.qos or {}).get("ethernet_os", "nvue") if isinstance(spec.qos, Mapping) else "nvue"
    platforms, models, switch_models, namings = [], [], {}, {}
    chosen: dict[tuple[str, str], str] = {}  # (model, technology) -> OS: asked once per model, not per device
    for i, d in enumerate(result.devices):
        models.append(d.model)
        if d.role == "server":
            platforms.append("host")
            continue
        if d.role not in SWITCH_ROLES:
            platforms.append("other")
            continue
        sw = catalog.switches.get(d.model)
        if sw is None:
            raise CatalogError(f"switch {d.name}: its model {d.model!r} is not in the design's catalog")
        tech = technology_of(spec, d.network)
        os_name = chosen.get((d.model, tech))
        if os_name is None:
            os_name = chosen[(d.model, tech)] = sw.os_for(tech, ethernet_os)
        platforms.append(os_name)
        switch_models[i] = sw
        namings[i] = sw.naming(os_name)
    netdevs = {k: dict(getattr(s, "netdevs", None) or {}) for k, s in catalog.servers.items()}
    return InterfaceMap(tuple(platforms), switch_models, netdevs, tuple(models), namings)
