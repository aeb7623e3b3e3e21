"""The counter formats by name: one entry point for the web form, the API and the CLI."""

from __future__ import annotations

from collections.abc import Callable

from .errors import CounterParseError
from .ethernet import parse_eos, parse_ethtool, parse_nvue, parse_sonic
from .ib import parse_ibqueryerrors, parse_perfquery
from .model import CounterFile

FORMATS: dict[str, str] = {
    "ibqueryerrors": "InfiniBand: ibqueryerrors output (infiniband-diags), all ports of a fabric",
    "perfquery": "InfiniBand: perfquery output (ports named by LID)",
    "ethtool": "Host NIC: ethtool -S <netdev> (give the device and the interface)",
    "nvue": "NVIDIA Cumulus / NVUE JSON: nv show interface ... -o json (give the device)",
    "eos": "Arista EOS JSON: show interfaces counters errors | json, show interfaces | json (give the device)",
    "sonic": "SONiC JSON: show interfaces counters [fec-stats] -j (give the device)",
}
NEEDS_DEVICE = frozenset(("ethtool", "nvue", "eos", "sonic"))

_PARSERS: dict[str, Callable[..., CounterFile]] = {
    "ethtool": parse_ethtool,
    "nvue": parse_nvue,
    "eos": parse_eos,
    "sonic": parse_sonic,
}

__all__ = ["FORMATS", "NEEDS_DEVICE", "CounterParseError", "parse_counters"]


def parse_counters(text: str, fmt: str, *, device: str | None = None, interface: str | None = None) -> CounterFile:
    """Parse one file in format `fmt` (a FORMATS key); CounterParseError says why a file cannot be read."""
    if fmt == "ibqueryerrors":
        return parse_ibqueryerrors(text)
    if fmt == "perfquery":
        return parse_perfquery(text)
    parser = _PARSERS.get(fmt)
    if parser is None:
        raise CounterParseError(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")
    return parser(text, device=device, interface=interface)
