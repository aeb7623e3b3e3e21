"""Bill of materials: bom.csv and bom.pdf.

Quantities come from the result: per network and category, per SU (the parts of each SU's
servers and leaves), and the order summary per part (which equals summary["bom"] line by line:
tests check it). Spares are a percentage per category, rounded up per part; prices are optional.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import IO

from engine.orders.failure_rates import DEFAULTS_NOTE, FailureRatePerCategory, failures_per_year, failures_text
from engine.orders.lines import CATEGORY_ORDER, CATEGORY_TITLE, NETWORK_ORDER
from engine.orders.money import fmt_money, to_cents
from engine.orders.orderable import SWITCH_ROLES, device_lines

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

_FF = re.compile(r"\b(OSFP|QSFP112|QSFP-DD|QSFP56|QSFP28|SFP28|SFP\+|RJ45)\b", re.I)


@dataclass
class Part:
    category: str
    sku: str
    description: str
    form_factor: str = ""
    length_m: float | None = None
    unit_watts: float | None = None


@dataclass
class Bom:
    parts: dict  # (category, sku) -> Part
    order: list  # (category, sku, qty, spares, order_qty, watts, unit_price, extended)
    by_network: dict  # network -> Counter((category, sku) -> qty)
    by_su: dict  # su -> Counter((category, sku) -> qty)
    su_servers: Counter
    fibers: dict
    currency: str
    spares_percent: dict  # category -> Decimal
    totals: dict = field(default_factory=dict)


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


def _category_key(cat: str) -> int:
    return CATEGORY_ORDER.index(cat) if cat in CATEGORY_ORDER else len(CATEGORY_ORDER)


def _network_key(n: str):
    return (NETWORK_ORDER.index(n) if n in NETWORK_ORDER else len(NETWORK_ORDER), n)


def _form_factors(opts: ExportOptions, result=None) -> dict:
    # The catalog the design was computed with (a stored revision's snapshot holds it), never today's when known.
    cat = opts.catalog if opts.catalog is not None else getattr(result, "catalog", None)
    if cat is None:
        try:
            from engine.catalog import load_catalog

            cat = load_catalog()
        except Exception:  # noqa: BLE001  # pragma: no cover - catalog not loadable: fall back to descriptions
            return {}
    media = getattr(cat, "media", cat)
    tr = getattr(media, "transceivers", None) or {}
    try:
        return {sku: t.form_factor for sku, t in tr.items()}
    except AttributeError:  # pragma: no cover
        return {}


def _device_keys(d, catalog, procurement, parts) -> list:
    """The (category, sku) lines a device adds to the BOM; a revision computed before switches carried their
    orderable numbers named the model ("QM9700", "UFM") and still splits by that."""
    if d.role in SWITCH_ROLES:
        legacy = ("switch", d.model.upper())
    elif d.role == "ufm":
        legacy = ("appliance", "UFM")
    else:
        return []
    keys = [(c, p.sku) for c, p, _ in device_lines(d.role, d.model, catalog, procurement)] if catalog else []
    keys = [k for k in keys if k in parts]
    return keys or ([legacy] if legacy in parts else [])


def compute_bom(result, options=None) -> Bom:  # noqa: C901
    opts = ExportOptions.from_any(options)
    ph = result.physical
    summary_bom = result.summary.get("bom") or (ph.bom if ph is not None else [])
    parts: dict = {}
    for line in summary_bom:
        q = line["quantity"]
        uw = None if line.get("watts") is None or not q else line["watts"] / q
        parts[(line["category"], line["sku"])] = Part(
            line["category"], line["sku"], line.get("description", ""), unit_watts=uw
        )
    sku_cat = {sku: cat for cat, sku in parts}
    ffs = _form_factors(opts, result)
    for (cat, sku), p in parts.items():
        if cat == "transceiver":
            ff = ffs.get(sku)
            if not ff:
                m = _FF.search(p.description or "")
                ff = m.group(1) if m else ""
            p.form_factor = ff.upper()
    devices = result.devices
    by_network: dict = defaultdict(Counter)
    by_su: dict = defaultdict(Counter)
    # switches and appliances: the parts the engine's BOM named for each device (engine/orders/orderable.py)
    catalog = opts.catalog if opts.catalog is not None else getattr(result, "catalog", None)
    procurement = getattr(getattr(result, "spec", None), "procurement", None)
    device_keys: dict = {}
    for d in devices:
        keys = device_keys.get((d.role, d.model))
        if keys is None:
            keys = device_keys[(d.role, d.model)] = _device_keys(d, catalog, procurement, parts)
        for key in keys:
            by_network[d.network or "compute"][key] += 1
            if d.su:
                by_su[d.su][key] += 1
    # transceivers (one per cage end that carries a module) and cables (by part; per SU by the A-end
    # device) come split by network and SU from the engine's BOM pass (physical.bom_split): no walk
    # over the ~400,000 links and cables here.
    if ph is not None:
        split = ph.bom_split
        for (m, net, s), n in split.transceivers.items():
            key = ("transceiver", m)
            by_network[net][key] += n
            if s:
                by_su[s][key] += n
        for (part, net, s), n in split.cables.items():
            key = (sku_cat.get(part, "cable"), part)
            by_network[net][key] += n
            if s:
                by_su[s][key] += n
        lengths = split.cable_lengths
        for (cat, sku), p in parts.items():
            if sku in lengths and cat not in ("switch", "appliance", "transceiver"):
                p.length_m = lengths[sku]
        # panels and their inserts, assigned to the network of the trunks that end in them
        net_of = {}
        for net, t in ph.trunks:
            net_of[(t.rack_a, t.tier)] = net
            net_of[(t.rack_b, t.tier)] = net
        for rp in ph.panels:
            net = net_of.get((rp.rack, rp.tier), "")
            by_network[net][("panel", rp.panel_sku)] += rp.panels
            for insert, count in rp.inserts:
                by_network[net][("panel-insert", insert)] += count
    # reconcile with the engine's summary: the order quantities are the summary's, any
    # difference in the split is shown as network "unassigned" (never silently lost)
    want_q = {(ln["category"], ln["sku"]): ln["quantity"] for ln in summary_bom}
    split = Counter()
    for c in by_network.values():
        split.update(c)
    for key in parts:
        want = want_q[key]
        diff = want - split.get(key, 0)
        if diff:
            by_network["unassigned"][key] += diff
    order, totals, spares_pct = order_lines(
        sorted(summary_bom, key=lambda ln: (_category_key(ln["category"]), ln["sku"])), opts
    )
    fib = result.summary.get("fibers") or {}
    su_servers = Counter(d.su for d in devices if d.su and d.role == "server")
    bom = Bom(parts, order, dict(by_network), dict(by_su), su_servers, fib, opts.currency, spares_pct)
    bom.totals = totals
    return bom


def order_lines(summary_lines, opts: ExportOptions) -> tuple[list[tuple], dict, dict]:
    """The order, one (category, sku, quantity, spares, order quantity, watts, unit price, extended price)
    per summary BOM line in the given order, with its totals and the spares % used per category.

    The one place that prices a BOM (bom.pdf, bom.csv and the API's /bom/): spares are whole parts rounded
    up per line; each extended price is rounded half-up to the cent, and the total is the sum of those.
    """
    prices = opts.prices
    rule = opts.spares_rule()
    order = []
    tot_qty = tot_sp = 0
    tot_w = Decimal(0)
    tot_price = Decimal(0)
    priced_all = True
    spares_pct = {}
    for line in summary_lines:
        cat, sku, qty = line["category"], line["sku"], line["quantity"]
        spares_pct[cat] = opts.spares_for(cat)
        spares = rule.spares(category=cat, part=sku, quantity=qty).count
        oq = qty + spares
        watts = line.get("watts")
        unit = prices.get(sku)
        ext = None if unit is None else to_cents(unit * oq)
        if unit is None:
            priced_all = False
        else:
            tot_price += ext
        order.append((cat, sku, qty, spares, oq, watts, unit, ext))
        tot_qty += qty
        tot_sp += spares
        if watts is not None:
            tot_w += Decimal(str(watts))
    totals = {
        "quantity": tot_qty,
        "spares": tot_sp,
        "order_quantity": tot_qty + tot_sp,
        "watts": float(tot_w),
        "price": tot_price if prices else None,
        "priced_all": priced_all,
        "lines_without_watts": sum(1 for o in order if o[5] is None),
        "lines_without_price": sum(1 for o in order if o[6] is None),
    }
    return order, totals, spares_pct


def _marked(desc: str, sku: str, verify: dict) -> str:
    return f"{desc} \u2014 {VERIFY}" if sku in verify else desc


def _pdf_watts(watts, category: str) -> str:
    """A line's power on the page: a switch or appliance without a published maximum reads "unknown", never
    blank (a blank column adds up to 0 kW); other parts without a figure stay blank."""
    if watts is not None:
        return f"{watts:,.2f}"
    return "unknown" if category in ("switch", "appliance") else ""


def _w(x) -> str:
    return "" if x is None else f"{x:.2f}"


_money = fmt_money  # the one price format (money.py)


def iter_bom_rows(result, options=None, bom: Bom | None = None) -> Iterator[tuple]:
    """bom.csv rows (BOM_CSV_COLUMNS). Sections: order (one per part, with spares and prices),
    category-total, total, network (per network and part), su (per SU and part), fibers.
    Only order rows fill the last column (the spares rule's words); the others leave it empty."""
    n = len(BOM_CSV_COLUMNS)
    for row in _bom_rows(result, options, bom):
        yield row if len(row) == n else row + ("",) * (n - len(row))


def _bom_rows(result, options, bom):  # noqa: C901
    opts = ExportOptions.from_any(options)
    b = bom or compute_bom(result, opts)
    cur = b.currency
    parts = b.parts
    rule = opts.spares_rule()
    verify = unconfirmed_of(result.summary)

    def pinfo(cat, sku):
        # every section (order, network, su) carries the verify note of a line that needs one
        p = parts.get((cat, sku)) or Part(cat, sku, "")
        desc = f"{p.description} [{VERIFY}: {verify[sku]}]" if sku in verify else p.description
        return (desc, p.form_factor, "" if p.length_m is None else p.length_m)

    by_cat: dict = defaultdict(list)
    for o in b.order:
        by_cat[o[0]].append(o)
    for cat in sorted(by_cat, key=_category_key):
        cq = cs = co = 0
        cw = Decimal(0)
        cp = Decimal(0)
        cw_any = cp_any = False
        for _cat, sku, qty, spares, oq, watts, unit, ext in by_cat[cat]:
            desc, ff, length = pinfo(cat, sku)
            uw = parts[(cat, sku)].unit_watts if (cat, sku) in parts else None
            yield (
                "order",
                "",
                "",
                cat,
                sku,
                desc,
                ff,
                length,
                qty,
                str(b.spares_percent.get(cat, 0)),
                spares,
                oq,
                _w(uw),
                _w(watts),
                cur if unit is not None else "",
                _money(unit),
                _money(ext),
                rule.spares(category=cat, part=sku, quantity=qty).rule,
                failures_text(failures_per_year(rule, category=cat, quantity=qty)),
            )
            cq += qty
            cs += spares
            co += oq
            if watts is not None:
                cw += Decimal(str(watts))
                cw_any = True
            if ext is not None:
                cp += ext
                cp_any = True
        yield (
            "category-total",
            "",
            "",
            cat,
            "",
            CATEGORY_TITLE.get(cat, cat),
            "",
            "",
            cq,
            str(b.spares_percent.get(cat, 0)),
            cs,
            co,
            "",
            _w(cw) if cw_any else "",
            cur if cp_any else "",
            "",
            _money(cp) if cp_any else "",
        )
    t = b.totals
    yield (
        "total",
        "",
        "",
        "",
        "",
        "All parts",
        "",
        "",
        t["quantity"],
        "",
        t["spares"],
        t["order_quantity"],
        "",
        _w(t["watts"]),
        cur if t["price"] is not None else "",
        "",
        _money(t["price"]),
    )
    # Per network and SU, each part's share of the order: spares and price shared out as the API's order does
    # (orders.build_order), so these rows add up to the order rows column by column.
    from engine.orders.lines import OUTSIDE_SU, bom_split, build_order

    share = build_order(
        result.summary.get("bom") or [], rule=rule, prices=opts.prices, currency=cur, split=bom_split(b)
    )
    shares = {
        (kind, str(g), ln.key): ln
        for kind, groups in (("network", share.by_network), ("su", share.by_su))
        for g, lines in groups.items()
        for ln in lines
    }

    def order_cells(kind, group, cat, sku):
        g = shares.get((kind, str(group), (cat, sku)))
        if g is None:
            return ("", "", "", "", "", "", "")
        return (
            "",
            g.spares,
            g.order_quantity,
            cur if g.unit_price is not None else "",
            _money(g.unit_price),
            _money(g.extended_price),
            g.spares_rule,
        )

    for net in sorted(b.by_network, key=_network_key):
        c = b.by_network[net]
        for cat, sku in sorted(c, key=lambda k: (_category_key(k[0]), k[1])):
            q = c[(cat, sku)]
            if not q:
                continue
            desc, ff, length = pinfo(cat, sku)
            uw = parts[(cat, sku)].unit_watts if (cat, sku) in parts else None
            sp_pct, spares, oq, cu, unit, ext, why = order_cells("network", net, cat, sku)
            yield (
                "network",
                net,
                "",
                cat,
                sku,
                desc,
                ff,
                length,
                q,
                sp_pct,
                spares,
                oq,
                _w(uw),
                _w(None if uw is None else round(uw * q, 2)),
                cu,
                unit,
                ext,
                why,
            )
    for su in sorted(b.by_su) + [OUTSIDE_SU]:
        c = (
            b.by_su[su]
            if su != OUTSIDE_SU
            else Counter({ln.key: ln.quantity for ln in share.by_su.get(OUTSIDE_SU, ())})
        )
        if su != OUTSIDE_SU:
            yield (
                "su",
                "",
                su,
                "server",
                "",
                "servers",
                "",
                "",
                b.su_servers.get(su, 0),
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
            )
        for cat, sku in sorted(c, key=lambda k: (_category_key(k[0]), k[1])):
            desc, ff, length = pinfo(cat, sku)
            sp_pct, spares, oq, cu, unit, ext, why = order_cells("su", su, cat, sku)
            yield (
                "su",
                "",
                su,
                cat,
                sku,
                desc,
                ff,
                length,
                c[(cat, sku)],
                sp_pct,
                spares,
                oq,
                "",
                "",
                cu,
                unit,
                ext,
                why,
            )
    fib = b.fibers
    for scope, data in [("total", fib.get("total"))] + sorted((fib.get("per_network") or {}).items()):
        if not data:
            continue
        for kind in ("active", "installed", "dark", "spare"):
            yield (
                "fibers",
                scope,
                "",
                "fiber-count",
                "",
                kind,
                "",
                "",
                data.get(kind, 0),
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
            )
    if opts.price_source:  # every priced BOM names the prices it used (a price list version)
        yield ("pricing", "", "", "", "", opts.price_source, "", "", "", "", "", "", "", "", cur, "", "")


def iter_bom_csv(result, options=None) -> Iterator[str]:
    """bom.csv: when some link has no part, its first line says so ("# INCOMPLETE: N links have no part")
    before the header, so neither a person nor a script reading the order misses it."""
    notice = completeness_notice(result.summary)
    if notice:
        yield f"# {notice}; the order below lacks their parts\n"
    yield from csv_lines(BOM_CSV_COLUMNS, iter_bom_rows(result, options), raw=ExportOptions.from_any(options).raw_csv)


def write_bom_csv(result, fh: IO[str], options=None) -> int:
    n = -1
    for line in iter_bom_csv(result, options):
        fh.write(line)
        n += 1
    return n


# ----- PDF ----------------------------------------------------------------------------------------

_B = "\x01"  # bold-row marker for subtotal rows


def render_bom_pdf(result, fh, options=None, *, revision_label: str = "r1") -> int:  # noqa: C901
    opts = ExportOptions.from_any(options)
    b = compute_bom(result, opts)
    s = result.summary
    notice = completeness_notice(s)
    verify = unconfirmed_of(s)
    info = DocInfo("Bill of materials", result.spec.name, revision_label, opts.date, notice=notice)
    doc = FlowDoc(info, page_size(opts.page_size, "landscape"), margin=28.0)
    w = doc.width
    t = b.totals
    cur = b.currency
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
            f"Total price: {fmt_money(t['price'])} {cur}"
            + (
                f" ({t['lines_without_price']} line(s) without a price are not included)"
                if t["lines_without_price"]
                else ""
            )
        )
    sp = (
        ", ".join(
            f"{CATEGORY_TITLE.get(c, c).lower()} {p} %"
            for c, p in sorted(b.spares_percent.items(), key=lambda kv: _category_key(kv[0]))
            if p
        )
        or "none"
    )
    rule = opts.spares_rule()
    if rule.kind == FailureRatePerCategory.kind:
        cover.append(f"Spares: {rule.describe()}. {DEFAULTS_NOTE}")
    else:
        cover.append(f"Spares: {sp} (per part, rounded up)")
    doc.add(Heading(f"Bill of materials: {result.spec.name}", 1, section="Cover"))
    doc.add(Lines(cover, font=SANS, size=10, leading=14))
    doc.add(
        Lines(
            [
                "Part numbers are the vendor's orderable part numbers (OPN) as the catalog lists them; "
                "cable part numbers carry the ordered length. Quantities equal summary.json's bom; bom.csv "
                "holds every table of this document."
            ],
            font=SANS,
            size=8,
            leading=11,
        )
    )
    # order summary
    doc.add(PageBreak(section="Order summary"))
    doc.add(Heading("Order summary (all networks)", 1))
    cols = [
        Column("Part number", 150),
        Column("Description", w - 150 - 40 - 38 - 38 - 40 - 50 - 52 - 62),
        Column("Form f.", 40),
        Column("Qty", 38, "right"),
        Column("Spares", 38, "right"),
        Column("Order", 40, "right"),
        Column("W", 50, "right"),
        Column("Unit " + cur, 52, "right"),
        Column("Total " + cur, 62, "right"),
    ]
    rows = []
    by_cat: dict = defaultdict(list)
    for o in b.order:
        by_cat[o[0]].append(o)
    for cat in sorted(by_cat, key=_category_key):
        cq = cs = co = 0
        cw = Decimal(0)
        cp = Decimal(0)
        cw_any = cp_any = False
        for _cat, sku, qty, spares, oq, watts, unit, ext in by_cat[cat]:
            p = b.parts.get((cat, sku))
            desc = p.description if p else ""
            if p and p.length_m is not None and cat in ("copper", "aoc", "fiber", "trunk"):
                desc = f"{desc} ({p.length_m:g} m)" if f"{p.length_m:g} m" not in desc else desc
            if sku in verify:
                desc = f"{desc} \u2014 {VERIFY}"
            rows.append(
                (
                    sku,
                    desc,
                    p.form_factor if p else "",
                    fmt_int(qty),
                    fmt_int(spares),
                    fmt_int(oq),
                    _pdf_watts(watts, cat),
                    fmt_money(unit),
                    fmt_money(ext),
                )
            )
            cq += qty
            cs += spares
            co += oq
            if watts is not None:
                cw += Decimal(str(watts))
                cw_any = True
            if ext is not None:
                cp += ext
                cp_any = True
        rows.append(
            (
                _B + f"{CATEGORY_TITLE.get(cat, cat)} subtotal",
                "spares from failure rates" if opts.spares_failure_rate else f"spares {b.spares_percent.get(cat, 0)} %",
                "",
                fmt_int(cq),
                fmt_int(cs),
                fmt_int(co),
                f"{cw:,.2f}" if cw_any else "",
                "",
                fmt_money(cp) if cp_any else "",
            )
        )
    rows.append(
        (
            _B + "All parts",
            "",
            "",
            fmt_int(t["quantity"]),
            fmt_int(t["spares"]),
            fmt_int(t["order_quantity"]),
            f"{t['watts']:,.2f}",
            "",
            fmt_money(t["price"]),
        )
    )
    doc.add(Table(cols, len(rows), rows, bold_marker=_B, wrap=True))
    # per network
    doc.add(PageBreak(section="By network"))
    doc.add(Heading("By network and category", 1))
    ncols = [
        Column("Part number", 150),
        Column("Description", w - 150 - 44 - 44 - 60),
        Column("Form f.", 44),
        Column("Qty", 44, "right"),
        Column("W", 60, "right"),
    ]
    for net in sorted(b.by_network, key=_network_key):
        c = b.by_network[net]
        rows = []
        for cat in sorted({k[0] for k in c}, key=_category_key):
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
        doc.add(Table(ncols, len(rows), rows, title=f"{net} network", bold_marker=_B, wrap=True))
    # per SU, identical SUs grouped
    if b.by_su:
        doc.add(PageBreak(section="Per SU"))
        doc.add(Heading("Per scalable unit (the parts of each SU's servers and leaves)", 1))
        doc.add(
            Lines(
                [
                    "Cables count in the SU of their A end (servers' cables and the SU leaves' uplinks); "
                    "transceivers in the SU of the device that holds them. SUs with identical parts share a "
                    "table; quantities are per SU."
                ],
                font=SANS,
                size=8,
                leading=11,
            )
        )
        groups: dict = defaultdict(list)
        for su in sorted(b.by_su):
            sig = (b.su_servers.get(su, 0),) + tuple(sorted(b.by_su[su].items()))
            groups[sig].append(su)
        scols = [Column("Part number", 160), Column("Description", w - 160 - 60), Column("Qty per SU", 60, "right")]
        from .diagrams import _ranges

        for sig, sus in sorted(groups.items(), key=lambda kv: kv[1][0]):
            rows = [("servers", "servers in the SU", fmt_int(sig[0]))]
            for (cat, sku), q in sorted(sig[1:], key=lambda kv: (_category_key(kv[0][0]), kv[0][1])):
                p = b.parts.get((cat, sku))
                rows.append((sku, _marked(p.description if p else cat, sku, verify), fmt_int(q)))
            title = f"{_ranges('SU ', sus)} ({len(sus)} SU{'s' if len(sus) > 1 else ''}, quantities per SU)"
            doc.add(Table(scols, len(rows), rows, title=title, wrap=True))
    # fibers
    fib = b.fibers
    if fib:
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
                rows.append(
                    (
                        scope,
                        fmt_int(data.get("active", 0)),
                        fmt_int(data.get("installed", 0)),
                        fmt_int(data.get("dark", 0)),
                        fmt_int(data.get("spare", 0)),
                    )
                )
        doc.add(Table(fcols, len(rows), rows, wrap=True))
        doc.add(
            Lines(
                [
                    "Active: 2 fibers per optical lane; installed = active + dark + spare (docs/physical-layer.md "
                    "3.6). Patch cords at panels count as cables, not again as fibers."
                ],
                font=SANS,
                size=8,
                leading=11,
            )
        )
    return doc.render(fh)


def _flat(by_network: dict) -> Counter:
    out = Counter()
    for c in by_network.values():
        out.update(c)
    return out
