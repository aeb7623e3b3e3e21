"""Spares rules: how many spare units of each BOM line to order.

A rule answers, for one order line (its category, part number and quantity), a whole number of spares and
the words that say how it got there; every order line carries those words, so a buyer sees which rule
produced its spares. Rules are plain data with a `kind` and a dict form (stored with an ordered baseline,
named in the API), made back by `spares_rule_from_dict` through SPARES_RULES: another rule (one from
failure rates and lead times, say) plugs in by adding its constructor from a dict there.

The first rule is the one the BOM always had: a percentage per part category ("*" for every other
category), rounded up per line. The second (failure_rates.py) takes per category an annual failure rate, a
replenishment time and a service level, and orders the Poisson quantile of the failures expected meanwhile.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_CEILING, Decimal
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

if TYPE_CHECKING:
    from collections.abc import Collection

MAX_PERCENT = Decimal(1000)


@dataclass(frozen=True)
class Spares:
    count: int
    rule: str  # how the count was worked out, in words


class SparesRule(Protocol):
    kind: ClassVar[str]

    def spares(self, *, category: str, part: str, quantity: int) -> Spares: ...

    def to_dict(self) -> dict: ...

    def describe(self) -> str: ...


def _pct_text(p: Decimal) -> str:
    return format(p.normalize(), "f") if p else "0"


@dataclass(frozen=True)
class PercentPerCategory:
    """`percents[category]` percent of each line, rounded up to a whole part; "*" covers other categories,
    a category with neither gets none."""

    kind: ClassVar[str] = "percent-per-category"
    percents: Mapping[str, Decimal] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: Mapping) -> PercentPerCategory:
        raw = d.get("percents", {})
        if not isinstance(raw, Mapping):
            raise ValueError("spares.percents: a mapping of category to percent")
        return cls(parse_percents(raw, "spares.percents"))

    def percent_for(self, category: str) -> Decimal:
        p = self.percents
        return p.get(category, p.get("*", Decimal(0)))

    def spares(self, *, category: str, part: str, quantity: int) -> Spares:  # noqa: ARG002 - SparesRule's signature
        pct = self.percent_for(category)
        if not pct or quantity <= 0:
            return Spares(0, f"no spares for {category}" if not pct else f"{_pct_text(pct)} % of {category}")
        n = int((Decimal(quantity) * pct / 100).to_integral_value(rounding=ROUND_CEILING))
        return Spares(n, f"{_pct_text(pct)} % of {category}, rounded up")

    def to_dict(self) -> dict:
        return {"kind": self.kind, "percents": {k: _pct_text(v) for k, v in sorted(self.percents.items())}}

    def describe(self) -> str:
        parts = [
            f"{'other categories' if k == '*' else k} {_pct_text(v)} %"
            for k, v in sorted(self.percents.items(), key=lambda kv: (kv[0] == "*", kv[0]))
            if v
        ]
        return ("spares per line, rounded up: " + ", ".join(parts)) if parts else "no spares"


# kind -> the constructor from the rule's dict (to_dict's output); a new rule registers its from_dict here
SPARES_RULES: dict[str, Callable[[Mapping], SparesRule]] = {PercentPerCategory.kind: PercentPerCategory.from_dict}


def spares_rule_from_dict(d: Mapping | None) -> SparesRule:
    """The rule a dict names (its "kind"); no dict: no spares. ValueError naming the bad field."""
    if not d:
        return PercentPerCategory({})
    kind = d.get("kind")
    make = SPARES_RULES.get(kind) if isinstance(kind, str) else None
    if make is None:
        raise ValueError(f"spares.kind: unknown rule {kind!r}; known: {', '.join(sorted(SPARES_RULES))}")
    return make(d)


def category_map(raw: Any, what: str, *, whole: str, pair: str) -> Mapping:
    """A mapping {category: raw value} from a number or a text without ':' (every category, "*"), a mapping, or
    text such as "transceiver:2,*:1"; the values are left for the caller to check. ValueError naming `what`
    (`whole` says what one value is, `pair` what a pair looks like) for anything else."""
    if isinstance(raw, bool):
        raise ValueError(f"{what}: {whole}, or {pair} pairs")
    if isinstance(raw, (int, float, Decimal)):
        raw = {"*": raw}
    elif isinstance(raw, str):
        text = raw.strip()
        if ":" not in text:
            raw = {"*": text}
        else:
            pairs = {}
            for item in text.split(","):
                cat, sep, val = item.partition(":")
                if not sep or not cat.strip():
                    raise ValueError(f"{what}: {item.strip()!r} is not {pair}")
                pairs[cat.strip()] = val
            raw = pairs
    if not isinstance(raw, Mapping):
        raise ValueError(f"{what}: {whole}, or {pair} pairs")
    return raw


# A plain decimal number in ASCII: Decimal() alone also takes "1_0", "NaN", "Infinity" and digits of other scripts
# (U+0665, Arabic-Indic five), none of which a price list, a spreadsheet or a procurement tool would send as a quantity.
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)


def finite_decimal(value: Any, what: str) -> Decimal:
    """`value` (a number or its text) as a finite Decimal; ValueError naming `what` for anything else."""
    text = str(value).strip()
    if isinstance(value, bool) or not _NUMBER.fullmatch(text):
        raise ValueError(f"{what}: {value!r} is not a number")
    return Decimal(text)  # finite: the pattern admits no NaN or Infinity


def parse_percents(raw: Collection[Any], what: str = "spares_percent") -> dict[str, Decimal]:
    """{category: percent} from a number (every category), a mapping, or text such as "5" or
    "transceiver:2,fiber:5,*:1". ValueError naming `what` for anything else."""
    raw = category_map(raw, what, whole="a percentage", pair="category:percentage")
    out = {}
    for k, v in raw.items():
        d = finite_decimal(v, what)
        if d < 0 or d > MAX_PERCENT:
            raise ValueError(f"{what}: {v!r} must be a percentage from 0 to {MAX_PERCENT}")
        if len(str(k)) > 32:
            raise ValueError(f"{what}: category {str(k)[:32]!r}... is too long")
        out[str(k)] = d
    return out


__all__ = ["Spares", "SparesRule", "PercentPerCategory", "SPARES_RULES", "spares_rule_from_dict", "parse_percents"]
