"""The counters app's panels in the workspace's commissioning section: build progress and error counters
(apps/common/workspace.py)."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import HttpRequest
from django.middleware.csrf import get_token

from apps.common.workspace import register_panel
from apps.designs.models import Revision

from .templatetags.commissioning_progress import commissioning_progress_section
from .templatetags.counters import counter_section

RACKS_PAGE = 50


def register() -> None:
    register_panel("commissioning", "counters/_progress.html", context=progress_panel, order=20)
    register_panel("commissioning", "counters/_section.html", context=counters_panel, order=30)


def progress_panel(request: HttpRequest, revision: Revision) -> dict:
    ctx = commissioning_progress_section(revision)
    if ctx.get("progress"):
        # A page of racks at a time (the tag alone shows the first SHOWN_RACKS): no long table inline.
        ctx["racks"] = Paginator(ctx["progress"].get("racks", []), RACKS_PAGE).get_page(request.GET.get("racks"))
        ctx["more_racks"] = 0
        ctx["racks_open"] = "racks" in request.GET
    return ctx


def counters_panel(request: HttpRequest, revision: Revision) -> dict:
    return counter_section({"request": request, "csrf_token": get_token(request)}, revision)
