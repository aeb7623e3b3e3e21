"""Ethernet port counters: `ethtool -S` of a host NIC, and the JSON that NVUE, Arista EOS and SONiC print.

None of these names the device it ran on, so the caller gives it (and, for one interface's output, the
interface). Sources of the counter names:

* ethtool -S, mlx5 (ConnectX): Linux kernel documentation, "mlx5 counters"
  (docs.kernel.org/networking/device_drivers/ethernet/mellanox/mlx5/counters.html): rx_pcs_symbol_err_phy
  (symbol errors FEC did not correct), rx_corrected_bits_phy (bits corrected by FEC), link_down_events_phy,
  rx_crc_errors_phy, tx_discards_phy. bnxt_en (Broadcom) prints rx_fec_corrected_blocks,
  rx_fec_uncorrectable_blocks and rx_pcs_symbol_err.
* NVUE (Cumulus Linux 5.x user guide, "Monitoring Interfaces and Transceivers with NVUE"):
  `nv show interface <if> link stats` (carrier-transitions, in-errors, out-drops) and
  `nv show interface <if> link phy-detail` (symbol-errors; effective-errors = errors left after FEC;
  phy-raw-errors-lane<n> = errors before FEC, read as corrected FEC: all but effective-errors were corrected),
  each with `-o json`, or `nv show interface -o json` for all interfaces.
* Arista EOS: `show interfaces counters errors | json` (interfaceErrorCounters: symbolErrors, fcsErrors,
  inErrors, outErrors) and `show interfaces | json` (interfaceCounters.linkStatusChanges, totalInErrors,
  outDiscards). EOS FEC codeword counters (`show interfaces phy detail`) are not read: no documented JSON
  example was at hand (docs/data-gaps.md).
* SONiC (sonic-utilities Command Reference, "show interfaces counters"): `show interfaces counters -j` and
  `show interfaces counters fec-stats -j` print {iface: {column: value}} with the table's columns and its
  formatted values ("18,682"; "N/A" where the platform has no counter).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..inputgate import UPLOAD_MAX_NODES, InputRefused, load_json
from .errors import CounterParseError
from .model import CounterFile, PortReading

ETHTOOL_NAMES = {
    "rx_pcs_symbol_err_phy": "symbol_errors",
    "rx_pcs_symbol_err": "symbol_errors",
    "rx_corrected_bits_phy": "fec_corrected",
    "rx_fec_corrected_blocks": "fec_corrected",
    "rx_fec_uncorrectable_blocks": "fec_uncorrectable",
    "link_down_events_phy": "link_downed",
    "rx_crc_errors_phy": "rcv_errors",
    "tx_discards_phy": "xmit_discards",
}
NVUE_NAMES = {
    "symbol-errors": "symbol_errors",
    "effective-errors": "fec_uncorrectable",
    "carrier-transitions": "carrier_transitions",
    "in-errors": "rcv_errors",
    "out-drops": "xmit_discards",
}
_NVUE_RAW_LANE = re.compile(r"^phy-raw-errors-lane\d+$")
EOS_NAMES = {
    "symbolErrors": "symbol_errors",
    "inErrors": "rcv_errors",
    "totalInErrors": "rcv_errors",
    "linkStatusChanges": "carrier_transitions",
    "outDiscards": "xmit_discards",
}
SONIC_NAMES = {
    "FEC_CORR": "fec_corrected",
    "FEC_UNCORR": "fec_uncorrectable",
    "FEC_SYMBOL_ERR": "symbol_errors",
    "RX_ERR": "rcv_errors",
    "TX_DRP": "xmit_discards",
}
_ETHTOOL_LINE = re.compile(r"^\s*([A-Za-z0-9_.\[\]-]+):\s*(\d+)\s*$")


def _need(value: str | None, what: str) -> str:
    if not value:
        raise CounterParseError(f"{what} is required for this format (the output does not name it)")
    return value


def _int(value, where: str) -> int | None:
    """A counter value as the tools print it: an int, or text with thousands separators; None for N/A."""
    if isinstance(value, bool):
        raise CounterParseError(f"{where}: expected a number, got {value!r}")
    if isinstance(value, int):
        if value < 0:
            raise CounterParseError(f"{where}: a counter cannot be negative ({value})")
        return value
    if isinstance(value, str):
        text = value.replace(",", "").strip()
        if text.upper() in ("N/A", "NA", ""):
            return None
        if text.isdigit():
            return int(text)
    raise CounterParseError(f"{where}: expected a counter value, got {value!r}")


def parse_ethtool(text: str, *, device: str | None, interface: str | None) -> CounterFile:
    dev, ifname = _need(device, "the device"), _need(interface, "the interface")
    counters: dict[str, int] = {}
    seen = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip() or raw.strip().endswith("statistics:"):
            continue
        m = _ETHTOOL_LINE.match(raw)
        if m is None:
            raise CounterParseError(f"not an ethtool -S line: {raw.strip()[:80]!r}", number)
        seen += 1
        key = ETHTOOL_NAMES.get(m.group(1))
        if key is not None:
            counters[key] = counters.get(key, 0) + int(m.group(2))
    if not seen:
        raise CounterParseError("no 'name: value' lines: not ethtool -S output")
    return CounterFile("ethtool", (PortReading(dev, ifname, counters),), tuple(sorted(counters)))


def _load_json(text: str):
    try:
        return load_json(text, max_chars=len(text), max_nodes=UPLOAD_MAX_NODES)  # size bounded at the upload
    except InputRefused as exc:
        raise CounterParseError(exc.message, exc.line) from None


def _mapping(value, where: str) -> Mapping:
    if not isinstance(value, Mapping):
        raise CounterParseError(f"{where}: expected a JSON object")
    return value


def _nvue_counters(obj: Mapping, where: str) -> dict[str, int]:
    """One interface's counters from whichever NVUE object was saved: the interface (link.stats and
    link.phy-detail inside), its `link`, or the `stats` / `phy-detail` object itself."""
    flat: dict = {}
    inner = obj.get("link")
    link: Mapping = inner if isinstance(inner, Mapping) else obj
    for part in (link.get("stats"), link.get("phy-detail"), obj):
        if isinstance(part, Mapping):
            flat.update({k: v for k, v in part.items() if not isinstance(v, Mapping)})
    counters: dict[str, int] = {}
    raw_errors = 0
    lanes = False
    for key, value in flat.items():
        name = NVUE_NAMES.get(key)
        if name is not None:
            n = _int(value, f"{where}.{key}")
            if n is not None:
                counters[name] = n
        elif _NVUE_RAW_LANE.match(key):
            n = _int(value, f"{where}.{key}")
            raw_errors += n or 0
            lanes = True
    if lanes:
        # Raw errors are counted before FEC: what FEC had to correct, plus the few it could not (effective-errors).
        # Kept as counted, not less effective-errors: a difference of two counters is no counter (it could drop).
        counters["fec_corrected"] = raw_errors
    return counters


def parse_nvue(text: str, *, device: str | None, interface: str | None) -> CounterFile:
    dev = _need(device, "the device")
    data = _mapping(_load_json(text), "the file")
    single = any(k in data for k in ("link", "stats", "phy-detail")) or any(
        k in NVUE_NAMES or _NVUE_RAW_LANE.match(k) for k in data
    )
    if single:
        items = [(_need(interface, "the interface"), data)]
    else:
        items = [(name, _mapping(v, name)) for name, v in data.items()]
    readings = []
    for name, obj in items:
        counters = _nvue_counters(obj, name)
        if counters:
            readings.append(PortReading(dev, name, counters))
    if not readings:
        raise CounterParseError("no NVUE interface counters found (link stats or phy-detail)")
    return CounterFile("nvue", tuple(readings), tuple(sorted({k for r in readings for k in r.counters})))


# `interface` is part of every parser's signature (formats._PARSERS); EOS and SONiC files name their interfaces themselves.
def parse_eos(text: str, *, device: str | None, interface: str | None = None) -> CounterFile:  # noqa: ARG001
    dev = _need(device, "the device")
    data = _mapping(_load_json(text), "the file")
    per: dict[str, dict[str, int]] = {}
    errors = data.get("interfaceErrorCounters")
    if isinstance(errors, Mapping):
        for name, obj in errors.items():
            for key, value in _mapping(obj, name).items():
                canonical = EOS_NAMES.get(key)
                n = _int(value, f"{name}.{key}") if canonical else None
                if canonical and n is not None:
                    per.setdefault(name, {})[canonical] = n
    interfaces = data.get("interfaces")
    if isinstance(interfaces, Mapping):
        for name, obj in interfaces.items():
            counters = _mapping(obj, name).get("interfaceCounters")
            if not isinstance(counters, Mapping):
                continue
            detail = counters.get("inputErrorsDetail")
            for key, value in list(counters.items()) + list(detail.items() if isinstance(detail, Mapping) else []):
                canonical = EOS_NAMES.get(key)
                if canonical is None or isinstance(value, Mapping):
                    continue
                n = _int(value, f"{name}.{key}")
                if n is not None:
                    per.setdefault(name, {})[canonical] = n
    if not per:
        raise CounterParseError("no EOS counters found (interfaceErrorCounters or interfaces.*.interfaceCounters)")
    readings = tuple(PortReading(dev, name, c) for name, c in per.items())
    return CounterFile("eos", readings, tuple(sorted({k for r in readings for k in r.counters})))


def parse_sonic(text: str, *, device: str | None, interface: str | None = None) -> CounterFile:  # noqa: ARG001
    dev = _need(device, "the device")
    data = _mapping(_load_json(text), "the file")
    readings = []
    for name, obj in data.items():
        counters: dict[str, int] = {}
        for key, value in _mapping(obj, name).items():
            canonical = SONIC_NAMES.get(key)
            if canonical is None:
                continue
            n = _int(value, f"{name}.{key}")
            if n is not None:
                counters[canonical] = n
        if counters:
            readings.append(PortReading(dev, name, counters))
    if not readings:
        raise CounterParseError("no SONiC counter columns found (FEC_CORR, FEC_UNCORR, FEC_SYMBOL_ERR, RX_ERR)")
    return CounterFile("sonic", tuple(readings), tuple(sorted({k for r in readings for k in r.counters})))
