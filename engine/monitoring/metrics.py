"""Which exporter metric measures what: the default names of node_exporter's `infiniband` and `ethtool` collectors.

Keys are what the rules need per port; each technology maps a key to a metric name, or to None when the default
exporter has no such counter (the rules then leave that check out and say so in the file's header).

Names as node_exporter builds them (prometheus/node_exporter, collector/infiniband_linux.go and
collector/ethtool_linux.go):

* infiniband collector (on by default): `node_infiniband_<name>` with labels `device` (the RDMA device, e.g.
  mlx5_0) and `port` (1, 2): port_data_transmitted_bytes_total / port_data_received_bytes_total (already
  multiplied by 4: the sysfs counters count 32-bit words), port_packets_*_total, port_discards_transmitted_total
  (PortXmitDiscards), port_errors_received_total (PortRcvErrors), link_downed_total (LinkDownedCounter),
  link_error_recovery_total, symbol_error_total (SymbolErrorCounter). It has no FEC, PFC or ECN counter
  (InfiniBand is credit-based: no PFC; congestion shows as port_transmit_wait_total).
* ethtool collector (off by default: run node_exporter with `--collector.ethtool`): `node_ethtool_<stat>` with
  label `device` (the netdev), where <stat> is the driver's `ethtool -S` name lower-cased, with `rx` and `tx`
  words spelled `received` and `transmitted`. The stat names are the mlx5 (ConnectX) driver's physical-port
  counters, which count RoCE traffic too (the netdev's own rx_bytes/tx_bytes do not): rx_bytes_phy,
  rx_packets_phy, rx_discards_phy, link_down_events_phy, rx_corrected_bits_phy (bits FEC corrected),
  rx_symbol_errors_phy (symbols FEC could not correct), rx_prio<P>_pause_duration (microseconds the port was
  paused on priority P), tx_pause_storm_error_events (the NIC's PFC storm watchdog fired), rx_ecn_mark.

rx_ecn_mark counts CE-marked packets that reach the kernel; RoCE packets bypass it (RDMA's own
np_ecn_marked_roce_packets is in the device's hw_counters, which node_exporter does not read). Map `ecn_marked`
to your exporter's RoCE ECN counter where you have one (docs/monitoring.md, "Metric names").
Switch ports (Cumulus, SONiC) run other drivers with other stat names, and InfiniBand switches run no
node_exporter at all: their counters usually come through gNMI or UFM collectors, hence the mapping setting.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import FieldError, SpecError

TECHNOLOGIES = ("infiniband", "ethernet")

# key -> what it counts (for the docs, the API and error messages)
METRIC_KEYS: dict[str, str] = {
    "tx_bytes": "bytes sent by the port (counter)",
    "rx_bytes": "bytes received by the port (counter)",
    "tx_packets": "packets sent (counter)",
    "rx_packets": "packets received (counter)",
    "tx_discards": "packets the port dropped on transmit (counter)",
    "rx_discards": "packets dropped or received with errors (counter)",
    "pfc_pause_us": "microseconds the port was paused by PFC on the lossless priority (counter; `{priority}` "
    "in the name is replaced by that priority)",
    "pfc_storm_events": "PFC storm watchdog events (counter)",
    "ecn_marked": "ECN-CE marked packets received (counter)",
    "link_down": "times the link went down (counter)",
    "link_recovery": "link error recoveries (retrains that kept the link up) (counter)",
    "symbol_errors": "symbol errors FEC could not correct (counter)",
    "fec_uncorrectable": "uncorrectable FEC codewords (counter)",
    "fec_corrected_bits": "bits corrected by FEC (counter)",
}

DEFAULT_METRICS: dict[str, dict[str, str | None]] = {
    "infiniband": {
        "tx_bytes": "node_infiniband_port_data_transmitted_bytes_total",
        "rx_bytes": "node_infiniband_port_data_received_bytes_total",
        "tx_packets": "node_infiniband_port_packets_transmitted_total",
        "rx_packets": "node_infiniband_port_packets_received_total",
        "tx_discards": "node_infiniband_port_discards_transmitted_total",
        "rx_discards": "node_infiniband_port_errors_received_total",
        "pfc_pause_us": None,
        "pfc_storm_events": None,
        "ecn_marked": None,
        "link_down": "node_infiniband_link_downed_total",
        "link_recovery": "node_infiniband_link_error_recovery_total",
        "symbol_errors": "node_infiniband_symbol_error_total",
        "fec_uncorrectable": None,
        "fec_corrected_bits": None,
    },
    "ethernet": {
        "tx_bytes": "node_ethtool_transmitted_bytes_phy",
        "rx_bytes": "node_ethtool_received_bytes_phy",
        "tx_packets": "node_ethtool_transmitted_packets_phy",
        "rx_packets": "node_ethtool_received_packets_phy",
        "tx_discards": "node_ethtool_transmitted_discards_phy",
        "rx_discards": "node_ethtool_received_discards_phy",
        "pfc_pause_us": "node_ethtool_received_prio{priority}_pause_duration",
        "pfc_storm_events": "node_ethtool_transmitted_pause_storm_error_events",
        "ecn_marked": "node_ethtool_received_ecn_mark",
        "link_down": "node_ethtool_link_down_events_phy",
        "link_recovery": None,
        "symbol_errors": "node_ethtool_received_symbol_errors_phy",
        "fec_uncorrectable": None,
        "fec_corrected_bits": "node_ethtool_received_corrected_bits_phy",
    },
}

_NAME_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:{}")


def parse_metric_map(data: Any, path: str = "monitoring.metrics") -> dict[str, dict[str, str | None]]:
    """The default names with `data` ({technology: {key: name or null}}) laid over them."""
    out = {t: dict(names) for t, names in DEFAULT_METRICS.items()}
    if data is None:
        return out
    if not isinstance(data, Mapping):
        raise SpecError.at(path, f"a mapping of technology ({', '.join(TECHNOLOGIES)}) to {{key: metric name}}")
    errors = []
    for tech, names in data.items():
        if tech not in TECHNOLOGIES:
            errors.append(FieldError(f"{path}.{tech}", f"unknown technology; known: {', '.join(TECHNOLOGIES)}"))
            continue
        if not isinstance(names, Mapping):
            errors.append(FieldError(f"{path}.{tech}", "a mapping of key to metric name"))
            continue
        for key, name in names.items():
            p = f"{path}.{tech}.{key}"
            if key not in METRIC_KEYS:
                errors.append(FieldError(p, f"unknown key; known: {', '.join(METRIC_KEYS)}"))
            elif name is None:
                out[tech][key] = None
            elif (
                not isinstance(name, str)
                or not name
                or name[0].isdigit()
                or not set(name) <= _NAME_CHARS
                or name.replace("{priority}", "").count("{") + name.replace("{priority}", "").count("}")
            ):
                errors.append(FieldError(p, "a Prometheus metric name ([a-zA-Z_:][a-zA-Z0-9_:]*; {priority} allowed)"))
            else:
                out[tech][key] = name
    if errors:
        raise SpecError(errors)
    return out
