"""Label sheets (labels.pdf): both-end labels of every cable and trunk, plus every patch panel
and used panel port, laid out on a wrap-around label stock, in installation order (rack by rack,
as the cabling plan: panels of the rack first, then each cable's A-end label and B-end label). The
panel-port labels follow on pages of their own stock (port_stock: no wider than a panel's port pitch).

Each label's print area holds: a bold first line (cable id and which end), the label text (as
the engine renders it; wrapped at '/' or ' ' when it is wider than the label), and a small line
with the part number and length. All text is >= 7 pt and fitted to the label width.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from math import ceil, pi
from typing import IO, Any

from reportlab.lib.rl_accel import fp_str

from engine.result import DesignResult

from . import _qr
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
from .options import MM, ExportOptions, LabelStock


def _view(result: DesignResult | DesignView) -> DesignView:
    return result if isinstance(result, DesignView) else DesignView(result)


def _panel_ports(v: DesignView, sel: Collection[int] | None) -> dict:
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


def iter_label_records(
    result: DesignResult | DesignView, *, row: str | None = None, rack: str | None = None
) -> Iterator[tuple]:
    """Labels in installation order as (kind, barcode value, heading, label text, small line pieces,
    cable id, end, device, port, rack, part, length). kind: cable | trunk | panel | panel-port; the
    barcode value is the cable id (a trunk's too), the panel id, or panel id:port."""
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

    def panel_labels(ri: int) -> Iterator[tuple]:
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
                    f"{pid}:{p}",  # the port code, printed as text under its QR code
                    v.panel_port_label(ri, u, p),
                    (),
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
                tid = cid  # the id cables.csv, the plan and the test sheet give it
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
                    (f"{r[i_ad]} {r[i_ap]}", *pieces),
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
                    (f"{r[i_bd]} {r[i_bp]}", *pieces),
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


def iter_labels(
    result: DesignResult | DesignView, *, row: str | None = None, rack: str | None = None
) -> Iterator[tuple[str, str, str]]:
    """Labels in installation order: (heading, label text, small line). Heading is e.g.
    'C000001 \u00b7 A end', 'C000123 trunk \u00b7 B end', 'PANEL PP-C09-U47', 'PP-C09-U47:5' (a panel port)."""
    for rec in iter_label_records(result, row=row, rack=rack):
        yield rec[2], rec[3], " \u00b7 ".join(rec[4])


def _sections(v: DesignView, opts: ExportOptions) -> list[tuple]:
    """[(stock, count, records)] of labels.pdf in print order: everything but panel ports on label_stock, then the
    panel-port labels on port_stock (a label no wider than the panel's port pitch). Sections without a label are
    left out."""
    sel = v.scope(opts.row, opts.rack)
    order, _ = v.install_order(sel)
    ports = _panel_ports(v, sel)
    n_ports = sum(len(p) for us in ports.values() for p in us.values())
    n_main = 2 * len(order) + sum(len(us) for us in ports.values())

    thin = _thin_cords(v, order, opts)
    n_thin = 2 * len(thin)

    def records(section: str) -> Iterator[tuple]:
        for rec in iter_label_records(v, row=opts.row, rack=opts.rack):
            s = "port" if rec[0] == "panel-port" else "flag" if rec[5] in thin else "main"
            if s == section:
                yield rec

    out = []
    for stock, n, section in (
        (opts.label_stock, n_main - n_thin, "main"),
        (opts.flag_stock, n_thin, "flag"),
        (opts.port_stock, n_ports, "port"),
    ):
        if n:
            out.append((stock, n, records(section)))
    return out


def _thin_cords(v: DesignView, order: Sequence[int], opts: ExportOptions) -> set[str]:
    """Ids of the cables (trunks too) a wrap label cannot go round: the printed height is more than the cord's
    circumference, so the print would overlap itself (a 3.0 mm AOC or fibre cord is 9.4 mm round, the generic
    wrap stock prints 19 mm). Their labels go on flags instead, which hang off the cord."""
    stock = opts.label_stock
    if stock.kind != "wrap":
        return set()
    i_id, i_type = CI["id"], CI["type"]
    thin = set()
    for r in v.cable_rows(order):
        d = opts.cord_diameter(r[i_type])
        if d is not None and stock.printed_height > pi * d * MM:
            thin.add(r[i_id])
    return thin


def iter_labels_csv(
    result: DesignResult | DesignView, options: ExportOptions | Mapping[str, Any] | None = None, *, raw: bool = False
) -> Iterator[str]:
    """labels.csv: one row per label of labels.pdf, in the same order, with its page and position on the
    sheet and its stock, for label-printer software (merge fields: barcode, heading, label_text, ...)."""
    opts = ExportOptions.from_any(options)
    v = _view(result)
    # Over several halls each label also names the (1-based) hall of its rack, as cables.csv names each end's:
    # a print run is split by hall before anyone walks to a rack; one hall's file keeps its columns.
    halls = v.halls > 1
    hall_of = {r.id: r.hall + 1 for r in v.racks} if halls else {}

    def rows() -> Iterator[tuple]:
        k = 0
        first_page = 0
        for stock, n, records in _sections(v, opts):
            per_page = stock.columns * stock.rows
            for j, rec in enumerate(records):
                kind, value, head, text, _pieces, cid, end, dev, port, rk, part, length = rec
                page, pos = divmod(j, per_page)
                k += 1
                yield (
                    k,
                    first_page + page + 1,
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
                ) + ((hall_of.get(rk, ""),) if halls else ())
            first_page += ceil(n / per_page)

    columns = (*LABEL_CSV_COLUMNS, "hall") if halls else LABEL_CSV_COLUMNS
    yield from csv_lines(columns, rows(), raw=raw or opts.raw_csv)


def count_labels(result: DesignResult | DesignView, *, row: str | None = None, rack: str | None = None) -> int:
    v = _view(result)
    sel = v.scope(row, rack)
    order, _ = v.install_order(sel)
    ports = _panel_ports(v, sel)
    return 2 * len(order) + sum(len(us) + sum(len(p) for p in us.values()) for us in ports.values())


# ----- barcodes ---------------------------------------------------------------------------------
# Drawn as filled rectangles into one path per page. Code 128 from reportlab's encoder (its symbol choice);
# QR from deliverables/_qr.py: reportlab's pure-Python QR encoder took 0.26-0.30 ms a code, most of a label's time;
# _qr gives the same symbol (same mode, version, mask) in about 0.01 ms.
#
# The mask stays fixed (LABEL_QR_MASK, as with reportlab's encoder before): any of the eight masks makes a valid
# symbol, and the one ISO/IEC 18004's penalty rule picks (_qr.modules(value) without a mask, about 0.04 ms) was
# read less well here: on the port stock at 200 dpi (3-dot modules at 300 dpi are 2 px, their edges between
# pixels) ZBar missed 2-3 of the 108 panel-port codes of test_label_content, every one a mask-7 symbol, where mask 2
# reads all 108 (4 Dec 2026; zxing-cpp read all with either).
LABEL_QR_MASK = 2

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
        return [*e, check % 103, 106]
    from reportlab.graphics.barcode.code128 import Code128

    b = Code128(value, barWidth=1, quiet=0)
    b.validate()
    return b.encode()


def _c128_symbol(sym: Any) -> tuple[list[tuple[int, int]], int]:
    from reportlab.graphics.barcode.code128 import _patterns  # type: ignore[attr-defined]  # private, no stub

    bars, x = [], 0
    for ch in _patterns[sym]:
        w = "ABCD".find(ch.upper()) + 1
        if ch.isupper():
            bars.append((x, w))
        x += w
    return bars, x


_DARK_RUN = re.compile("1+")  # a run of dark modules in a QR row, written column 0 first


# Every bar and QR module is a whole number of printer dots, at least MIN_MODULE_DOTS: 2-dot modules at 203 dpi
# (0.25 mm) were missed by one decoder in about 40 % of panel-port labels (issue 43). The modules are at most
# MAX_MODULE_PT wide, as before, unless MIN_MODULE_DOTS needs more (a 203 dpi printer).
MIN_MODULE_DOTS = 3
MAX_MODULE_PT = 1.0
# Clear space between a code and the label's bottom edge on stocks printed whole, so a code never sits against
# the next label's text (the next label keeps its own padding above its text).
BOTTOM_CLEAR_PT = 2.0 * 72 / 25.4
_QR_QUIET = 2  # modules of quiet zone inside the QR box, on each side (the label's padding adds to it)
# a flag's box holds ISO/IEC 18004's 4 (ZBar missed 2 of 262 flag codes at 200 dpi with 2); on the port stock the
# larger box made ZBar miss 1 of 108 there, so it keeps 2 (test_label_content measures both)
_QR_QUIET_FLAG = 4


class LabelDoesNotFit(ValueError):
    """A label's content cannot be printed whole on the stock: the renderer never drops text or shrinks a
    barcode below MIN_MODULE_DOTS; the message names the label and what to change."""


def module_dots(available_pt: float, modules: int, dpi: int) -> int:
    """Dots per module for `modules` modules in `available_pt`: as many as fit up to MAX_MODULE_PT (but never
    fewer than MIN_MODULE_DOTS allow); 0 when even MIN_MODULE_DOTS do not fit."""
    fit = int(available_pt * dpi / 72 / modules + 1e-9)
    cap = max(MIN_MODULE_DOTS, int(MAX_MODULE_PT * dpi / 72 + 1e-9))
    n = min(fit, cap)
    return n if n >= MIN_MODULE_DOTS else 0


class _Codes:
    """The code of a value as PDF path operators in the code box's own coordinates, memoized (both ends
    of a cable, and both halves of a flag, print the same code): a label then costs one translation
    (``q 1 0 0 1 x y cm ... f Q``) instead of formatting every bar again. Bars are rectangles ("x y w h
    re", to 2 decimals as PDFPathObject.rect writes them). Code 128: whole-dot modules (module_dots),
    centred in the box with its 10-module quiet zones inside it; QR: the box is square, _QR_QUIET modules of
    quiet zone inside it."""

    def __init__(self, kind: str, w: float, h: float, dpi: int):
        self.kind = kind
        self.w, self.h = w, h
        self.dpi = dpi
        self.memo: dict = {}
        self._bars: dict = {}  # (module, start, width) -> "x 0 w h re" of one Code 128 bar, or a QR run's (see _qr)
        self._rows: dict = {}  # (modules per side, row, its dark modules as bits) -> that QR row's operators

    def get(self, value: str) -> tuple[str, float, float]:
        """(operators, x, y offset of their origin from the code box's bottom left)."""
        hit = self.memo.get(value)
        if hit is None:
            if len(self.memo) > 4096:
                self.memo.clear()
            hit = self.memo[value] = self._code128(value) if self.kind == "code128" else self._qr(value)
        return hit

    def _too_small(self, value: str, modules: int) -> LabelDoesNotFit:
        need = modules * MIN_MODULE_DOTS / self.dpi * 25.4
        return LabelDoesNotFit(
            f"label_stock: the {self.kind} code of {value!r} needs {need:.1f} mm at {MIN_MODULE_DOTS} dots per module "
            f"and {self.dpi} dpi; the code box is {self.w / 72 * 25.4:.1f} mm: choose a wider stock"
            + (" or code: qr" if self.kind == "code128" else "")
        )

    def _code128(self, value: str) -> tuple[str, float, float]:
        bars, total = code128_bars(value)
        w, h = self.w, self.h
        dots = module_dots(w, total + 2 * _C128_QUIET, self.dpi)
        if not dots:
            raise self._too_small(value, total + 2 * _C128_QUIET)
        module = dots * 72 / self.dpi
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
        rows, n, _mask = _qr.modules(value, LABEL_QR_MASK)
        side = self.w
        dots = module_dots(side, n + 2 * _QR_QUIET, self.dpi)
        if not dots:
            raise self._too_small(value, n + 2 * _QR_QUIET)
        module = dots * 72 / self.dpi
        inset = (side - n * module) / 2  # the quiet zone, centred
        # one "x y w h re" per run of dark modules in a row; a row's operators are kept by (size, row, its bits):
        # the rows through the finder patterns repeat between codes, and each run's text repeats more
        memo, frags = self._rows, self._bars
        out = []
        for r, bits in enumerate(rows):
            key = (n, r, bits)
            ops = memo.get(key)
            if ops is None:
                if len(memo) > 50_000:
                    memo.clear()
                y = -module * (r + 1)
                parts = []
                for m in _DARK_RUN.finditer(format(bits, "b")[::-1]):  # bit c is column c
                    c0, ln = m.start(), m.end() - m.start()
                    fkey = (n, r, c0, ln)
                    f = frags.get(fkey)
                    if f is None:
                        if len(frags) > 50_000:
                            frags.clear()
                        f = frags[fkey] = f"{inset + module * c0:.2f} {y:.2f} {module * ln:.2f} {module:.2f} re"
                    parts.append(f)
                ops = memo[key] = " ".join(parts)
            if ops:
                out.append(ops)
        return " ".join(out), 0.0, side - inset


# ----- layout of one label ---------------------------------------------------------------------

_BREAKS = " /-:\u00b7"  # where label text may wrap: between the two ends, between words, inside an id


class _Layout:
    """Where the code and the text go in one printed area (w x h, origin at its top-left), and how the text is
    fitted: the stock's font size, then smaller in half points down to MIN_FONT_SIZE, wrapping every part onto
    as many lines as it needs; a label that does not fit even then is an error (LabelDoesNotFit), never cut."""

    def __init__(self, stock: LabelStock, w: float, h: float, compact: bool = False) -> None:
        pad = stock.padding
        self.stock = stock
        self.size = stock.font_size
        self.small = MIN_FONT_SIZE
        # wrap: the clear laminate is below the print; otherwise the gap to the next label counts
        bottom = pad if stock.kind == "wrap" else max(pad, BOTTOM_CLEAR_PT - stock.gap_y)
        inner_w, inner_h = w - 2 * pad, h - pad - bottom
        if stock.code == "code128":
            bar_h = max(14.0, min(28.0, inner_h * 0.28))
            self.code = (pad, -(h - bottom), inner_w, bar_h)  # x, y (bottom, from the top edge), w, h
            self.text = (pad, -pad, inner_w, inner_h - bar_h - 2)
        else:
            side = min(inner_h, inner_w * 0.42)
            if inner_w - side - 4 >= 70:  # beside the text
                self.code = (pad, -(pad + side), side, side)
                self.text = (pad + side + 4, -pad, inner_w - side - 4, inner_h)
            else:  # above the text: no larger than a version-2 QR of the largest module module_dots picks needs
                # (MAX_MODULE_PT, 4 dots at 300 dpi), to leave room for text; 3-dot modules at 300 dpi are 2 px at
                # 200 dpi, where ZBar missed 11 of 108 port labels and most flag labels (test_label_content)
                # compact: the smallest code, for a label whose text does not fit beside the larger one
                dots = max(MIN_MODULE_DOTS, int(MAX_MODULE_PT * stock.printer_dpi / 72 + 1e-9))
                quiet = _QR_QUIET_FLAG if stock.kind == "flag" else _QR_QUIET
                if compact:
                    dots, quiet = MIN_MODULE_DOTS, _QR_QUIET
                side = min(inner_w, inner_h * 0.45, (25 + 2 * quiet) * dots * 72 / stock.printer_dpi)
                self.code = (pad + (inner_w - side) / 2, -(pad + side), side, side)
                self.text = (pad, -(pad + side + 1), inner_w, inner_h - side - 1)
        self._memo: dict = {}

    @staticmethod
    def lead(size: float) -> float:
        return size + (1.2 if size > MIN_FONT_SIZE else 1.0)

    def lines(self, head: str, text: str, pieces: Any) -> list[tuple[str, str, float]]:
        """[(font, text, size)] top down: the heading (bold), the label text, then the small line's pieces
        (each whole on a line where it fits, joined by a middle dot). Every character is printed."""
        _, _, w, h = self.text
        size = self.size
        lead = self.lead
        while True:
            small = min(size, self.small)
            fs = fitter(COND, small)
            out = [(COND_BOLD, ln, size) for ln in self._wrap(head, fitter(COND_BOLD, size), w)]
            out += [(COND, ln, size) for ln in self._wrap(text, fitter(COND, size), w)]
            big = len(out)
            if pieces:
                whole = " \u00b7 ".join(pieces)
                if len(whole) * fs._maxw <= w or fs.width(whole) <= w:
                    out.append((COND, whole, small))
                else:
                    # first fit: a short piece (the length) joins an earlier line with room rather than taking a
                    # line of its own after a long part number; every piece stays whole where it fits a line
                    packed: list[str] = []
                    for piece in pieces:
                        for i, line in enumerate(packed):
                            cand = f"{line} \u00b7 {piece}"
                            if fs.width(cand) <= w:
                                packed[i] = cand
                                break
                        else:
                            packed.append(piece)
                    for line in packed:
                        out += [(COND, ln, small) for ln in self._wrap(line, fs, w)]
            if big * lead(size) + (len(out) - big) * lead(small) <= h + 0.01:
                return out
            if size <= MIN_FONT_SIZE:
                raise LabelDoesNotFit(
                    f"label_stock {self.stock.key}: the label {head!r} does not fit at {MIN_FONT_SIZE:g} pt "
                    f"({len(out)} lines in a {h / 72 * 25.4:.1f} mm text area): choose a larger stock"
                )
            size = max(MIN_FONT_SIZE, size - 0.5)

    def _wrap(self, s: str, f: Any, w: float) -> list[str]:
        if not s:
            return []
        if len(s) * f._maxw <= w:
            return [s]
        key = (s, f.font_name, f.size)
        hit = self._memo.get(key)
        if hit is None:
            if len(self._memo) > 8192:
                self._memo.clear()
            hit = self._memo[key] = [s] if f.width(s) <= w else wrap(s, w, f.font_name, f.size, 0, _BREAKS)
        return hit


def render_labels_pdf(
    result: DesignResult | DesignView,
    fh: IO[bytes],
    options: ExportOptions | Mapping[str, Any] | None = None,
    *,
    revision_label: str = "r1",
) -> int:
    """Write labels.pdf; returns the page count. The cable, trunk and panel labels on label_stock, then the
    panel-port labels on port_stock, each section on its own pages."""
    opts = ExportOptions.from_any(options)
    v = _view(result)
    sections = _sections(v, opts)
    _refuse_too_many(v, opts, sum(n for _, n, _ in sections))
    stocks = [opts.label_stock] + [s for s, _, _ in sections]
    for st in stocks:
        st.validate()
    pages = max(1, sum(ceil(n / (st.columns * st.rows)) for st, n, _ in sections))
    name = v.result.spec.name
    first = stocks[1] if len(stocks) > 1 else stocks[0]
    c = new_canvas(
        fh,
        page_size(first.page_size, "portrait"),
        title=f"Label sheets: {name} ({revision_label})",
        subject="Label sheets",
    )
    scope = f" \u00b7 rack {opts.rack}" if opts.rack else (f" \u00b7 row {opts.row}" if opts.row else "")
    page = 0
    if not sections:
        _foot(c, opts.label_stock, name, revision_label, opts, scope, 1, 1)
        audit_page("Labels", 1, 0.0, True)
        c.showPage()
    note = _flag_note(opts, sections)
    for stock, total, records in sections:
        page = _render_section(c, stock, total, records, page, pages, name, revision_label, opts, scope, note)
        note = ""
    c.save()
    return pages


# The most labels a whole-design labels.pdf is built with where a time limit applies (the export job); above it
# the job refuses at once, naming the scoped downloads, instead of rendering until JOB_EXPORT_SOFT_TIME_LIMIT_S
# (600 s) stops it. The CLI (write_deliverables) has no time limit and builds any size (unlimited_labels).
# Measured (docs/benchmarks.md, stop 47): the 131,072-GPU bench design over 4 halls has 1,237,928 labels: 729 s
# on this shared machine (load 5-7), about 290 s of CPU (0.23 ms a label), peak 2,284 MB (ReportLab keeps the
# document until it is written: 3.4 KB per cable over the decoded result), a 451 MB file. 1,000,000 labels is
# about 235 s of CPU, under half the limit, so a busy worker still finishes; that design's 265 rows are about 4,700
# labels a sheet.
MAX_WHOLE_DESIGN_LABELS = 1_000_000
_UNLIMITED: ContextVar[bool] = ContextVar("unlimited_labels", default=False)


@contextmanager
def unlimited_labels() -> Iterator[None]:
    """Within it, whole-design label sheets of any size are built (the CLI's write_deliverables: no time limit)."""
    token = _UNLIMITED.set(True)
    try:
        yield
    finally:
        _UNLIMITED.reset(token)


class TooManyLabels(ValueError):
    """A whole-design labels.pdf over MAX_WHOLE_DESIGN_LABELS: the message names the row and rack downloads."""


def _refuse_too_many(v: DesignView, opts: ExportOptions, total: int) -> None:
    if total <= MAX_WHOLE_DESIGN_LABELS or opts.row is not None or opts.rack is not None or _UNLIMITED.get():
        return
    rows = sorted({r.row_name for r in v.racks}, key=lambda s: (len(s), s))
    raise TooManyLabels(
        f"labels.pdf: this design has {total:,} labels, more than the {MAX_WHOLE_DESIGN_LABELS:,} a whole-design "
        f"sheet is built with (it would outrun the export job's time limit): download the labels per row "
        f"(options.row, one of {len(rows):,} rows such as {rows[0]!r}) or per rack (options.rack, e.g. "
        f"{v.racks[0].id!r}); labels.csv lists every label for label-printer software."
    )


def _flag_note(opts: ExportOptions, sections: Iterable[tuple]) -> str:
    """The first page's word on thin cords moved from the wrap stock to flags, or ""."""
    first = 1
    for stock, n, _ in sections:
        if opts.label_stock.kind == "wrap" and stock == opts.flag_stock:
            d = opts.label_stock.printed_height / pi / MM
            return (
                f"{n} labels of cords under {d:.1f} mm across (AOC, fibre, trunks) print as flags on {stock.key} from "
                f"page {first}: this wrap's {opts.label_stock.printed_height / MM:.0f} mm print would overlap round them."
            )
        first += ceil(n / (stock.columns * stock.rows))
    return ""


def _foot(
    c: Any,
    stock: LabelStock,
    name: str,
    revision_label: str,
    opts: ExportOptions,
    scope: str,
    page: int,
    pages: int,
    note: str = "",
) -> None:
    """The footer: in the larger of the two free page margins, centred in it; a note in the other one."""
    small = MIN_FONT_SIZE
    pw, ph = page_size(stock.page_size, "portrait")
    used_h = stock.margin_top + stock.rows * stock.label_height + (stock.rows - 1) * stock.gap_y
    bottom_free = ph - used_h
    if bottom_free >= stock.margin_top:
        foot_y = bottom_free / 2 - small * 0.35
    else:
        foot_y = ph - stock.margin_top / 2 - small * 0.35
    c.setFillGray(0)
    c.setFont(COND, small)
    f_small = fitter(COND, small)
    right = f"Page {page} of {pages}"
    room = pw - 2 * stock.margin_left - f_small.width(right) - 12
    foot = f_small.fit(
        f"Labels \u2014 {name} \u00b7 revision {revision_label} \u00b7 {opts.date}{scope} \u00b7 stock: {stock.name}",
        room,
    )
    audit_box("Labels", foot, COND, small, room)
    c.drawString(stock.margin_left, foot_y, foot)
    c.drawRightString(pw - stock.margin_left, foot_y, right)
    if note:
        note_y = ph - stock.margin_top / 2 - small * 0.35 if bottom_free >= stock.margin_top else bottom_free / 2
        audit_box("Labels", note, COND, small, pw - 2 * stock.margin_left)
        c.drawString(stock.margin_left, note_y, note)


def _render_section(  # noqa: C901
    c: Any,
    stock: LabelStock,
    total_labels: int,
    records: Iterator[tuple],
    page0: int,
    pages: int,
    name: str,
    revision_label: str,
    opts: ExportOptions,
    scope: str,
    note: str = "",
) -> int:
    """The pages of one stock's labels; returns the last page number written."""
    per_page = stock.columns * stock.rows
    pw, ph = page_size(stock.page_size, "portrait")
    c.setPageSize((pw, ph))
    # the printed area(s) of one label, relative to its top-left corner: a flag prints twice
    printed_h = stock.printed_height
    if stock.kind == "flag":
        half = (stock.label_width - stock.wrap_zone) / 2
        areas = [(0.0, half), (half + stock.wrap_zone, half)]
    else:
        areas = [(0.0, stock.label_width)]
    layouts = []
    for compact in (False, True):  # a label whose text does not fit beside the larger code takes the compact one
        lay = _Layout(stock, areas[0][1], printed_h, compact=compact)
        layouts.append((lay, _Codes(stock.code, lay.code[2], lay.code[3], stock.printer_dpi)))
    layout = layouts[0][0]
    cx, cy, _cw, _ch = layout.code
    xs = [stock.margin_left + k * (stock.label_width + stock.gap_x) for k in range(stock.columns)]
    ys = [ph - stock.margin_top - k * (stock.label_height + stock.gap_y) for k in range(stock.rows)]
    tx0, ty0, tw, _ = layout.text
    done = 0
    doc = "Labels"
    audit = auditing()
    # "1 0 0 1 x y Tm" of every line start (a few dozen places per page), as TextObject.setTextOrigin
    # writes it; written straight into the text objects (the fast line writer keeps no cursor)
    origins: dict = {}
    page = page0
    while done < total_labels:
        page += 1
        texts: dict = {}  # one text object per (font, size), so the fast path of line_writer applies

        def text_of(font: str, size: float, texts: dict = texts) -> Any:
            t = texts.get((font, size))
            if t is None:
                tx = c.beginText()
                tx.setFont(font, size, size + 1)
                t = texts[(font, size)] = (tx, tx._code.append, line_writer(tx))
            return t

        bars: list[str] = []
        on_page = 0
        for yk in ys:
            for xk in xs:
                if done >= total_labels:
                    break
                _kind, value, head, text, pieces, *_ = next(records)
                done += 1
                on_page += 1
                try:
                    lay, codes = layouts[0]
                    lines = lay.lines(head, text, pieces)
                except LabelDoesNotFit:
                    if layouts[1][0].code == layouts[0][0].code:
                        raise
                    lay, codes = layouts[1]
                    lines = lay.lines(head, text, pieces)
                cx, cy, _, _ = lay.code
                tx0, ty0, tw, _ = lay.text
                ops, ox, oy = codes.get(value)
                for ax, _aw in areas:
                    x, y = xk + ax + tx0, yk + ty0
                    for font, s, size in lines:
                        _t, add, write = text_of(font, size)
                        y -= lay.lead(size)
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
        _foot(c, stock, name, revision_label, opts, scope, page, pages, note if page == page0 + 1 else "")
        audit_page(doc, page, on_page / per_page, page == pages or done >= total_labels)
        c.showPage()
    return page
