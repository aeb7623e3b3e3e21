"""A Grafana dashboard for one design, built on the recording rules (engine/monitoring/rules.py).

Panels: utilization per tier (average and busiest link) against the targets, the rail x spine matrix of the
leaf-spine links, utilization per SU and per rail, and the health checks (loss, PFC, ECN, flaps, symbol errors,
FEC). Every query reads a `fabric:` recorded series, so the dashboard stays fast on a large fabric and shows
exactly what the alerts judge. Template variables filter by network, plane, tier and direction.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from .rules import record_names
from .settings import MonitoringSettings

_F = 'network=~"$network", plane=~"$plane", direction=~"$direction"'


def _thresholds(s: MonitoringSettings) -> dict:
    return {
        "mode": "absolute",
        "steps": [
            {"color": "green", "value": None},
            {"color": "yellow", "value": s.utilization_average},
            {"color": "red", "value": s.utilization_peak},
        ],
    }


def _panel(pid: int, title: str, kind: str, exprs: list[tuple[str, str]], grid: tuple, s: Any, **extra: Any) -> dict:
    x, y, w, h = grid
    p = {
        "id": pid,
        "type": kind,
        "title": title,
        "datasource": {"type": "prometheus", "uid": "${datasource}"},
        "gridPos": {"x": x, "y": y, "w": w, "h": h},
        "targets": [
            {
                "refId": chr(65 + i),
                "expr": e,
                "legendFormat": legend,
                "datasource": {"type": "prometheus", "uid": "${datasource}"},
            }
            for i, (e, legend) in enumerate(exprs)
        ],
        "fieldConfig": {"defaults": {"unit": "percentunit", "min": 0, "thresholds": _thresholds(s)}, "overrides": []},
    }
    p.update(extra)
    return p


def dashboard(result: Any, settings: MonitoringSettings | None = None) -> dict:
    s = settings or MonitoringSettings.from_dict(getattr(result.spec, "monitoring", None))
    rec = record_names(s)
    tier = 'tier=~"$tier"'
    panels = [
        {"id": 1, "type": "row", "title": "Utilization against the plan", "gridPos": {"x": 0, "y": 0, "w": 24, "h": 1}},
        _panel(
            2,
            f"Average utilization per tier (target {s.utilization_average:.0%})",
            "timeseries",
            [(f"fabric:tier_utilization:avg{{{_F}, {tier}}}", "{{network}} {{tier}} p{{plane}} {{direction}}")],
            (0, 1, 12, 8),
            s,
            options={"tooltip": {"mode": "multi"}},
        ),
        _panel(
            3,
            f"Busiest link per tier (peak target {s.utilization_peak:.0%})",
            "timeseries",
            [(f"fabric:tier_utilization:max{{{_F}, {tier}}}", "{{network}} {{tier}} p{{plane}} {{direction}}")],
            (12, 1, 12, 8),
            s,
        ),
        _panel(
            4,
            "Rail x spine: leaf-spine links, average (rows rail, columns spine)",
            "table",
            [(f"avg by (rail, spine) (fabric:rail_spine_utilization:avg{{{_F}}})", "")],
            (0, 9, 24, 10),
            s,
            transformations=[
                {
                    "id": "groupingToMatrix",
                    "options": {"columnField": "spine", "rowField": "rail", "valueField": "Value"},
                }
            ],
            options={"cellHeight": "sm"},
        ),
        _panel(
            5,
            "Per SU: average utilization",
            "bargauge",
            [(f"avg by (su) (fabric:su_utilization:avg{{{_F}, {tier}}})", "SU {{su}}")],
            (0, 19, 12, 8),
            s,
        ),
        _panel(
            6,
            "Per SU: busiest link",
            "bargauge",
            [(f"max by (su) (fabric:su_utilization:max{{{_F}, {tier}}})", "SU {{su}}")],
            (12, 19, 12, 8),
            s,
        ),
        _panel(
            7,
            "Per rail: average utilization",
            "bargauge",
            [(f"avg by (rail) (fabric:rail_utilization:avg{{{_F}, {tier}}})", "rail {{rail}}")],
            (0, 27, 12, 8),
            s,
        ),
        _panel(
            8,
            "Per SU over time",
            "timeseries",
            [(f"avg by (su) (fabric:su_utilization:avg{{{_F}, {tier}}})", "SU {{su}}")],
            (12, 27, 12, 8),
            s,
        ),
        {"id": 9, "type": "row", "title": "Link health", "gridPos": {"x": 0, "y": 35, "w": 24, "h": 1}},
        _panel(
            10,
            f"Packet loss, worst 10 ports (alert above {s.packet_loss_ratio:.2%})",
            "timeseries",
            [(f'topk(10, {rec["loss"]}{{network=~"$network"}})', "{{fabric_device}} {{device}}")],
            (0, 36, 12, 8),
            s,
        ),
        _panel(
            11,
            f"PFC pause share, worst 10 ports (alert above {s.pfc_pause_share:.0%})",
            "timeseries",
            [(f'topk(10, {rec["pfc_pause"]}{{network=~"$network"}})', "{{fabric_device}} {{device}}")],
            (12, 36, 12, 8),
            s,
        ),
        _panel(
            12,
            f"ECN-marked share, worst 10 ports (alert above {s.ecn_mark_ratio:.0%})",
            "timeseries",
            [(f'topk(10, {rec["ecn"]}{{network=~"$network"}})', "{{fabric_device}} {{device}}")],
            (0, 44, 12, 8),
            s,
        ),
        _panel(
            13,
            "Link downs, symbol errors and PFC storms in the last hour (non-zero ports)",
            "table",
            [
                (f'{rec["link_down"]}{{network=~"$network"}} > 0', "link down"),
                (f'{rec["symbol_errors"]}{{network=~"$network"}} > 0', "symbol errors"),
                (f'{rec["pfc_storm"]}{{network=~"$network"}} > 0', "PFC storms"),
            ],
            (12, 44, 12, 8),
            s,
            fieldConfig={"defaults": {"unit": "short"}, "overrides": []},
        ),
        _panel(
            14,
            "FEC-corrected bits / line rate (pre-FEC BER), worst 10 ports",
            "timeseries",
            [(f'topk(10, {rec["fec_ber"]}{{network=~"$network"}})', "{{fabric_device}} {{device}}")],
            (0, 52, 24, 8),
            s,
            fieldConfig={"defaults": {"unit": "sci"}, "overrides": []},
        ),
    ]

    def var(name: str, label: str, query: str) -> dict:
        return {
            "name": name,
            "label": label,
            "type": "query",
            "datasource": {"type": "prometheus", "uid": "${datasource}"},
            "query": {"query": query, "refId": name},
            "definition": query,
            "includeAll": True,
            "multi": True,
            "allValue": ".*",
            "current": {"text": "All", "value": "$__all"},
            "refresh": 2,
        }

    return {
        "title": f"{result.spec.name}: fabric utilization and link health",
        "uid": None,
        "description": (
            f"Generated by fabricdesign from the design; reads the recording rules of its rules file. Rates average "
            f"over {s.rate_window}: microbursts shorter than a scrape interval ({s.scrape_interval}) do not show."
        ),
        "tags": ["fabricdesign", "network"],
        "timezone": "utc",
        "schemaVersion": 39,
        "editable": True,
        "time": {"from": "now-6h", "to": "now"},
        "refresh": "1m",
        "templating": {
            "list": [
                {"name": "datasource", "label": "Prometheus", "type": "datasource", "query": "prometheus"},
                var("network", "Network", "label_values(fabric:tier_utilization:avg, network)"),
                var("plane", "Plane", "label_values(fabric:tier_utilization:avg, plane)"),
                var("tier", "Tier", "label_values(fabric:tier_utilization:avg, tier)"),
                var("direction", "Direction", "label_values(fabric:tier_utilization:avg, direction)"),
            ]
        },
        "panels": panels,
    }


def dashboard_expressions(doc: dict) -> list[str]:
    """Every PromQL expression of a dashboard: its panels' queries."""
    return [t["expr"] for p in doc["panels"] for t in p.get("targets", [])]


def iter_dashboard_json(result: Any, settings: MonitoringSettings | None = None) -> Iterator[str]:
    yield json.dumps(dashboard(result, settings), indent=2) + "\n"
