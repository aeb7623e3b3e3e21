"""Label sheets (labels.pdf): both-end labels of every cable and trunk, plus every patch panel
and used panel port, laid out on a wrap-around label stock, in installation order (rack by rack,
as the cabling plan: panels of the rack first, then each cable's A-end label and B-end label).

Each label's print area holds: a bold first line (cable id and which end), the label text (as
the engine renders it; wrapped at '/' or ' ' when it is wider than the label), and a small line
with the part number and length. All text is >= 7 pt and fitted to the label width.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from math import ceil

from reportlab.lib.rl_accel import fp_str

from ._csv import csv_lines
from ._pdf import (
    COND,
    COND_BOLD,
    MIN_FONT_SIZE,
    audit_box,
    audit_page,
    auditing,
    fitter,
    line_writer,
    new_canvas,
    page_size,
    wrap,
)
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


LABEL_CSV_COLUMNS = (
    "sequence",
    "page",
    "row",
    "column",
    "kind",
    "cable_id",
    "end",
    "symbology",
    "barcode",
    "heading",
    "label_text",
    "device",
    "port",
    "rack",
    "part",
    "length_m",
    "stock",
)


def iter_label_records(result, *, row: str | None = None, rack: str | None = None) -> Iterator[tuple]:
    """Labels in installation order as (kind, barcode value, heading, label text, small line pieces,
    cable id, end, device, port, rack, part, length). kind: cable | trunk | panel | panel-port; the
    barcode value is the cable id (a trunk's T id), the panel id, or panel id:port."""
    v = _view(result)
    sel = v.scope(row, rack)
    order, sections = v.install_order(sel)
    ports = _panel_ports(v, sel)
    rows = v.cable_rows(order)
    i_id, i_kind, i_part, i_len = CI["id"], CI["type"], CI["part"], CI["ordered_length_m"]
    i_la, i_lb, i_ad, i_ap, i_bd, i_bp = (
        CI["label_a"],
        CI["label_b"],
        CI["a_device"],
        CI["a_port"],
        CI["b_device"],
        CI["b_port"],
    )
    i_ar, i_br = CI["a_rack"], CI["b_rack"]
    done_racks = set()

    def panel_labels(ri):
        rid = v.racks[ri].id
        for u in sorted(ports.get(ri, {}), reverse=True):
            pid = f"PP-{v.rack_grid[ri]}-U{u:02d}"
            yield (
                "panel",
                pid,
                f"PANEL {pid}",
                v.panel_label(ri, u),
                (f"rack {rid}", f"U{u}"),
                "",
                "",
                pid,
                "",
                rid,
                "",
                "",
            )
            for p in sorted(ports[ri][u], key=lambda x: (len(str(x)), str(x))):
                yield (
                    "panel-port",
                    f"{pid}:{p}",
                    f"PANEL PORT {p}",
                    v.panel_port_label(ri, u, p),
                    (f"{pid} port {p}",),
                    "",
                    "",
                    pid,
                    str(p),
                    rid,
                    "",
                    "",
                )

    for ri, n in sections:
        if ri >= 0 and ri not in done_racks:
            done_racks.add(ri)
            yield from panel_labels(ri)
        for _ in range(n):
            r = next(rows)
            cid = r[i_id]
            part, length = r[i_part], r[i_len]
            pieces = (part, f"{length} m")
            if r[i_kind] == "trunk":
                tid = "T" + cid[1:]
                yield (
                    "trunk",
                    tid,
                    f"{tid} trunk \u00b7 A end",
                    r[i_la],
                    pieces,
                    tid,
                    "A",
                    r[i_ad],
                    r[i_ap],
                    r[i_ar],
                    part,
                    length,
                )
                yield (
                    "trunk",
                    tid,
                    f"{tid} trunk \u00b7 B end",
                    r[i_lb],
                    pieces,
                    tid,
                    "B",
                    r[i_bd],
                    r[i_bp],
                    r[i_br],
                    part,
                    length,
                )
            else:
                yield (
                    "cable",
                    cid,
                    f"{cid} \u00b7 A end",
                    r[i_la],
                    (f"{r[i_ad]} {r[i_ap]}",) + pieces,
                    cid,
                    "A",
                    r[i_ad],
                    r[i_ap],
                    r[i_ar],
                    part,
                    length,
                )
                yield (
                    "cable",
                    cid,
                    f"{cid} \u00b7 B end",
                    r[i_lb],
                    (f"{r[i_bd]} {r[i_bp]}",) + pieces,
                    cid,
                    "B",
                    r[i_bd],
                    r[i_bp],
                    r[i_br],
                    part,
                    length,
                )
    for ri in sorted(ports, key=lambda x: v.rack_rank[x]):
        if ri not in done_racks:
            yield from panel_labels(ri)


def iter_labels(result, *, row: str | None = None, rack: str | None = None) -> Iterator[tuple[str, str, str]]:
    """Labels in installation order: (heading, label text, small line). Heading is e.g.
    'C000001 \u00b7 A end', 'T000123 trunk \u00b7 B end', 'PANEL PP-C09-U47', 'PANEL PORT 5'."""
    for rec in iter_label_records(result, row=row, rack=rack):
        yield rec[2], rec[3], " \u00b7 ".join(rec[4])


def iter_labels_csv(result, options=None, *, raw: bool = False) -> Iterator[str]:
    """labels.csv: one row per label of labels.pdf, in the same order, with its page and position on the
    sheet, for label-printer software (merge fields: barcode, heading, label_text, ...)."""
    opts = ExportOptions.from_any(options)
    stock = opts.label_stock
    per_page = stock.columns * stock.rows

    def rows():
        for k, rec in enumerate(iter_label_records(result, row=opts.row, rack=opts.rack)):
            kind, value, head, text, _pieces, cid, end, dev, port, rk, part, length = rec
            page, pos = divmod(k, per_page)
            yield (
                k + 1,
                page + 1,
                pos // stock.columns + 1,
                pos % stock.columns + 1,
                kind,
                cid,
                end,
                stock.code,
                value,
                head,
                text,
                dev,
                port,
                rk,
                part,
                length,
                stock.key,
            )

    yield from csv_lines(LABEL_CSV_COLUMNS, rows(), raw=raw or opts.raw_csv)


def count_labels(result, *, row: str | None = None, rack: str | None = None) -> int:
    v = _view(result)
    sel = v.scope(row, rack)
    order, _ = v.install_order(sel)
    ports = _panel_ports(v, sel)
    return 2 * len(order) + sum(len(us) + sum(len(p) for p in us.values()) for us in ports.values())


# ----- barcodes ---------------------------------------------------------------------------------
# Drawn as filled rectangles into one path per page. Code 128 from reportlab's encoder; QR from
# reportlab's encoder with a fixed mask (any of the eight masks is a valid symbol: choosing the "best"
# one costs ten times as much and matters only for hard-to-read prints).

_C128_QUIET = 10  # modules of quiet zone each side (ISO/IEC 15417 asks for at least 10)


def code128_bars(value: str) -> tuple[list[tuple[int, int]], int]:
    """([(start module, width in modules)] of the bars, total modules without quiet zones).

    reportlab's encoder chooses the symbols (code sets, shifts, check symbol); the bars of each
    symbol's pattern are worked out once per symbol (a pattern reads bar/space widths as letters,
    upper case a bar, lower case a space)."""
    bars: list[tuple[int, int]] = []
    x = 0
    symbols = _C128_SYMBOLS
    for sym in code128_symbols(value):
        hit = symbols.get(sym)
        if hit is None:
            hit = symbols[sym] = _c128_symbol(sym)
        rel, width = hit
        bars.extend([(x + start, w) for start, w in rel])
        x += width
    return bars, x


_C128_SYMBOLS: dict = {}
_LETTER_DIGIT_PAIRS = re.compile(r"[A-Z](?:\d\d){2,}")


def code128_symbols(value: str) -> list[int]:
    """Code 128 symbol values of ``value``, start to stop. A cable or trunk id (one capital letter and an even
    number of digits, at least four) is encoded directly, as reportlab's encoder does it: START B, the
    letter, CODE C, the digit pairs, the check symbol, STOP (ISO/IEC 15417: the check is the start value
    plus each symbol's value times its position, modulo 103). Anything else goes through reportlab's
    encoder, which chooses code sets and shifts."""
    if _LETTER_DIGIT_PAIRS.fullmatch(value):
        e = [104, ord(value[0]) - 32, 99]
        e += [int(value[i : i + 2]) for i in range(1, len(value), 2)]
        check = 104 + sum(i * v for i, v in enumerate(e[1:], 1))
        return e + [check % 103, 106]
    from reportlab.graphics.barcode.code128 import Code128

    b = Code128(value, barWidth=1, quiet=0)
    b.validate()
    return b.encode()


def _c128_symbol(sym) -> tuple[list[tuple[int, int]], int]:
    from reportlab.graphics.barcode.code128 import _patterns

    bars, x = [], 0
    for ch in _patterns[sym]:
        w = "ABCD".find(ch.upper()) + 1
        if ch.isupper():
            bars.append((x, w))
        x += w
    return bars, x


def qr_modules(value: str) -> tuple[list[tuple[int, int, int]], int]:
    """([(row, start column, run length)] of the dark modules, modules per side)."""
    from reportlab.graphics.barcode.qrencoder import QRCode, QRErrorCorrectLevel

    for version in range(1, 11):
        q = QRCode(version, QRErrorCorrectLevel.M)
        q.addData(value)
        try:
            q.makeImpl(False, 2)
            break
        except Exception:  # the data does not fit this version: next one
            continue
    n = q.getModuleCount()
    runs = []
    for r in range(n):
        c = 0
        while c < n:
            if q.isDark(r, c):
                start = c
                while c < n and q.isDark(r, c):
                    c += 1
                runs.append((r, start, c - start))
            else:
                c += 1
    return runs, n


class _Codes:
    """The code of a value as PDF path operators in the code box's own coordinates, memoized (both ends
    of a cable, and both halves of a flag, print the same code): a label then costs one translation
    (``q 1 0 0 1 x y cm ... f Q``) instead of formatting every bar again. Bars are rectangles ("x y w h
    re", to 2 decimals as PDFPathObject.rect writes them). Code 128: modules of at most 1 pt, centred in the
    box; QR: the box is square, one module of quiet zone inside it."""

    def __init__(self, kind: str, w: float, h: float):
        self.kind = kind
        self.w, self.h = w, h
        self.memo: dict = {}
        self._bars: dict = {}  # (module, start, width) -> "x 0 w h re" of one Code 128 bar

    def get(self, value: str) -> tuple[str, float, float]:
        """(operators, x, y offset of their origin from the code box's bottom left)."""
        hit = self.memo.get(value)
        if hit is None:
            if len(self.memo) > 4096:
                self.memo.clear()
            hit = self.memo[value] = self._code128(value) if self.kind == "code128" else self._qr(value)
        return hit

    def _code128(self, value: str) -> tuple[str, float, float]:
        bars, total = code128_bars(value)
        w, h = self.w, self.h
        module = min(1.0, w / (total + 2 * _C128_QUIET))
        frags = self._bars
        out = []
        for start, width in bars:
            key = (module, start, width)
            f = frags.get(key)
            if f is None:
                if len(frags) > 20000:
                    frags.clear()
                f = frags[key] = f"{start * module:.2f} 0 {width * module:.2f} {h:.2f} re"
            out.append(f)
        return " ".join(out), (w - total * module) / 2, 0.0

    def _qr(self, value: str) -> tuple[str, float, float]:
        runs, n = qr_modules(value)
        side = self.w
        module = side / (n + 2)  # one module of the quiet zone inside the box, the label's white around it
        ops = " ".join(
            f"{module * (1 + c0):.2f} {-module * (r + 1):.2f} {module * ln:.2f} {module:.2f} re" for r, c0, ln in runs
        )
        return ops, 0.0, side - module


# ----- layout of one label ---------------------------------------------------------------------


class _Layout:
    """Where the code and the text go in one printed area (w x h, origin at its top-left)."""

    def __init__(self, stock, w: float, h: float):
        pad = stock.padding
        self.size = stock.font_size
        self.lead = stock.font_size + 1.2
        self.small = MIN_FONT_SIZE
        self.small_lead = MIN_FONT_SIZE + 1.0
        inner_w, inner_h = w - 2 * pad, h - 2 * pad
        if stock.code == "code128":
            bar_h = max(14.0, min(28.0, inner_h * 0.28))
            self.code = (pad, -(h - pad), inner_w, bar_h)  # x, y (bottom, from the top edge), w, h
            self.text = (pad, -pad, inner_w, inner_h - bar_h - 2)
        else:
            side = min(inner_h, inner_w * 0.42)
            if inner_w - side - 4 >= 70:  # beside the text
                self.code = (pad, -(pad + side), side, side)
                self.text = (pad + side + 4, -pad, inner_w - side - 4, inner_h)
            else:  # above the text
                side = min(inner_w, inner_h * 0.45)
                self.code = (pad + (inner_w - side) / 2, -(pad + side), side, side)
                self.text = (pad, -(pad + side + 2), inner_w, inner_h - side - 2)

    def lines(self, head: str, text: str, pieces) -> list[tuple[str, str, float]]:
        """[(font, text, size)] top down: heading, the label text (wrapped at '/' or ' '), then as many
        of the small line's pieces as fit. Only what fits the text box; never wider than it."""
        _, _, w, h = self.text
        fh = fitter(COND_BOLD, self.size)
        heads = [head] if fh.width(head) <= w else wrap(head, w, COND_BOLD, self.size, 2)
        out = [(COND_BOLD, ln, self.size) for ln in heads]
        room = int((h - self.lead * len(heads)) // self.lead)
        f = fitter(COND, self.size)
        if f.width(text) <= w:
            body = [text]
        else:
            body = wrap(text, w, COND, self.size, max(1, room))
        out += [(COND, ln, self.size) for ln in body]
        used = self.lead * (len(heads) + len(body))
        if pieces and used + self.small_lead <= h + 0.01:
            fs = fitter(COND, self.small)
            line = ""
            whole = " \u00b7 ".join(pieces)
            if pieces[0] and fs.width(whole) <= w:  # all of it fits: the loop below would end with it
                pieces = ()
                line = whole
            for piece in pieces:
                cand = f"{line} \u00b7 {piece}" if line else piece
                if fs.width(cand) > w:
                    break
                line = cand
            if line:
                out.append((COND, line, self.small))
        return out


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
    small = MIN_FONT_SIZE
    # the printed area(s) of one label, relative to its top-left corner: a flag prints twice
    printed_h = stock.printed_height
    if stock.kind == "flag":
        half = (stock.label_width - stock.wrap_zone) / 2
        areas = [(0.0, half), (half + stock.wrap_zone, half)]
    else:
        areas = [(0.0, stock.label_width)]
    layout = _Layout(stock, areas[0][1], printed_h)
    cx, cy, cw, ch = layout.code
    codes = _Codes(stock.code, cw, ch)
    # footer: in the larger of the two free page margins, centred in it
    used_h = stock.margin_top + stock.rows * stock.label_height + (stock.rows - 1) * stock.gap_y
    bottom_free = ph - used_h
    if bottom_free >= stock.margin_top:
        foot_y = bottom_free / 2 - small * 0.35
    else:
        foot_y = ph - stock.margin_top / 2 - small * 0.35
    scope = f" \u00b7 rack {opts.rack}" if opts.rack else (f" \u00b7 row {opts.row}" if opts.row else "")
    records = iter_label_records(v, row=opts.row, rack=opts.rack)
    xs = [stock.margin_left + k * (stock.label_width + stock.gap_x) for k in range(stock.columns)]
    ys = [ph - stock.margin_top - k * (stock.label_height + stock.gap_y) for k in range(stock.rows)]
    tx0, ty0, tw, _ = layout.text
    done = 0
    doc = "Labels"
    audit = auditing()
    # "1 0 0 1 x y Tm" of every line start (a few dozen places per page), as TextObject.setTextOrigin
    # writes it; written straight into the text objects (the fast line writer keeps no cursor)
    origins: dict = {}
    for page in range(1, pages + 1):
        # one text object per font (heading, text, small) so the fast path of line_writer applies
        texts = {}
        for _key, font, size in (
            ("head", COND_BOLD, stock.font_size),
            ("text", COND, stock.font_size),
            ("small", COND, small),
        ):
            t = c.beginText()
            t.setFont(font, size, size + 1)
            texts[(font, size)] = (t, t._code.append, line_writer(t))
        bars: list[str] = []
        on_page = 0
        for yk in ys:
            for xk in xs:
                if done >= total_labels:
                    break
                kind, value, head, text, pieces, *_ = next(records)
                done += 1
                on_page += 1
                lines = layout.lines(head, text, pieces)
                ops, ox, oy = codes.get(value)
                for ax, _aw in areas:
                    x, y = xk + ax + tx0, yk + ty0
                    for font, s, size in lines:
                        _t, add, write = texts[(font, size)]
                        y -= size + (1.2 if size > small else 1.0)
                        key = (x, y + 0.2 * size)
                        tm = origins.get(key)
                        if tm is None:
                            tm = origins[key] = f"1 0 0 1 {fp_str(*key)} Tm"
                        add(tm)
                        write(s)
                        if audit:
                            audit_box(doc, s, font, size, tw)
                    bars.append(f"q 1 0 0 1 {xk + ax + cx + ox:.2f} {yk + cy + oy:.2f} cm {ops} f Q")
                if stock.kind == "flag":  # where the flag wraps round the cable
                    c.setLineWidth(0.3)
                    c.setStrokeGray(0.6)
                    c.setDash(1, 2)
                    for fx in (xk + areas[1][0] - stock.wrap_zone, xk + areas[1][0]):
                        c.line(fx, yk - stock.label_height + 2, fx, yk - 2)
                    c.setDash()
        c.setFillGray(0)
        c._code.append("\n".join(bars))  # filled black, under the text
        for t in texts.values():
            c.drawText(t[0])
        c.setFont(COND, small)
        f_small = fitter(COND, small)
        right = f"Page {page} of {pages}"
        room = pw - 2 * stock.margin_left - f_small.width(right) - 12
        foot = f_small.fit(
            f"Labels \u2014 {name} \u00b7 revision {revision_label} \u00b7 {opts.date}{scope} \u00b7 "
            f"stock: {stock.name}",
            room,
        )
        audit_box(doc, foot, COND, small, room)
        c.drawString(stock.margin_left, foot_y, foot)
        c.drawRightString(pw - stock.margin_left, foot_y, right)
        audit_page(doc, page, on_page / per_page, page == pages)
        c.showPage()
    c.save()
    return pages
