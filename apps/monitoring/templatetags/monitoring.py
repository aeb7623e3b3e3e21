"""{% utilization_summary revision %}: the revision page's monitoring section (files and the latest snapshot)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import template

from ..models import UtilizationSnapshot

if TYPE_CHECKING:
    from apps.designs.models import Revision

register = template.Library()


@register.inclusion_tag("monitoring/_revision_section.html")
def utilization_summary(revision: Revision) -> dict[str, Any]:
    latest = UtilizationSnapshot.objects.filter(revision=revision).order_by("-created_at", "-id").first()
    return {
        "design": revision.design,
        "revision": revision,
        "latest": latest,
        "count": UtilizationSnapshot.objects.filter(revision=revision).count(),
    }


@register.filter
def pct(value: float | str | None, digits: int = 1) -> str:
    """0.4648 -> '46.5 %'; empty for a missing value."""
    if value is None or value == "":
        return ""
    return f"{float(value) * 100:.{int(digits)}f} %"


@register.filter
def pct_abs(value: float | str | None, digits: int = 1) -> str:
    return "" if value is None or value == "" else pct(abs(float(value)), digits)
