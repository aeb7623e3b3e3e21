"""Bill of materials: bom.csv and bom.pdf, rendered from the engine's priced BOM (engine/orders/bom.py).

Quantities come from the result: per network and category, per SU (the parts of each SU's
servers and leaves), and the order summary per part (which equals summary["bom"] line by line:
tests check it). Spares follow the options' rule, rounded up per part; prices are optional.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import IO, Any

from engine.orders.bom import Bom, Part, bom_category_key, bom_network_key, compute_bom
from engine.orders.failure_rates import DEFAULTS_NOTE, FailureRatePerCategory, failures_per_year, failures_text
from engine.orders.lines import CATEGORY_TITLE, NETWORK_ORDER, OUTSIDE_SU, bom_split, build_order
from engine.orders.money import fmt_money
from engine.result import DesignResult

from ._csv import csv_lines
from ._pdf import (
    SANS,
    Column,
    DocInfo,
    FlowDoc,
    Heading,
    Lines,
    PageBreak,
    Table,
    fmt_int,
    page_size,
)
from .options import ExportOptions

BOM_CSV_COLUMNS = (
    "section",
    "network",
    "su",
    "category",
    "sku",
    "description",
    "form_factor",
    "length_m",
    "quantity",
    "spares_percent",
    "spares",
    "order_quantity",
    "unit_watts",
    "watts",
    "currency",
    "unit_price",
    "extended_price",
    "spares_rule",
    "failures_per_year",  # order rows: quantity x the failure-rate rule's AFR (engine/orders/failure_rates.py)
)

VERIFY = "verify before ordering"


def completeness_notice(summary: dict) -> str:
    """ "INCOMPLETE: N links have no part" when some link of the design has no part, else ""."""
    c = (summary or {}).get("completeness") or {}
    n = int(c.get("links_without_part") or 0)
    if not n:
        return ""
    return f"INCOMPLETE: {n:,} link{'s' if n != 1 else ''} {'have' if n != 1 else 'has'} no part"


def missing_lines(summary: dict) -> list[str]:
    """One line per network and tier whose links have no part, with the reason."""
    c = (summary or {}).get("completeness") or {}
    return [
        f"{m['network']}/{m['tier']}: {m['links']:,} link(s) without a part"
        + (f" ({m['reason']})" if m.get("reason") else "")
        for m in c.get("missing") or []
    ]


def unconfirmed_of(summary: dict) -> dict:
    """{sku: reason} of the BOM lines whose part number or a figure is only from a secondary source."""
    return {
        line["sku"]: line.get("unconfirmed") for line in (summary or {}).get("bom") or [] if line.get("unconfirmed")
    }


def bom_of(result: DesignResult, options: ExportOptions | Mapping[str, Any] | None = None) -> Bom:
    """The design's BOM (engine.orders.bom.compute_bom), priced and spared as the export options say."""
    opts = ExportOptions.from_any(options)
    return compute_bom(
        result, prices=opts.prices, rule=opts.spares_rule(), currency=opts.currency, catalog=opts.catalog
    )


def _marked(desc: str, sku: str, verify: dict) -> str:
    return f"{desc} \u2014 {VERIFY}" if sku in verify else desc


def _pdf_watts(watts: float | None, category: str) -> str:
    """A line's power on the page: a switch or appliance without a published maximum reads "unknown", never
    blank (a blank column adds up to 0 kW); other parts without a figure stay blank."""
    if watts is not None:
        return f"{watts:,.2f}"
    return "unknown" if category in ("switch", "appliance") else ""


def _w(x: float | Decimal | None) -> str:
    return "" if x is None else f"{x:.2f}"


_money = fmt_money  # the one price format (money.py)


def iter_bom_rows(
    result: DesignResult, options: ExportOptions | Mapping[str, Any] | None = None, bom: Bom | None = None
) -> Iterator[tuple]:
    """bom.csv rows (BOM_CSV_COLUMNS). Sections: order (one per part, with spares and prices),
    category-total, total, network (per network and part), su (per SU and part), fibers.
    Only order rows fill the last column (the spares rule's words); the others leave it empty."""
    n = len(BOM_CSV_COLUMNS)
    for row in _bom_rows(result, options, bom):
        yield row if len(row) == n else row + ("",) * (n - len(row))


def _row(section: str, **cells: Any) -> tuple:
    """A bom.csv row: the named cells in BOM_CSV_COLUMNS order, the others empty."""
    return tuple(section if c == "section" else cells.get(c, "") for c in BOM_CSV_COLUMNS)


@dataclass(frozen=True)
class _Rows:
    """What every section of bom.csv reads: the BOM, its spares rule, currency and verify notes."""

    bom: Bom
    rule: Any
    currency: str
    verify: dict

    def part(self, cat: str, sku: str) -> dict:
        """The part's cells; every section (order, network, su) carries the verify note of a line that needs one."""
        p = self.bom.parts.get((cat, sku)) or Part(cat, sku, "")
        desc = f"{p.description} [{VERIFY}: {self.verify[sku]}]" if sku in self.verify else p.description
        length = "" if p.length_m is None else p.length_m
        return {"category": cat, "sku": sku, "description": desc, "form_factor": p.form_factor, "length_m": length}

    def unit_watts(self, cat: str, sku: str) -> float | None:
        p = self.bom.parts.get((cat, sku))
        return p.unit_watts if p is not None else None


def _bom_rows(
    result: DesignResult, options: ExportOptions | Mapping[str, Any] | None, bom: Bom | None
) -> Iterator[tuple]:
    opts = ExportOptions.from_any(options)
    b = bom or bom_of(result, opts)
    rows = _Rows(b, opts.spares_rule(), b.currency, unconfirmed_of(result.summary))
    yield from _order_rows(rows)
    # Per network and SU, each part's share of the order: spares and price shared out as the API's order does
    # (orders.build_order), so these rows add up to the order rows column by column.
    share = build_order(
        result.summary.get("bom") or [], rule=rows.rule, prices=opts.prices, currency=b.currency, split=bom_split(b)
    )
    shares = {
        (kind, str(group), ln.key): ln
        for kind, groups in (("network", share.by_network), ("su", share.by_su))
        for group, lines in groups.items()
        for ln in lines
    }
    yield from _network_rows(rows, shares)
    yield from _su_rows(rows, shares, share.by_su.get(OUTSIDE_SU, ()))
    yield from _fiber_rows(b.fibers)
    if opts.price_source:  # every priced BOM names the prices it used (a price list version)
        yield _row("pricing", description=opts.price_source, currency=b.currency)


def _order_rows(rows: _Rows) -> Iterator[tuple]:
    """The order: one row per part with spares and prices, a total per category, then the total of all parts."""
    b, cur, rule = rows.bom, rows.currency, rows.rule
    by_cat: dict = defaultdict(list)
    for o in b.order:
        by_cat[o[0]].append(o)
    for cat in sorted(by_cat, key=bom_category_key):
        spares_pct = str(b.spares_percent.get(cat, 0))
        watts_sum = price_sum = Decimal(0)
        any_watts = any_price = False
        for _cat, sku, qty, spares, oq, watts, unit, ext in by_cat[cat]:
            yield _row(
                "order",
                **rows.part(cat, sku),
                quantity=qty,
                spares_percent=spares_pct,
                spares=spares,
                order_quantity=oq,
                unit_watts=_w(rows.unit_watts(cat, sku)),
                watts=_w(watts),
                currency=cur if unit is not None else "",
                unit_price=_money(unit),
                extended_price=_money(ext),
                spares_rule=rule.spares(category=cat, part=sku, quantity=qty).rule,
                failures_per_year=failures_text(failures_per_year(rule, category=cat, quantity=qty)),
            )
            if watts is not None:
                watts_sum += Decimal(str(watts))
                any_watts = True
            if ext is not None:
                price_sum += ext
                any_price = True
        lines = by_cat[cat]
        yield _row(
            "category-total",
            category=cat,
            description=CATEGORY_TITLE.get(cat, cat),
            quantity=sum(o[2] for o in lines),
            spares_percent=spares_pct,
            spares=sum(o[3] for o in lines),
            order_quantity=sum(o[4] for o in lines),
            watts=_w(watts_sum) if any_watts else "",
            currency=cur if any_price else "",
            extended_price=_money(price_sum) if any_price else "",
        )
    t = b.totals
    yield _row(
        "total",
        description="All parts",
        quantity=t["quantity"],
        spares=t["spares"],
        order_quantity=t["order_quantity"],
        watts=_w(t["watts"]),
        currency=cur if t["price"] is not None else "",
        extended_price=_money(t["price"]),
    )


def _share_cells(rows: _Rows, shares: dict, kind: str, group: str, key: tuple) -> dict:
    """A network's or SU's share of an order line: its spares, order quantity and prices (none: empty cells)."""
    line = shares.get((kind, str(group), key))
    if line is None:
        return {}
    return {
        "spares": line.spares,
        "order_quantity": line.order_quantity,
        "currency": rows.currency if line.unit_price is not None else "",
        "unit_price": _money(line.unit_price),
        "extended_price": _money(line.extended_price),
        "spares_rule": line.spares_rule,
    }


def _network_rows(rows: _Rows, shares: dict) -> Iterator[tuple]:
    b = rows.bom
    for net in sorted(b.by_network, key=bom_network_key):
        c = b.by_network[net]
        for cat, sku in sorted(c, key=lambda k: (bom_category_key(k[0]), k[1])):
            q = c[(cat, sku)]
            if not q:
                continue
            uw = rows.unit_watts(cat, sku)
            yield _row(
                "network",
                network=net,
                **rows.part(cat, sku),
                quantity=q,
                unit_watts=_w(uw),
                watts=_w(None if uw is None else round(uw * q, 2)),
                **_share_cells(rows, shares, "network", net, (cat, sku)),
            )


def _su_rows(rows: _Rows, shares: dict, outside: Iterable) -> Iterator[tuple]:
    """Per SU: its servers, then its parts; last the parts of no SU (`outside`: spines, cores, storage,
    management), as the order's split counts them."""
    b = rows.bom
    for su in sorted(b.by_su) + [OUTSIDE_SU]:
        if su == OUTSIDE_SU:
            c = Counter({ln.key: ln.quantity for ln in outside})
        else:
            c = b.by_su[su]
            yield _row("su", su=su, category="server", description="servers", quantity=b.su_servers.get(su, 0))
        for cat, sku in sorted(c, key=lambda k: (bom_category_key(k[0]), k[1])):
            yield _row(
                "su",
                su=su,
                **rows.part(cat, sku),
                quantity=c[(cat, sku)],
                **_share_cells(rows, shares, "su", su, (cat, sku)),
            )


def _fiber_rows(fib: dict) -> Iterator[tuple]:
    for scope, data in [("total", fib.get("total"))] + sorted((fib.get("per_network") or {}).items()):
        if not data:
            continue
        for kind in ("active", "installed", "dark", "spare"):
            yield _row("fibers", network=scope, category="fiber-count", description=kind, quantity=data.get(kind, 0))


def iter_bom_csv(result: DesignResult, options: ExportOptions | Mapping[str, Any] | None = None) -> Iterator[str]:
    """bom.csv: when some link has no part, its first line says so ("# INCOMPLETE: N links have no part")
    before the header, so neither a person nor a script reading the order misses it."""
    notice = completeness_notice(result.summary)
    if notice:
        yield f"# {notice}; the order below lacks their parts\n"
    yield from csv_lines(BOM_CSV_COLUMNS, iter_bom_rows(result, options), raw=ExportOptions.from_any(options).raw_csv)


def write_bom_csv(result: DesignResult, fh: IO[str], options: ExportOptions | Mapping[str, Any] | None = None) -> int:
    n = -1
    for line in iter_bom_csv(result, options):
        fh.write(line)
        n += 1
    return n


# ----- PDF ----------------------------------------------------------------------------------------

_B = "\x01"  # bold-row marker for subtotal rows


def render_bom_pdf(
    result: DesignResult,
    fh: IO[bytes],
    options: ExportOptions | Mapping[str, Any] | None = None,
    *,
    revision_label: str = "r1",
) -> int:
    """Write bom.pdf: a cover, the order summary, the parts by network and per SU, the fibers; returns the pages."""
    opts = ExportOptions.from_any(options)
    b = bom_of(result, opts)
    notice = completeness_notice(result.summary)
    verify = unconfirmed_of(result.summary)
    info = DocInfo("Bill of materials", result.spec.name, revision_label, opts.date, notice=notice)
    doc = FlowDoc(info, page_size(opts.page_size, "landscape"), margin=28.0)
    _add_cover(doc, result, b, opts, revision_label, verify)
    _add_order_summary(doc, b, opts, verify)
    _add_by_network(doc, b, verify)
    if b.by_su:
        _add_per_su(doc, b, verify)
    if b.fibers:
        _add_fibers(doc, b.fibers)
    return doc.render(fh)


def _small_print(text: str) -> Lines:
    return Lines([text], font=SANS, size=8, leading=11)


def _add_cover(
    doc: FlowDoc, result: DesignResult, b: Bom, opts: ExportOptions, revision_label: str, verify: dict
) -> None:
    doc.add(Heading(f"Bill of materials: {result.spec.name}", 1, section="Cover"))
    doc.add(Lines(_cover_lines(result, b, opts, revision_label, verify), font=SANS, size=10, leading=14))
    doc.add(
        _small_print(
            "Part numbers are the vendor's orderable part numbers (OPN) as the catalog lists them; "
            "cable part numbers carry the ordered length. Quantities equal summary.json's bom; bom.csv "
            "holds every table of this document."
        )
    )


def _cover_lines(result: DesignResult, b: Bom, opts: ExportOptions, revision_label: str, verify: dict) -> list[str]:
    """The cover's text: what is missing or to verify, the document's identity, the design in figures, the
    order's totals and the spares rule."""
    s = result.summary
    notice = completeness_notice(s)
    t = b.totals
    nets = s.get("networks", {})
    switches = sum(q for (c, _), q in _flat(b.by_network).items() if c == "switch")
    transceivers = sum(o[2] for o in b.order if o[0] == "transceiver")
    cables = sum(o[2] for o in b.order if o[0] in ("copper", "aoc", "fiber", "trunk"))
    fib_total = (s.get("fibers") or {}).get("total") or {}
    cover = (
        [notice + "; the order below lacks their parts:"] + [f"  {x}" for x in missing_lines(s)] + [""]
        if notice
        else []
    )
    if verify:
        cover += [
            f'{len(verify)} line(s) are marked "{VERIFY}": their part number or a figure is only from a '
            "secondary source (see the order summary).",
            "",
        ]
    cover += [
        f"Design: {result.spec.name}",
        f"Revision: {revision_label}",
        f"Date: {opts.date}",
        f"Engine {result.engine_version} \u00b7 catalog {result.catalog_version}",
        f"Prices: {opts.price_source or 'none given'}",
        "",
        f"GPUs: {fmt_int(s.get('gpus', 0))} \u00b7 servers: {fmt_int(s.get('servers', 0))} ({s.get('server_model', '')})",
        f"Networks: {', '.join(n for n in NETWORK_ORDER if n in nets) or '-'}",
        f"Switches: {fmt_int(switches)} \u00b7 transceivers: {fmt_int(transceivers)} \u00b7 cables and trunks: "
        f"{fmt_int(cables)}",
        f"Links: {fmt_int(s.get('links_total', 0))} \u00b7 cables in the plan: {fmt_int(s.get('cables_total', 0))}",
        f"Fibers (active): {fmt_int(fib_total.get('active', 0))} \u00b7 installed: {fmt_int(fib_total.get('installed', 0))}",
        f"Parts to order: {fmt_int(t['quantity'])} + spares {fmt_int(t['spares'])} = {fmt_int(t['order_quantity'])}",
        f"Network power (BOM lines with a figure): {t['watts']:,.2f} W"
        + (f"; {t['lines_without_watts']} line(s) have no power figure" if t["lines_without_watts"] else ""),
    ]
    if t["price"] is not None:
        cover.append(
            f"Total price: {fmt_money(t['price'])} {b.currency}"
            + (
                f" ({t['lines_without_price']} line(s) without a price are not included)"
                if t["lines_without_price"]
                else ""
            )
        )
    cover.append(_spares_line(b, opts))
    return cover


def _spares_line(b: Bom, opts: ExportOptions) -> str:
    rule = opts.spares_rule()
    if rule.kind == FailureRatePerCategory.kind:
        return f"Spares: {rule.describe()}. {DEFAULTS_NOTE}"
    sp = (
        ", ".join(
            f"{CATEGORY_TITLE.get(c, c).lower()} {p} %"
            for c, p in sorted(b.spares_percent.items(), key=lambda kv: bom_category_key(kv[0]))
            if p
        )
        or "none"
    )
    return f"Spares: {sp} (per part, rounded up)"


def _add_order_summary(doc: FlowDoc, b: Bom, opts: ExportOptions, verify: dict) -> None:
    doc.add(PageBreak(section="Order summary"))
    doc.add(Heading("Order summary (all networks)", 1))
    cur = b.currency
    cols = [
        Column("Part number", 150),
        Column("Description", doc.width - 150 - 40 - 38 - 38 - 40 - 50 - 52 - 62),
        Column("Form f.", 40),
        Column("Qty", 38, "right"),
        Column("Spares", 38, "right"),
        Column("Order", 40, "right"),
        Column("W", 50, "right"),
        Column("Unit " + cur, 52, "right"),
        Column("Total " + cur, 62, "right"),
    ]
    rows = _order_summary_rows(b, opts, verify)
    doc.add(Table(cols, len(rows), rows, bold_marker=_B, wrap=True))


def _order_summary_rows(b: Bom, opts: ExportOptions, verify: dict) -> list[tuple]:
    """One row per part, a subtotal per category, then all parts."""
    t = b.totals
    rows: list[tuple] = []
    by_cat: dict = defaultdict(list)
    for o in b.order:
        by_cat[o[0]].append(o)
    for cat in sorted(by_cat, key=bom_category_key):
        watts_sum = price_sum = Decimal(0)
        any_watts = any_price = False
        for _cat, sku, qty, spares, oq, watts, unit, ext in by_cat[cat]:
            p = b.parts.get((cat, sku))
            rows.append(
                (
                    sku,
                    _order_description(p, cat, sku, verify),
                    p.form_factor if p else "",
                    fmt_int(qty),
                    fmt_int(spares),
                    fmt_int(oq),
                    _pdf_watts(watts, cat),
                    fmt_money(unit),
                    fmt_money(ext),
                )
            )
            if watts is not None:
                watts_sum += Decimal(str(watts))
                any_watts = True
            if ext is not None:
                price_sum += ext
                any_price = True
        lines = by_cat[cat]
        rows.append(
            (
                _B + f"{CATEGORY_TITLE.get(cat, cat)} subtotal",
                "spares from failure rates" if opts.spares_failure_rate else f"spares {b.spares_percent.get(cat, 0)} %",
                "",
                fmt_int(sum(o[2] for o in lines)),
                fmt_int(sum(o[3] for o in lines)),
                fmt_int(sum(o[4] for o in lines)),
                f"{watts_sum:,.2f}" if any_watts else "",
                "",
                fmt_money(price_sum) if any_price else "",
            )
        )
    total = fmt_int(t["quantity"]), fmt_int(t["spares"]), fmt_int(t["order_quantity"])
    rows.append((_B + "All parts", "", "", *total, f"{t['watts']:,.2f}", "", fmt_money(t["price"])))
    return rows


def _order_description(p: Part | None, cat: str, sku: str, verify: dict) -> str:
    """A part's description in the order: a cable's ordered length when its text lacks it, and the verify mark."""
    desc = p.description if p else ""
    if p and p.length_m is not None and cat in ("copper", "aoc", "fiber", "trunk"):
        desc = f"{desc} ({p.length_m:g} m)" if f"{p.length_m:g} m" not in desc else desc
    if sku in verify:
        desc = f"{desc} \u2014 {VERIFY}"
    return desc


def _add_by_network(doc: FlowDoc, b: Bom, verify: dict) -> None:
    doc.add(PageBreak(section="By network"))
    doc.add(Heading("By network and category", 1))
    ncols = [
        Column("Part number", 150),
        Column("Description", doc.width - 150 - 44 - 44 - 60),
        Column("Form f.", 44),
        Column("Qty", 44, "right"),
        Column("W", 60, "right"),
    ]
    for net in sorted(b.by_network, key=bom_network_key):
        rows = _network_table_rows(b, b.by_network[net], verify)
        doc.add(Table(ncols, len(rows), rows, title=f"{net} network", bold_marker=_B, wrap=True))


def _network_table_rows(b: Bom, c: Counter, verify: dict) -> list[tuple]:
    """One network's parts by category, each category closed by its quantity and power."""
    rows: list[tuple] = []
    for cat in sorted({k[0] for k in c}, key=bom_category_key):
        keys = sorted(k for k in c if k[0] == cat and c[k])
        if not keys:
            continue
        cw = 0.0
        cq = 0
        anyw = False
        for key in keys:
            p = b.parts.get(key)
            q = c[key]
            wv = None if p is None or p.unit_watts is None else round(p.unit_watts * q, 2)
            rows.append(
                (
                    key[1],
                    _marked(p.description if p else "", key[1], verify),
                    p.form_factor if p else "",
                    fmt_int(q),
                    _pdf_watts(wv, cat),
                )
            )
            cq += q
            if wv is not None:
                cw += wv
                anyw = True
        rows.append((_B + f"{CATEGORY_TITLE.get(cat, cat)}", "", "", fmt_int(cq), f"{cw:,.2f}" if anyw else ""))
    return rows


def _add_per_su(doc: FlowDoc, b: Bom, verify: dict) -> None:
    """Per SU, identical SUs grouped into one table."""
    from .diagrams import _ranges

    doc.add(PageBreak(section="Per SU"))
    doc.add(Heading("Per scalable unit (the parts of each SU's servers and leaves)", 1))
    doc.add(
        _small_print(
            "Cables count in the SU of their A end (servers' cables and the SU leaves' uplinks); "
            "transceivers in the SU of the device that holds them. SUs with identical parts share a "
            "table; quantities are per SU."
        )
    )
    groups: dict = defaultdict(list)
    for su in sorted(b.by_su):
        sig = (b.su_servers.get(su, 0),) + tuple(sorted(b.by_su[su].items()))
        groups[sig].append(su)
    scols = [Column("Part number", 160), Column("Description", doc.width - 160 - 60), Column("Qty per SU", 60, "right")]
    for sig, sus in sorted(groups.items(), key=lambda kv: kv[1][0]):
        rows = [("servers", "servers in the SU", fmt_int(sig[0]))]
        for (cat, sku), q in sorted(sig[1:], key=lambda kv: (bom_category_key(kv[0][0]), kv[0][1])):
            p = b.parts.get((cat, sku))
            rows.append((sku, _marked(p.description if p else cat, sku, verify), fmt_int(q)))
        title = f"{_ranges('SU ', sus)} ({len(sus)} SU{'s' if len(sus) > 1 else ''}, quantities per SU)"
        doc.add(Table(scols, len(rows), rows, title=title, wrap=True))


def _add_fibers(doc: FlowDoc, fib: dict) -> None:
    doc.add(PageBreak(section="Fibers"))
    doc.add(Heading("Fibers", 1))
    fcols = [
        Column("Scope", 160),
        Column("Active", 80, "right"),
        Column("Installed", 80, "right"),
        Column("Dark", 80, "right"),
        Column("Spare", 80, "right"),
    ]
    rows = []
    for scope, data in (
        [("total", fib.get("total"))]
        + sorted((fib.get("per_network") or {}).items())
        + sorted((f"tier {k}", v) for k, v in (fib.get("per_tier") or {}).items())
    ):
        if data:
            counts = (data.get(kind, 0) for kind in ("active", "installed", "dark", "spare"))
            rows.append((scope, *(fmt_int(n) for n in counts)))
    doc.add(Table(fcols, len(rows), rows, wrap=True))
    doc.add(
        _small_print(
            "Active: 2 fibers per optical lane; installed = active + dark + spare (docs/physical-layer.md "
            "3.6). Patch cords at panels count as cables, not again as fibers."
        )
    )


def _flat(by_network: dict) -> Counter:
    out: Counter = Counter()
    for c in by_network.values():
        out.update(c)
    return out
