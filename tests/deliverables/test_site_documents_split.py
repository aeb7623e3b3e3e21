"""Site documents II (issue 43) on the 4-SU panel design: a test sheet whose every page starts identified, both ends
with their rack, split by rack into one archive; a rack's cabling plan listing every cable with an end in it; no
text cut with an ellipsis in any site document or the BOM.
"""

from __future__ import annotations

import io
import re
import zipfile

import pytest

from .conftest import PdfText, read_csv

OPTIONS = {"date": "2026-01-15"}
LINK = re.compile(r"L\d{6}")
FIBER = re.compile(r"[AB]\d+\u2192[AB]\d+")


def _page_lines(pdf: PdfText, page: int) -> list[tuple[float, list[str]]]:
    """(y, texts) of one page's text lines, top down (a cell's text may come out as several runs)."""
    items = sorted((it for it in pdf.items if it[0] == page), key=lambda it: (-it[2], it[1]))
    out: list[tuple[float, list[str]]] = []
    for it in items:
        for k, part in enumerate(it[3].split("\n")):
            y = it[2] - k * 9.0
            if out and abs(out[-1][0] - y) < 1.0:
                out[-1][1].append(part.strip())
            else:
                out.append((y, [part.strip()]))
    return sorted(out, key=lambda line: -line[0])


@pytest.fixture(scope="module")
def sheet(design, tmp_path_factory):
    from deliverables import DesignView, iter_test_rows, render_test_sheet_pdf

    out = tmp_path_factory.mktemp("sheet")
    v = DesignView(design)
    with open(out / "test-sheet.pdf", "wb") as fh:
        render_test_sheet_pdf(v, fh, OPTIONS, revision_label="r7")
    return out / "test-sheet.pdf", list(iter_test_rows(v))


def test_every_test_sheet_page_starts_with_an_identified_link_and_ends_carry_their_rack(sheet):
    from deliverables.testsheet import TI

    path, rows = sheet
    pdf = PdfText(path)
    continued = 0
    first_of_link = {}
    for r in rows:
        first_of_link.setdefault(r[TI["link_id"]], r[TI["fiber_id"]])
    for p in range(pdf.n):
        lines = _page_lines(pdf, p)
        fiber_lines = [(y, t) for y, t in lines if any(FIBER.fullmatch(x) for x in t)]
        if not fiber_lines:
            continue
        _, top = fiber_lines[0]
        links = [x for x in top if LINK.fullmatch(x)]
        assert links, (p, top)  # the first fiber row of every page names its link
        fiber = next(x for x in top if FIBER.fullmatch(x))
        lid = links[0]
        if first_of_link[lid].split(":")[1] != fiber.replace("\u2192", "-"):
            continued += 1  # a link carried over from the page before: id, cables, ends and worst case again
            assert any(x.startswith("rack ") for x in top) or any(
                x.startswith("rack ") for y, t in lines if 0 < fiber_lines[0][0] - y < 10 for x in t
            ), p
    assert continued > 0  # the design has links that continue on the next page
    texts = "\n".join(pdf.texts())
    racks = {r[TI["a_rack"]] for r in rows} | {r[TI["b_rack"]] for r in rows}
    assert all(f"rack {rk}" in texts for rk in racks if rk)


def test_test_sheets_by_rack_archive_holds_every_link_once(design, tmp_path):
    from deliverables import DesignView, iter_test_rows, render_test_sheets_zip
    from deliverables.registry import DELIVERABLES
    from deliverables.testsheet import TI

    assert DELIVERABLES["test-sheets-by-rack.zip"].content_type == "application/zip"
    v = DesignView(design)
    buf = io.BytesIO()
    n = render_test_sheets_zip(v, buf, {**OPTIONS, "row": "A"}, revision_label="r7")
    zf = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    names = zf.namelist()
    assert len(names) == n and all(re.fullmatch(r"test-sheets/DC1\.A\d\d\.pdf", x) for x in names)
    want = {r[TI["link_id"]] for r in iter_test_rows(v, row="A")}
    seen: list[str] = []
    for name in names:
        (tmp_path / "x.pdf").write_bytes(zf.read(name))
        pdf = PdfText(tmp_path / "x.pdf")
        seen += sorted({x for t in pdf.texts() for x in t.split("\n") if LINK.fullmatch(x.strip())})
        assert f"rack {name.split('/')[1][:-4]}" in pdf.texts()[0] or any(
            name.split("/")[1][:-4] in t for t in pdf.texts()
        )
    assert sorted(seen) == sorted(want)  # every link of the row, each in exactly one rack's file


def test_a_spine_racks_plan_lists_every_cable_with_an_end_in_it(design, out, tmp_path):
    from deliverables import DesignView, render_cabling_plan_pdf

    path, _ = out
    cables = read_csv(path / "cables.csv")
    v = DesignView(design)
    spine_rack = next(
        r.id
        for r in v.racks
        if any(d.role == "spine" for d, p in zip(v.devices, design.places) if p is not None and p.rack == r.idx)
    )
    want = {c["id"] for c in cables if spine_rack in (c["a_rack"], c["b_rack"])}
    anchored = {c["id"] for c in cables if c["a_rack"] == spine_rack}
    assert len(want) > len(anchored)  # most of its cables start in the leaf racks
    with open(tmp_path / "plan.pdf", "wb") as fh:
        render_cabling_plan_pdf(v, fh, {**OPTIONS, "rack": spine_rack}, revision_label="r7")
    texts = PdfText(tmp_path / "plan.pdf").texts()
    ids = [x.strip() for t in texts for x in t.split("\n") if re.fullmatch(r"C\d{6}", x.strip())]
    assert sorted(ids) == sorted(want)  # the rows' first cell: each cable once (routes name others as "A -> B")
    assert any(f"Cables in this plan: {len(want):,} (" in t for t in texts)


@pytest.mark.parametrize("preset", ["panels", "direct"])
def test_no_pdf_cuts_text_with_an_ellipsis(design, direct_design, preset):
    """Every PDF deliverable of a design, rendered with the layout audit on: no drawn text (part numbers,
    descriptions, the BOM's verify notes, labels) is cut with an ellipsis or wider than its box."""
    from deliverables import ExportOptions, RevisionView
    from deliverables._pdf import ELLIPSIS, audit_layout
    from deliverables.registry import DELIVERABLES

    result = design if preset == "panels" else direct_design
    revision = RevisionView(result, "r7")
    options = ExportOptions.from_any({**OPTIONS, "prices": {"QM9700": 30000}, "spares_percent": 2})
    for kind, d in DELIVERABLES.items():
        if not d.document or d.needs == "workloads" or kind.endswith(".zip"):
            continue
        with audit_layout() as audit:
            d.render(revision, io.BytesIO(), options)
        cut = [b for b in audit.boxes if ELLIPSIS in b[1]]
        assert audit.boxes and not cut and not audit.overflowing(), (kind, cut[:5])


def test_one_identifier_per_trunk_and_panel_trunk_ports_numbered_as_netbox(design, out):
    """A trunk is C000123 in cables.csv, on its labels (barcode and text), in the plan's routes and the test
    sheet; its panel ends are rear ports T1..Tn of each panel, as netbox/rear-ports.csv names them."""
    from deliverables import DesignView, iter_label_records, iter_netbox_rear_ports, iter_test_rows
    from deliverables.cabling import cable_route
    from deliverables.testsheet import TI

    path, _ = out
    cables = read_csv(path / "cables.csv")
    trunks = {c["id"]: c for c in cables if c["type"] == "trunk"}
    assert trunks
    v = DesignView(design)
    labels = [rec for rec in iter_label_records(v) if rec[0] == "trunk"]
    assert {rec[1] for rec in labels} == set(trunks) and all(rec[1] in rec[2] and rec[1] in rec[3] for rec in labels)
    rear: dict = {}  # (trunk, panel) -> its rear ports there, first leg first
    for row in read_csv_lines(iter_netbox_rear_ports(v)):
        rear.setdefault((row["description"].split()[-1], row["device"]), []).append(row["name"])
    for cid, c in trunks.items():
        assert re.fullmatch(r"T\d+", c["a_port"]) and re.fullmatch(r"T\d+", c["b_port"]), c
        a_ports, b_ports = rear[(cid, c["a_device"])], rear[(cid, c["b_device"])]
        assert min(a_ports, key=lambda x: int(x[1:])) == c["a_port"], (cid, a_ports, c["a_port"])
        assert min(b_ports, key=lambda x: int(x[1:])) == c["b_port"], (cid, b_ports, c["b_port"])
    assert max(int(c["a_port"][1:]) for c in trunks.values()) > 1  # panels take several trunks
    rows = {r[0]: r for r in v.cable_rows()}
    cord = next(r for r in rows.values() if r[3] == "cord" and r[10].startswith("PP-"))
    assert any(x in trunks for x in cable_route(v, cord)[0].split(" \u2192 "))
    in_sheet = {x for r in iter_test_rows(v) for x in r[TI["cable_ids"]].split()}
    assert set(trunks) & in_sheet and not {x for x in in_sheet if x.startswith("T")}


def read_csv_lines(lines) -> list[dict]:
    import csv

    return list(csv.DictReader(io.StringIO("".join(lines))))


def test_the_two_pdus_of_a_rack_print_distinct_labels(out):
    """Both PDUs of a rack hang at U0: their end labels say PA and PB, and no two cable ends share a label."""
    path, _ = out
    cables = read_csv(path / "cables.csv")
    pdu_ends = [(c["a_device"], c["label_a"]) for c in cables if c["a_device"].startswith("PDU-")]
    assert pdu_ends
    for name, label in pdu_ends:
        side = "PA" if name.endswith("-1") else "PB"
        assert f"-{side}:" in label.split("/")[0], (name, label)
    ends = [c["label_a"] for c in cables] + [c["label_b"] for c in cables]
    assert len(set(ends)) == len(ends)
