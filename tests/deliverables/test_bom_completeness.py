"""bom.csv and bom.pdf say when the BOM is incomplete (issue 17): the CSV on its first line, the PDF on its cover
and in every page's footer; lines with an unconfirmed part number say "verify before ordering"."""

from __future__ import annotations

import io

import pytest

from engine.catalog import load_catalog
from engine.pipeline import compute_design
from engine.spec import parse_spec
from tests.engine.stage.test_catalog_completeness import LAB_MODULE, LAB_SPEC, LAB_SWITCH


@pytest.fixture(scope="module")
def incomplete():
    return compute_design(parse_spec(LAB_SPEC), load_catalog({"switches": {"lab-osfp100": LAB_SWITCH}}))


def test_the_bom_csv_says_incomplete_on_its_first_line(incomplete):
    from deliverables.bom import iter_bom_csv

    n = incomplete.summary["completeness"]["links_without_part"]
    assert n > 0
    assert (
        next(iter(iter_bom_csv(incomplete)))
        == f"# INCOMPLETE: {n:,} links have no part; the order below lacks their parts\n"
    )
    fixed = compute_design(
        parse_spec(LAB_SPEC),
        load_catalog({"switches": {"lab-osfp100": LAB_SWITCH}, "media": {"transceivers": [LAB_MODULE]}}),
    )
    assert next(iter(iter_bom_csv(fixed))).startswith("section,")


def test_the_bom_pdf_says_incomplete_on_its_cover_and_every_page_footer(incomplete):
    from pypdf import PdfReader

    from deliverables.bom import render_bom_pdf

    n = incomplete.summary["completeness"]["links_without_part"]
    buf = io.BytesIO()
    render_bom_pdf(incomplete, buf)
    pages = [p.extract_text() for p in PdfReader(io.BytesIO(buf.getvalue())).pages]
    notice = f"INCOMPLETE: {n:,} links have no part"
    assert len(pages) > 1 and all(notice in text for text in pages)
    assert pages[0].count(notice) >= 2  # the cover's first line and the footer
    assert "inband/node-leaf" in pages[0]


def test_unconfirmed_lines_say_verify_before_ordering_in_the_csv_and_pdf():
    from pypdf import PdfReader

    from deliverables.bom import iter_bom_csv, render_bom_pdf
    from engine.presets import load_preset

    r = compute_design(parse_spec(load_preset("dgx-b300-xdr-8su")))
    lines = list(iter_bom_csv(r))
    assert lines[0].startswith("section,")  # complete: no notice
    mms4a00 = next(x for x in lines if x.startswith("order,,,transceiver,MMS4A00,"))
    assert "verify before ordering" in mms4a00
    assert not any("verify before ordering" in x for x in lines if x.startswith("order,,,fiber,MFP7E30"))
    buf = io.BytesIO()
    render_bom_pdf(r, buf)
    text = "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(buf.getvalue())).pages)
    assert "verify before ordering" in text and "INCOMPLETE" not in text
