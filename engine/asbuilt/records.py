"""Plain records of the as-built comparison: what the plan says (PlannedLink, PlannedCable) and what a tool
reported (ObservedEnd, ObservedLink, Observation). Parsers make the observed ones; engine.asbuilt.plan makes
the planned ones from a computed design, and the Django side from a revision's stored rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class PlannedLink:
    """One link of the plan, by the names the plan writes (device names, design port names such as `OSFP1P1`,
    `17/2`), with where each end stands and the cables that make it (cord, or cord-trunk-cord)."""

    link_id: str  # "L000001"
    network: str
    speed_gbps: int
    a_device: str
    a_port: str
    b_device: str
    b_port: str
    a_rack: str = ""
    a_u: int | None = None
    b_rack: str = ""
    b_u: int | None = None
    cables: tuple[str, ...] = ()  # "C000001", in path order from end a
    tier: str = ""
    lanes: int = 0  # electrical lanes at the planned speed (400G over 100G lanes = 4); 0 = not known
    technology: str = ""  # infiniband | ethernet: which tools can see the link


@dataclass(frozen=True, slots=True)
class PlannedCable:
    """A cable's labels and ends (cables.csv), for the fix list."""

    cable_id: str
    label_a: str
    label_b: str
    a_device: str
    a_port: str
    b_device: str
    b_port: str


@dataclass(frozen=True, slots=True)
class ObservedEnd:
    """One end as a tool reported it.

    `device` is what names the node: a host name or LLDP system name (maybe fully qualified), or an InfiniBand
    node description ("dgx-01 mlx5_3", "MF0;leaf-1:MQM9700/U1"). `port` is the interface name (`swp1s0`,
    `Ethernet1/5`, `ibp24s0`) or the IB port number. `guid` is the IB port GUID when the tool printed it
    ("0x" + lower-case hex, no padding)."""

    device: str
    port: str
    guid: str = ""


@dataclass(frozen=True, slots=True)
class ObservedLink:
    """A connection a tool saw between two ends, with its active width and per-lane data rate when reported
    (InfiniBand: 4 lanes at 100 Gb/s for NDR) or its total speed (Ethernet, Gb/s)."""

    a: ObservedEnd
    b: ObservedEnd
    width: int | None = None  # lanes
    lane_gbps: float | None = None  # data rate per lane
    speed_gbps: float | None = None  # total, when the tool gives only that

    @property
    def total_gbps(self) -> float | None:
        if self.width and self.lane_gbps:
            return self.width * self.lane_gbps
        return self.speed_gbps


@dataclass(frozen=True)
class Observation:
    """What one file reported: its links, and the devices whose ports it covers (an LLDP dump covers the
    devices that ran lldpd; an ibnetdiscover sweep every node it reached). A later observation replaces
    what an earlier one said about the devices it covers (engine.asbuilt.classify.accumulate)."""

    source: str  # the format: ibnetdiscover | iblinkinfo | lldpctl | nvue | eos | csv
    links: tuple[ObservedLink, ...]
    devices: frozenset[str] = field(default_factory=frozenset)  # as reported (resolved by the matcher)

    def width_only(self) -> Observation:
        """The same links with their rates dropped, so they are judged by width alone (a simulator such as
        ibsim runs every lane at SDR whatever the fabric is)."""
        links = tuple(ObservedLink(lk.a, lk.b, lk.width) for lk in self.links)
        return Observation(self.source, links, self.devices)

    @property
    def technology(self) -> str:
        """The links the file can speak for: an InfiniBand sweep says nothing of a host's Ethernet ports, nor
        LLDP of its HCAs; a CSV may hold anything ("")."""
        if self.source in ("ibnetdiscover", "iblinkinfo"):
            return "infiniband"
        if self.source in ("lldpctl", "nvue", "eos"):
            return "ethernet"
        return ""
