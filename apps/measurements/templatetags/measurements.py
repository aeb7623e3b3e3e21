"""The measured-results parts of the revision page, so that page's view needs no change:

{% load measurements %}
{% measured_results revision %}   the "Measured results" section: standing counts, uploads, the form
{% measured_links revision %}     one line for the loss budget: the standing links pass / fail
"""

from __future__ import annotations

from typing import Any

from django import template
from django.template.context import Context

from apps.designs.models import Revision
from apps.designs.selectors import design_can_write

from ..services import measurement_list, measurement_standing
from ..views import MeasurementUploadForm

register = template.Library()

RECENT = 10


@register.inclusion_tag("measurements/_measurements.html", takes_context=True)
def measured_results(context: Context | dict[str, Any], revision: Revision) -> dict:
    user = context["request"].user
    design = revision.design
    can_write = design_can_write(user=user, design=design)
    uploads = list(measurement_list(revision=revision)[: RECENT + 1])
    return {
        "design": design,
        "revision": revision,
        "uploads": uploads[:RECENT],
        "more": len(uploads) > RECENT,
        "latest": uploads[0] if uploads else None,
        "standing": measurement_standing(revision=revision),
        "can_write": can_write,
        "form": MeasurementUploadForm() if can_write else None,
        "csrf_token": context.get("csrf_token"),
    }


@register.inclusion_tag("measurements/_measured_links.html")
def measured_links(revision: Revision) -> dict:
    return {"design": revision.design, "revision": revision, "standing": measurement_standing(revision=revision)}
