"""The documents a site team works from (cabling plan, test sheet, labels) on a 4-SU design: nothing cut or
overflowing, no near-empty page inside a section, the layout rules on every document, barcodes that scan.

Renders the 4-SU DGX H100 preset (leaf-spine in panel mode) once, with the layout audit on, and writes example
pages (PNG) as it goes: to docs/examples/ with FABRICDESIGN_WRITE_EXAMPLES=1, elsewhere to a temporary folder
(tests/examples.py).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from pathlib import Path

import pytest

from tests.examples import examples_dir

from .conftest import PdfText, font_sizes, read_csv

DOCS = {"cabling-plan.pdf": "Cabling plan", "test-sheet.pdf": "Test sheet", "labels.pdf": "Labels"}
OPTIONS = {"date": "2026-01-15"}


@pytest.fixture(scope="session")
def site_docs(design, tmp_path_factory):
    """{file: (path, pages)} of the three documents, the labels CSV, and the layout audit of their rendering."""
    from deliverables import (
        DesignView,
        iter_labels_csv,
        render_cabling_plan_pdf,
        render_labels_pdf,
        render_test_sheet_pdf,
        write_lines,
    )
    from deliverables._pdf import audit_layout

    out = tmp_path_factory.mktemp("site")
    v = DesignView(design)
    files = {}
    with audit_layout() as audit:
        for name, fn in (
            ("cabling-plan.pdf", render_cabling_plan_pdf),
            ("test-sheet.pdf", render_test_sheet_pdf),
            ("labels.pdf", render_labels_pdf),
        ):
            with open(out / name, "wb") as fh:
                files[name] = (out / name, fn(v, fh, OPTIONS, revision_label="r7"))
    write_lines(out / "labels.csv", iter_labels_csv(v, OPTIONS))
    return files, audit, out


def rasterise(path: Path, page: int, dpi: int = 300):
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(path))
    try:
        return pdf[page].render(scale=dpi / 72, grayscale=True).to_pil()
    finally:
        pdf.close()


def decode(image) -> Counter:
    import zxingcpp

    return Counter(r.text for r in zxingcpp.read_barcodes(image))


def write_example(path: Path, page: int, name: str, dpi: int = 60) -> Path:
    out = examples_dir() / name
    rasterise(path, page, dpi).convert("L").save(out, optimize=True)
    return out


# ----- nothing cut, nothing overflowing -------------------------------------------------------------


def test_no_text_overflows_its_box_and_none_is_cut(site_docs):
    from reportlab.pdfbase.pdfmetrics import stringWidth

    files, audit, _ = site_docs
    for kind in DOCS.values():
        boxes = [b for b in audit.boxes if b[0] == kind]
        assert len(boxes) > 1000, kind  # every document was audited
        # measured here again with reportlab's string widths, against each box's width
        over = [b for b in boxes if stringWidth(b[1], b[2], b[3]) > b[4] + 0.01]
        assert over == [], over[:5]
        cut = sorted({b[1] for b in boxes if "\u2026" in b[1]})
        assert cut == [], cut[:5]
    # and what the PDFs hold (first pages, where the diagrams and overviews are): no ellipsis anywhere
    for name in DOCS:
        pdf = PdfText(files[name][0], pages=range(4))
        assert pdf.items and not [t for t in pdf.texts() if "\u2026" in t]


def test_fabric_diagram_boxes_do_not_overlap(design):
    from reportlab.graphics.shapes import Rect

    from deliverables import DesignView
    from deliverables.diagrams import fabric_diagram

    d = fabric_diagram(DesignView(design), 802)
    rects = [(r.x, r.y, r.x + r.width, r.y + r.height) for r in d.contents if isinstance(r, Rect) and r.height > 12]
    assert len(rects) >= 10
    for i, a in enumerate(rects):
        for b in rects[i + 1 :]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)


def test_no_page_below_minimum_fill_except_the_last_of_a_section(site_docs):
    from deliverables._pdf import MIN_FILL

    files, audit, _ = site_docs
    for name, kind in DOCS.items():
        pages = [p for p in audit.pages if p[0] == kind]
        assert [p[1] for p in pages] == list(range(1, files[name][1] + 1))  # every page measured once
        thin = [p for p in pages if not p[3] and p[2] < MIN_FILL]
        assert thin == [], thin[:5]
    plan = [p for p in audit.pages if p[0] == "Cabling plan"]
    assert plan[0][2] >= MIN_FILL  # the overview fits its page (it used to spill 3 lines onto a second)
    sheet = [p for p in audit.pages if p[0] == "Test sheet"]
    assert sheet[0][2] >= 0.9  # the first rack's fibers follow the overview on page 1


# ----- layout rules on every document ---------------------------------------------------------------


def _sample(n: int) -> list[int]:
    return sorted({0, 1, 2, n // 2, n - 1} | set(range(0, n, 40)))


@pytest.mark.parametrize("name", list(DOCS))
def test_layout_rules_hold_on_every_document(site_docs, design, name):
    from reportlab.pdfbase.pdfmetrics import stringWidth

    from deliverables._pdf import COND, COND_BOLD, MIN_FONT_SIZE, MIN_MARGIN, SANS, SANS_BOLD

    files, _, _ = site_docs
    path, n = files[name]
    assert min(font_sizes(path)) >= MIN_FONT_SIZE
    pages = _sample(n)
    pdf = PdfText(path, pages=pages)
    w, h = (float(x) for x in pdf.reader.pages[0].mediabox[2:])
    # label sheets print to their stock's edges; their footer sits in the free page margin
    margin = 4.0 if name == "labels.pdf" else MIN_MARGIN
    for p in pages:
        text = " ".join(pdf.texts(p))
        assert design.spec.name in text and "revision r7" in text.lower(), (name, p)
        assert f"Page {p + 1} of {n}" in text, (name, p)
    for page, x, y, t, size, font in pdf.items:
        f = (COND_BOLD if "Bold" in font else COND) if "Condensed" in font else (SANS_BOLD if "Bold" in font else SANS)
        assert x >= margin - 0.01 and x + stringWidth(t, f, size) <= w - margin + 0.5, (name, page, t, x)
        assert margin - 0.01 <= y <= h - margin, (name, page, t, y)


# ----- cabling plan ---------------------------------------------------------------------------------


def test_cabling_plan_rack_pages_give_route_through_panels_and_trunks(site_docs, design):
    from deliverables import DesignView, iter_cable_rows
    from deliverables.cabling import cable_route

    v = DesignView(design)
    rows = {r[0]: r for r in iter_cable_rows(v)}
    cords = [r for r in rows.values() if r[3] == "cord" and r[10].startswith("PP-")]
    assert cords
    for r in cords[:50]:
        chain, ports = cable_route(v, r)
        ids = chain.split(" \u2192 ")
        assert r[0] in ids and any(rows[x][3] == "trunk" for x in ids) and len(ids) == 3
        assert ports.startswith("via ") and f"{r[10]}:{r[11]}" in ports  # the panel port this cord plugs into
    dac = next(r for r in rows.values() if r[3] == "dac")
    assert cable_route(v, dac) == ("direct", "")
    files, _, _ = site_docs
    pdf = PdfText(files["cabling-plan.pdf"][0], pages=range(3, 60))
    texts = set(pdf.texts())
    assert any(t.startswith("via PP-") for t in texts) and "direct" in texts
    assert "Route: cables of the link" in texts


# ----- test sheet -----------------------------------------------------------------------------------


def test_test_sheet_rows_are_tall_ruled_and_every_page_signed(site_docs, design):
    from deliverables import iter_test_rows
    from deliverables.testsheet import SHEET_ROW_PT, TI

    no_limit = {r[TI["link_id"]] for r in iter_test_rows(design) if r[TI["limit_db"]] == ""}

    assert SHEET_ROW_PT >= 17  # 6 mm: room to write a reading by hand
    files, _, _ = site_docs
    path, n = files["test-sheet.pdf"]
    pages = _sample(n)
    pdf = PdfText(path, pages=pages)
    for p in pages:
        texts = [x.strip() for t in pdf.texts(p) for x in t.split("\n")]  # a column may come out as one run
        for field in ("Tested by (name)", "Signature", "Date", "Meter / serial no."):
            assert field in texts, (p, field)
        fibers = [t for t in texts if re.fullmatch(r"[AB]\d+\u2192[AB]\d+", t)]
        links = [t for t in texts if re.fullmatch(r"L\d{6}", t)]
        stream = pdf.reader.pages[p].get_contents().get_data().decode("latin-1")
        figures = re.findall(r"\((\d+\.\d\d)\) Tj", stream)  # pypdf merges a column's runs unevenly
        # a worst case per link, a limit beside every fiber (blank where the PMD publishes none)
        if not set(links) & no_limit:
            assert fibers and len(figures) == len(fibers) + len(links), p
        else:
            assert fibers and len(links) <= len(figures) < len(fibers) + len(links), p
    ys = sorted({round(it[2], 1) for it in pdf.items if it[0] == 1 and "\u2192" in it[3]}, reverse=True)
    assert min(a - b for a, b in itertools.pairwise(ys)) >= SHEET_ROW_PT - 0.1


# ----- labels ---------------------------------------------------------------------------------------


def test_every_barcode_on_the_first_label_page_decodes_to_its_cable_id(site_docs):
    files, _, out = site_docs
    rows = read_csv(out / "labels.csv")
    first = [r for r in rows if r["page"] == "1"]
    assert len(first) == 28 and all(r["symbology"] == "code128" for r in first)
    got = decode(rasterise(files["labels.pdf"][0], 0))
    assert got == Counter(r["barcode"] for r in first)
    # cable labels carry the cable id (panel labels their panel and port)
    assert all(r["barcode"] == r["cable_id"] for r in rows if r["kind"] in ("cable", "trunk"))


@pytest.mark.parametrize(
    "stock",
    [
        "wrap-2x1.5-letter",
        "avery-l7160",
        "avery-l7160-flag",
        "avery-5160",
        {"preset": "wrap-2x1.5-letter", "code": "qr"},
    ],
)
def test_label_stocks_print_cable_ids_that_scan(design, tmp_path, stock):
    """A server rack's labels on every named stock: page 1 scans to the cable ids of labels.csv's page 1, both
    ends' text is printed, and nothing is cut."""
    from deliverables import DesignView, ExportOptions, iter_labels_csv, render_labels_pdf, write_lines
    from deliverables._pdf import audit_layout

    v = DesignView(design)
    rack = next(
        r.id
        for r in v.racks
        if any(d.role == "server" for d, p in zip(v.devices, design.places) if p is not None and p.rack == r.idx)
    )
    opts = ExportOptions.from_any({**OPTIONS, "rack": rack, "label_stock": stock})
    with audit_layout() as audit, open(tmp_path / "labels.pdf", "wb") as fh:
        render_labels_pdf(v, fh, opts, revision_label="r7")
    write_lines(tmp_path / "labels.csv", iter_labels_csv(v, opts))
    rows = read_csv(tmp_path / "labels.csv")
    first = [r for r in rows if r["page"] == "1"]
    assert first and all(r["kind"] == "cable" and r["barcode"] == r["cable_id"] for r in first)
    want = Counter(r["barcode"] for r in first)
    if opts.label_stock.kind == "flag":  # printed on both halves of the flag
        want = Counter({k: 2 * n for k, n in want.items()})
    assert decode(rasterise(tmp_path / "labels.pdf", 0)) == want
    texts = PdfText(tmp_path / "labels.pdf", pages=[0]).texts()
    joined = "".join(texts)
    for r in first:  # the human-readable text of both ends (near end / far end), maybe wrapped at the '/'
        assert r["label_text"].replace(" ", "") in joined.replace(" ", "")
    assert not audit.overflowing() and not [b for b in audit.boxes if "\u2026" in b[1]]
    if isinstance(stock, str) and stock in ("avery-l7160-flag", "avery-5160"):
        write_example(tmp_path / "labels.pdf", 0, f"labels-{stock}-001.png", dpi=72)


def test_label_stock_presets_are_named_and_sourced():
    from deliverables import ExportOptions, LabelStock, label_stock_presets

    presets = label_stock_presets()
    assert {"wrap-2x1.5-letter", "avery-l7160", "avery-l7160-flag", "avery-5160"} <= set(presets)
    assert {s.kind for s in presets.values()} == {"wrap", "flag", "sheet"}
    assert {s.page_size for s in presets.values()} == {"a4", "letter"}
    assert all(s.name and s.source for s in presets.values())
    assert presets["wrap-2x1.5-letter"] == LabelStock()
    l7160 = presets["avery-l7160"]
    assert (round(l7160.label_width / (72 / 25.4), 1), round(l7160.label_height / (72 / 25.4), 1)) == (63.5, 38.1)
    assert ExportOptions.from_any({"label_stock": "avery-5160"}).label_stock.rows == 10
    s = LabelStock.from_dict({"preset": "avery-l7160", "code": "qr", "label_height": "38mm"})
    assert s.code == "qr" and s.columns == 3 and s.key == "avery-l7160+custom"
    for bad, match in (
        ("no-such-stock", "unknown stock"),
        ({"code": "ean13"}, "code"),
        ({"label_width": "2 furlongs"}, "length"),
        ({"kind": "tag"}, "kind"),
    ):
        with pytest.raises(ValueError, match=match):
            LabelStock.from_dict(bad)


# ----- example pages ---------------------------------------------------------------------------------


def test_example_pages_are_written_to_docs_examples(site_docs):
    files, _, _ = site_docs
    wanted = {
        "cabling-plan-001.png": ("cabling-plan.pdf", 0),
        "cabling-plan-rack.png": ("cabling-plan.pdf", 3),
        "test-sheet-001.png": ("test-sheet.pdf", 0),
        "test-sheet-002.png": ("test-sheet.pdf", 1),
        "labels-001.png": ("labels.pdf", 0),
        "labels-002.png": ("labels.pdf", 1),
    }
    for png, (name, page) in wanted.items():
        assert write_example(files[name][0], page, png, dpi=72).stat().st_size > 5000
