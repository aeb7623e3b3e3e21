"""perfquery names a port by its LID; an ibnetdiscover sweep of the same running fabric says whose LID it is.

In ibnetdiscover's output (rdma-core infiniband-diags) a switch's LID is on its header line
(`Switch 8 "S-..." # "<desc>" base port 0 lid <n> lmc 0`; every port of a switch answers at it), a CA port's on
its port line (`[1](<port guid>) "<peer>"[<port>] # lid <n> lmc 0 "<peer desc>" lid <m> ...`).
"""

from __future__ import annotations

import re
from dataclasses import replace

from .model import CounterFile

_SWITCH = re.compile(r'^Switch\s+\d+\s+"[^"]+"\s*#\s*"([^"]*)"\s+base port 0 lid (\d+)')
_CA = re.compile(r'^(?:Ca|Rt)\s+\d+\s+"[^"]+"\s*#\s*"([^"]*)"')
_CA_PORT = re.compile(r'^\[\d+\](?:\([0-9a-fA-F]+\))?\s+"[^"]+"\[\d+\]\s*#\s*lid (\d+)')


def lid_names(ibnetdiscover_text: str) -> dict[int, str]:
    """{LID: node description} of every switch and CA port with a LID (0, unassigned, is left out)."""
    out: dict[int, str] = {}
    ca: str | None = None
    for raw in ibnetdiscover_text.splitlines():
        line = raw.strip()
        m = _SWITCH.match(line)
        if m:
            ca = None
            if int(m.group(2)):
                out[int(m.group(2))] = m.group(1)
            continue
        m = _CA.match(line)
        if m:
            ca = m.group(1)
            continue
        if ca is not None:
            m = _CA_PORT.match(line)
            if m and int(m.group(1)):
                out[int(m.group(1))] = ca
    return out


def resolve_lids(parsed: CounterFile, names: dict[int, str]) -> CounterFile:
    """perfquery's readings with `lid <n>` replaced by the node description ibnetdiscover gave that LID."""
    readings = []
    for r in parsed.readings:
        lid = r.device[4:] if r.device.startswith("lid ") else ""
        desc = names.get(int(lid)) if lid.isdigit() else None
        readings.append(replace(r, device=desc) if desc else r)
    return replace(parsed, readings=tuple(readings))
