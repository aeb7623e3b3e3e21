"""Which spares rule a form, a query or the CLI names, from its texts: one function for every edge."""

from __future__ import annotations

from .failure_rates import FailureRatePerCategory
from .spares import PercentPerCategory, SparesRule, parse_percents

PERCENT = "percent"
FAILURE_RATE = FailureRatePerCategory.kind
RULE_CHOICES = ((PERCENT, "Flat percent per category"), (FAILURE_RATE, "From failure rates (Poisson)"))


def spares_rule_from_inputs(
    *, rule: str = PERCENT, percent: str = "", afr: str = "", hours: str = "", level: str = ""
) -> SparesRule | None:
    """ "percent" (None when `percent` is empty: the caller's default applies) or "failure-rate" (an empty
    text takes the shipped defaults). ValueError names the field."""
    if rule in (PERCENT, PercentPerCategory.kind):
        return PercentPerCategory(parse_percents(percent)) if percent.strip() else None
    if rule == FAILURE_RATE:
        return FailureRatePerCategory.from_text(afr=afr, hours=hours, level=level)
    raise ValueError(f"spares_rule: {rule!r} is not {PERCENT} or {FAILURE_RATE}")


__all__ = ["PERCENT", "FAILURE_RATE", "RULE_CHOICES", "spares_rule_from_inputs"]
