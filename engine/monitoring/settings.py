"""Monitoring settings: operating targets, alert thresholds, windows and exporter names (the spec's `monitoring`).

Targets and their sources (docs/monitoring.md; docs/data-gaps.md, "Monitoring"):

* utilization_average 0.80 and utilization_peak 0.95: the bandwidth seed article (../shared/seeds, German and
  French versions): "link utilization should average 60-80 %, with peaks under 95 % to absorb bursts" (Alibaba's
  monitoring: 73 % average, 92 % peaks). The reference marks that claim unverified (fabrics-qos-traffic.md E,
  confidence L; related: Meta's traffic engineering kept links near 80 %), so both are settings.
* packet_loss_ratio 0.0001: the same article: "even 0.01 % loss can cut effective bandwidth by 10 % through
  retransmissions" and "automatic alerting on packet loss". Alerts fire above it.
* pfc_pause_share 0.05 and ecn_mark_ratio 0.05: DATA GAPS (no source gives a level): the share of time a port
  spent paused by PFC, and the share of received packets that carried ECN-CE marks, above which a port is
  reported congested. Marks are DCQCN working; only a sustained high share is a sign.
* imbalance_hot_factor 1.5 / imbalance_idle_factor 0.5: DATA GAPS: a rail, spine or SU whose average is above
  1.5x / below 0.5x the median of its peers is named as imbalanced (the article: "unbalanced traffic points at a
  poor parallel layout", with no figure).

Prometheus samples counters every scrape interval; a rate over a window averages everything in it. A microburst
lasting microseconds to a millisecond never shows in a 1-minute rate (the article: "microburst detection needs
sub-millisecond sampling"): these rules report sustained load, not bursts. Switch buffer or in-band telemetry
(e.g. a switch's histogram of queue depth) is what sees bursts; the rules do not pretend to.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from ..counters.thresholds import Thresholds, check_overrides, load_thresholds
from ..errors import FieldError, SpecError
from .metrics import parse_metric_map

_DURATION = re.compile(r"^([0-9]+)(ms|s|m|h|d|w)$")
_SECONDS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}

RATIO_TARGETS = ("utilization_average", "utilization_peak", "packet_loss_ratio", "pfc_pause_share", "ecn_mark_ratio")
FACTORS = ("imbalance_hot_factor", "imbalance_idle_factor")
DURATIONS = ("scrape_interval", "rate_window", "average_window", "alert_for", "fec_baseline_window")


# Names the rules used before they shared the counter flags' thresholds; a spec that still has one is told which
# name replaced it rather than only "unknown".
FORMER_THRESHOLDS = {
    "link_down_per_hour": "link_down_increment (any increment: 1)",
    "fec_uncorrectable_per_hour": "fec_uncorrectable_increment (any increment: 1)",
    "link_recovery_per_hour": "flaps_per_hour (recoveries count as flaps)",
    "fec_corrected_min_ber": "fec_corrected_min_per_hour (a count per hour)",
}


def duration_seconds(text: str) -> float:
    m = _DURATION.match(text)
    if not m:
        raise ValueError(text)
    return int(m.group(1)) * _SECONDS[m.group(2)]


@dataclass(frozen=True)
class MonitoringSettings:
    """Everything the rules, the dashboard and the utilization report read (docstring of this module)."""

    utilization_average: float = 0.80
    utilization_peak: float = 0.95
    packet_loss_ratio: float = 0.0001
    pfc_pause_share: float = 0.05
    ecn_mark_ratio: float = 0.05
    imbalance_hot_factor: float = 1.5
    imbalance_idle_factor: float = 0.5
    # Prometheus durations. rate_window should cover at least 4 scrapes (Prometheus' advice for rate()).
    scrape_interval: str = "15s"
    rate_window: str = "1m"
    average_window: str = "1h"
    alert_for: str = "5m"
    fec_baseline_window: str = "7d"
    exporter_port: int = 9100  # node_exporter's registered default port
    port_label: str = "device"  # the exporter label naming the interface
    metrics: Mapping[str, Mapping[str, str | None]] = field(default_factory=lambda: parse_metric_map(None))
    # The per-port error thresholds come from the one source the counter flags read too
    # (engine/counters/data/thresholds.yaml); rules.py says how each becomes a PromQL comparison.
    thresholds: Thresholds = field(default_factory=load_thresholds)

    @classmethod
    def from_dict(cls, data: Any, path: str = "monitoring", base: Thresholds | None = None) -> MonitoringSettings:
        """`base`: the app-wide thresholds (COUNTER_THRESHOLDS_FILE over the data file) that the spec's
        `monitoring.thresholds` override; the data file's when None."""
        base = base or load_thresholds()
        if data is None:
            return cls(thresholds=base)
        if not isinstance(data, Mapping):
            raise SpecError.at(path, "must be a mapping")
        known = {f.name for f in fields(cls)} - {"thresholds"} | {"targets", "thresholds"}
        errors: list[FieldError] = []
        kw: dict[str, Any] = {"thresholds": base}
        for key in data:
            if key not in known or key in RATIO_TARGETS:
                errors.append(FieldError(f"{path}.{key}", f"unknown field; known: {', '.join(sorted(known))}"))
        _read_targets(data.get("targets") or {}, f"{path}.targets", kw, errors)
        _read_scrape_fields(data, path, kw, errors)
        try:
            kw["metrics"] = parse_metric_map(data.get("metrics"), f"{path}.metrics")
        except SpecError as exc:
            errors += exc.errors
        th = data.get("thresholds")
        if th is not None:
            changes, problems = check_overrides(th)
            errors += [
                FieldError(
                    f"{path}.thresholds.{k}" if k else f"{path}.thresholds",
                    f"replaced by {FORMER_THRESHOLDS[k]}" if k in FORMER_THRESHOLDS else message,
                )
                for k, message in problems
            ]
            kw["thresholds"] = replace(base, **changes)
        if not errors:
            s = cls(**kw)
            if duration_seconds(s.rate_window) < 2 * duration_seconds(s.scrape_interval):
                errors.append(FieldError(f"{path}.rate_window", "must span at least two scrape intervals"))
            if duration_seconds(s.average_window) < duration_seconds(s.rate_window):
                errors.append(FieldError(f"{path}.average_window", "must be at least the rate window"))
        if errors:
            raise SpecError(errors)
        return cls(**kw)

    def to_dict(self) -> dict:
        return {
            "targets": {k: getattr(self, k) for k in RATIO_TARGETS + FACTORS},
            **{k: getattr(self, k) for k in DURATIONS},
            "exporter_port": self.exporter_port,
            "port_label": self.port_label,
            "metrics": {t: dict(m) for t, m in self.metrics.items()},
            "thresholds": self.thresholds.to_dict(),
        }


def _read_targets(targets: Any, path: str, kw: dict[str, Any], errors: list[FieldError]) -> None:
    """The utilization ratios and imbalance factors of `monitoring.targets` into `kw` (each bad one an error)."""
    if not isinstance(targets, Mapping):
        errors.append(FieldError(path, "must be a mapping"))
        return
    for key, value in targets.items():
        p = f"{path}.{key}"
        if key in RATIO_TARGETS:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
                errors.append(FieldError(p, "a ratio > 0 and <= 1 (0.8 = 80 %)"))
            else:
                kw[key] = float(value)
        elif key in FACTORS:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0
            if (
                not ok
                or (key == "imbalance_hot_factor" and value <= 1)
                or (key == "imbalance_idle_factor" and value >= 1)
            ):
                errors.append(FieldError(p, "hot factor > 1, idle factor between 0 and 1"))
            else:
                kw[key] = float(value)
        else:
            errors.append(FieldError(p, f"unknown target; known: {', '.join(RATIO_TARGETS + FACTORS)}"))


def _read_scrape_fields(data: Mapping, path: str, kw: dict[str, Any], errors: list[FieldError]) -> None:
    """The Prometheus durations, the exporter's port and its interface label into `kw`."""
    for key in DURATIONS:
        if key in data:
            v = data[key]
            if not isinstance(v, str) or not _DURATION.match(v):
                errors.append(FieldError(f"{path}.{key}", "a Prometheus duration such as 15s, 1m, 1h, 7d"))
            else:
                kw[key] = v
    if "exporter_port" in data:
        v = data["exporter_port"]
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 65535:
            errors.append(FieldError(f"{path}.exporter_port", "a TCP port, 1-65535"))
        else:
            kw["exporter_port"] = v
    if "port_label" in data:
        v = data["port_label"]
        if not isinstance(v, str) or not re.match(r"^[a-zA-Z_][a-zA-Z0-9_]*$", v):
            errors.append(FieldError(f"{path}.port_label", "a Prometheus label name"))
        else:
            kw["port_label"] = v
