"""Labels that say everything and scan: every label of a panel rack (cables, trunks, panels, panel ports) on every
stock, each barcode read at the stated printer resolution and at 200 dpi by two independent decoders: zxing-cpp and
ZBar (Debian's libzbar0 through pyzbar) for every code, QR and Code 128, plus a Code 128 scan-line reader written
here; and each label's own text holding its id, both ends, part and length.

Each label is cut out of the page raster by its cell on the sheet (labels.csv gives page, row and column), so a
barcode must decode inside its own label; the bottom strip of a label printed whole stays blank, so no code sits
against the next label's text.
"""

from __future__ import annotations

from collections import Counter

import pytest

from .code128_scan import read_code128
from .conftest import PdfText, read_csv
from .test_site_documents import rasterise

RACK = "DC1.A05"  # a leaf rack of the panel design: patch panels, panel ports, trunks and cords
STOCKS = [
    "wrap-2x1.5-letter",
    "avery-l7160",
    "avery-l7160-flag",
    "avery-5160",
    {"preset": "wrap-2x1.5-letter", "code": "qr"},
    {"preset": "avery-5160", "printer_dpi": 203},
]


def _zbar():
    """pyzbar's decode, or a skip naming why libzbar could not be loaded (pyzbar itself is a pinned requirement)."""
    import pyzbar  # noqa: F401  (not installed: a failure, requirements-dev.txt pins it)

    try:
        from pyzbar import pyzbar as zbar
    except ImportError as e:  # pyzbar loads libzbar.so.0 on import
        pytest.skip(f"ZBar (Debian's libzbar0) cannot be loaded, so the second decoder is missing: {e}")
    kinds = [zbar.ZBarSymbol.QRCODE, zbar.ZBarSymbol.CODE128]  # only what labels print: no stray EAN/DataBar reads
    return lambda image: Counter(s.data.decode("ascii", "replace") for s in zbar.decode(image, symbols=kinds))


def _cells(stock, row: int, col: int, dpi: int, height: float):
    """The pixel box (left, top, right, bottom) of a label on a page raster at dpi."""
    k = dpi / 72
    x0 = stock.margin_left + (col - 1) * (stock.label_width + stock.gap_x)
    y0 = stock.margin_top + (row - 1) * (stock.label_height + stock.gap_y)
    return round(x0 * k), round(y0 * k), round((x0 + stock.label_width) * k), round((y0 + height) * k)


def _wanted_text(r: dict) -> list[str]:
    """What a label of this kind must print (labels.csv row)."""
    if r["kind"] in ("cable", "trunk"):
        return [r["cable_id"], f"{r['end']} end", r["label_text"], r["part"], f"{r['length_m']} m"]
    if r["kind"] == "panel":
        return [r["barcode"], r["label_text"], f"rack {r['rack']}"]
    return [r["barcode"], r["label_text"]]  # panel port: the port code and its TIA-606 label


@pytest.mark.parametrize("stock", STOCKS, ids=lambda s: s if isinstance(s, str) else "+".join(map(str, s.values())))
def test_every_label_scans_twice_and_prints_all_it_should(design, tmp_path, stock):  # noqa: C901
    import zxingcpp
    from PIL import ImageOps

    from apps.exports.renderers import DesignView, ExportOptions, iter_labels_csv, render_labels_pdf, write_lines
    from apps.exports.renderers._pdf import audit_layout
    from apps.exports.renderers.labels import BOTTOM_CLEAR_PT

    zbar_read = _zbar()
    v = DesignView(design)
    opts = ExportOptions.from_any({"date": "2026-01-15", "rack": RACK, "label_stock": stock})
    stocks = {s.key: s for s in (opts.label_stock, opts.flag_stock, opts.port_stock)}
    with audit_layout() as audit, open(tmp_path / "labels.pdf", "wb") as fh:
        pages = render_labels_pdf(v, fh, opts, revision_label="r7")
    write_lines(tmp_path / "labels.csv", iter_labels_csv(v, opts))
    rows = read_csv(tmp_path / "labels.csv")
    assert {r["kind"] for r in rows} == {"cable", "trunk", "panel", "panel-port"}
    assert int(rows[-1]["page"]) == pages
    assert not audit.overflowing() and not [b for b in audit.boxes if "\u2026" in b[1]]
    # panel-port labels on a stock no wider than a 1U 24-port panel's port pitch (about 18 mm)
    assert {r["stock"] for r in rows if r["kind"] == "panel-port"} == {opts.port_stock.key}
    assert opts.port_stock.label_width <= 18 * 72 / 25.4
    pdf = PdfText(tmp_path / "labels.pdf")
    by_page: dict = {}
    for r in rows:
        by_page.setdefault(int(r["page"]), []).append(r)
    misses: Counter = Counter()
    decoded: Counter = Counter()  # codes each decoder read right, by decoder, symbology and dpi
    for page, labels in by_page.items():
        st = stocks[labels[0]["stock"]]
        flag = st.kind == "flag"
        printed_h = st.printed_height
        for dpi in sorted({st.printer_dpi, 200}):
            image = rasterise(tmp_path / "labels.pdf", page - 1, dpi).convert("L")
            for r in labels:
                box = _cells(st, int(r["row"]), int(r["column"]), dpi, printed_h)
                cell = image.crop(box)
                want = Counter({r["barcode"]: 2 if flag else 1})
                got = Counter(b.text for b in zxingcpp.read_barcodes(cell))
                if got != want:
                    misses[("zxing", dpi, r["kind"])] += 1
                else:
                    decoded[("zxing", st.code, dpi)] += 1
                # ZBar wants more quiet zone than the 2 QR modules inside the label; on the sheet the label's
                # neighbours leave it blank there (their bottom clearance, checked below), so give it that margin
                # a folded flag shows one face at a time: ZBar reads each half on its own
                margin = int(BOTTOM_CLEAR_PT * dpi / 72)
                faces = [cell]
                if flag:
                    half = round((st.label_width - st.wrap_zone) / 2 * dpi / 72)
                    faces = [
                        cell.crop((0, 0, half, cell.height)),
                        cell.crop((cell.width - half, 0, cell.width, cell.height)),
                    ]
                if sum((zbar_read(ImageOps.expand(f, margin, fill=255)) for f in faces), Counter()) != want:
                    misses[("zbar", dpi, r["kind"])] += 1
                else:
                    decoded[("zbar", st.code, dpi)] += 1
                if st.code == "code128":
                    if read_code128(cell) != {r["barcode"]}:
                        misses[("scan", dpi, r["kind"])] += 1
                    else:
                        decoded[("scan", st.code, dpi)] += 1
                if st.kind != "wrap" and dpi == st.printer_dpi:  # nothing printed in the bottom clearance
                    clear = int((BOTTOM_CLEAR_PT - st.gap_y) * dpi / 72)
                    strip = cell.crop((0, cell.height - clear + 1, cell.width, cell.height - 1)) if clear > 2 else None
                    if strip is not None and strip.getextrema()[0] < 128:
                        misses[("clearance", dpi, r["kind"])] += 1
        # the text: fragments inside each label's cell (each half of a flag), top down, spaces dropped
        for r in labels:
            x0, y0, x1, _ = _cells(st, int(r["row"]), int(r["column"]), 72, printed_h)
            pw_top = 842 if st.page_size == "a4" else 792
            top, bottom = pw_top - y0, pw_top - y0 - st.label_height
            halves = [(x0, x1)]
            if flag:
                half = (st.label_width - st.wrap_zone) / 2
                halves = [(x0, x0 + half), (x1 - half, x1)]
            for hx0, hx1 in halves:
                frags = sorted(
                    (it for it in pdf.items if it[0] == page - 1 and hx0 <= it[1] < hx1 and bottom < it[2] <= top),
                    key=lambda it: -it[2],
                )
                joined = "".join(it[3] for it in frags).replace(" ", "")
                for piece in _wanted_text(r):
                    if piece.replace(" ", "") not in joined:
                        misses[("text", piece if r["kind"] == "panel" else r["kind"])] += 1
    assert not misses, dict(misses)
    # every code read by two decoders at both resolutions (zxing and ZBar each read every one)
    codes = Counter((stocks[r["stock"]].code, dpi) for r in rows for dpi in {stocks[r["stock"]].printer_dpi, 200})
    for (code, dpi), n in codes.items():
        assert decoded[("zxing", code, dpi)] == decoded[("zbar", code, dpi)] == n, (code, dpi, n, dict(decoded))
    print(
        f"\n{opts.label_stock.key}: {len(rows)} labels; decoded "
        + ", ".join(f"{d}/{c}@{dpi}={n}" for (d, c, dpi), n in sorted(decoded.items()))
    )


@pytest.mark.parametrize("dpi", [300, 203, 600])
def test_every_code_module_is_three_whole_printer_dots_or_more_and_quiet_zones_stay_inside(dpi):
    """Every stock's code box, for a cable id, a trunk id, a panel id and a panel-port code: the modules are whole
    dots (at least 3) and the Code 128 quiet zones (10 modules) lie inside the code box, which lies in the label."""
    import re

    from apps.exports.renderers import ExportOptions, label_stock_presets
    from apps.exports.renderers.labels import (
        _C128_QUIET,
        MIN_MODULE_DOTS,
        LabelDoesNotFit,
        _Codes,
        _Layout,
        code128_bars,
    )

    dot = 72 / dpi
    for key, preset in label_stock_presets().items():
        stock = ExportOptions.from_any({"label_stock": {"preset": key, "printer_dpi": dpi}}).label_stock
        half = (stock.label_width - stock.wrap_zone) / 2 if stock.kind == "flag" else stock.label_width
        layout = _Layout(stock, half, stock.printed_height)
        cx, cy, cw, ch = layout.code
        assert cx >= 0 and cx + cw <= half + 0.01 and -cy <= stock.printed_height + 0.01, key
        codes = _Codes(stock.code, cw, ch, dpi)
        values = ["C001057", "PP-A01-U47"] if preset.code == "code128" else ["C001057", "PP-A01-U47:24"]
        for value in values:
            try:
                ops, ox, _ = codes.get(value)
            except LabelDoesNotFit:  # only where even 3-dot modules and the quiet zones cannot fit the box
                modules = code128_bars(value)[1] + 2 * _C128_QUIET if stock.code == "code128" else 21 + 4
                assert cw < modules * MIN_MODULE_DOTS * dot, (key, value)
                assert dpi < 300, "every shipped stock prints every kind of id at the default 300 dpi"
                continue
            rects = [tuple(map(float, m)) for m in re.findall(r"([-\d.]+) ([-\d.]+) ([-\d.]+) ([-\d.]+) re", ops)]
            narrow = min(w for _, _, w, _ in rects)
            assert narrow >= MIN_MODULE_DOTS * dot - 0.01, (key, value, narrow)
            assert abs(narrow / dot - round(narrow / dot)) < 0.02, (key, value, narrow / dot)
            if stock.code == "code128":
                left = ox + min(x for x, *_ in rects)
                right = cw - (ox + max(x + w for x, _, w, _ in rects))
                assert min(left, right) >= _C128_QUIET * narrow - 0.02, (key, value, left, right)


def test_a_wrap_stock_puts_cords_too_thin_for_it_on_flags_and_says_so(design, tmp_path):
    """The generic wrap stock prints 19 mm; a 3.0 mm AOC or fibre cord ([S38]) is 9.4 mm round, so its labels (and
    the trunks', whose fibre figure is the documented default) go on the flag stock, named on the first page;
    copper (9.43 mm, 29.6 mm round) stays on the wrap. A sheet stock moves nothing; a site's own diameters count."""
    from apps.exports.renderers import DesignView, ExportOptions, iter_labels_csv, render_labels_pdf, write_lines

    v = DesignView(design)

    def stocks_by_type(options):
        opts = ExportOptions.from_any({"date": "2026-01-15", "rack": RACK, **options})
        write_lines(tmp_path / "labels.csv", iter_labels_csv(v, opts))
        out: dict = {}
        for r in read_csv(tmp_path / "labels.csv"):
            if r["kind"] in ("cable", "trunk"):
                out.setdefault(r["part"], set()).add(r["stock"])
        return opts, out

    opts, by_part = stocks_by_type({})
    types = {row[1]: row[0] for row in _types(v)}
    flags = {p for p, s in by_part.items() if s == {"avery-l7160-flag"}}
    wraps = {p for p, s in by_part.items() if s == {"wrap-2x1.5-letter"}}
    assert flags | wraps == set(by_part)
    assert flags and {types[p] for p in flags} <= {"aoc", "cord", "splitter", "trunk"}
    assert wraps and {types[p] for p in wraps} <= {"dac", "acc", "rj45"}
    with open(tmp_path / "labels.pdf", "wb") as fh:
        render_labels_pdf(v, fh, opts, revision_label="r7")
    from pypdf import PdfReader

    first = PdfReader(str(tmp_path / "labels.pdf")).pages[0].extract_text()
    assert "under 6.1 mm across (AOC, fibre, trunks) print as flags on avery-l7160-flag" in " ".join(first.split())

    _, by_part = stocks_by_type({"label_stock": "avery-l7160"})
    assert set().union(*by_part.values()) == {"avery-l7160"}
    _, by_part = stocks_by_type({"cord_diameter_mm": {t: 9.43 for t in ("aoc", "cord", "splitter", "trunk")}})
    assert set().union(*by_part.values()) == {"wrap-2x1.5-letter"}
    for bad in ({"cord_diameter_mm": {"aoc": 0}}, {"cord_diameter_mm": 3}, {"thin_cord_stock": "wrap-2x1.5-letter"}):
        with pytest.raises(ValueError, match=f"options.{next(iter(bad))}"):
            ExportOptions.from_any(bad)


def _types(v):
    """(type, part) of every cable of the rack, from the cable schedule."""
    from apps.exports.renderers._view import CI

    order, _ = v.install_order(v.scope(None, RACK))
    return {(r[CI["type"]], r[CI["part"]]) for r in v.cable_rows(order)}
