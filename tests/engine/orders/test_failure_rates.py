"""The failure-rate spares rule (engine/orders/failure_rates.py): Poisson quantiles of expected failures."""

from __future__ import annotations

from decimal import Decimal

import pytest

from engine.catalog import load_catalog
from engine.orders.failure_rates import (
    FailureRatePerCategory,
    parse_category_values,
    poisson_quantile,
    spares_beside,
)
from engine.orders.lines import build_order
from engine.orders.rule_choice import spares_rule_from_inputs
from engine.orders.spares import PercentPerCategory, parse_percents, spares_rule_from_dict
from engine.pipeline import compute_design
from engine.spec import parse_spec
from tests.engine.conftest import spec


def test_spares_for_a_4_su_design_match_a_hand_worked_poisson_quantile():
    """GIVEN 128 DGX H100 in 4 SUs (2 tiers, QM9700): 32 leaves + 16 spines = 48 switches, and
    1,536 switch-side transceivers (2,048 links x 2 ends at the switches = 4,096 ports, two per twin-port
    OSFP cage) beside 512 server-side ones (128 servers x 4 cages).
    WHEN switches fail at 2 %/year with 90 days (2,160 h) to replace at a 99 % service level, and
    transceivers at 2 %/year, 720 h, 95 %
    THEN, by hand:
      switches:     lambda = 48 x 0.02 x 2160/8760 = 0.23671
                    P(0) = e^-0.23671 = 0.78922; P(1) = 0.78922 x 0.23671 = 0.18682 -> 0.97604 < 0.99
                    P(2) = 0.18682 x 0.23671 / 2 = 0.02211 -> 0.99815 >= 0.99, so 2 spares
      transceivers: lambda = 1536 x 0.02 x 720/8760 = 2.52493
                    P(0..4) = 0.08006 + 0.20216 + 0.25522 + 0.21480 + 0.13559 = 0.88782 < 0.95
                    P(5) = 0.13559 x 2.52493 / 5 = 0.06847 -> 0.95629 >= 0.95, so 5 spares
    while the flat 5 % beside it orders ceil(48 x 5 %) = 3 and ceil(1536 x 5 %) = 77.
    """
    result = compute_design(parse_spec(spec()), load_catalog())
    bom = result.summary["bom"]
    qty = {ln["sku"]: ln["quantity"] for ln in bom}
    assert (qty["MQM9700-NS2F"], qty["MMA4Z00-NS"], qty["MMA4Z00-NS-FLT"]) == (48, 1536, 512)

    rule = spares_rule_from_inputs(
        rule="failure-rate", afr="switch:2,transceiver:2", hours="switch:2160,transceiver:720", level="switch:99,*:95"
    )
    spares = {ln.part: ln.spares for ln in build_order(bom, rule=rule).lines}
    assert spares["MQM9700-NS2F"] == 2
    assert spares["MMA4Z00-NS"] == 5
    flat = {ln.part: ln.spares for ln in build_order(bom, rule=PercentPerCategory(parse_percents("5"))).lines}
    assert (flat["MQM9700-NS2F"], flat["MMA4Z00-NS"]) == (3, 77)


def test_the_words_name_every_input():
    rule = FailureRatePerCategory.from_text(afr="2", hours="720", level="95")
    s = rule.spares(category="transceiver", part="X", quantity=1536)
    assert s.count == 5
    assert s.rule == "Poisson 95 % quantile of 2.52 expected failures (1536 x 2 %/year x 720 h / 8760 h)"


def test_the_quantile_is_the_smallest_count_reaching_the_service_level():
    assert poisson_quantile(0, 0.99) == 0
    assert poisson_quantile(0.23671, 0.97) == 1  # P(<=1) = 0.97604
    assert poisson_quantile(0.23671, 0.98) == 2
    # A mean beyond e^-mean's range still counts (normal approximation: 1000 + 1.645 x 31.6 = 1052)
    assert 1049 <= poisson_quantile(1000.0, 0.95) <= 1054


def test_no_rate_or_no_time_means_no_spares():
    rule = FailureRatePerCategory.from_text(afr="fiber:0", hours="panel:0")
    assert rule.spares(category="fiber", part="F", quantity=1000).count == 0
    assert rule.spares(category="panel", part="P", quantity=1000).count == 0


def test_given_values_override_the_defaults_and_survive_the_dict_form():
    rule = FailureRatePerCategory.from_text(afr="transceiver:3,*:0.5")
    assert rule.inputs_for("transceiver").afr_percent == Decimal(3)
    assert rule.inputs_for("switch").afr_percent == Decimal("0.5")  # "*" given beats the default for switch
    assert rule.inputs_for("never-heard-of").afr_percent == Decimal("0.5")
    assert not rule.is_default("switch")
    assert FailureRatePerCategory.with_defaults().is_default("switch")
    back = spares_rule_from_dict(rule.to_dict())
    assert back == rule and back.to_dict() == rule.to_dict()


@pytest.mark.parametrize(
    "field,raw",
    [
        ("afr_percent", "-1"),
        ("afr_percent", "abc"),
        ("replenish_hours", "x:1:2"),
        ("service_level_percent", "100"),
        ("service_level_percent", "0"),
        ("afr_percent", True),
    ],
)
def test_bad_inputs_are_refused_by_name(field, raw):
    with pytest.raises(ValueError, match=r"^what: "):
        parse_category_values(raw, "what", field)


def test_the_rule_is_chosen_by_name():
    assert spares_rule_from_inputs(rule="percent", percent="") is None
    assert isinstance(spares_rule_from_inputs(rule="percent", percent="5"), PercentPerCategory)
    with pytest.raises(ValueError, match=r"^spares_rule: "):
        spares_rule_from_inputs(rule="mtbf")
    with pytest.raises(ValueError, match=r"^spares_service_level_percent: "):
        spares_rule_from_inputs(rule="failure-rate", level="100")


def test_both_rules_are_shown_side_by_side_with_their_inputs():
    bom = [
        {"category": "switch", "sku": "MQM9700-NS2F", "quantity": 48},
        {"category": "fiber", "sku": "F", "quantity": 0},
    ]
    rows = spares_beside(
        bom,
        percent=PercentPerCategory(parse_percents("5")),
        failure=FailureRatePerCategory.from_text(afr="switch:2", hours="switch:2160", level="switch:99"),
    )
    sw, fiber = rows
    assert (sw["percent"], sw["percent_spares"], sw["failure_rate_spares"]) == ("5", 3, 2)
    assert (sw["afr_percent"], sw["replenish_hours"], sw["service_level_percent"]) == ("2", "2160", "99")
    assert sw["expected_failures"] == 0.2367 and sw["defaults"] is False
    assert fiber["failure_rate_spares"] == 0 and fiber["defaults"] is True


def test_a_stored_rule_never_takes_a_default_shipped_later(monkeypatch):
    from engine.orders import failure_rates

    stored = FailureRatePerCategory.from_text(afr="*:3").to_dict()
    later = failure_rates.default_inputs()
    later["afr_percent"]["new-category"] = Decimal(9)
    monkeypatch.setattr(failure_rates, "default_inputs", lambda: later)
    assert spares_rule_from_dict(stored).inputs_for("new-category").afr_percent == Decimal(3)


@pytest.mark.parametrize("raw", ["0", "0.0", "-0", "100", "100.5"])
def test_a_service_level_outside_the_documented_range_is_refused_in_the_documents_words(raw):
    """docs/api.md: the service level is above 0 and below 100; the refusal says so and nothing else (no closed
    "from 0 to ..." range that would admit 0)."""
    with pytest.raises(ValueError) as exc:
        parse_category_values(raw, "spares_service_level_percent", "service_level_percent")
    assert (
        str(exc.value)
        == f"spares_service_level_percent: {raw!r} is not a service level in percent, above 0 and below 100"
    )


@pytest.mark.parametrize("raw", ["0.0001", "99.9999", "99.99999"])
def test_every_service_level_the_documents_allow_is_taken(raw):
    assert parse_category_values(raw, "l", "service_level_percent") == {"*": Decimal(raw)}


@pytest.mark.parametrize("raw", ["abc", "5%", "NaN", "Infinity", "-inf", "transceiver:x"])
def test_a_spares_percent_that_is_not_a_number_is_refused_as_not_a_number(raw):
    with pytest.raises(ValueError, match=r"^spares_percent: '.*' is not a number$"):
        parse_percents(raw)
    with pytest.raises(ValueError, match=r"^spares_afr_percent: '.*' is not a number$"):
        parse_category_values(raw, "spares_afr_percent", "afr_percent")
