"""The measurements app's panels in the workspace's cabling section (apps/common/workspace.py)."""

from __future__ import annotations

from django.http import HttpRequest
from django.middleware.csrf import get_token

from apps.common.workspace import register_panel
from apps.designs.models import Revision

from .templatetags.measurements import measured_links, measured_results


def register() -> None:
    register_panel("cabling", "measurements/_measured_links.html", context=links_panel, order=15)
    register_panel("cabling", "measurements/_measurements.html", context=results_panel, order=20)


def links_panel(request: HttpRequest, revision: Revision) -> dict:
    return measured_links(revision)


def results_panel(request: HttpRequest, revision: Revision) -> dict:
    return measured_results({"request": request, "csrf_token": get_token(request)}, revision)
