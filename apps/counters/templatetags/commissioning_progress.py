"""The revision page's "Build progress" section (apps/counters/progress.py), so the designs app's view needs no
change:

{% load commissioning_progress %}
{% commissioning_progress_section revision %}

A revision with no commissioning evidence stored yet shows one line instead of working the view out (its
links are all planned; the API still answers with every rack and SU).
"""

from __future__ import annotations

from django import template

from apps.designs.models import Revision

from ..progress import commissioning_progress, progress_evidence

register = template.Library()

SHOWN_RACKS = 500


@register.inclusion_tag("counters/_progress.html")
def commissioning_progress_section(revision: Revision) -> dict:
    evidence = progress_evidence(revision=revision)
    if not any(evidence.values()):
        return {"revision": revision, "progress": None}
    p = commissioning_progress(revision=revision)
    racks = p.get("racks", [])
    return {
        "revision": revision,
        "progress": p,
        "racks": racks[:SHOWN_RACKS],
        "more_racks": max(0, len(racks) - SHOWN_RACKS),
    }
