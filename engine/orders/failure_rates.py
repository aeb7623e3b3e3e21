"""The failure-rate spares rule: enough spares to cover the failures expected while a replacement is on its way.

Per part category an annualized failure rate (AFR, % of installed units per year), a replenishment time
(hours from a failure until its replacement is back on the shelf) and a service level (the chance that the
shelf covers every failure in one replenishment time). Failures of n independent units over T hours are
Poisson with mean

    lambda = n x AFR/100 x T / 8760 h

and the spares for a line are the smallest k with P(N <= k) >= service level: the Poisson quantile.

The shipped defaults (data/failure-rates.yaml) are placeholders, not rates: the reference has no per-part
AFR (docs/data-gaps.md, "Spares from failure rates"), so every page showing this rule says they are
defaults to set.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import yaml

from .spares import SPARES_RULES, Spares, category_map, finite_decimal

if TYPE_CHECKING:
    from collections.abc import Collection

DEFAULTS_FILE = Path(__file__).with_name("data") / "failure-rates.yaml"
HOURS_PER_YEAR = Decimal(8760)
FIELDS = ("afr_percent", "replenish_hours", "service_level_percent")
# (lowest, highest, lowest allowed?, highest allowed?): a service level of 100 % would need infinite spares.
_BOUNDS = {
    "afr_percent": (Decimal(0), Decimal(1000), True, True),
    "replenish_hours": (Decimal(0), Decimal(87600), True, True),
    "service_level_percent": (Decimal(0), Decimal(100), False, False),
}
_WORDS = {
    "afr_percent": "an annual failure rate in percent",
    "replenish_hours": "a replenishment time in hours",
    "service_level_percent": "a service level in percent, above 0 and below 100",
}


def poisson_quantile(mean: float, level: float) -> int:
    """The smallest k with P(N <= k) >= level for N ~ Poisson(mean). Sums the terms in log space so a mean
    beyond ~700 (where e^-mean underflows) still counts up from the first representable term."""
    if mean <= 0:
        return 0
    log_mean = math.log(mean)
    log_p = -mean
    cdf = math.exp(log_p)
    k = 0
    limit = mean + 60 * math.sqrt(mean) + 60  # far beyond any service level below 100 %
    while cdf < level and k < limit:
        k += 1
        log_p += log_mean - math.log(k)
        cdf += math.exp(log_p)
    return k


@cache
def _shipped_defaults() -> dict[str, dict[str, Decimal]]:
    raw = yaml.safe_load(DEFAULTS_FILE.read_text(encoding="utf-8"))["defaults"]
    return {f: {str(cat): Decimal(str(v[f])) for cat, v in raw.items()} for f in FIELDS}


def default_inputs() -> dict[str, dict[str, Decimal]]:
    """{field: {category: value}} as shipped (placeholders: see the module docstring)."""
    return {f: dict(v) for f, v in _shipped_defaults().items()}


def parse_category_values(raw: Collection[Any], what: str, field_name: str) -> dict[str, Decimal]:
    """{category: value} from a number (every category, "*"), a mapping, or text such as "2" or
    "transceiver:2,switch:0.5,*:1". ValueError naming `what` for anything else or out of bounds."""
    raw = category_map(raw, what, whole=_WORDS[field_name], pair="category:value")
    lo, hi, lo_ok, hi_ok = _BOUNDS[field_name]
    out = {}
    for k, v in raw.items():
        d = finite_decimal(v, what)
        if d < lo or d > hi or (d == lo and not lo_ok) or (d == hi and not hi_ok):
            # the words carry an open bound themselves ("above 0 and below 100"); a closed range says its ends
            ends = "" if not (lo_ok and hi_ok) else f" (from {lo} to {hi})"
            raise ValueError(f"{what}: {v!r} is not {_WORDS[field_name]}{ends}")
        if len(str(k)) > 32 or not str(k):
            raise ValueError(f"{what}: category {str(k)[:32]!r} must have 1 to 32 characters")
        out[str(k)] = d
    return out


def _text(d: Decimal) -> str:
    return format(d.normalize(), "f") if d else "0"


@dataclass(frozen=True)
class CategoryInputs:
    afr_percent: Decimal
    replenish_hours: Decimal
    service_level_percent: Decimal

    def expected_failures(self, quantity: int) -> Decimal:
        return Decimal(quantity) * self.afr_percent / 100 * self.replenish_hours / HOURS_PER_YEAR

    def failures_per_year(self, quantity: int) -> Decimal:
        """Failures expected in a year among `quantity` installed units: what a site plans RMAs and visits by."""
        return Decimal(quantity) * self.afr_percent / 100


@dataclass(frozen=True)
class FailureRatePerCategory:
    """Spares per line from the Poisson quantile of its expected failures over the replenishment time.

    Each field maps category -> value; "*" is any category not listed. Build it with `with_defaults` so a
    rule is whole (every shipped category and "*") and its dict form never depends on today's defaults."""

    kind: ClassVar[str] = "failure-rate"
    afr_percent: Mapping[str, Decimal] = field(default_factory=dict)
    replenish_hours: Mapping[str, Decimal] = field(default_factory=dict)
    service_level_percent: Mapping[str, Decimal] = field(default_factory=dict)

    @classmethod
    def with_defaults(
        cls,
        afr_percent: Mapping[str, Decimal] | None = None,
        replenish_hours: Mapping[str, Decimal] | None = None,
        service_level_percent: Mapping[str, Decimal] | None = None,
    ) -> FailureRatePerCategory:
        """The shipped defaults overridden by what is given: a category's own value, else the given "*",
        else the default for the category, else the default "*"."""
        given = {
            "afr_percent": afr_percent,
            "replenish_hours": replenish_hours,
            "service_level_percent": service_level_percent,
        }
        merged = {}
        for f, defaults in default_inputs().items():
            user = dict(given[f] or {})
            cats = set(defaults) | set(user)
            merged[f] = {c: user.get(c, user.get("*", defaults.get(c, defaults["*"]))) for c in cats}
        return cls(**merged)

    @classmethod
    def from_text(cls, *, afr: str = "", hours: str = "", level: str = "") -> FailureRatePerCategory:
        """From the three texts a form or query gives (empty: the defaults); ValueError names the field."""
        return cls.with_defaults(
            parse_category_values(afr, "spares_afr_percent", "afr_percent") if afr.strip() else None,
            parse_category_values(hours, "spares_replenish_hours", "replenish_hours") if hours.strip() else None,
            parse_category_values(level, "spares_service_level_percent", "service_level_percent")
            if level.strip()
            else None,
        )

    @classmethod
    def from_dict(cls, d: Mapping) -> FailureRatePerCategory:
        parsed = {}
        for f in FIELDS:
            raw = d.get(f, {})
            if not isinstance(raw, Mapping):
                raise ValueError(f"spares.{f}: a mapping of category to value")
            parsed[f] = parse_category_values(raw, f"spares.{f}", f)
        if all("*" in parsed[f] for f in FIELDS):
            return cls(**parsed)  # a whole rule (to_dict's form): today's defaults never change it
        return cls.with_defaults(**parsed)

    def inputs_for(self, category: str) -> CategoryInputs:
        def pick(m: Mapping[str, Decimal], f: str) -> Decimal:
            if category in m:
                return m[category]
            if "*" in m:
                return m["*"]
            return _shipped_defaults()[f]["*"]

        return CategoryInputs(
            pick(self.afr_percent, "afr_percent"),
            pick(self.replenish_hours, "replenish_hours"),
            pick(self.service_level_percent, "service_level_percent"),
        )

    def is_default(self, category: str) -> bool:
        """True when every input for the category is the shipped placeholder."""
        shipped = _shipped_defaults()
        mine = self.inputs_for(category)
        return all(getattr(mine, f) == shipped[f].get(category, shipped[f]["*"]) for f in FIELDS)

    def spares(self, *, category: str, part: str, quantity: int) -> Spares:  # noqa: ARG002 - SparesRule's signature
        i = self.inputs_for(category)
        if quantity <= 0 or not i.afr_percent or not i.replenish_hours:
            return Spares(0, f"no expected failures of {category}")
        lam = i.expected_failures(quantity)
        n = poisson_quantile(float(lam), float(i.service_level_percent / 100))
        return Spares(
            n,
            f"Poisson {_text(i.service_level_percent)} % quantile of {float(lam):.3g} expected failures "
            f"({quantity} x {_text(i.afr_percent)} %/year x {_text(i.replenish_hours)} h / 8760 h)",
        )

    def to_dict(self) -> dict:
        out: dict = {"kind": self.kind}
        for f in FIELDS:
            out[f] = {k: _text(v) for k, v in sorted(getattr(self, f).items())}
        return out

    def describe(self) -> str:
        i = self.inputs_for("*")
        own = sorted(c for c in set(self.afr_percent) | set(self.replenish_hours) if c != "*")
        parts = []
        for c in own:
            ci = self.inputs_for(c)
            if ci != i:
                parts.append(
                    f"{c} {_text(ci.afr_percent)} %/year, {_text(ci.replenish_hours)} h, "
                    f"{_text(ci.service_level_percent)} %"
                )
        base = (
            f"spares per line from failure rates (Poisson quantile of the failures expected in the replenishment "
            f"time): {_text(i.afr_percent)} %/year, {_text(i.replenish_hours)} h, "
            f"{_text(i.service_level_percent)} % service level"
        )
        return base + ("; " + "; ".join(parts) if parts else "")


__all__ = [
    "FailureRatePerCategory",
    "CategoryInputs",
    "poisson_quantile",
    "parse_category_values",
    "default_inputs",
    "spares_beside",
    "failures_per_year",
    "failures_text",
    "DEFAULTS_NOTE",
    "HOURS_PER_YEAR",
]

DEFAULTS_NOTE = (
    "The failure rates, replenishment times and service levels marked default are placeholders to set: the "
    "reference gives no per-part failure rate (docs/data-gaps.md, Spares from failure rates)."
)


def spares_beside(bom: Iterable[Mapping], *, percent: Any, failure: FailureRatePerCategory) -> list[dict]:
    """Per BOM line ({"category", "sku", "quantity"}), the flat-percent spares beside the failure-rate spares
    with every input of both: what a buyer compares before choosing a rule."""
    rows = []
    for ln in bom:
        cat, part, qty = str(ln["category"]), str(ln["sku"]), int(ln["quantity"])
        i = failure.inputs_for(cat)
        flat = percent.spares(category=cat, part=part, quantity=qty)
        rate = failure.spares(category=cat, part=part, quantity=qty)
        rows.append(
            {
                "part": part,
                "category": cat,
                "quantity": qty,
                "percent": _text(percent.percent_for(cat)),
                "percent_spares": flat.count,
                "afr_percent": _text(i.afr_percent),
                "replenish_hours": _text(i.replenish_hours),
                "service_level_percent": _text(i.service_level_percent),
                "expected_failures": round(float(i.expected_failures(qty)), 4),
                "failures_per_year": round(float(i.failures_per_year(qty)), 4),
                "failure_rate_spares": rate.count,
                "defaults": failure.is_default(cat),
                "failure_rate_rule": rate.rule,
            }
        )
    return rows


@cache
def _default_rates() -> FailureRatePerCategory:
    return FailureRatePerCategory.with_defaults()


def failures_per_year(rule: Any, *, category: str, quantity: int) -> Decimal:
    """Failures expected in a year among `quantity` units of a category, beside any spares line: at the failure-rate
    rule's rates when that is the rule, else at the shipped rates (placeholders: DEFAULTS_NOTE)."""
    rates = rule if isinstance(rule, FailureRatePerCategory) else _default_rates()
    return rates.inputs_for(category).failures_per_year(quantity)


def failures_text(value: Decimal) -> str:
    """A failures-per-year figure as the files print it (4 decimals at most, no trailing zeros)."""
    return _text(value.quantize(Decimal("0.0001")))


SPARES_RULES[FailureRatePerCategory.kind] = FailureRatePerCategory.from_dict
