"""The one way a price is written: in the API, CSV files, PDFs and pages alike.

A price is a decimal string with a '.' and at least two decimals, no exponent and no thousands separator,
negative with a leading '-' (MONEY_PATTERN). Extended prices are rounded half-up to the cent; a unit price
keeps the decimals its price list gave it beyond the cent (0.125 stays "0.125"), so what is shown is what
was multiplied.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

CENT = Decimal("0.01")
MONEY_PATTERN = r"^-?[0-9]+\.[0-9]{2,}$"
MONEY_FORMAT = (
    "decimal string: digits, '.', at least two decimals, no exponent or thousands separator, "
    'a leading \'-\' when negative (e.g. "13440.00", "0.125", "-2016.00")'
)


def to_cents(value: Decimal) -> Decimal:
    """Rounded half-up to the cent (how every extended price and total is worked out)."""
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


def fmt_money(value: Decimal | int | str | None) -> str:
    """`value` (Decimal, int or decimal string) in the one price format; "" for None."""
    if value is None or value == "":
        return ""
    d = value if isinstance(value, Decimal) else Decimal(str(value))
    d = d.quantize(CENT) if d == d.quantize(CENT) else d.normalize()
    if d == 0:
        d = abs(d)  # never "-0.00"
    return format(d, "f")


def fmt_signed_money(value: Any) -> str:
    """A money change: "+12.00", "-168.00", "0.00"; "" for None."""
    s = fmt_money(value)
    return "+" + s if s and not s.startswith("-") and Decimal(s) != 0 else s


def fmt_signed(n: int) -> str:
    """A quantity change: "+3", "-168", "0"."""
    return f"+{n}" if n > 0 else str(n)
