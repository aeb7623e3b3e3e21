"""Spares percentages and failure rates read numbers one way: plain ASCII decimals, finite, nothing else."""

from __future__ import annotations

from decimal import Decimal

import pytest

from engine.orders.failure_rates import parse_category_values
from engine.orders.spares import finite_decimal, parse_percents


@pytest.mark.parametrize(
    ("given", "expected"),
    [(5, "5"), ("2.5", "2.5"), (" 7 ", "7"), (0.5, "0.5"), ("1e1", "1E+1"), (Decimal("3.00"), "3.00"), (".5", "0.5")],
)
def test_a_plain_number_reads_as_that_decimal(given, expected):
    assert finite_decimal(given, "x") == Decimal(expected)


@pytest.mark.parametrize("given", ["1_0", "NaN", "Infinity", "-inf", "\u0665", "\uff15", "5%", "", "1e", True])
def test_what_decimal_would_take_but_no_one_sends_is_refused_by_name(given):
    with pytest.raises(ValueError, match=r"^spares_percent: .* is not a number$"):
        finite_decimal(given, "spares_percent")


def test_both_parsers_refuse_an_underscored_or_foreign_digit_where_decimal_alone_took_it():
    """Decimal("1_0") is 10 and Decimal("\u0665") is 5: a percentage typed with them was taken as a number."""
    assert Decimal("1_0") == 10 and Decimal("\u0665") == 5
    for bad in ("transceiver:1_0", "transceiver:\u0665"):
        with pytest.raises(ValueError, match="is not a number"):
            parse_percents(bad)
        with pytest.raises(ValueError, match="is not a number"):
            parse_category_values(bad, "afr_percent", "afr_percent")
    assert parse_percents("transceiver:2,*:1") == {"transceiver": Decimal(2), "*": Decimal(1)}
