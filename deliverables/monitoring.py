"""Monitoring files of a design: Prometheus rules, the scrape targets that give every series its design labels,
and a Grafana dashboard. The engine builds them (engine/monitoring); this module only names the deliverables."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from engine.counters.thresholds import load_thresholds
from engine.monitoring.dashboard import iter_dashboard_json
from engine.monitoring.rules import iter_rules_yaml, iter_targets_json
from engine.monitoring.settings import MonitoringSettings
from engine.result import DesignResult

from ._view import DesignView


def _result(result: DesignResult | DesignView) -> DesignResult:
    return result.result if isinstance(result, DesignView) else result


def monitoring_settings(
    result: DesignResult, counter_thresholds: Mapping[str, Any] | None = None
) -> MonitoringSettings:
    """The spec's `monitoring` over the app-wide error-counter thresholds (`counter_thresholds`: the
    installation's COUNTER_THRESHOLDS_FILE, which the caller reads from settings, over the data file), so the
    alerts fire where the counter flags of the same installation do. Renderers take no Django import."""
    base = load_thresholds().with_overrides(counter_thresholds, "COUNTER_THRESHOLDS_FILE")
    return MonitoringSettings.from_dict(getattr(result.spec, "monitoring", None), base=base)


def iter_monitoring_rules(
    result: DesignResult | DesignView, counter_thresholds: Mapping[str, Any] | None = None
) -> Iterator[str]:
    """prometheus-rules.yaml: recording and alerting rules (`promtool check rules` accepts it)."""
    r = _result(result)
    return iter_rules_yaml(r, monitoring_settings(r, counter_thresholds))


def iter_prometheus_targets(result: DesignResult | DesignView) -> Iterator[str]:
    """prometheus-targets.json: file_sd target groups, one per server and switch, with their design labels."""
    return iter_targets_json(_result(result))


def iter_grafana_dashboard(result: DesignResult | DesignView) -> Iterator[str]:
    """grafana-dashboard.json: utilization per tier, rail x spine, per SU and rail; link health."""
    return iter_dashboard_json(_result(result))
