"""Port error counters after commissioning: parse what the tools print, keep the first reading of every port
as its baseline, turn later readings into deltas per hour (a counter that went down was reset, not negative),
flag the links that degrade, and group the flagged links by the physical component they share.

    model.py       PortReading / CounterFile: one parsed file, counters under canonical names (COUNTERS)
    ib.py          ibqueryerrors and perfquery (infiniband-diags)
    lids.py        perfquery's LIDs named by an ibnetdiscover sweep of the running fabric
    ethernet.py    ethtool -S (mlx5, bnxt_en), NVUE, Arista EOS and SONiC JSON
    formats.py     the formats by name, one parse entry point
    thresholds.py  the flag thresholds (data/thresholds.yaml, shared with the monitoring rules)
    drift.py       baseline, deltas per hour, resets, flags per port and per link
    suspects.py    flagged links grouped by trunk, panel, transceiver part, rack and measured loss
"""

from .drift import EndDrift, Interval, LinkDrift, drift_of_port, flags_of_link
from .formats import FORMATS, CounterParseError, parse_counters
from .model import COUNTERS, CounterFile, PortReading
from .suspects import CHECKLIST, LinkFacts, SuspectGroup, suspects
from .thresholds import Thresholds, load_thresholds

__all__ = [
    "CHECKLIST",
    "COUNTERS",
    "FORMATS",
    "CounterFile",
    "CounterParseError",
    "EndDrift",
    "Interval",
    "LinkDrift",
    "LinkFacts",
    "PortReading",
    "SuspectGroup",
    "Thresholds",
    "drift_of_port",
    "flags_of_link",
    "load_thresholds",
    "parse_counters",
    "suspects",
]
