"""change-order.csv and change-order.pdf: what to add to, or take off, an order already placed.

Both are made from one orders.OrderDelta, the same the API's order-delta and the browser's compare page
show: every part that changed (added, removed, changed in quantity, spares or price) with its old and new
figures and the signed change, per network and per SU after the whole order. Prices in the one price
format (money.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO

from engine.orders.lines import LineDelta, OrderDelta, delta_totals, iter_group_deltas
from engine.orders.money import fmt_money, fmt_signed, fmt_signed_money

from ._csv import csv_lines
from ._pdf import SANS, Column, DocInfo, FlowDoc, Heading, Lines, Table, page_size

CHANGE_ORDER_COLUMNS = (
    "section",
    "group",
    "status",
    "category",
    "part",
    "description",
    "old_quantity",
    "new_quantity",
    "delta_quantity",
    "old_spares",
    "new_spares",
    "delta_spares",
    "old_order_quantity",
    "new_order_quantity",
    "delta_order_quantity",
    "currency",
    "old_unit_price",
    "new_unit_price",
    "old_extended_price",
    "new_extended_price",
    "delta_extended_price",
    "lead_time_days",
    "spares_rule",
)


def _row(section: str, group: str, d: LineDelta, currency: str) -> tuple:
    o, n = d.old, d.new

    def f(ln, name):
        return "" if ln is None else getattr(ln, name)

    def m(ln, name):
        return "" if ln is None else fmt_money(getattr(ln, name))

    return (
        section,
        group,
        d.status,
        d.category,
        d.part,
        d.description,
        f(o, "quantity") if o else 0,
        f(n, "quantity") if n else 0,
        d.quantity,
        f(o, "spares") if o else 0,
        f(n, "spares") if n else 0,
        d.spares,
        f(o, "order_quantity") if o else 0,
        f(n, "order_quantity") if n else 0,
        d.order_quantity,
        currency if d.extended_price is not None else "",
        m(o, "unit_price"),
        m(n, "unit_price"),
        m(o, "extended_price"),
        m(n, "extended_price"),
        fmt_money(d.extended_price),
        "" if (n or o).lead_time_days is None else (n or o).lead_time_days,
        (n or o).spares_rule,
    )


def iter_change_order_rows(delta: OrderDelta) -> Iterator[tuple]:
    """Sections: basis (what is compared), line (the whole order), network and su (the same per group),
    total. Unchanged lines are left out; the total row counts them."""
    cur = delta.new.currency if delta.money_comparable else ""
    blank = ("",) * (len(CHANGE_ORDER_COLUMNS) - 6)
    for side, o in (("from", delta.old), ("to", delta.new)):
        text = f"{o.label}: {o.price_source or 'no prices'}; {o.spares_text}"
        yield ("basis", side, "", "", "", text, *blank)
    for d in delta.changed():
        yield _row("line", "", d, cur)
    for section, key, _title, ds in iter_group_deltas(delta):
        for d in ds:
            if d.status != "unchanged":
                yield _row(section, key, d, cur)
    t = delta.totals
    ot, nt = delta.old.totals, delta.new.totals
    yield (
        "total",
        "",
        f"{t.counts.get('added', 0)} added, {t.counts.get('removed', 0)} removed, "
        f"{t.counts.get('changed', 0)} changed, {t.counts.get('unchanged', 0)} unchanged",
        "",
        "",
        "All parts",
        ot.quantity,
        nt.quantity,
        t.quantity,
        ot.spares,
        nt.spares,
        t.spares,
        ot.order_quantity,
        nt.order_quantity,
        t.order_quantity,
        cur if t.extended_price is not None else "",
        "",
        "",
        fmt_money(ot.extended_price),
        fmt_money(nt.extended_price),
        fmt_money(t.extended_price),
        "",
        "",
    )


def iter_change_order_csv(delta: OrderDelta, *, raw: bool = False) -> Iterator[str]:
    """Text cells that a spreadsheet would run as a formula get a leading ' unless `raw` (engine/csvcells.py)."""
    yield from csv_lines(CHANGE_ORDER_COLUMNS, iter_change_order_rows(delta), raw=raw)


def render_change_order_pdf(delta: OrderDelta, fh: IO[bytes], *, design: str, date: str, page: str = "a4") -> int:
    """The change order a buyer sends: the basis of both orders, then every changed line, then per network and
    per SU. Returns the page count."""
    label = f"{delta.old.label} to {delta.new.label}"
    doc = FlowDoc(DocInfo("Change order", design, label, date), page_size(page, "landscape"), margin=28.0)
    w = doc.width
    cur = delta.new.currency if delta.money_comparable else None
    t = delta.totals
    cover = [f"Design: {design}", f"Change order: {label}", f"Date: {date}", ""]
    for side, o in (("From", delta.old), ("To", delta.new)):
        cover.append(f"{side} {o.label}: {o.price_source or 'no prices'}")
        cover.append(f"    {o.spares_text}")
    cover += [
        "",
        f"Lines: {t.counts.get('added', 0)} added, {t.counts.get('removed', 0)} removed, "
        f"{t.counts.get('changed', 0)} changed, {t.counts.get('unchanged', 0)} unchanged",
        f"Order quantity change: {fmt_signed(t.order_quantity)} (quantity {fmt_signed(t.quantity)}, "
        f"spares {fmt_signed(t.spares)})",
        (
            f"Money change: {fmt_signed_money(t.extended_price)} {cur}"
            if t.extended_price is not None
            else f"Money change: not given ({delta.money_withheld()})"
        ),
    ]
    doc.add(Heading(f"Change order: {design}", 1, section="Change order"))
    doc.add(Lines(cover, font=SANS, size=10, leading=14))
    money_w = 62
    cols = [
        Column("Status", 46),
        Column("Part number", 140),
        Column("Description", w - 46 - 140 - 4 * 40 - 3 * money_w - 2 * 34),
        Column("Old qty", 40, "right"),
        Column("New qty", 40, "right"),
        Column("Spares \u0394", 34, "right"),
        Column("Order old", 40, "right"),
        Column("Order new", 40, "right"),
        Column("Order \u0394", 34, "right"),
        Column(f"Old {cur or ''}".strip(), money_w, "right"),
        Column(f"New {cur or ''}".strip(), money_w, "right"),
        Column("Change", money_w, "right"),
    ]

    def rows(ds):
        out = []
        for d in ds:
            if d.status == "unchanged":
                continue
            o, n = d.old, d.new
            out.append(
                (
                    d.status,
                    d.part,
                    d.description,
                    str(o.quantity if o else 0),
                    str(n.quantity if n else 0),
                    fmt_signed(d.spares),
                    str(o.order_quantity if o else 0),
                    str(n.order_quantity if n else 0),
                    fmt_signed(d.order_quantity),
                    fmt_money(o.extended_price) if o else "",
                    fmt_money(n.extended_price) if n else "",
                    fmt_signed_money(d.extended_price),
                )
            )
        gt = delta_totals(ds)
        out.append(
            (
                "\x01Total",
                "",
                "",
                "",
                "",
                fmt_signed(gt.spares),
                "",
                "",
                fmt_signed(gt.order_quantity),
                "",
                "",
                fmt_signed_money(gt.extended_price),
            )
        )
        return out

    whole = rows(delta.lines)
    doc.add(Heading("All networks", 2))
    doc.add(Table(cols, len(whole), whole, bold_marker="\x01"))
    for section, _key, title, ds in iter_group_deltas(delta):
        if all(d.status == "unchanged" for d in ds):
            continue
        r = rows(ds)
        doc.add(Table(cols, len(r), r, title=("Network: " if section == "network" else "") + title, bold_marker="\x01"))
    doc.add(
        Lines(
            [
                "Quantities are the design's; spares come from each side's spares rule, per line; order = "
                "quantity + spares. Per network and per SU, a line's spares and price are shared out in "
                "proportion to its quantity, so every table adds up to the whole order's."
            ],
            font=SANS,
            size=8,
            leading=11,
        )
    )
    return doc.render(fh)
