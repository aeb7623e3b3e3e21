"""The revision workspace: an overview (summary cards, notes, warnings, what to do next) and one page per
section. The sections, their panels, cards and next steps come from the registry (apps/common/workspace.py),
filled by the apps that own them; this module knows none of them. A section page calls only its own panels."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_safe

from apps.common import workspace
from apps.common.requests import SignedInRequest

from .compare import previous_revision_number
from .completeness import completeness_of
from .models import Revision
from .selectors import revision_get
from .snapshots import snapshot_state
from .views import signin_required


def _frame(request: HttpRequest, revision: Revision, current: str) -> dict:
    return {
        "design": revision.design,
        "revision": revision,
        "s": revision.summary or {},
        "nav": workspace.sections(),
        "current": current,
        "previous_number": previous_revision_number(revision),
        "snapshot": snapshot_state(revision),
    }


@signin_required
@require_safe
def revision_detail(request: SignedInRequest, pk: int, number: int) -> HttpResponse:
    revision = revision_get(user=request.user, design_id=pk, number=number)
    return render(
        request,
        "designs/revision.html",
        {
            **_frame(request, revision, "overview"),
            "cards": workspace.cards(request, revision),
            "next_steps": workspace.next_steps(request, revision),
            "completeness": completeness_of(revision.summary),
        },
    )


@signin_required
@require_safe
def revision_section(request: SignedInRequest, pk: int, number: int, section: str) -> HttpResponse:
    found = workspace.section(section)
    if found is None:
        raise Http404("No such section.")
    revision = revision_get(user=request.user, design_id=pk, number=number)
    panels = []
    for panel in workspace.panels(section):
        context = panel.context(request, revision)
        if context is not None:
            panels.append(mark_safe(render_to_string(panel.template, context, request=request)))
    return render(
        request,
        "designs/revision_section.html",
        {**_frame(request, revision, section), "section": found, "panels": panels},
    )
