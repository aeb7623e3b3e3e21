"""Failures per year beside each spares line: quantity x the annualized failure rate, at the failure-rate rule's
rates when that rule is chosen, else at the shipped rates (placeholders, docs/data-gaps.md)."""

from __future__ import annotations

from decimal import Decimal

from engine.orders.failure_rates import FailureRatePerCategory, failures_per_year, failures_text, spares_beside
from engine.orders.spares import PercentPerCategory, parse_percents


def test_each_spares_line_says_how_many_failures_a_year_to_expect():
    bom = [{"category": "switch", "sku": "QM9700", "quantity": 48}, {"category": "fiber", "sku": "F", "quantity": 0}]
    rows = spares_beside(
        bom,
        percent=PercentPerCategory(parse_percents("5")),
        failure=FailureRatePerCategory.from_text(afr="switch:2", hours="switch:2160", level="switch:99"),
    )
    sw, fiber = rows
    # 48 switches at 2 %/year: 0.96 a year, of which 0.2367 fall in one 2,160 h replenishment time
    assert (sw["failures_per_year"], sw["expected_failures"]) == (0.96, 0.2367)
    assert fiber["failures_per_year"] == 0


def test_under_the_flat_percent_rule_the_shipped_rates_give_the_figure():
    flat = PercentPerCategory(parse_percents("5"))
    # the shipped placeholder: 1 %/year for every category
    assert failures_per_year(flat, category="transceiver", quantity=1024) == Decimal("10.24")
    chosen = FailureRatePerCategory.from_text(afr="transceiver:0.5")
    assert failures_per_year(chosen, category="transceiver", quantity=1024) == Decimal("5.12")


def test_the_files_print_at_most_four_decimals_without_trailing_zeros():
    assert failures_text(Decimal("10.2400")) == "10.24"
    assert failures_text(Decimal("0.123456")) == "0.1235"
    assert failures_text(Decimal(0)) == "0"
