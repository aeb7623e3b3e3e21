"""Every PDF the app makes prints names as text: markup in a design or as-built name is never a link, never an
image, never layout (apps/common/pdftext.py).

reportlab's Paragraph parses its text as markup, so `<img src="/etc/passwd"/>` in a neighbour's name embedded a
server file into the fix list a collaborator downloads, and `<a href>` made a link annotation.
"""

from __future__ import annotations

import ast
import csv
import io
import zipfile
from pathlib import Path

import pytest

from deliverables.registry import DELIVERABLES
from tests.hostile.documents import MARKUP, pdf_problems, pdf_text

CSV_HEADER = ["device", "port", "neighbor_device", "neighbor_port"]
ROOT = Path(__file__).resolve().parents[2]


def test_only_the_escaping_helper_builds_a_paragraph():
    """A reportlab Paragraph (or its markup-parsing kin) is only ever built by apps/common/pdftext.py."""
    parsers = {"Paragraph", "XPreformatted", "ParaLines", "Para"}
    offenders = []
    for path in sorted(p for top in ("apps", "deliverables", "engine") for p in ROOT.joinpath(top).rglob("*.py")):
        if path == ROOT / "apps/common/pdftext.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
                if name in parsers:
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} {name}(")
    assert offenders == [], "build paragraphs with apps.common.pdftext.paragraph (escapes data)"


def test_the_helper_prints_markup_as_text():
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import SimpleDocTemplate

    from apps.common.pdftext import paragraph

    out = io.BytesIO()
    SimpleDocTemplate(out).build([paragraph(MARKUP + " & <font size=40>big</font>", getSampleStyleSheet()["Normal"])])
    assert pdf_problems(out.getvalue()) == []
    text = pdf_text(out.getvalue())
    assert '<img src="/etc/passwd"/>' in text and "<font size=40>big</font>" in text and "&" in text


@pytest.fixture(scope="module")
def marked_design():
    from engine.pipeline import compute_design
    from engine.presets import load_preset
    from engine.spec import parse_spec

    spec = {**load_preset("dgx-h100-superpod-4su"), "name": MARKUP, "workloads": ["llama-70b-dp512"]}
    return compute_design(parse_spec(spec))


PDF_KINDS = sorted(kind for kind, d in DELIVERABLES.items() if d.document)


def test_every_pdf_kind_is_covered():
    assert {"bom.pdf", "cabling-plan.pdf", "labels.pdf", "test-sheet.pdf", "workloads.pdf"} <= set(PDF_KINDS)


@pytest.mark.parametrize("kind", PDF_KINDS)
def test_every_rendered_pdf_of_a_design_named_with_markup_is_clean(marked_design, kind, tmp_path):
    from deliverables import write_deliverables
    from deliverables.registry import FOLDER_FILES

    path = next(p for p, d in FOLDER_FILES.items() if d.kind == kind)
    (written,) = write_deliverables(marked_design, tmp_path, revision_label="r1", only=[path])
    data = written.read_bytes()
    # an archive of PDFs (test-sheets-by-rack.zip): every PDF in it
    pdfs = (
        [data]
        if not kind.endswith(".zip")
        else [z.read(n) for z in [zipfile.ZipFile(io.BytesIO(data))] for n in z.namelist()]
    )
    assert pdfs and all(n.startswith(b"%PDF-") for n in pdfs)
    for one in pdfs:
        assert pdf_problems(one) == []
        assert '<a href="https://evil.example/x">' in pdf_text(one).replace("\n", "")


@pytest.mark.django_db
def test_the_fix_list_pdf_of_an_as_built_whose_names_carry_markup_is_clean(users, api_client):
    from apps.commissioning.services import commissioning_refresh
    from apps.designs.services import design_create
    from tests.apps.designs.test_views import compute_now
    from tests.factories import SMALL_SPEC

    rev = compute_now(design_create(user=users.alice, spec={**SMALL_SPEC, "name": MARKUP}), users.alice)
    link = rev.links.filter(a_device__contains="SU").first()
    rows = io.StringIO()
    csv.writer(rows).writerows([CSV_HEADER, [link.a_device, link.a_port, MARKUP, "<b>1</b>"]])
    base = f"/api/v1/designs/{rev.design_id}/revisions/{rev.number}/asbuilt/"
    api_client.force_authenticate(users.alice)
    r = api_client.post(base + "?format=csv", data=rows.getvalue().encode(), content_type="text/csv")
    assert r.status_code == 202, r.content
    commissioning_refresh(revision=rev)
    fixes = api_client.get(base + "fix-list/").json()["fixes"]
    assert any(MARKUP in f["action"] for f in fixes), [f["action"] for f in fixes]
    pdf = api_client.get(base + "fix-list/?format=pdf").content
    assert pdf_problems(pdf) == []
    text = pdf_text(pdf).replace("\n", "")
    assert '<img src="/etc/passwd"/>' in text and "<b>1</b>" in text
