"""The commissioning app's section of the revision workspace: state, counts, the fix list a page at a time, the
upload form; its summary card and next step (apps/common/workspace.py)."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import HttpRequest
from django.middleware.csrf import get_token

from apps.common.workspace import (
    register_card,
    register_next_step,
    register_panel,
    register_revision_states,
    register_section,
)
from apps.designs.models import Revision

from .models import AsBuiltUpload, CommissioningStanding, RevisionState
from .templatetags.commissioning import commissioning_section, states_of_revisions

FIXES_PAGE = 50


def register() -> None:
    register_section("commissioning", "Commissioning", order=70, blurb="As-built imports, the fix list, progress")
    register_panel("commissioning", "commissioning/_section.html", context=section_panel, order=10)
    register_card(state_card, order=70)
    register_next_step(upload_step, order=70)
    register_revision_states(states_of_revisions)


def section_panel(request: HttpRequest, revision: Revision) -> dict:
    ctx = commissioning_section({"request": request, "csrf_token": get_token(request)}, revision)
    standing = ctx["standing"]
    if standing is not None:
        ctx["fixes"] = Paginator(standing.fixes, FIXES_PAGE).get_page(request.GET.get("fixes"))
        ctx["more_fixes"] = 0
    return ctx


def state_card(request: HttpRequest, revision: Revision) -> list[dict]:
    st = CommissioningStanding.objects.filter(revision=revision).only("state", "fixes").first()
    state = st.state if st is not None else RevisionState.PLANNED
    problems = len(st.fixes) if st is not None else None
    return [
        {
            "label": "Commissioning",
            "value": str(state),
            "unit": f"{problems:,} to fix" if problems else "",
            "section": "commissioning",
        }
    ]


def upload_step(request: HttpRequest, revision: Revision) -> list[dict]:
    if AsBuiltUpload.objects.filter(revision=revision).exists():
        return []
    return [{"text": "Once cabled, upload what the fabric reports (as-built)", "section": "commissioning"}]
