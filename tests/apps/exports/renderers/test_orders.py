"""Purchase orders, spares rules, order deltas and the change order (Django-free: runs under -p no:django)."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_HALF_UP, Decimal
from typing import ClassVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apps.exports.renderers.changeorder import CHANGE_ORDER_COLUMNS, iter_change_order_csv, render_change_order_pdf
from engine.orders.lines import (
    OUTSIDE_SU,
    Order,
    apportion,
    bom_split,
    build_order,
    order_delta,
    totals_of,
)
from engine.orders.money import fmt_money
from engine.orders.spares import (
    SPARES_RULES,
    PercentPerCategory,
    Spares,
    parse_percents,
    spares_rule_from_dict,
)

CATEGORIES = ("switch", "transceiver", "copper", "fiber")
PARTS = [f"P{i}" for i in range(8)]
NETWORKS = ("compute", "storage", "inband")
SUS = ("1", "2", "3")


# --- spares rules -------------------------------------------------------------------------------------------


def test_the_percent_rule_rounds_up_per_line_and_says_so():
    rule = PercentPerCategory(parse_percents("transceiver:2,fiber:5"))
    assert rule.spares(category="fiber", part="X", quantity=168) == Spares(9, "5 % of fiber, rounded up")  # 8.4
    assert rule.spares(category="transceiver", part="X", quantity=50).count == 1
    assert rule.spares(category="switch", part="X", quantity=66) == Spares(0, "no spares for switch")
    assert rule.describe() == "spares per line, rounded up: fiber 5 %, transceiver 2 %"


def test_a_star_covers_the_other_categories_and_a_rule_survives_its_dict_form():
    rule = PercentPerCategory(parse_percents({"*": "1", "fiber": 5}))
    assert rule.spares(category="switch", part="X", quantity=66).count == 1
    back = spares_rule_from_dict(rule.to_dict())
    assert back == rule and back.to_dict() == {"kind": "percent-per-category", "percents": {"*": "1", "fiber": "5"}}


@pytest.mark.parametrize("bad", ["-1", "abc", "1001", "fiber", "fiber:x", ":5", "nan", True])
def test_bad_spares_percentages_are_refused_by_name(bad):
    with pytest.raises(ValueError, match=r"^spares_percent: "):
        parse_percents(bad)


def test_an_unknown_rule_kind_is_refused_naming_the_known_ones():
    with pytest.raises(
        ValueError, match=r"spares.kind: unknown rule 'mtbf'; known: failure-rate, percent-per-category"
    ):
        spares_rule_from_dict({"kind": "mtbf"})


@dataclass(frozen=True)
class FailureRate:
    """What a later failure-rate rule looks like: spares from an annual failure rate over a horizon."""

    kind: ClassVar[str] = "toy-failure-rate"
    afr_percent: Decimal = Decimal(2)
    years: int = 3

    @classmethod
    def from_dict(cls, d):
        return cls(Decimal(d["afr_percent"]), int(d["years"]))

    def spares(self, *, category, part, quantity):
        n = int((Decimal(quantity) * self.afr_percent * self.years / 100).to_integral_value(ROUND_CEILING))
        return Spares(n, f"{self.afr_percent} %/year over {self.years} years")

    def to_dict(self):
        return {"kind": self.kind, "afr_percent": str(self.afr_percent), "years": self.years}

    def describe(self):
        return f"failure rate {self.afr_percent} %/year over {self.years} years"


def test_another_rule_plugs_in_through_the_registry(monkeypatch):
    monkeypatch.setitem(SPARES_RULES, FailureRate.kind, FailureRate.from_dict)
    rule = spares_rule_from_dict({"kind": "toy-failure-rate", "afr_percent": "2", "years": 3})
    order = build_order([{"category": "transceiver", "sku": "T", "quantity": 100}], rule=rule)
    line = order.lines[0]
    assert (line.spares, line.order_quantity, line.spares_rule) == (6, 106, "2 %/year over 3 years")
    assert Order.from_dict(order.to_dict()).spares_rule == rule.to_dict()


# --- orders -------------------------------------------------------------------------------------------------


def test_apportion_shares_out_exactly_in_proportion():
    assert apportion(9, [128, 40]) == [7, 2]
    assert apportion(0, [5, 5]) == [0, 0]
    assert apportion(3, [1, 1, 1, 1]) == [1, 1, 1, 0]
    assert apportion(5, [0, 0]) == [5, 0]


def test_an_order_prices_each_line_and_names_its_version():
    order = build_order(
        [{"category": "switch", "sku": "MQM9700-NS2F", "quantity": 12, "description": "Quantum-2"}],
        rule=PercentPerCategory(parse_percents("5")),
        prices={"MQM9700-NS2F": Decimal("0.125")},
        currency="EUR",
        price_version=3,
        price_source="price list v3",
    )
    d = order.to_dict()["lines"][0]
    assert (d["quantity"], d["spares"], d["order_quantity"]) == (12, 1, 13)
    assert (d["unit_price"], d["extended_price"], d["currency"], d["price_version"]) == ("0.125", "1.63", "EUR", 3)


# --- the property: deltas are differences -------------------------------------------------------------------


def _line_sets():
    line = st.tuples(st.sampled_from(CATEGORIES), st.sampled_from(PARTS), st.integers(0, 3000))
    return st.lists(line, max_size=8, unique_by=lambda t: t[1])


def _splits(lines, draw):
    """A per-network and per-SU split of `lines` that places at most each line's quantity."""
    nets, sus = {}, {}
    for cat, sku, q in lines:
        key = f"{cat}\t{sku}"
        for groups, names in ((nets, NETWORKS), (sus, SUS)):
            left = q
            for name in names:
                n = draw(st.integers(0, left))
                left -= n
                if n:
                    groups.setdefault(name, {})[key] = n
    return {"networks": nets, "sus": sus}


percents = st.dictionaries(
    st.sampled_from((*CATEGORIES, "*")), st.decimals(min_value=0, max_value=50, places=2), max_size=4
)
price = st.decimals(min_value=0, max_value=100000, places=3)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    old_lines=_line_sets(),
    new_lines=_line_sets(),
    pct_old=percents,
    pct_new=percents,
    prices=st.dictionaries(st.sampled_from(PARTS), price),
    new_prices=st.dictionaries(st.sampled_from(PARTS), price),
    same_currency=st.booleans(),
)
def test_every_order_delta_is_the_difference_of_the_two_orders(
    data, old_lines, new_lines, pct_old, pct_new, prices, new_prices, same_currency
):
    """For random pairs of BOMs, splits, prices and spares percents: each line's order delta is the difference of
    its two order quantities (a missing side counts 0), its money delta that of its extended prices (none when a
    side is unpriced or the currencies differ), the same holds per network and SU, and every split adds up to its
    order exactly."""

    def order(lines, pct, pr, cur):
        bom = [{"category": c, "sku": s, "quantity": q} for c, s, q in lines]
        return build_order(
            bom, rule=PercentPerCategory(pct), prices=pr, currency=cur, price_version=1, split=_splits(lines, data.draw)
        )

    old = order(old_lines, pct_old, prices, "USD")
    new = order(new_lines, pct_new, {**prices, **new_prices}, "USD" if same_currency else "EUR")
    for o in (old, new):
        for groups in (o.by_network, o.by_su):
            for line in o.lines:
                shares = [g for lines in groups.values() for g in lines if g.key == line.key]
                assert sum(g.quantity for g in shares) == line.quantity
                assert sum(g.spares for g in shares) == line.spares
                assert sum(g.order_quantity for g in shares) == line.order_quantity
                if line.extended_price is not None:
                    assert sum(g.extended_price for g in shares) == line.extended_price
            if o.lines:
                assert sum(totals_of(ls).order_quantity for ls in groups.values()) == o.totals.order_quantity
        for line in o.lines:
            pct = PercentPerCategory(pct_old if o is old else pct_new).percent_for(line.category)
            assert line.spares == int((Decimal(line.quantity) * pct / 100).to_integral_value(ROUND_CEILING))
            if line.unit_price is not None:
                assert line.extended_price == (line.unit_price * line.order_quantity).quantize(
                    Decimal("0.01"), ROUND_HALF_UP
                )

    delta = order_delta(old, new)
    # an order without any price has no currency: money compares only between two priced in the same one
    comparable = same_currency and bool(prices)
    assert old.currency == ("USD" if prices else None)

    def check(deltas, old_lines, new_lines):
        a = {ln.key: ln for ln in old_lines}
        b = {ln.key: ln for ln in new_lines}
        assert {(d.category, d.part) for d in deltas} == set(a) | set(b)
        for d in deltas:
            o, n = a.get((d.category, d.part)), b.get((d.category, d.part))
            assert d.order_quantity == (n.order_quantity if n else 0) - (o.order_quantity if o else 0)
            assert d.quantity == (n.quantity if n else 0) - (o.quantity if o else 0)
            assert d.spares == (n.spares if n else 0) - (o.spares if o else 0)
            assert d.status == ("added" if o is None else "removed" if n is None else d.status)
            oe = o.extended_price if o else Decimal(0)
            ne = n.extended_price if n else Decimal(0)
            if comparable and oe is not None and ne is not None:
                assert d.extended_price == ne - oe
            else:
                assert d.extended_price is None

    check(delta.lines, old.lines, new.lines)
    for groups, a, b in ((delta.by_network, old.by_network, new.by_network), (delta.by_su, old.by_su, new.by_su)):
        for name, deltas in groups.items():
            check(deltas, a.get(name, ()), b.get(name, ()))
    # the JSON form says the same
    body = delta.to_dict()
    for d, j in zip(delta.lines, body["lines"]):
        assert j["delta"]["order_quantity"] == d.order_quantity
        assert j["delta"]["extended_price"] == (None if d.extended_price is None else fmt_money(d.extended_price))


# --- a real design: 127 servers -> 95 -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def shrink():
    from apps.exports.renderers.bom import compute_bom
    from engine.pipeline import compute_design
    from engine.presets import load_preset
    from engine.spec import parse_spec

    out = []
    for n in (127, 95):
        spec = load_preset("dgx-h100-superpod-4su")
        spec["servers"]["count"] = n
        result = compute_design(parse_spec(spec))
        out.append((result, bom_split(compute_bom(result))))
    return out


def _order(result, split, pct="5", label=""):
    return build_order(
        result.summary["bom"],
        rule=PercentPerCategory(parse_percents(pct)),
        split=split,
        label=label,
        prices={"MFP7E10-N030": Decimal("96.50"), "MQM9700-NS2F": Decimal("31000")},
        currency="USD",
        price_version=2,
        price_source="price list v2",
    )


def test_the_split_of_a_real_design_adds_up_to_its_bom(shrink):
    result, split = shrink[0]
    order = _order(result, split)
    for groups in (order.by_network, order.by_su):
        assert sum(totals_of(ls).quantity for ls in groups.values()) == order.totals.quantity
        assert sum(totals_of(ls).spares for ls in groups.values()) == order.totals.spares
        assert sum(totals_of(ls).order_quantity for ls in groups.values()) == order.totals.order_quantity
    assert list(order.by_su) == ["1", "2", "3", "4", OUTSIDE_SU]
    assert next(iter(order.by_network)) == "compute"


def test_a_cord_that_disappears_reads_as_removed_with_its_negative_quantity_and_money(shrink):
    (r127, s127), (r95, s95) = shrink
    delta = order_delta(_order(r127, s127, label="r1"), _order(r95, s95, label="r2"))
    cord = next(d for d in delta.lines if d.part == "MFP7E10-N030")
    assert (cord.status, cord.quantity, cord.spares, cord.order_quantity) == ("removed", -168, -9, -177)
    assert cord.extended_price == Decimal("-17080.50")  # 177 x 96.50
    # with spares, every changed line's order delta differs from its quantity delta
    changed = [d for d in delta.lines if d.quantity and d.category != "switch"]
    assert changed and sum(d.order_quantity - d.quantity for d in changed) != 0


def test_the_change_order_csv_lists_removed_cords_with_negative_changes(shrink):
    (r127, s127), (r95, s95) = shrink
    delta = order_delta(_order(r127, s127, label="r1"), _order(r95, s95, label="r2"))
    rows = list(csv.DictReader(io.StringIO("".join(iter_change_order_csv(delta)))))
    assert list(rows[0]) == list(CHANGE_ORDER_COLUMNS)
    line = next(r for r in rows if r["section"] == "line" and r["part"] == "MFP7E10-N030")
    assert (line["status"], line["delta_quantity"], line["delta_order_quantity"]) == ("removed", "-168", "-177")
    assert (line["old_extended_price"], line["new_extended_price"], line["delta_extended_price"]) == (
        "17080.50",
        "",
        "-17080.50",
    )
    per_network = [r for r in rows if r["section"] == "network" and r["part"] == "MFP7E10-N030"]
    assert sum(int(r["delta_order_quantity"]) for r in per_network) == -177
    total = next(r for r in rows if r["section"] == "total")
    assert int(total["delta_order_quantity"]) == sum(
        int(r["delta_order_quantity"]) for r in rows if r["section"] == "line"
    )
    assert not any(r["status"] == "unchanged" for r in rows if r["section"] == "line")


def test_the_change_order_pdf_shows_the_same_changes(shrink):
    from pypdf import PdfReader

    (r127, s127), (r95, s95) = shrink
    delta = order_delta(_order(r127, s127, label="r1"), _order(r95, s95, label="r2"))
    fh = io.BytesIO()
    pages = render_change_order_pdf(delta, fh, design="shrink", date="2026-12-01")
    reader = PdfReader(io.BytesIO(fh.getvalue()))
    assert len(reader.pages) == pages >= 1
    text = " ".join(p.extract_text() for p in reader.pages)
    assert "MFP7E10-N030" in text and "-177" in text and "-17080.50" in text
    assert "Change order: r1 to r2" in text


def test_the_change_order_csv_never_lets_a_description_run_as_a_formula():
    rule = PercentPerCategory({})
    old = build_order(
        [{"category": "fiber", "sku": "X", "quantity": 4, "description": '=HYPERLINK("x")'}], rule=rule, label="r1"
    )
    new = build_order([], rule=rule, label="r2")
    rows = list(csv.DictReader(io.StringIO("".join(iter_change_order_csv(order_delta(old, new))))))
    line = next(r for r in rows if r["section"] == "line")
    assert line["description"] == '\'=HYPERLINK("x")' and line["delta_quantity"] == "-4"
    raw = list(csv.DictReader(io.StringIO("".join(iter_change_order_csv(order_delta(old, new), raw=True)))))
    assert next(r for r in raw if r["section"] == "line")["description"] == '=HYPERLINK("x")'


def test_bom_csv_per_network_and_su_rows_carry_the_orders_shares_and_add_up(design):
    """bom.csv's network and su rows hold the same shares of spares, order quantity and price as the API's order,
    so each section adds up, column by column, to the order rows."""
    from apps.exports.renderers import iter_bom_csv

    options = {
        "prices": {"MQM9700-NS2F": "31000", "MMA4Z00-NS": "900.50"},
        "currency": "EUR",
        "spares_percent": {"transceiver": 2, "fiber": 5, "*": 1},
    }
    rows = list(csv.DictReader(line for line in iter_bom_csv(design, options) if not line.startswith("#")))
    order = {r["sku"]: r for r in rows if r["section"] == "order"}
    for section in ("network", "su"):
        part_rows = [r for r in rows if r["section"] == section and r["category"] != "server"]
        for sku, o in order.items():
            mine = [r for r in part_rows if r["sku"] == sku]
            assert sum(int(r["quantity"]) for r in mine) == int(o["quantity"]), (section, sku)
            assert sum(int(r["spares"]) for r in mine) == int(o["spares"]), (section, sku)
            assert sum(int(r["order_quantity"]) for r in mine) == int(o["order_quantity"]), (section, sku)
            if o["extended_price"]:
                assert sum(Decimal(r["extended_price"]) for r in mine) == Decimal(o["extended_price"]), (section, sku)
    assert any(r["su"] == OUTSIDE_SU for r in rows if r["section"] == "su")


def test_a_withheld_money_change_names_the_unpriced_parts_or_the_currencies():
    """Both sides priced in USD but one part has no price: the change order names that part, not "a side"."""
    rule = PercentPerCategory(parse_percents("0"))
    bom = [
        {"category": "switch", "sku": "QM9700", "quantity": 2},
        {"category": "cable", "sku": "CORD-3M", "quantity": 8},
    ]
    usd = {"prices": {"QM9700": "30000"}, "currency": "USD"}
    old = build_order(bom, rule=rule, label="r1", **usd)
    new = build_order([{**bom[0], "quantity": 3}, bom[1]], rule=rule, label="r2", **usd)
    assert order_delta(old, new).money_withheld() == "1 part without a price on one side: CORD-3M"
    eur = build_order(bom, rule=rule, label="r2", prices={"QM9700": "1", "CORD-3M": "1"}, currency="EUR")
    assert order_delta(old, eur).money_withheld() == "r1 is priced in USD, r2 in EUR"
    bare = build_order(bom, rule=rule, label="r0")
    assert order_delta(bare, eur).money_withheld() == "r0 is not priced"
    priced = {"prices": {"QM9700": "30000", "CORD-3M": "40"}, "currency": "USD"}
    full = order_delta(
        build_order(bom, rule=rule, label="r1", **priced), build_order(bom, rule=rule, label="r2", **priced)
    )
    assert full.money_withheld() == ""
