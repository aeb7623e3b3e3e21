"""The spares parameters: one grammar, one declared field each and one parser for every operation and file that
takes a spares rule (bom/, order/, order-delta/, change-order.*, ordered/, spares/, the BOM downloads and exports).

`spares_percent` is a percentage for every category ("5") or category:percent pairs ("transceiver:2,fiber:5,*:1";
"*" is every other category), each from 0 to 1000 with up to three decimals. The field's pattern is that grammar,
and the server checks it before engine/orders/spares.py's parse_percents gives it its meaning, so what the schema
admits is what the server takes. The failure-rate inputs are one number or category:value pairs too; their bounds
differ per input, which a pattern cannot state (an allowance of the schema run, docs/api.md).

SPARES_MAX_LENGTH keeps every request line within gunicorn's limit_request_line (gunicorn.conf.py): each of the
four inputs at its longest, every character percent-encoded (3 bytes), with the longest path and the other
parameters, fits (tests/apps/api/test_request_line_limit.py).
"""

from __future__ import annotations

from rest_framework import serializers

from engine.orders.rule_choice import (
    AFR_HELP,
    FAILURE_RATE,
    HOURS_HELP,
    LEVEL_HELP,
    PERCENT,
    RULE_HELP,
    SPARES_HELP,
    SPARES_MAX_LENGTH,
    spares_rule_from_params,
)
from engine.orders.spares import PercentPerCategory, SparesRule

from .errors import ApiError
from .schema import SPARES_PERCENT_PATTERN
from .serializers import StrictSerializer


def spares_percent_field(extra_help: str = "") -> serializers.RegexField:
    return serializers.RegexField(
        SPARES_PERCENT_PATTERN,
        required=False,
        max_length=SPARES_MAX_LENGTH,
        help_text=SPARES_HELP + extra_help,
        error_messages={"invalid": 'a percentage ("5") or category:percentage pairs ("transceiver:2,*:1")'},
    )


class SparesQuery(StrictSerializer):
    """The spares rule a query (or the mark-ordered body) names: spares_rule, spares_percent or the failure-rate
    inputs. Subclasses add their own parameters."""

    spares_rule = serializers.ChoiceField(
        choices=[PERCENT, FAILURE_RATE], required=False, default=PERCENT, help_text=RULE_HELP
    )
    spares_percent = spares_percent_field()
    spares_afr_percent = serializers.CharField(required=False, max_length=SPARES_MAX_LENGTH, help_text=AFR_HELP)
    spares_replenish_hours = serializers.CharField(required=False, max_length=SPARES_MAX_LENGTH, help_text=HOURS_HELP)
    spares_service_level_percent = serializers.CharField(
        required=False, max_length=SPARES_MAX_LENGTH, help_text=LEVEL_HELP
    )


def spares_rule_of(q: dict) -> SparesRule | None:
    """The rule the parameters name; None (the endpoint's default) for percent without spares_percent.
    A bad value is a 400 naming its parameter."""
    try:
        return spares_rule_from_params(q)
    except ValueError as exc:
        path, _, message = str(exc).partition(": ")
        raise ApiError(400, "invalid", str(exc), [{"path": path, "message": message}]) from None


def percent_text(rule: PercentPerCategory | None) -> str:
    """A percent rule in the spares_percent grammar ("5", "transceiver:2,*:1"); "0" for none."""
    percents = dict(rule.percents) if rule is not None else {}
    if not percents:
        return "0"
    values = PercentPerCategory(percents).to_dict()["percents"]
    if set(values) == {"*"}:
        return values["*"]
    return ",".join(f"{k}:{values[k]}" for k in sorted(values, key=lambda k: (k == "*", k)))


__all__ = [
    "AFR_HELP",
    "HOURS_HELP",
    "LEVEL_HELP",
    "SPARES_HELP",
    "SPARES_MAX_LENGTH",
    "SPARES_PERCENT_PATTERN",
    "SparesQuery",
    "percent_text",
    "spares_percent_field",
    "spares_rule_of",
]
