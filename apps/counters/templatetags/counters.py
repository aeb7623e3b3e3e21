"""The revision page's "Error counters" section, so the designs app's view needs no change:

{% load counters %}
{% counter_section revision %}
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django import template
from django.template.context import Context
from django.utils.safestring import mark_safe

from apps.designs.models import Design, Revision
from apps.designs.selectors import design_can_write
from engine.counters.drift import FLAG_TEXT
from engine.counters.suspects import KIND_TEXT

from ..forms import CounterUploadForm
from ..selectors import counter_report
from ..trend import trend_svg

register = template.Library()

SHOWN = 50


def _when(ts: float) -> datetime:
    return datetime.fromtimestamp(ts, tz=UTC)


def section_context(
    *, report: dict, design: Design, revision: Revision, can_write: bool, form: CounterUploadForm | None = None
) -> dict:
    links = []
    for link in report["links"][:SHOWN]:
        latest = {}
        for end, d in link["drift"].items():
            ivs = d["intervals"]
            latest[end] = ivs[-1] if ivs else None
        links.append(
            {
                **link,
                "flag_text": [FLAG_TEXT[f] for f in link["flags"]],
                "reset_text": [
                    f"end {r['end']} {r['counter']} before the reading of {_when(r['at']):%Y-%m-%d %H:%M:%S} UTC"
                    for r in link["resets"]
                ],
                "svg": mark_safe(trend_svg(link)),  # noqa: S308  (built from numbers and escaped labels)
                "latest": latest,
            }
        )
    groups = [{**g, "kind_text": KIND_TEXT[g["kind"]], "percent": round(100 * g["share"])} for g in report["groups"]]
    return {
        "design": design,
        "revision": revision,
        "report": report,
        "links": links,
        "more": max(0, len(report["links"]) - SHOWN),
        "groups": groups,
        "can_write": can_write,
        "form": form if form is not None else (CounterUploadForm() if can_write else None),
    }


@register.inclusion_tag("counters/_section.html", takes_context=True)
def counter_section(context: Context | dict[str, Any], revision: Revision) -> dict:
    design = revision.design
    can_write = design_can_write(user=context["request"].user, design=design)
    out = section_context(
        report=counter_report(revision=revision), design=design, revision=revision, can_write=can_write
    )
    out["csrf_token"] = context.get("csrf_token")
    return out
