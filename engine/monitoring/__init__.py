"""Monitoring of a designed fabric: Prometheus rules, scrape targets and a Grafana dashboard generated from the
computed design, and utilization snapshots measured against the plan (docs/monitoring.md).

Framework-free like the rest of the engine: functions take a DesignResult (and MonitoringSettings, read from
the spec's `monitoring` section) and yield text or plain data.
"""

from __future__ import annotations

from .settings import MonitoringSettings

__all__ = ["MonitoringSettings"]
