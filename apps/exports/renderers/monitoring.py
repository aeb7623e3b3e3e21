"""Monitoring files of a design: Prometheus rules, the scrape targets that give every series its design labels,
and a Grafana dashboard. The engine builds them (engine/monitoring); this module only names the deliverables."""

from __future__ import annotations

from collections.abc import Iterator

from engine.monitoring.dashboard import iter_dashboard_json
from engine.monitoring.rules import iter_rules_yaml, iter_targets_json

from ._view import DesignView


def _result(result):
    return result.result if isinstance(result, DesignView) else result


def iter_monitoring_rules(result) -> Iterator[str]:
    """prometheus-rules.yaml: recording and alerting rules (`promtool check rules` accepts it)."""
    return iter_rules_yaml(_result(result))


def iter_prometheus_targets(result) -> Iterator[str]:
    """prometheus-targets.json: file_sd target groups, one per server and switch, with their design labels."""
    return iter_targets_json(_result(result))


def iter_grafana_dashboard(result) -> Iterator[str]:
    """grafana-dashboard.json: utilization per tier, rail x spine, per SU and rail; link health."""
    return iter_dashboard_json(_result(result))
