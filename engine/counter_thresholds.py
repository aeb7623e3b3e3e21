"""Link-health thresholds on port error counters: the one place both readers of counters take them from.

Shared by the monitoring rules (engine/monitoring: Prometheus alerts on live counters) and the commissioning
counter baselines (issue 29: snapshots from ibqueryerrors / perfquery / ethtool -S compared over time), so an
alert in Prometheus and a flag on the revision page mean the same thing.

Every threshold is a count per hour of one port (or a ratio), compared with `>`: a value equal to the
threshold is quiet. The reference (fabrics-qos-traffic.md, optics-and-cabling.md) gives no per-port error
figure; what it gives is fleet-wide (Alibaba HPN: 5K-60K link flaps per day over a whole cloud, B.2), which
says flaps are routine at scale, not how many one link may have. So each default below is either the rule the
issues state ("any increment") or a documented, user-settable default listed in docs/data-gaps.md
("Link-health thresholds"). Override them in the spec's `monitoring.thresholds` section.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from .errors import FieldError, SpecError


@dataclass(frozen=True)
class CounterThresholds:
    """Per-port error thresholds (a count per hour unless the name says otherwise; `>` fires).

    link_down_per_hour        LinkDownedCounter (IB) / link_down_events_phy (mlx5 Ethernet) increments in one
                              hour above which a link is "flapping". Default 0: any link-down is flagged (issue
                              29's rule: "any ... link-down increment"). Raise it where flaps are routine.
    link_recovery_per_hour    LinkErrorRecoveryCounter (IB) increments per hour. Default 0 (any; same rule): a
                              recovery is a retrain that did not drop the link. Data gap: no published rate.
    symbol_errors_per_hour    SymbolErrorCounter (IB) / rx_symbol_errors_phy (mlx5: symbols FEC could not
                              correct) per hour. Default 0: with FEC on every NDR/XDR and 400G+ Ethernet link,
                              a symbol FEC could not repair is a lost packet (data gap: no published rate).
    fec_uncorrectable_per_hour  Uncorrectable FEC codewords per hour where the exporter reports them apart from
                              symbol errors. Default 0 (issue 29: "any uncorrectable-FEC ... increment").
    fec_corrected_rise_factor Corrected-FEC rate over the last hour against the port's own baseline (its rate
                              over `fec_baseline_window` in Prometheus; its first snapshot in commissioning) above
                              which the count is "rising". Default 10 (DATA GAP: no source; corrected errors are
                              normal on PAM4 links, only a rise is a sign, per the GPU-networking seed article).
    fec_corrected_min_ber     Floor under the rise rule: a corrected-bit rate / line rate (pre-FEC bit error
                              ratio) below this is never "rising", so a clean port with a zero baseline does not
                              fire on its first corrected bit. Default 1e-9 (DATA GAP: no source).
    """

    link_down_per_hour: float = 0
    link_recovery_per_hour: float = 0
    symbol_errors_per_hour: float = 0
    fec_uncorrectable_per_hour: float = 0
    fec_corrected_rise_factor: float = 10.0
    fec_corrected_min_ber: float = 1e-9

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any] | None, path: str = "monitoring.thresholds") -> CounterThresholds:
        """Defaults with the keys of `data` replaced; SpecError naming the path of every bad key or value."""
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise SpecError.at(path, "must be a mapping")
        known = {f.name for f in fields(cls)}
        errors = []
        values: dict[str, float] = {}
        for key, value in data.items():
            if key not in known:
                continue  # other thresholds of the same section belong to the caller (e.g. utilization targets)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                errors.append(FieldError(f"{path}.{key}", "must be a number >= 0"))
            else:
                values[key] = float(value)
        if "fec_corrected_rise_factor" in values and values["fec_corrected_rise_factor"] < 1:
            errors.append(FieldError(f"{path}.fec_corrected_rise_factor", "must be >= 1 (a rise)"))
        if errors:
            raise SpecError(errors)
        return replace(cls(), **values)

    def to_dict(self) -> dict[str, float]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


COUNTER_THRESHOLD_KEYS = tuple(f.name for f in fields(CounterThresholds))
