"""The Commissioning parts of pages that belong to lower layers, so their views need no change:

{% load commissioning %}
{% commissioning_section revision %}        the revision page's section: state, counts, racks, fix list, upload
"""

from __future__ import annotations

import re
from typing import Any

from django import template
from django.template.context import Context

from apps.designs.models import Revision
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
def commissioning_section(context: Context | dict[str, Any], revision: Revision) -> dict:
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


def states_of_revisions(pairs: list[tuple[int, int]]) -> dict[tuple[int, int], str]:
    """{(design id, number): state} for the workspace registry (apps/common/workspace.py), one query; a revision
    with nothing stored is planned."""
    wanted = set(pairs)
    out = {pair: RevisionState.PLANNED.value for pair in wanted}
    rows = CommissioningStanding.objects.filter(revision__design_id__in={pk for pk, _ in wanted}).values_list(
        "revision__design_id", "revision__number", "state"
    )
    for design_id, number, state in rows:
        if (design_id, number) in wanted:
            out[(design_id, number)] = state
    return out
