"""Which spares rule a form, a query or the CLI names, from its texts: one function for every edge."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .failure_rates import FailureRatePerCategory
from .spares import PercentPerCategory, SparesRule, parse_percents

PERCENT = "percent"
FAILURE_RATE = FailureRatePerCategory.kind
RULE_CHOICES = ((PERCENT, "Flat percent per category"), (FAILURE_RATE, "From failure rates (Poisson)"))

# The spares parameters, declared once for every edge that takes a spares rule: the API's queries and bodies
# (apps/api/spares_params.py adds the spares_percent pattern) and the pages' forms (apps/designs/forms.py).
SPARES_PARAMS = (
    "spares_rule",
    "spares_percent",
    "spares_afr_percent",
    "spares_replenish_hours",
    "spares_service_level_percent",
)
# Every input at this length, percent-encoded, still fits gunicorn's request line (apps/api/spares_params.py).
SPARES_MAX_LENGTH = 400
SPARES_HELP = (
    'Spares per line in percent, rounded up to whole parts: one number for every category ("5") or '
    'category:percent pairs ("transceiver:2,fiber:5,*:1"; "*" is every other category), each 0-1000 with up '
    "to three decimals."
)
AFR_HELP = (
    'failure-rate: annualized failure rate in percent per year, one number ("2") or category:value pairs '
    '("transceiver:2,switch:1,*:0.5"); unset categories take the shipped placeholder defaults, which are not '
    "rates from any source: set your own (docs/data-gaps.md)."
)
HOURS_HELP = 'failure-rate: replenishment time in hours ("720" or "switch:2160,*:720"); unset: the defaults.'
LEVEL_HELP = (
    'failure-rate: service level in percent, above 0 and below 100 ("95" or "switch:99,*:95"); unset: the defaults.'
)
RULE_HELP = (
    "percent (default): spares_percent; failure-rate: the Poisson quantile of the failures expected in the "
    "replenishment time, from the spares_afr_percent, spares_replenish_hours and spares_service_level_percent inputs."
)


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


def spares_rule_from_params(params: Mapping[str, Any]) -> SparesRule | None:
    """The rule the SPARES_PARAMS name (a query, a body, the CLI's options; absent or empty ones unset), as
    spares_rule_from_inputs reads them. ValueError names the parameter."""
    return spares_rule_from_inputs(
        rule=params.get("spares_rule") or PERCENT,
        percent=params.get("spares_percent") or "",
        afr=params.get("spares_afr_percent") or "",
        hours=params.get("spares_replenish_hours") or "",
        level=params.get("spares_service_level_percent") or "",
    )


__all__ = [
    "PERCENT",
    "FAILURE_RATE",
    "RULE_CHOICES",
    "SPARES_PARAMS",
    "SPARES_MAX_LENGTH",
    "SPARES_HELP",
    "AFR_HELP",
    "HOURS_HELP",
    "LEVEL_HELP",
    "RULE_HELP",
    "spares_rule_from_inputs",
    "spares_rule_from_params",
]
