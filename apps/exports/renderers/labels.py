"""Label sheets (labels.pdf): both-end labels of every cable and trunk, plus every patch panel
and used panel port, laid out on a wrap-around label stock, in installation order (rack by rack,
as the cabling plan: panels of the rack first, then each cable's A-end label and B-end label).

Each label's print area holds: a bold first line (cable id and which end), the label text (as
the engine renders it; wrapped at '/' or ' ' when it is wider than the label), and a small line
with the part number and length. All text is >= 7 pt and fitted to the label width.
"""
from __future__ import annotations

from collections import defaultdict
from math import ceil
from typing import Iterator

from ._pdf import COND, COND_BOLD, MIN_FONT_SIZE, fitter, line_writer, new_canvas, page_size, wrap
from ._view import CI, DesignView
from .options import ExportOptions


def _view(result) -> DesignView:
    return result if isinstance(result, DesignView) else DesignView(result)


def _panel_ports(v: DesignView, sel) -> dict:
    """{rack: {u: set(ports)}} for panel ports that cords plug into (trunk ends excluded)."""
    out: dict = defaultdict(lambda: defaultdict(set))
    for row in v.ph.cable_rows:
        if row[1] == "trunk":
            for e in (row[4], row[5]):
                if e[0] == "panel" and (sel is None or e[1] in sel):
                    out[e[1]][e[2]]  # the panel exists even when no cord is plugged yet
            continue
        for e in (row[4], row[5]):
            if e[0] == "panel" and (sel is None or e[1] in sel):
                out[e[1]][e[2]].add(e[3])
    return out


def iter_labels(result, *, row: str | None = None, rack: str | None = None) -> Iterator[tuple[str, str, str]]:
    """Labels in installation order: (heading, label text, small line). Heading is e.g.
    'C000001 \u00b7 A end', 'T000123 trunk \u00b7 B end', 'PANEL PP-C09-U47', 'PANEL PORT 5'."""
    v = _view(result)
    sel = v.scope(row, rack)
    order, sections = v.install_order(sel)
    ports = _panel_ports(v, sel)
    rows = v.cable_rows(order)
    i_id, i_kind, i_part, i_len = CI["id"], CI["type"], CI["part"], CI["ordered_length_m"]
    i_la, i_lb, i_ad, i_ap, i_bd, i_bp = CI["label_a"], CI["label_b"], CI["a_device"], CI["a_port"], CI["b_device"], \
        CI["b_port"]
    done_racks = set()

    def panel_labels(ri):
        for u in sorted(ports.get(ri, {}), reverse=True):
            pid = f"PP-{v.rack_grid[ri]}-U{u:02d}"
            yield (f"PANEL {pid}", v.panel_label(ri, u), f"rack {v.racks[ri].id} \u00b7 U{u}")
            for p in sorted(ports[ri][u], key=lambda x: (len(str(x)), str(x))):
                yield (f"PANEL PORT {p}", v.panel_port_label(ri, u, p), f"{pid} port {p}")

    for ri, n in sections:
        if ri >= 0 and ri not in done_racks:
            done_racks.add(ri)
            yield from panel_labels(ri)
        for _ in range(n):
            r = next(rows)
            cid = r[i_id]
            kind = r[i_kind]
            small = f"{r[i_part]} \u00b7 {r[i_len]} m"
            if kind == "trunk":
                tid = "T" + cid[1:]
                yield (f"{tid} trunk \u00b7 A end", r[i_la], small)
                yield (f"{tid} trunk \u00b7 B end", r[i_lb], small)
            else:
                yield (f"{cid} \u00b7 A end", r[i_la], f"{r[i_ad]} {r[i_ap]} \u00b7 {small}")
                yield (f"{cid} \u00b7 B end", r[i_lb], f"{r[i_bd]} {r[i_bp]} \u00b7 {small}")
    for ri in sorted(ports, key=lambda x: v.rack_rank[x]):
        if ri not in done_racks:
            yield from panel_labels(ri)


def count_labels(result, *, row: str | None = None, rack: str | None = None) -> int:
    v = _view(result)
    sel = v.scope(row, rack)
    order, _ = v.install_order(sel)
    ports = _panel_ports(v, sel)
    return 2 * len(order) + sum(len(us) + sum(len(p) for p in us.values()) for us in ports.values())


def render_labels_pdf(result, fh, options=None, *, revision_label: str = "r1") -> int:
    """Write labels.pdf; returns the page count."""
    opts = ExportOptions.from_any(options)
    v = _view(result)
    stock = opts.label_stock
    stock.validate()
    total_labels = count_labels(v, row=opts.row, rack=opts.rack)
    per_page = stock.columns * stock.rows
    pages = max(1, ceil(total_labels / per_page))
    pw, ph = page_size(stock.page_size, "portrait")
    name = v.result.spec.name
    c = new_canvas(fh, (pw, ph), title=f"Label sheets: {name} ({revision_label})", subject="Label sheets")
    size = stock.font_size
    small = MIN_FONT_SIZE
    lead = size + 1.2
    pad = stock.padding
    text_w = stock.label_width - 2 * pad
    max_lines = max(1, int((stock.print_height - 2 * pad - lead - (small + 1)) // lead))
    f_reg, f_bold, f_small = fitter(COND, size), fitter(COND_BOLD, size), fitter(COND, small)
    # footer: in the larger of the two free page margins
    used_h = stock.margin_top + stock.rows * stock.label_height + (stock.rows - 1) * stock.gap_y
    bottom_free = ph - used_h
    foot_y = max(2.0, (bottom_free - small) / 2) if bottom_free >= stock.margin_top else ph - stock.margin_top / 2 - 3
    scope = f" \u00b7 rack {opts.rack}" if opts.rack else (f" \u00b7 row {opts.row}" if opts.row else "")
    labels = iter_labels(v, row=opts.row, rack=opts.rack)
    fit_bold, fit_small = f_bold.fit, f_small.fit
    width_reg = f_reg.width
    xs = [stock.margin_left + k * (stock.label_width + stock.gap_x) + pad for k in range(stock.columns)]
    ys = [ph - stock.margin_top - k * (stock.label_height + stock.gap_y) - pad - size for k in range(stock.rows)]
    done = 0
    for page in range(1, pages + 1):
        # three text objects per page (bold heads, label text, small lines), one font each, so the
        # fast ASCII path of line_writer applies; each label moves the origin (Tm)
        t_head, t_text, t_small = c.beginText(), c.beginText(), c.beginText()
        t_head.setFont(COND_BOLD, size, lead)
        t_text.setFont(COND, size, lead)
        t_small.setFont(COND, small, small + 1)
        w_head, w_text, w_small = line_writer(t_head), line_writer(t_text), line_writer(t_small)
        for yk in ys:
            for xk in xs:
                if done >= total_labels:
                    break
                head, text, line3 = next(labels)
                done += 1
                t_head.setTextOrigin(xk, yk)
                w_head(fit_bold(head, text_w))
                t_text.setTextOrigin(xk, yk - lead)
                if len(text) * f_reg._maxw <= text_w or width_reg(text) <= text_w:
                    w_text(text)
                    nlines = 1
                else:
                    wrapped = wrap(text, text_w, COND, size, max_lines)
                    for ln in wrapped:
                        w_text(ln)
                    nlines = len(wrapped)
                t_small.setTextOrigin(xk, yk - lead * (1 + nlines) + (lead - small - 1))
                w_small(fit_small(line3, text_w))
        c.drawText(t_head)
        c.drawText(t_text)
        c.drawText(t_small)
        c.setFont(COND, small)
        c.drawString(stock.margin_left, foot_y,
                     fit_small(f"Labels \u2014 {name} \u00b7 revision {revision_label} \u00b7 {opts.date}{scope} \u00b7 "
                               f"stock: {stock.name}", pw * 0.7))
        c.drawRightString(pw - stock.margin_left, foot_y, f"Page {page} of {pages}")
        c.showPage()
    c.save()
    return pages
