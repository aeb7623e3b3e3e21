"""The Commissioning parts of pages that belong to lower layers, so their views need no change:

{% load commissioning %}
{% commissioning_section revision %}        the revision page's section: state, counts, racks, fix list, upload
{% revision_state revision %}               a revision's state (planned / cabling / verified) as a badge
"""

from __future__ import annotations

import re

from django import template

from apps.designs.selectors import design_can_write
from engine.asbuilt.classify import CLASSES

from ..forms import AsBuiltUploadForm
from ..models import AsBuiltUpload, CommissioningStanding, RevisionState

register = template.Library()

SHOWN_FIXES = 100


def _row_of(rack: str) -> str:
    """The hall row of a rack id ("DC1.B03" -> "DC1.B"): the id without its trailing position number."""
    return re.sub(r"\d+$", "", rack) or rack


@register.inclusion_tag("commissioning/_section.html", takes_context=True)
def commissioning_section(context, revision) -> dict:
    user = context["request"].user
    can_write = design_can_write(user=user, design=revision.design)
    st = CommissioningStanding.objects.filter(revision=revision).first()
    latest = AsBuiltUpload.objects.filter(revision=revision).defer("content").order_by("-id").first()
    pending = latest is not None and (st is None or st.updated_at < latest.created_at)
    racks = []
    rows: dict[str, dict[str, int]] = {}
    if st is not None:
        for rack, counts in st.per_rack.items():
            problems = sum(v for k, v in counts.items() if k not in ("ok", "unseen"))
            racks.append({"rack": rack, "counts": counts, "problems": problems})
            row = rows.setdefault(_row_of(rack), {})
            for k, v in counts.items():
                row[k] = row.get(k, 0) + v
    return {
        "design": revision.design,
        "revision": revision,
        "standing": st,
        "state": st.state if st is not None else RevisionState.PLANNED,
        "classes": [*CLASSES, "unseen"],
        "racks": racks,
        "rows": sorted(rows.items()),
        "fixes": st.fixes[:SHOWN_FIXES] if st is not None else [],
        "more_fixes": max(0, len(st.fixes) - SHOWN_FIXES) if st is not None else 0,
        "latest": latest,
        "pending": pending,
        "form": AsBuiltUploadForm() if can_write else None,
        "csrf_token": context.get("csrf_token"),
    }


@register.simple_tag
def revision_states(revisions) -> dict:
    """{revision id: state} for a list of revisions, in one query (planned when none is stored)."""
    ids = [r.pk for r in revisions]
    stored = dict(CommissioningStanding.objects.filter(revision_id__in=ids).values_list("revision_id", "state"))
    return {i: stored.get(i, RevisionState.PLANNED) for i in ids}


@register.filter
def state_of(states: dict, revision_id) -> str:
    return states.get(revision_id, RevisionState.PLANNED)


@register.simple_tag
def latest_states(designs) -> dict:
    """{design id: state of its latest revision} for a design list (`d.latest` is the latest number), one query."""
    latest = {d.pk: d.latest for d in designs if getattr(d, "latest", None)}
    rows = CommissioningStanding.objects.filter(revision__design_id__in=list(latest)).values_list(
        "revision__design_id", "revision__number", "state"
    )
    out = {pk: RevisionState.PLANNED.value for pk in latest}
    for design_id, number, state in rows:
        if latest.get(design_id) == number:
            out[design_id] = state
    return out
