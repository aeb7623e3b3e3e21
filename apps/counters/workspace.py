"""The counters app's panels in the workspace's commissioning section: build progress and error counters
(apps/common/workspace.py)."""

from __future__ import annotations

from django.middleware.csrf import get_token

from apps.common.workspace import register_panel

from .templatetags.commissioning_progress import commissioning_progress_section
from .templatetags.counters import counter_section


def register() -> None:
    register_panel("commissioning", "counters/_progress.html", context=progress_panel, order=20)
    register_panel("commissioning", "counters/_section.html", context=counters_panel, order=30)


def progress_panel(request, revision) -> dict:
    return commissioning_progress_section(revision)


def counters_panel(request, revision) -> dict:
    return counter_section({"request": request, "csrf_token": get_token(request)}, revision)
