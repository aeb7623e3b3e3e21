"""What a clean served document is, for the hostile-input tests: the checks, not the rendering.

A PDF is clean when it has no link annotation (a `<a href>` in a name became a clickable link), no image
XObject (an `<img src>` in a name embedded a file from the server's disk) and shows the hostile text as
text. A CSV is clean when no cell would run as a formula in a spreadsheet.
"""

from __future__ import annotations

import csv
import io

from pypdf import PdfReader

from engine.csvcells import starts_unsafe

MARKUP = '<a href="https://evil.example/x">click</a><img src="/etc/passwd"/>'
FORMULAS = ("=HYPERLINK(1)", "+1+cmd", "-2+cmd", "@SUM(A1)", "\tTAB", "\rCR")


def pdf_problems(data: bytes) -> list[str]:
    reader = PdfReader(io.BytesIO(data))
    found = []
    for n, page in enumerate(reader.pages, start=1):
        for annot in page.get("/Annots") or []:
            obj = annot.get_object()
            if obj.get("/Subtype") == "/Link":
                found.append(f"page {n}: link annotation {obj.get('/A')}")
        resources = page.get("/Resources") or {}
        xobjects = resources.get("/XObject") or {}
        for name, ref in xobjects.items():
            if ref.get_object().get("/Subtype") == "/Image":
                found.append(f"page {n}: image XObject {name}")
    return found


def pdf_text(data: bytes) -> str:
    return "\n".join(page.extract_text() or "" for page in PdfReader(io.BytesIO(data)).pages)


def formula_cells(text: str) -> list[tuple[int, str]]:
    """(line, cell) of every cell a spreadsheet would run as a formula."""
    return [
        (n, cell)
        for n, row in enumerate(csv.reader(io.StringIO(text, newline="")), start=1)
        for cell in row
        if starts_unsafe(cell)
    ]
