"""Purchase orders from a BOM, and the change between two of them.

An order has one line per BOM line: the orderable part number, its description, the quantity the design
needs, the spares a SparesRule adds (with the words saying how), the order quantity, the unit price from
one price-list version, the extended price and a lead time the user may fill. The same lines are split per
network and per scalable unit: a line's quantity as the engine's BOM pass split it (parts outside every SU,
such as spines, go to "outside"), its spares and its extended price shared out in proportion by largest
remainder, so every column of every split adds up to the order's own line, exactly.

`order_delta(old, new)` compares two orders line by line, and per network and SU: quantity, spares, order
quantity and money, each line added, removed, changed or unchanged. Money changes only when both sides are
priced in the same currency (null otherwise, never a guess).

Django-free: the API, the browser's compare page, change-order.csv and change-order.pdf all read these.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal

from .money import fmt_money, to_cents
from .spares import SparesRule

# The order BOM lines, change orders and pages list categories and networks in.
CATEGORY_ORDER = ("switch", "appliance", "transceiver", "copper", "aoc", "fiber", "trunk", "panel", "panel-insert")
CATEGORY_TITLE = {
    "switch": "Switches",
    "appliance": "Appliances",
    "transceiver": "Transceivers",
    "copper": "Copper cables",
    "aoc": "Active optical cables",
    "fiber": "Fiber cords",
    "trunk": "Fiber trunks",
    "panel": "Patch panels",
    "panel-insert": "Panel adapters and cassettes",
}
NETWORK_ORDER = ("compute", "storage", "inband", "oob")

NETWORK_TITLE = {
    "compute": "Compute fabric",
    "storage": "Storage fabric",
    "inband": "In-band management",
    "oob": "Out-of-band management",
    "unassigned": "Not assigned to a network",
}
OUTSIDE_SU = "outside"  # parts of no scalable unit (spines, cores, storage, management)
STATUSES = ("added", "removed", "changed", "unchanged")


def category_key(cat: str) -> tuple:
    return (CATEGORY_ORDER.index(cat) if cat in CATEGORY_ORDER else len(CATEGORY_ORDER), cat)


def network_key(net: str) -> tuple:
    if net == "unassigned":
        return (len(NETWORK_ORDER) + 1, net)
    return (NETWORK_ORDER.index(net) if net in NETWORK_ORDER else len(NETWORK_ORDER), net)


def su_key(su: str) -> tuple:
    return (1, 0, su) if su == OUTSIDE_SU else (0, int(su), "") if su.isdigit() else (0, 1 << 30, su)


def network_title(net: str) -> str:
    return NETWORK_TITLE.get(net, f"{net} network")


def su_title(su: str) -> str:
    return "Outside any SU (spines, cores, shared parts)" if su == OUTSIDE_SU else f"SU {su}"


def line_key(category: str, part: str) -> tuple:
    return (category_key(category), part)


@dataclass(frozen=True)
class OrderLine:
    """One part to order (or one part's share of a network's or SU's order)."""

    category: str
    part: str  # the orderable part number
    description: str
    quantity: int
    spares: int
    spares_rule: str  # the words of the rule that produced `spares`
    order_quantity: int
    unit_price: Decimal | None
    extended_price: Decimal | None  # unit_price x order_quantity, rounded half-up to the cent
    lead_time_days: int | None = None
    unconfirmed: str = ""  # why the part number or a figure needs checking before ordering ("" when confirmed)

    @property
    def key(self) -> tuple[str, str]:
        return (self.category, self.part)

    def to_dict(self, currency: str | None, price_version: int | None) -> dict:
        return {
            "part": self.part,
            "description": self.description,
            "category": self.category,
            "category_title": CATEGORY_TITLE.get(self.category, self.category),
            "quantity": self.quantity,
            "spares": self.spares,
            "spares_rule": self.spares_rule,
            "order_quantity": self.order_quantity,
            "unit_price": fmt_money(self.unit_price) if self.unit_price is not None else None,
            "extended_price": fmt_money(self.extended_price) if self.extended_price is not None else None,
            "currency": currency if self.unit_price is not None else None,
            "price_version": price_version if self.unit_price is not None else None,
            "lead_time_days": self.lead_time_days,
            "verify_before_ordering": bool(self.unconfirmed),
            "unconfirmed": self.unconfirmed,
        }

    @classmethod
    def from_dict(cls, d: Mapping) -> OrderLine:
        return cls(
            d["category"],
            d["part"],
            d.get("description", ""),
            int(d["quantity"]),
            int(d["spares"]),
            d.get("spares_rule", ""),
            int(d["order_quantity"]),
            _dec(d.get("unit_price")),
            _dec(d.get("extended_price")),
            d.get("lead_time_days"),
            d.get("unconfirmed") or "",
        )


def _dec(v) -> Decimal | None:
    return None if v is None or v == "" else Decimal(str(v))


@dataclass(frozen=True)
class Totals:
    lines: int
    quantity: int
    spares: int
    order_quantity: int
    extended_price: Decimal | None  # None unless every line is priced
    priced_lines: int

    def to_dict(self) -> dict:
        return {
            "lines": self.lines,
            "quantity": self.quantity,
            "spares": self.spares,
            "order_quantity": self.order_quantity,
            "extended_price": fmt_money(self.extended_price) if self.extended_price is not None else None,
            "priced_lines": self.priced_lines,
        }


def totals_of(lines: Iterable[OrderLine]) -> Totals:
    lines = list(lines)
    priced = [ln.extended_price for ln in lines if ln.extended_price is not None]
    return Totals(
        len(lines),
        sum(ln.quantity for ln in lines),
        sum(ln.spares for ln in lines),
        sum(ln.order_quantity for ln in lines),
        sum(priced, Decimal("0.00")) if len(priced) == len(lines) and lines else None,
        len(priced),
    )


@dataclass(frozen=True)
class Order:
    """A revision's purchase order: its lines, and the same lines split per network and per SU."""

    label: str  # "r3", or "r3 (ordered)"
    currency: str | None
    price_version: int | None
    price_source: str
    spares_rule: dict  # the rule's dict form (spares_rule_from_dict makes it back)
    spares_text: str
    lines: tuple[OrderLine, ...]
    by_network: dict[str, tuple[OrderLine, ...]] = field(default_factory=dict)
    by_su: dict[str, tuple[OrderLine, ...]] = field(default_factory=dict)

    @property
    def totals(self) -> Totals:
        return totals_of(self.lines)

    def to_dict(self) -> dict:
        cur, pv = self.currency, self.price_version
        return {
            "label": self.label,
            "currency": cur,
            "price_version": pv,
            "price_source": self.price_source,
            "spares_rule": {**self.spares_rule, "text": self.spares_text},
            "lines": [ln.to_dict(cur, pv) for ln in self.lines],
            "totals": self.totals.to_dict(),
            "by_network": [
                {
                    "network": n,
                    "title": network_title(n),
                    "lines": [ln.to_dict(cur, pv) for ln in ls],
                    "totals": totals_of(ls).to_dict(),
                }
                for n, ls in self.by_network.items()
            ],
            "by_su": [
                {
                    "su": s,
                    "title": su_title(s),
                    "lines": [ln.to_dict(cur, pv) for ln in ls],
                    "totals": totals_of(ls).to_dict(),
                }
                for s, ls in self.by_su.items()
            ],
        }

    @classmethod
    def from_dict(cls, d: Mapping) -> Order:
        rule = {k: v for k, v in (d.get("spares_rule") or {}).items() if k != "text"}
        return cls(
            d.get("label", ""),
            d.get("currency"),
            d.get("price_version"),
            d.get("price_source", ""),
            rule,
            (d.get("spares_rule") or {}).get("text", ""),
            tuple(OrderLine.from_dict(x) for x in d["lines"]),
            {g["network"]: tuple(OrderLine.from_dict(x) for x in g["lines"]) for g in d.get("by_network", [])},
            {g["su"]: tuple(OrderLine.from_dict(x) for x in g["lines"]) for g in d.get("by_su", [])},
        )

    def relabelled(self, label: str) -> Order:
        return replace(self, label=label)


# --- building an order --------------------------------------------------------------------------------------


def bom_split(bom) -> dict:
    """The per-network and per-SU quantities of a renderers.bom.Bom as plain data:
    {"networks": {network: {"category\\tpart": quantity}}, "sus": {"1": {...}}} (JSON-safe; what is stored)."""

    def flat(groups: Mapping) -> dict:
        return {
            str(g): {f"{cat}\t{sku}": int(q) for (cat, sku), q in sorted(c.items()) if q}
            for g, c in groups.items()
            if any(c.values())
        }

    return {"networks": flat(bom.by_network), "sus": flat(bom.by_su)}


def apportion(total: int, weights: list[int]) -> list[int]:
    """`total` shared out in proportion to `weights` by largest remainder (ties: the earlier one), so the shares
    are whole and add up to `total` exactly."""
    w = sum(weights)
    if not weights:
        return []
    if w <= 0:
        return [total] + [0] * (len(weights) - 1)
    base = [total * x // w for x in weights]
    rest = total - sum(base)
    order = sorted(range(len(weights)), key=lambda i: (-((total * weights[i]) % w), i))
    for i in order[:rest]:
        base[i] += 1
    return base


def build_order(
    bom_lines: Iterable[Mapping],
    *,
    rule: SparesRule,
    prices: Mapping[str, Decimal] | None = None,
    currency: str | None = None,
    price_version: int | None = None,
    price_source: str = "",
    split: Mapping | None = None,
    lead_times: Mapping[str, int] | None = None,
    label: str = "",
) -> Order:
    """The order for BOM lines (summary.json's "bom": category, sku, description, quantity).

    `split` is bom_split()'s dict; without it there are no per-network or per-SU groups. A part the split
    does not fully place goes to network "unassigned" and SU "outside", so groups always add up."""
    prices = {k: Decimal(str(v)) for k, v in (prices or {}).items()}
    lead_times = lead_times or {}
    lines = []
    for ln in sorted(bom_lines, key=lambda x: line_key(x["category"], x["sku"])):
        cat, sku, qty = ln["category"], ln["sku"], int(ln["quantity"])
        sp = rule.spares(category=cat, part=sku, quantity=qty)
        oq = qty + sp.count
        unit = prices.get(sku)
        ext = None if unit is None else to_cents(unit * oq)
        lines.append(
            OrderLine(
                cat,
                sku,
                ln.get("description") or "",
                qty,
                sp.count,
                sp.rule,
                oq,
                unit,
                ext,
                lead_times.get(sku),
                ln.get("unconfirmed") or "",
            )
        )
    by_network, by_su = {}, {}
    if split is not None:
        by_network = _groups(lines, split.get("networks") or {}, "unassigned", network_key)
        by_su = _groups(lines, split.get("sus") or {}, OUTSIDE_SU, su_key)
    return Order(
        label,
        currency if prices else None,
        price_version if prices else None,
        price_source if prices else "",
        rule.to_dict(),
        rule.describe(),
        tuple(lines),
        by_network,
        by_su,
    )


def _groups(lines: list[OrderLine], groups: Mapping[str, Mapping[str, int]], rest: str, sort_key) -> dict:
    out: dict[str, list] = {}
    for ln in lines:
        k = f"{ln.category}\t{ln.part}"
        names = [g for g in groups if groups[g].get(k)]
        qtys = [int(groups[g][k]) for g in names]
        placed = sum(qtys)
        if placed < ln.quantity:
            names.append(rest)
            qtys.append(ln.quantity - placed)
        elif placed > ln.quantity:  # never expected (the split comes from the same BOM pass); fail loudly
            raise ValueError(f"split: {ln.part} is split into {placed} but the BOM has {ln.quantity}")
        spares = apportion(ln.spares, qtys)
        oqs = [q + s for q, s in zip(qtys, spares)]
        cents = apportion(int(ln.extended_price * 100), oqs) if ln.extended_price is not None else [None] * len(oqs)
        for name, q, s, oq, c in zip(names, qtys, spares, oqs, cents):
            rule = f"{s} of the line's {ln.spares} spares, in proportion to quantity" if ln.spares else ln.spares_rule
            out.setdefault(name, []).append(
                OrderLine(
                    ln.category,
                    ln.part,
                    ln.description,
                    q,
                    s,
                    rule,
                    oq,
                    ln.unit_price,
                    None if c is None else (Decimal(c) / 100).quantize(Decimal("0.01")),
                    ln.lead_time_days,
                    ln.unconfirmed,
                )
            )
    return {name: tuple(out[name]) for name in sorted(out, key=sort_key)}


# --- deltas -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LineDelta:
    category: str
    part: str
    description: str
    status: str  # added | removed | changed | unchanged
    old: OrderLine | None
    new: OrderLine | None
    quantity: int
    spares: int
    order_quantity: int
    extended_price: Decimal | None  # None when either side is unpriced, or the currencies differ

    def to_dict(self) -> dict:
        def side(ln):
            return (
                None
                if ln is None
                else {
                    "quantity": ln.quantity,
                    "spares": ln.spares,
                    "spares_rule": ln.spares_rule,
                    "order_quantity": ln.order_quantity,
                    "unit_price": fmt_money(ln.unit_price) if ln.unit_price is not None else None,
                    "extended_price": fmt_money(ln.extended_price) if ln.extended_price is not None else None,
                }
            )

        return {
            "part": self.part,
            "description": self.description,
            "category": self.category,
            "category_title": CATEGORY_TITLE.get(self.category, self.category),
            "status": self.status,
            "old": side(self.old),
            "new": side(self.new),
            "delta": {
                "quantity": self.quantity,
                "spares": self.spares,
                "order_quantity": self.order_quantity,
                "extended_price": fmt_money(self.extended_price) if self.extended_price is not None else None,
            },
            "lead_time_days": self._either().lead_time_days,
        }

    def _either(self) -> OrderLine:
        line = self.new or self.old
        if line is None:
            raise ValueError(f"a delta line for {self.part} has neither an old nor a new side")
        return line


@dataclass(frozen=True)
class DeltaTotals:
    quantity: int
    spares: int
    order_quantity: int
    extended_price: Decimal | None
    counts: dict

    def to_dict(self) -> dict:
        return {
            "quantity": self.quantity,
            "spares": self.spares,
            "order_quantity": self.order_quantity,
            "extended_price": fmt_money(self.extended_price) if self.extended_price is not None else None,
            **{s: self.counts.get(s, 0) for s in STATUSES},
        }


def delta_totals(lines: Iterable[LineDelta]) -> DeltaTotals:
    lines = list(lines)
    money = [d.extended_price for d in lines]
    return DeltaTotals(
        sum(d.quantity for d in lines),
        sum(d.spares for d in lines),
        sum(d.order_quantity for d in lines),
        None if any(m is None for m in money) else sum((m for m in money if m is not None), Decimal("0.00")),
        dict(Counter(d.status for d in lines)),
    )


@dataclass(frozen=True)
class OrderDelta:
    old: Order
    new: Order
    lines: tuple[LineDelta, ...]
    by_network: dict[str, tuple[LineDelta, ...]]
    by_su: dict[str, tuple[LineDelta, ...]]

    @property
    def money_comparable(self) -> bool:
        return _money_comparable(self.old, self.new)

    @property
    def totals(self) -> DeltaTotals:
        return delta_totals(self.lines)

    def changed(self) -> list[LineDelta]:
        return [d for d in self.lines if d.status != "unchanged"]

    def money_withheld(self) -> str:
        """Why the money change is not given, in words naming what keeps it back ("" when it is given): a side
        without prices, two currencies, or the part numbers unpriced on a side."""
        if self.totals.extended_price is not None:
            return ""
        if self.old.currency is None or self.new.currency is None:
            sides = [o.label for o in (self.old, self.new) if o.currency is None]
            return f"{' and '.join(sides)} {'is' if len(sides) == 1 else 'are'} not priced"
        if self.old.currency != self.new.currency:
            return f"{self.old.label} is priced in {self.old.currency}, {self.new.label} in {self.new.currency}"
        parts = sorted({d.part for d in self.lines if d.extended_price is None})
        shown = ", ".join(parts[:8]) + (f" and {len(parts) - 8} more" if len(parts) > 8 else "")
        return f"{len(parts)} part{'s' if len(parts) != 1 else ''} without a price on one side: {shown}"

    def to_dict(self) -> dict:
        nc = self.new.currency

        def side(o: Order) -> dict:
            return {
                "label": o.label,
                "currency": o.currency,
                "price_version": o.price_version,
                "price_source": o.price_source,
                "spares_rule": {**o.spares_rule, "text": o.spares_text},
                "totals": o.totals.to_dict(),
            }

        return {
            "old": side(self.old),
            "new": side(self.new),
            "currency": nc if self.money_comparable else None,
            "lines": [d.to_dict() for d in self.lines],
            "totals": self.totals.to_dict(),
            "by_network": [
                {
                    "network": n,
                    "title": network_title(n),
                    "lines": [d.to_dict() for d in ds],
                    "totals": delta_totals(ds).to_dict(),
                }
                for n, ds in self.by_network.items()
            ],
            "by_su": [
                {
                    "su": s,
                    "title": su_title(s),
                    "lines": [d.to_dict() for d in ds],
                    "totals": delta_totals(ds).to_dict(),
                }
                for s, ds in self.by_su.items()
            ],
        }


def _money_comparable(old: Order, new: Order) -> bool:
    return old.currency is not None and old.currency == new.currency


def _delta_lines(old: Iterable[OrderLine], new: Iterable[OrderLine], money: bool) -> tuple[LineDelta, ...]:
    a = {ln.key: ln for ln in old}
    b = {ln.key: ln for ln in new}
    out = []
    for key in sorted(set(a) | set(b), key=lambda k: line_key(*k)):
        o, n = a.get(key), b.get(key)
        if o is None:
            status = "added"
        elif n is None:
            status = "removed"
        elif (o.quantity, o.spares, o.order_quantity, o.unit_price) != (
            n.quantity,
            n.spares,
            n.order_quantity,
            n.unit_price,
        ):
            status = "changed"
        else:
            status = "unchanged"

        def fig(ln, name):
            return getattr(ln, name) if ln is not None else 0

        oe = Decimal("0.00") if o is None else o.extended_price
        ne = Decimal("0.00") if n is None else n.extended_price
        dm = ne - oe if money and oe is not None and ne is not None else None
        ref = n or o
        if ref is None:  # a part key comes from one of the two orders
            raise ValueError(f"{key} is in neither order")
        out.append(
            LineDelta(
                ref.category,
                ref.part,
                ref.description,
                status,
                o,
                n,
                fig(n, "quantity") - fig(o, "quantity"),
                fig(n, "spares") - fig(o, "spares"),
                fig(n, "order_quantity") - fig(o, "order_quantity"),
                dm,
            )
        )
    return tuple(out)


def order_delta(old: Order, new: Order) -> OrderDelta:
    """Line by line (and per network and SU) from `old` to `new`."""
    money = _money_comparable(old, new)

    def groups(a: dict, b: dict, sort_key) -> dict:
        return {g: _delta_lines(a.get(g, ()), b.get(g, ()), money) for g in sorted(set(a) | set(b), key=sort_key)}

    return OrderDelta(
        old,
        new,
        _delta_lines(old.lines, new.lines, money),
        groups(old.by_network, new.by_network, network_key),
        groups(old.by_su, new.by_su, su_key),
    )


def iter_group_deltas(delta: OrderDelta) -> Iterator[tuple[str, str, str, tuple[LineDelta, ...]]]:
    """("network" | "su", key, title, lines) for every group, networks first."""
    for n, ds in delta.by_network.items():
        yield "network", n, network_title(n), ds
    for s, ds in delta.by_su.items():
        yield "su", s, su_title(s), ds
