"""Deliverables: every number and id in the PDFs equals the CSVs and the summary; layout rules."""

from __future__ import annotations

import csv
import io
import itertools
import re
import subprocess
import sys
from collections import Counter, defaultdict
from decimal import ROUND_CEILING, Decimal
from pathlib import Path

import pytest

from .conftest import OPTIONS, PdfText, font_sizes, num, read_csv

ROOT = Path(__file__).resolve().parents[2]
PAGE_RE = re.compile(r"^Page (\d+) of (\d+)$")


@pytest.fixture(scope="session")
def whole_pdf(out):
    """whole_pdf(name): every page of one of `out`'s PDFs, parsed once for all the tests that read them whole
    (parsing is most of their cost; they only read the result)."""
    path, _ = out
    parsed: dict[str, PdfText] = {}

    def get(name: str) -> PdfText:
        if name not in parsed:
            parsed[name] = PdfText(path / name)
        return parsed[name]

    return get


def test_renderers_do_not_import_django():
    code = (
        "import sys; import deliverables as r; "
        "bad = [m for m in sys.modules if m == 'django' or m.startswith('django.')]; "
        "print(','.join(bad)); sys.exit(1 if bad else 0)"
    )
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def test_write_deliverables_writes_every_file(out):
    path, written = out
    names = {str(p.relative_to(path)) for p in written}
    for want in (
        "bom.pdf",
        "bom.csv",
        "cabling-plan.pdf",
        "cables.csv",
        "labels.pdf",
        "test-sheet.pdf",
        "test-sheet.csv",
        "loss-budget.csv",
        "topology.dot",
        "topology.ibnetdiscover",
        "netbox/sites.csv",
        "netbox/manufacturers.csv",
        "netbox/device-roles.csv",
        "netbox/racks.csv",
        "netbox/device-types.yaml",
        "netbox/devices.csv",
        "netbox/rear-ports.csv",
        "netbox/front-ports.csv",
        "netbox/cables.csv",
        "netbox/interfaces.csv",
    ):
        assert want in names
        assert (path / want).stat().st_size > 0


# ----- cables.csv ------------------------------------------------------------------------------------


def test_cables_csv_extends_the_engine_table_exactly(design, out):
    from engine.columns import CABLE_COLUMNS

    path, _ = out
    with open(path / "cables.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    assert tuple(rows[0][: len(CABLE_COLUMNS)]) == tuple(CABLE_COLUMNS)
    eng = [[str(x) for x in r] for r in design.physical.cable_rows_out(design)]
    assert [r[: len(CABLE_COLUMNS)] for r in rows[1:]] == eng
    assert len(rows) - 1 == design.summary["cables_total"]


def test_cables_csv_fast_path_is_byte_identical_to_csv_writer(design, direct_design):
    from deliverables import CABLE_CSV_COLUMNS, DesignView, iter_cables_csv

    for res in (design, direct_design):
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(CABLE_CSV_COLUMNS)
        w.writerows(DesignView(res).cable_rows())
        assert "".join(iter_cables_csv(res)) == buf.getvalue()


def test_csv_lines_quote_what_needs_quoting():
    from deliverables._csv import csv_lines

    rows = [("a,b", 'say "x"', "line\nbreak", None, 1.5, "None"), ("plain", "x", "y", "", 2, "z")]
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows([("c1", "c2", "c3", "c4", "c5", "c6"), *rows])
    assert "".join(csv_lines(("c1", "c2", "c3", "c4", "c5", "c6"), rows)) == buf.getvalue()


def test_cables_csv_filter_by_rack_and_row(design):
    from deliverables import iter_cable_rows

    rack = "DC1.B09"
    rows = list(iter_cable_rows(design, rack=rack))
    assert rows and all(rack in (r[8], r[12]) for r in rows)
    row_rows = list(iter_cable_rows(design, row="B"))
    assert len(row_rows) >= len(rows)
    assert all("B" in (r[18], r[20]) for r in row_rows)
    with pytest.raises(ValueError, match="not in this design"):
        list(iter_cable_rows(design, rack="DC9.ZZ99"))


# ----- BOM -------------------------------------------------------------------------------------------


def test_bom_csv_equals_summary_and_applies_spares_and_prices(design, out):
    path, _ = out
    rows = read_csv(path / "bom.csv")
    order = {(r["category"], r["sku"]): r for r in rows if r["section"] == "order"}
    summary = {(b["category"], b["sku"]): b for b in design.summary["bom"]}
    assert set(order) == set(summary)
    for key, b in summary.items():
        r = order[key]
        assert int(r["quantity"]) == b["quantity"]
        if b["watts"] is None:
            assert r["watts"] == ""
        else:
            assert float(r["watts"]) == pytest.approx(b["watts"])
        pct = Decimal(OPTIONS["spares_percent"].get(key[0], 0))
        spares = int((Decimal(b["quantity"]) * pct / 100).to_integral_value(rounding=ROUND_CEILING))
        assert int(r["spares"]) == spares
        assert int(r["order_quantity"]) == b["quantity"] + spares
        price = OPTIONS["prices"].get(key[1])
        if price is None:
            assert r["extended_price"] == ""
        else:
            assert Decimal(r["extended_price"]) == Decimal(str(price)) * (b["quantity"] + spares)
            assert r["currency"] == "EUR"
    # per network lines add up to the order quantities
    per = Counter()
    for r in rows:
        if r["section"] == "network":
            per[(r["category"], r["sku"])] += int(r["quantity"])
    assert per == Counter({k: b["quantity"] for k, b in summary.items()})
    assert not any(r["network"] == "unassigned" for r in rows if r["section"] == "network")
    total = next(r for r in rows if r["section"] == "total")
    assert int(total["quantity"]) == sum(b["quantity"] for b in summary.values())
    assert float(total["watts"]) == pytest.approx(sum(b["watts"] or 0 for b in summary.values()))
    assert Decimal(total["extended_price"]) == sum(
        Decimal(r["extended_price"]) for r in order.values() if r["extended_price"]
    )
    # fibers section = the summary's fibers
    fib = {(r["network"], r["description"]): int(r["quantity"]) for r in rows if r["section"] == "fibers"}
    for kind, n in design.summary["fibers"]["total"].items():
        assert fib[("total", kind)] == n


def test_bom_per_su_breakdown(design, out):
    path, _ = out
    rows = read_csv(path / "bom.csv")
    su_rows = [r for r in rows if r["section"] == "su"]
    servers = {r["su"]: int(r["quantity"]) for r in su_rows if r["category"] == "server"}
    assert sum(servers.values()) == design.summary["servers"]
    leaves = Counter(d.su for d in design.devices if d.role == "leaf" and d.su)
    for su, n in leaves.items():
        got = sum(int(r["quantity"]) for r in su_rows if r["su"] == str(su) and r["category"] == "switch")
        assert got == n
    # an SU's node-leaf cables (A end = its servers) are in its breakdown
    su1_cables = sum(
        1 for row in design.physical.cable_rows if row[4][0] != "panel" and design.devices[row[4][0]].su == 1
    )
    got = sum(int(r["quantity"]) for r in su_rows if r["su"] == "1" and r["category"] in ("fiber", "copper", "aoc"))
    assert got == su1_cables


def test_bom_pdf_numbers_equal_the_csv(out, whole_pdf):
    path, _ = out
    rows = read_csv(path / "bom.csv")
    pdf = whole_pdf("bom.pdf")
    order = [r for r in rows if r["section"] == "order"]
    # order summary table: every part's row carries its quantity, spares, order quantity and prices
    found = {}
    for page in range(pdf.n):
        for line in pdf.rows(page):
            if line and line[0] in {r["sku"] for r in order} and line[0] not in found:
                found[line[0]] = line
    for r in order:
        line = found[r["sku"]]
        nums = [x for x in line if re.fullmatch(r"[\d,]+(\.\d+)?", x)]
        assert num(nums[0]) == int(r["quantity"])
        assert num(nums[1]) == int(r["spares"])
        assert num(nums[2]) == int(r["order_quantity"])
        if r["watts"]:
            assert num(nums[3]) == pytest.approx(float(r["watts"]))
        if r["extended_price"]:
            assert num(nums[-1]) == pytest.approx(float(r["extended_price"]))
    total = next(r for r in rows if r["section"] == "total")
    text = " ".join(pdf.texts())
    assert f"{int(total['order_quantity']):,}" in text
    assert f"{total['extended_price']} EUR" in text  # the one price format, as in bom.csv
    assert f"{float(total['watts']):,.2f} W" in text


# ----- cabling plan ----------------------------------------------------------------------------------


def test_cabling_plan_has_every_cable_and_label_of_the_csv(out, whole_pdf):
    path, _ = out
    rows = read_csv(path / "cables.csv")
    pdf = whole_pdf("cabling-plan.pdf")
    texts = pdf.texts()
    ids = {t for t in texts if re.fullmatch(r"C\d{6}", t)}
    assert ids == {r["id"] for r in rows}
    alltext = set(texts)
    for r in rows:
        assert r["label_a"] in alltext and r["label_b"] in alltext
        assert r["part"] in alltext


def test_cabling_plan_rows_match_csv_row_by_row(out, design):
    from deliverables import DesignView
    from deliverables.cabling import cable_route

    path, _ = out
    v = DesignView(design)
    rows = read_csv(path / "cables.csv")
    by_id = {r["id"]: r for r in rows}
    tuples = {r[0]: r for r in v.cable_rows()}
    pdf = PdfText(path / "cabling-plan.pdf", pages=range(3, 12))
    checked = 0
    for page in range(3, 12):
        lines = pdf.rows(page)
        for top, bottom in itertools.pairwise(lines):
            if top and re.fullmatch(r"C\d{6}", top[0]):
                r = by_id[top[0]]
                route = cable_route(v, tuples[r["id"]])
                # Compared as multisets: pypdf may order text runs of one visual line differently when a
                # cell is empty (a panel end has no module), while every value is still on its line.
                assert sorted(top) == sorted(
                    x
                    for x in (
                        r["id"],
                        r["a_rack"],
                        r["a_device"],
                        r["b_rack"],
                        r["b_device"],
                        r["a_module"],
                        r["medium"],
                        r["part"],
                        r["network"],
                        route[0],
                        r["label_a"],
                    )
                    if x != ""
                )
                assert sorted(bottom) == sorted(
                    x
                    for x in (
                        r["type"],
                        r["a_u"],
                        r["a_port"],
                        r["b_u"],
                        r["b_port"],
                        r["b_module"],
                        r["polarity"],
                        r["ordered_length_m"],
                        r["tier"],
                        route[1],
                        r["label_b"],
                    )
                    if x != ""
                )
                checked += 1
    assert checked > 100


def test_cabling_plan_is_ordered_rack_by_rack(out, design):
    from deliverables import DesignView

    v = DesignView(design)
    _order, sections = v.install_order()
    ranks = [v.rack_rank[ri] for ri, _ in sections]
    assert ranks == sorted(ranks) and len(ranks) == len(set(ranks))
    assert sum(n for _, n in sections) == len(design.physical.cable_rows)


@pytest.mark.parametrize("name", ["cabling-plan.pdf", "bom.pdf", "test-sheet.pdf", "labels.pdf"])
def test_every_page_says_page_n_of_n_and_design_and_revision(whole_pdf, design, name):
    pdf = whole_pdf(name)
    per_page = defaultdict(list)
    for it in pdf.items:
        per_page[it[0]].append(it[3])
    for page in range(pdf.n):
        texts = per_page[page]
        nums = [PAGE_RE.match(t) for t in texts if PAGE_RE.match(t)]
        assert len(nums) == 1, (name, page)
        assert (int(nums[0].group(1)), int(nums[0].group(2))) == (page + 1, pdf.n)
        joined = " ".join(texts)
        assert design.spec.name in joined
        assert "r7" in joined


@pytest.mark.parametrize("name", ["cabling-plan.pdf", "test-sheet.pdf"])
def test_table_headers_repeat_on_every_table_page(whole_pdf, name):
    pdf = whole_pdf(name)
    first = "Cable" if name == "cabling-plan.pdf" else "Link"
    table_pages = 0
    for page in range(pdf.n):
        texts = pdf.texts(page)
        has_rows = any(re.fullmatch(r"[CL]\d{6}", t) for t in texts)
        if has_rows:
            table_pages += 1
            assert first in texts, page
    assert table_pages > 3


@pytest.mark.parametrize("name", ["cabling-plan.pdf", "bom.pdf", "test-sheet.pdf", "labels.pdf"])
def test_fonts_are_embedded_truetype_and_at_least_7_pt(out, name):
    from pypdf import PdfReader

    from deliverables._pdf import MIN_FONT_SIZE

    path, _ = out
    sizes = font_sizes(path / name, pages=set(range(12)))
    assert sizes and min(sizes) >= MIN_FONT_SIZE
    r = PdfReader(str(path / name))
    fonts = r.pages[0]["/Resources"]["/Font"]
    for ref in fonts.values():
        f = ref.get_object()
        desc = f.get("/FontDescriptor")
        assert desc is not None and "/FontFile2" in desc.get_object(), f.get("/BaseFont")


def test_no_cell_text_overflows_its_column(out):
    from deliverables._pdf import COND, fitter
    from deliverables.cabling import plan_columns

    path, _ = out
    pdf = PdfText(path / "cabling-plan.pdf", pages=[5, 6])
    cols = plan_columns(842 - 40)  # A4 landscape, 20 pt margins
    edges = [20.0]
    for c in cols:
        edges.append(edges[-1] + c.width)
    f = fitter(COND, 7)
    checked = 0
    for _page, x, _y, text, size, font in pdf.items:
        if size != 7 or "Condensed" not in font or "Bold" in font:
            continue
        k = max(i for i, e in enumerate(edges[:-1]) if e <= x + 0.01)
        assert x + f.width(text) <= edges[k + 1] + 0.01, (text, x, edges[k + 1])
        checked += 1
    assert checked > 500


def test_fitter_cuts_with_an_ellipsis():
    from deliverables._pdf import COND, ELLIPSIS, fitter

    f = fitter(COND, 7)
    s = "GEN-TRK-MPO12-SM-APC-B-MM-144F-14M-EXTRA-LONG-PART"
    cut = f.fit(s, 60)
    assert cut.endswith(ELLIPSIS) and f.width(cut) <= 60 and s.startswith(cut[:-1])
    assert f.fit("C000001", 60) == "C000001"


def test_cabling_plan_for_one_rack_lists_only_that_rack(design, tmp_path):
    from deliverables import iter_cable_rows, render_cabling_plan_pdf

    with open(tmp_path / "rack.pdf", "wb") as fh:
        render_cabling_plan_pdf(design, fh, {"rack": "DC1.B09", "date": "2026-01-15"}, revision_label="r7")
    pdf = PdfText(tmp_path / "rack.pdf")
    ids = {t for t in pdf.texts() if re.fullmatch(r"C\d{6}", t)}
    assert ids == {r[0] for r in iter_cable_rows(design, rack="DC1.B09")}
    assert "rack DC1.B09" in " ".join(pdf.texts(0))


def test_line_writer_emits_what_reportlab_would(tmp_path):
    from deliverables._pdf import COND, line_writer, new_canvas

    c = new_canvas(io.BytesIO(), (600, 800), title="t", subject="t")
    strs = ["C000001", "DC1.A01-45:09/DC1.A01-02:4/1", "a(b)c\\d", "", "x y", "\u00e9\u2192", "abc"]
    # characters that already have a code (the labels' middle dot), a new one, a no-break space, a tab
    strs += ["C000001 \u00b7 A end", "C000002 \u00b7 B end", "\u00e9(\u2192)", "x\u00a0y", "\u00b7\tz", "\u00b7\u00e9"]
    t1 = c.beginText(10, 700)
    t1.setFont(COND, 7, 8)
    for s in strs:
        t1.textLine(s)
    t2 = c.beginText(10, 700)
    t2.setFont(COND, 7, 8)
    w = line_writer(t2)
    for s in strs:
        w(s)
    assert t1.getCode() == t2.getCode()


def test_lines_writer_emits_what_reportlab_would():
    """A column at once: all printable ASCII (one string of operators, empty cells included), and columns
    with other characters, a font change between them."""
    from deliverables._pdf import COND, COND_BOLD, lines_writer, new_canvas

    columns = [
        ["C000001", "", "a(b)c\\d", "x y", ""],
        ["", "DC1.A01", "abc"],
        ["C000003 \u2192 T000004", "plain", "", "\u00e9t\u00e9", "x\ty"],
    ]
    c = new_canvas(io.BytesIO(), (600, 800), title="t", subject="t")
    t1, t2 = c.beginText(10, 700), c.beginText(10, 700)
    write = lines_writer(t2)
    for font in (COND, COND_BOLD):
        for t in (t1, t2):
            t.setFont(font, 7, 8)
        for col in columns:
            for s in col:
                t1.textLine(s)
            write(col)
    assert t1.getCode() == t2.getCode()


# ----- labels ----------------------------------------------------------------------------------------


def _reportlab_code128(value: str):
    from reportlab.graphics.barcode.code128 import Code128

    b = Code128(value, barWidth=1, quiet=0)
    b.validate()
    b.encode()
    b.decompose()
    return b


@pytest.mark.parametrize("count", [400])
def test_code128_of_ids_and_panels_is_what_reportlab_encodes(count):
    """The direct encoding of cable/trunk ids gives reportlab's symbols, and the bars are its pattern's bars."""
    import random

    from deliverables.labels import code128_bars, code128_symbols

    rng = random.Random(16)
    values = [f"{rng.choice('CT')}{rng.randrange(10**6):06d}" for _ in range(count)]
    values += ["C0001", "C12345", "C1234567", "T000000", "X99", "PP-C09-U47", "PP-C09-U47:5", "C000001A", "Z99999999"]
    for value in values:
        b = _reportlab_code128(value)
        assert code128_symbols(value) == b.encoded, value
        bars, total = code128_bars(value)
        assert total == sum("ABCD".find(ch.upper()) + 1 for ch in b.decomposed), value
        x, expect = 0, []
        for ch in b.decomposed:
            w = "ABCD".find(ch.upper()) + 1
            if ch.isupper():
                expect.append((x, w))
            x += w
        assert bars == expect, value


def test_labels_cover_both_ends_of_every_cable_panels_and_trunks(out, design):
    from deliverables import count_labels, iter_labels

    path, _ = out
    cables = read_csv(path / "cables.csv")
    labels = list(iter_labels(design))
    assert len(labels) == count_labels(design)
    texts = Counter(t for _, t, _ in labels)
    for r in cables:
        assert texts[r["label_a"]] >= 1 and texts[r["label_b"]] >= 1
    heads = [h for h, _, _ in labels]
    assert sum(1 for h in heads if "trunk" in h) == 2 * sum(1 for r in cables if r["type"] == "trunk")
    assert any(h.startswith("PANEL PP-") for h in heads) and any(re.fullmatch(r"PP-\w+-U\d+:\d+", h) for h in heads)
    # panel-port label = the panel end of the cord's label (own end first)
    port_labels = {t for h, t, _ in labels if re.fullmatch(r"PP-\w+-U\d+:\d+", h)}
    cord_panel_ends = {
        r["label_b"].split("/")[0] for r in cables if r["b_device"].startswith("PP-") and r["type"] != "trunk"
    }
    assert cord_panel_ends and cord_panel_ends <= port_labels
    pdf = PdfText(path / "labels.pdf", pages=range(0, 40))
    in_pdf = "".join(pdf.texts()).replace(" ", "")
    # the rest keep installation order, 28 a wrap sheet, but thin cords' (AOC, fibre, trunk) labels follow as flags
    # (21 a sheet), then the panel-port labels on their own stock (100 a sheet)
    from deliverables import iter_labels_csv

    rows = list(csv.DictReader(io.StringIO("".join(iter_labels_csv(design)))))
    assert sorted(r["label_text"] for r in rows) == sorted(t for _, t, _ in labels)
    assert all(r["label_text"].replace(" ", "") in in_pdf for r in rows if int(r["page"]) <= 40)
    per_stock = Counter(r["stock"] for r in rows)
    assert set(per_stock) == {"wrap-2x1.5-letter", "avery-l7160-flag", "port-17x25-a4"}
    sheets = {"wrap-2x1.5-letter": 28, "avery-l7160-flag": 21, "port-17x25-a4": 100}
    assert pdf.n == sum(-(-n // sheets[k]) for k, n in per_stock.items())


def test_label_stock_is_configurable_and_validated():
    from deliverables import ExportOptions, LabelStock

    s = LabelStock.from_dict({"columns": 3, "rows": 10, "label_width": 180, "label_height": 72, "print_height": 36})
    assert s.columns == 3
    with pytest.raises(ValueError, match="font_size"):
        LabelStock.from_dict({"font_size": 6})
    with pytest.raises(ValueError, match="width"):
        LabelStock.from_dict({"columns": 9})
    with pytest.raises(ValueError, match="unknown"):
        ExportOptions.from_any({"colour": "red"})


# ----- test sheets and results -----------------------------------------------------------------------


def test_test_sheet_has_one_row_per_fiber_with_budget_figures(design, out):
    path, _ = out
    rows = read_csv(path / "test-sheet.csv")
    ph = design.physical
    optical = [i for i, (c, b) in enumerate(zip(ph.choices, ph.budgets)) if c and c.optical and b is not None]
    per_link = Counter(r["link_id"] for r in rows)
    assert set(per_link) == {f"L{design.links[i].id:06d}" for i in optical}
    assert len({r["fiber_id"] for r in rows}) == len(rows)
    for i in optical[:200]:
        lid = f"L{design.links[i].id:06d}"
        c, b = ph.choices[i], ph.budgets[i]
        assert per_link[lid] == (2 * c.lanes_per_link if c.connector != "lc" else 2)
        mine = [r for r in rows if r["link_id"] == lid]
        assert all(float(r["expected_loss_db"]) == round(b.loss_db, 2) for r in mine)
        assert all(float(r["limit_db"]) == round(b.limit_db, 2) for r in mine)
        assert {r["direction"] for r in mine} == {"A->B", "B->A"}
        assert all(r["measured_loss_db"] == "" for r in mine)
    # DR4/SR4 lane map: Tx 1-4 land on Rx 12..9
    r0 = next(r for r in rows if r["tx_position"] == "1" and r["direction"] == "A->B")
    assert r0["rx_position"] == "12" and r0["fiber_id"].endswith(":A1-B12")


def test_test_sheet_pdf_numbers_equal_the_csv(out):
    path, _ = out
    rows = read_csv(path / "test-sheet.csv")
    by_link = defaultdict(list)
    for r in rows:
        by_link[r["link_id"]].append(r)
    pdf = PdfText(path / "test-sheet.pdf", pages=range(1, 6))
    checked = 0
    for page in range(1, 6):
        cur = None
        for line in pdf.rows(page):
            headed = bool(line) and re.fullmatch(r"L\d{6}", line[0]) is not None
            if headed:
                # a link's first fiber, or the first on a page it continues on (its id and columns repeated)
                cur = line[0]
                fibers = [x["fiber_id"].split(":")[1].replace("-", "\u2192") for x in by_link[cur]]
                here = next((x for x in line if "\u2192" in x), None)
                k = fibers.index(here) if here in fibers else 0
            if cur is None or not line or "\u2192" not in " ".join(line):
                continue
            fiber = next(x for x in line if "\u2192" in x)
            r = by_link[cur][k]
            k += 1
            assert fiber == r["fiber_id"].split(":")[1].replace("-", "\u2192")
            nums = [x for x in line if re.fullmatch(r"\d+\.\d\d", x)]
            # the link's worst case on the row that names the link; the limit beside every fiber, except for a
            # PMD without a published channel limit (e.g. 100G PSM4)
            keys = ("expected_loss_db", "limit_db") if headed else ("limit_db",)
            want = [float(r[key]) for key in keys if r[key] != ""]
            assert [float(x) for x in nums[: len(want)]] == want
            checked += 1
    assert checked > 50


def test_measured_results_round_trip(design, out):
    from deliverables import compare, iter_test_rows, parse_test_results

    path, _ = out
    expected = list(iter_test_rows(design))
    with open(path / "test-sheet.csv", newline="") as fh:
        lines = fh.read().splitlines()
    header = lines[0].split(",")
    mi = header.index("measured_loss_db")
    body = [next(csv.reader([ln])) for ln in lines[1:]]
    links = sorted({r[1] for r in body})
    good_link, bad_link, partial_link = links[0], links[1], links[2]
    out_rows = []
    for r in body:
        if r[1] == good_link:
            r[mi] = "0.31"
        elif r[1] == bad_link:
            r[mi] = "0.40 dB"
        elif r[1] == partial_link:
            r[mi] = "0.2"
        else:
            continue
        out_rows.append(r)
    limit = float(out_rows[0][header.index("limit_db")])
    # one fiber of bad_link fails, one of partial_link is left empty
    bad_i = next(i for i, r in enumerate(out_rows) if r[1] == bad_link)
    out_rows[bad_i][mi] = f"{limit + 0.5:.2f}"
    part_i = next(i for i, r in enumerate(out_rows) if r[1] == partial_link)
    out_rows[part_i][mi] = ""
    # malformed rows: wrong unit, not a number, unknown id, duplicate, negative
    extra = [list(out_rows[0]), list(out_rows[1]), list(out_rows[2]), list(out_rows[0])]
    extra[0][mi] = "0.5 mW"
    extra[1][mi] = "abc"
    extra[2][0] = "L999999:A1-B12"
    extra[3][mi] = "-0.3"
    extra[0][0] = extra[0][0]  # same id as row 0: duplicate
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(out_rows + extra)
    rows, errors = parse_test_results(buf.getvalue(), expected)
    msgs = [str(e) for e in errors]
    n = len(out_rows)
    assert any(m.startswith(f"line {n + 2}: fiber_id") and "duplicate of line 2" in m for m in msgs), msgs
    assert any(m.startswith(f"line {n + 3}: fiber_id") and "duplicate" in m for m in msgs), msgs
    assert any(
        m.startswith(f"line {n + 4}: fiber_id") and "L999999:A1-B12" in m and "not a fiber" in m for m in msgs
    ), msgs
    assert any(m.startswith(f"line {n + 5}: fiber_id") and "duplicate" in m for m in msgs), msgs
    assert len(errors) == 4
    assert len(rows) == n  # nothing else lost
    assert all(r.extra.get("link_id") for r in rows)
    # unit and number errors on fresh ids
    buf2 = io.StringIO()
    w = csv.writer(buf2, lineterminator="\n")
    w.writerow(["fiber_id", "measured_loss_db", "notes"])
    ids = [r[0] for r in body if r[1] not in (good_link, bad_link, partial_link)][:4]
    w.writerows([[ids[0], "0.5 mW", "x"], [ids[1], "abc", ""], [ids[2], "-0.3", ""], [ids[3], "0.25dB", "ok"]])
    rows2, errors2 = parse_test_results(buf2.getvalue(), expected)
    m2 = [str(e) for e in errors2]
    assert m2[0].startswith("line 2: measured_loss_db: '0.5 mW' is not an insertion loss in dB")
    assert m2[1].startswith("line 3: measured_loss_db: 'abc' is not an insertion loss in dB")
    assert m2[2].startswith("line 4: measured_loss_db: '-0.3'")
    assert [r.measured_db for r in rows2] == [0.25] and rows2[0].extra == {"notes": "ok"}
    # comparison
    cmp = compare(rows, expected)
    by = {lk.link_id: lk for lk in cmp.links}
    assert by[good_link].status == "pass" and by[good_link].failed == 0
    assert by[bad_link].status == "fail" and by[bad_link].failed == 1
    assert by[partial_link].status == "incomplete"
    fib = {f.fiber_id: f for f in cmp.fibers}
    assert fib[out_rows[bad_i][0]].status == "fail"
    assert fib[out_rows[bad_i][0]].margin_db == pytest.approx(-0.5)
    assert fib[out_rows[part_i][0]].status == "not-measured"
    assert cmp.counts["links"]["incomplete"] == len(by) - 2


def test_parse_rejects_a_file_without_the_columns(design):
    from deliverables import iter_test_rows, parse_test_results

    rows, errors = parse_test_results("a,b\n1,2\n", list(iter_test_rows(design, rack="DC1.B09")))
    assert rows == [] and "missing column(s) fiber_id, measured_loss_db" in str(errors[0])


# ----- loss budget and topology ------------------------------------------------------------------


def test_loss_budget_csv_worst_first(design, out):
    path, _ = out
    all_rows = read_csv(path / "loss-budget.csv")
    # Links whose PMD has no published channel limit (100G PSM4 on the in-band leaf-spine this fixture pins to
    # single-mode) fail without a margin and are listed first; the others follow, worst margin first.
    blank = [r for r in all_rows if r["margin_db"] == ""]
    assert all(r["status"] == "fail" and r["limit_db"] == "" and "no max channel IL" in r["terms"] for r in blank)
    assert all_rows[: len(blank)] == blank
    rows = all_rows[len(blank) :]
    margins = [float(r["margin_db"]) for r in rows]
    assert margins == sorted(margins)
    lb = design.summary["loss_budget"]
    assert len(all_rows) == lb["pass"] + lb["marginal"] + lb["fail"]
    worst = design.summary["worst_links"]
    assert rows[0]["link_id"] == worst[0]["link"] and float(rows[0]["margin_db"]) == pytest.approx(
        worst[0]["margin_db"], abs=0.006
    )
    r = rows[0]
    assert float(r["loss_db"]) == pytest.approx(float(r["fiber_db"]) + float(r["connectors_db"]) + float(r["other_db"]))
    assert "mated pair" in r["terms"]


def test_topology_dot_is_ptm_topology_of_the_cumulus_switches(design, out):
    """One edge per link that ends on a Cumulus (NVUE) switch, by the interface names LLDP reports; the IB
    fabrics (no Cumulus switch) are left out; every node is a record listing its ports."""
    path, _ = out
    lines = (path / "topology.dot").read_text().splitlines()
    edges = [ln for ln in lines if " -- " in ln]
    cumulus = [
        lk
        for lk in design.links
        if lk.network in ("inband", "oob")
        and {design.devices[lk.a].model, design.devices[lk.b].model} & {"sn4600c", "sn2201"}
    ]
    assert len(edges) == len(cumulus) > 0
    assert all(re.fullmatch(r'"[^"]+":"[^"]+" -- "[^"]+":"[^"]+";', e) for e in edges)
    assert lines[0].startswith("graph ") and lines[-1] == "}"
    ends = [(m.group(1), m.group(2)) for e in edges for m in re.finditer(r'"([^"]+)":"([^"]+)"', e)]
    switch_ports = {p for d, p in ends if d.startswith("IB-")}  # the in-band fabric's SN4600C switches
    assert switch_ports and all(re.fullmatch(r"swp\d+|eth0", p) for p in switch_ports)
    assert not any(p in ("1/1", "mgmt0") or "/" in p for d, p in ends if d.startswith(("IB-", "OOB-")))
    records = {m.group(1): m.group(2) for ln in lines if (m := re.match(r'^"([^"]+)" \[label="(.*)"\];$', ln))}
    for d, p in ends:
        assert f"<{p}>" in records[d]  # the record declares the port the edge uses (no Graphviz warning)


def test_dot_ids_escape_only_quotes():
    from deliverables.topology import _q

    # Graphviz keeps a backslash in a quoted ID as it is (\\ would stay two backslashes); only \" is an escape.
    assert _q("A\\B") == '"A\\B"'
    assert _q('say "hi"') == '"say \\"hi\\""'


def test_ibnetdiscover_lists_every_infiniband_link_at_both_ends(design, out):
    path, _ = out
    text = (path / "topology.ibnetdiscover").read_text()
    ib = [lk for lk in design.links if lk.network in ("compute", "storage")]
    port_lines = re.findall(r'^\[\d+\](?:\([0-9a-f]+\) )?\t"[SH]-[0-9a-f]{16}"\[\d+\]', text, re.M)
    assert len(port_lines) == 2 * len(ib)
    switches = re.findall(r'^Switch\t\d+ "S-([0-9a-f]{16})"', text, re.M)
    assert (
        len(switches)
        == len(set(switches))
        == sum(1 for d in design.devices if d.role in ("leaf", "spine", "core") and d.network in ("compute", "storage"))
    )
    from deliverables.topology import guid

    assert guid("CF-S01") == guid("CF-S01") != guid("CF-S02")


def test_ibnetdiscover_prints_guids_and_port_counts_as_the_tool_does(out):
    """infiniband-diags prints GUID values with PRIx64 (no zero padding) and the switch's NumPorts."""
    path, _ = out
    text = (path / "topology.ibnetdiscover").read_text()
    assert re.search(r"^sysimgguid=0x2c9[0-9a-f]{10}$", text, re.M)
    assert not re.search(r"^(sysimgguid|switchguid|caguid)=0x0", text, re.M)
    assert re.search(r"^switchguid=0x(2c9[0-9a-f]{10})\(\1\)$", text, re.M)
    # Every QM9700 reports 64 ports (catalog ib_reported_ports), storage leaves included though they cable fewer.
    assert set(re.findall(r"^Switch\t(\d+) ", text, re.M)) == {"64"}


def test_ibnetdiscover_port_count_comes_from_the_catalog():
    import yaml

    from deliverables import iter_ibnetdiscover
    from engine.catalog import DATA_DIR, load_catalog
    from engine.pipeline import compute_design
    from engine.presets import load_preset
    from engine.spec import parse_spec

    raw = yaml.safe_load((DATA_DIR / "switches.yaml").read_text())["switches"]["qm9700"]
    cat = load_catalog({"switches": {"qm9700": {**raw, "ib_reported_ports": 65}}})
    result = compute_design(parse_spec(load_preset("dgx-h100-superpod-4su")), cat)
    text = "".join(iter_ibnetdiscover(result))
    assert set(re.findall(r"^Switch\t(\d+) ", text, re.M)) == {"65"}


def test_no_infiniband_file_for_an_ethernet_design(tmp_path):
    from deliverables import iter_ibnetdiscover, write_deliverables
    from engine.pipeline import compute_design
    from engine.presets import load_preset
    from engine.spec import parse_spec

    result = compute_design(parse_spec(load_preset("hgx-roce-2su")))
    written = write_deliverables(result, tmp_path, only=["topology.dot", "topology.ibnetdiscover"])
    assert [p.name for p in written] == ["topology.dot"]
    with pytest.raises(ValueError, match="no InfiniBand"):
        next(iter_ibnetdiscover(result))


def test_netbox_csvs_use_netbox_import_columns(design, out):
    path, _ = out
    cables = read_csv(path / "netbox" / "cables.csv")
    assert list(cables[0])[:6] == [
        "side_a_device",
        "side_a_type",
        "side_a_name",
        "side_b_device",
        "side_b_type",
        "side_b_name",
    ]
    assert {"type", "length", "length_unit", "label"} <= set(cables[0])
    # one NetBox cable per link of a multi-link cable, per panel pair of a trunk (test_netbox_import.py)
    assert len(cables) >= design.summary["cables_total"]
    assert len({c["label"] for c in cables}) == design.summary["cables_total"]
    assert {c["side_a_type"] for c in cables} <= {"dcim.interface", "dcim.frontport", "dcim.rearport"}
    devices = read_csv(path / "netbox" / "devices.csv")
    names = {d["name"] for d in devices}
    for c in cables:
        assert c["side_a_device"] in names and c["side_b_device"] in names
    interfaces = read_csv(path / "netbox" / "interfaces.csv")
    ifs = {(i["device"], i["name"]) for i in interfaces}
    for c in cables:
        if c["side_a_type"] == "dcim.interface":
            assert (c["side_a_device"], c["side_a_name"]) in ifs
