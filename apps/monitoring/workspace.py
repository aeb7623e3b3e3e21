"""The monitoring app's section of the revision workspace (apps/common/workspace.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.http import HttpRequest

from apps.common.workspace import register_panel, register_section

from .templatetags.monitoring import utilization_summary

if TYPE_CHECKING:
    from apps.designs.models import Revision


def register() -> None:
    register_section("monitoring", "Monitoring", order=80, blurb="Prometheus rules, dashboards, utilization")
    register_panel("monitoring", "monitoring/_revision_section.html", context=summary_panel, order=10)


def summary_panel(request: HttpRequest, revision: Revision) -> dict:
    return utilization_summary(revision)
