"""InfiniBand port counters as infiniband-diags prints them (rdma-core 44, Debian's infiniband-diags).

ibqueryerrors walks the fabric and prints only the ports whose counters pass its thresholds (none set: any
non-zero error counter), one `GUID 0x<node> port <n>: [Name == value] ...` line under an
`Errors for 0x<node guid> "<node description>"` header, then `## Summary: ... <n> ports checked`. A switch's
`port ALL` line is the sum over its ports and is skipped. Ports it checked and did not print read zero
(CounterFile.implicit_zero); `## Thresholds:` names any threshold file values, which would make an unlisted
port "under threshold" rather than clean (kept as a note).

perfquery prints one block per query: `# Port counters: Lid <lid> port <n> (CapMask: ...)`, then
`Name:.....value` lines; `-x` (extended) and `-T` (extended speeds, with the per-lane and RS-FEC block
counters) print blocks of the same shape. perfquery names the port by LID, so its readings' device is
`lid <n>`; a LID is resolved to a node by the discovery that found it.
"""

from __future__ import annotations

import re

from .errors import CounterParseError
from .model import CounterFile, PortReading

# The PortCounters / PortExtendedSpeedsCounters attribute names (IBA vol. 1, 16.1.3.5 and 16.1.4.9) the
# tools print, by canonical counter. Per-lane FEC counters add up to the port's.
IB_NAMES = {
    "SymbolErrorCounter": "symbol_errors",
    "LinkErrorRecoveryCounter": "link_error_recovery",
    "LinkDownedCounter": "link_downed",
    "PortRcvErrors": "rcv_errors",
    "PortXmitDiscards": "xmit_discards",
    "PortFECCorrectableBlockCtr": "fec_corrected",
    "PortFECUncorrectableBlockCtr": "fec_uncorrectable",
}
_LANE_NAMES = (
    (re.compile(r"^FECCorrectableBlockCtrLane\d+$"), "fec_corrected"),
    (re.compile(r"^FECUncorrectableBlockCtrLane\d+$"), "fec_uncorrectable"),
)
IBQUERYERRORS_REPORTS = ("symbol_errors", "link_error_recovery", "link_downed", "rcv_errors", "xmit_discards")

_ERRORS_FOR = re.compile(r'^Errors for\s+(0x[0-9a-fA-F]+)\s+"(.*)"\s*$')
_PORT_LINE = re.compile(r"^GUID\s+(0x[0-9a-fA-F]+)\s+port\s+(\w+):\s*(.*)$")
_COUNTER = re.compile(r"\[(\w+)\s*==\s*(\d+)")
_CHECKED = re.compile(r"(\d+)\s+ports checked")
_THRESHOLDS = re.compile(r"^##\s*Thresholds:\s*(.*)$")
_PERF_HEADER = re.compile(r"^#\s*Port .*counters:\s*Lid\s+(\d+)\s+port\s+(\d+)", re.IGNORECASE)
_PERF_LINE = re.compile(r"^(\w+):\.*\s*(0x[0-9a-fA-F]+|\d+)\s*$")


def _canonical(name: str) -> str | None:
    known = IB_NAMES.get(name)
    if known is not None:
        return known
    for pattern, canonical in _LANE_NAMES:
        if pattern.match(name):
            return canonical
    return None


def parse_ibqueryerrors(text: str) -> CounterFile:
    readings: list[PortReading] = []
    node: tuple[str, str] | None = None
    checked: int | None = None
    notes: list[str] = []
    saw_summary = False
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("ibwarn:"):
            continue
        m = _ERRORS_FOR.match(line)
        if m:
            node = (m.group(1), m.group(2))
            continue
        m = _PORT_LINE.match(line)
        if m:
            if node is None:
                raise CounterParseError("a port line before any 'Errors for' node header", number)
            if m.group(2).upper() == "ALL":
                continue
            if not m.group(2).isdigit():
                raise CounterParseError(f"port {m.group(2)!r} is not a port number", number)
            counters: dict[str, int] = {}
            for name, value in _COUNTER.findall(m.group(3)):
                key = _canonical(name)
                if key is not None:
                    counters[key] = counters.get(key, 0) + int(value)
            readings.append(PortReading(node[1], m.group(2), counters, guid=m.group(1).lower()))
            continue
        if line.startswith("##"):
            saw_summary = True
            m2 = _CHECKED.search(line)
            if m2:
                checked = int(m2.group(1))
            m3 = _THRESHOLDS.match(line)
            if m3 and m3.group(1).strip():
                notes.append(f"ibqueryerrors thresholds in use: {m3.group(1).strip()}")
    if not saw_summary:
        raise CounterParseError("no '## Summary' line: not ibqueryerrors output (or cut short)")
    return CounterFile(
        "ibqueryerrors",
        tuple(readings),
        IBQUERYERRORS_REPORTS,
        implicit_zero=True,
        checked_ports=checked,
        notes=tuple(notes),
    )


def parse_perfquery(text: str) -> CounterFile:
    blocks: dict[tuple[str, str], dict[str, int]] = {}
    current: dict[str, int] | None = None
    reported: set[str] = set()
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("ibwarn:"):
            continue
        m = _PERF_HEADER.match(line)
        if m:
            current = blocks.setdefault((f"lid {m.group(1)}", m.group(2)), {})
            continue
        if line.startswith("#"):
            continue
        m = _PERF_LINE.match(line)
        if m is None:
            continue
        if current is None:
            raise CounterParseError("a counter line before any '# Port counters: Lid N port N' header", number)
        key = _canonical(m.group(1))
        if key is None or m.group(2).startswith("0x"):
            continue
        current[key] = current.get(key, 0) + int(m.group(2))
        reported.add(key)
    if not blocks:
        raise CounterParseError("no '# Port counters: Lid N port N' block: not perfquery output")
    # Port 0 is a switch's management port (never cabled) and 255 is AllPortSelect, the sum of a switch's ports.
    readings = tuple(PortReading(dev, port, c) for (dev, port), c in blocks.items() if port not in ("0", "255"))
    return CounterFile("perfquery", readings, tuple(sorted(reported)))
