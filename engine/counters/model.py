"""One parsed counter file: the readings of the ports it lists, under canonical counter names."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

# Canonical counters, whatever the tool calls them (ib.py and ethernet.py map the tools' names):
COUNTERS = (
    "symbol_errors",  # IB SymbolErrorCounter; Ethernet PCS/FEC symbol errors
    "link_error_recovery",  # IB LinkErrorRecoveryCounter: the link retrained without going down
    "link_downed",  # IB LinkDownedCounter; mlx5 link_down_events_phy
    "carrier_transitions",  # up and down transitions both count (NVUE carrier-transitions, EOS linkStatusChanges)
    "rcv_errors",  # IB PortRcvErrors; Ethernet input errors
    "xmit_discards",  # IB PortXmitDiscards; Ethernet output drops
    "fec_corrected",  # corrected FEC blocks/codewords or bits (the unit depends on the tool)
    "fec_uncorrectable",  # uncorrectable FEC blocks/codewords; bits after FEC
)


@dataclass(frozen=True)
class PortReading:
    """The counters one port reported. `device` is what the tool names the node (an InfiniBand node description
    such as "CF-S01" or "dgx01 mlx5_3", a host or switch name for Ethernet); `port` is the IB port number as
    text or the interface name."""

    device: str
    port: str
    counters: Mapping[str, int]
    guid: str = ""  # IB node GUID as the tool printed it ("0x..."), when it did


@dataclass(frozen=True)
class CounterFile:
    """A parsed file. `implicit_zero`: the tool checked ports it does not list and found them clean
    (ibqueryerrors prints only ports over its thresholds), so an unlisted port reads zero on every counter
    in `reported`."""

    source: str
    readings: tuple[PortReading, ...]
    reported: tuple[str, ...]
    implicit_zero: bool = False
    checked_ports: int | None = None
    notes: tuple[str, ...] = field(default=())
