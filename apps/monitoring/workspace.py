"""The monitoring app's section of the revision workspace (apps/common/workspace.py)."""

from __future__ import annotations

from apps.common.workspace import register_panel, register_section

from .templatetags.monitoring import utilization_summary


def register() -> None:
    register_section("monitoring", "Monitoring", order=80, blurb="Prometheus rules, dashboards, utilization")
    register_panel("monitoring", "monitoring/_revision_section.html", context=summary_panel, order=10)


def summary_panel(request, revision) -> dict:
    return utilization_summary(revision)
