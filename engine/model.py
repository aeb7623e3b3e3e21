"""Plain records the engine produces: devices, links, racks.

Links are NamedTuples rather than dataclasses: a 128K-GPU design has ~400,000 of them and a
tuple is about 3x cheaper to build and hold than a frozen dataclass instance.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

# Network keys, in the order reports list them.
NETWORKS = ("compute", "storage", "inband", "oob")
NETWORK_PREFIX = {"compute": "CF", "storage": "SF", "inband": "IB", "oob": "OOB"}

# Tier names per network, in path order from the endpoints up.
TIERS = {
    "compute": ("node-leaf", "ufm-leaf", "leaf-spine", "spine-core"),
    "storage": ("node-leaf", "ufm-leaf", "appliance-leaf", "leaf-spine"),
    "inband": ("node-leaf", "mgmt-leaf", "leaf-spine"),
    "oob": ("device-oob", "oob-uplink"),
}
# Every tier name of any network, once each, in path order.
ALL_TIERS = tuple(dict.fromkeys(t for tiers in TIERS.values() for t in tiers))


# Device roles that are not switches: their ports are NICs or management ports, not a switch's radix.
APPLIANCE_ROLES = ("server", "ufm", "storage-appliance", "mgmt-server", "pdu")


@dataclass(frozen=True, slots=True)
class Device:
    """A server, switch or appliance. `network` is empty for devices that sit on several networks (servers)."""

    idx: int
    name: str
    role: str  # server | leaf | spine | core | oob | ufm | storage-appliance | mgmt-server | pdu
    model: str
    network: str = ""
    plane: int = 0
    su: int = 0  # 1-based scalable unit, 0 when not in one
    pod: int = 0  # 1-based pod (3-tier fabrics), 0 otherwise
    rack_units: int = 1
    power_kw: float | None = None


class Link(NamedTuple):
    """One logical port-to-port connection. a/b are device indexes; cages name the module cage on each end."""

    id: int
    network: str
    plane: int
    tier: str
    a: int
    a_port: str
    a_cage: str
    b: int
    b_port: str
    b_cage: str
    speed_gbps: int


@dataclass(frozen=True, slots=True)
class Rack:
    idx: int
    id: str  # e.g. "DC1.C07": site, row letters, position
    row: int  # 0-based
    row_name: str
    position: int  # 1-based within the row
    kind: str  # server | network | spine | core | services
    x_m: float  # centre of the rack front along the row
    y_m: float  # row offset from the front of the rack's hall
    hall: int = 0  # 0-based data hall (engine/placement.py); hall 0 holds the main distribution area


class Place(NamedTuple):
    """Where a device stands: its rack and lowest rack unit (1-based)."""

    rack: int
    u: int
