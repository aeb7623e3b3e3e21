"""Fixtures for the deliverables (the framework-free package deliverables/): plain pytest, no database, no Django.

These tests run under `pytest -p no:django` too: they sit outside tests/apps, whose conftest needs pytest-django.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PANELS = {"tiers": {"leaf-spine": {"medium": "single-mode", "cabling": "panels", "trunk_base": 8}}}
OPTIONS = {
    "prices": {"MQM9700-NS2F": 30000, "MMA4Z00-NS": "900.50"},
    "currency": "EUR",
    "spares_percent": {"transceiver": 2, "fiber": 5},
    "date": "2026-01-15",
}


@pytest.fixture(scope="session")
def design():
    """The 4-SU DGX H100 preset with leaf-spine in panel mode (trunks, panels, cassettes paths)."""
    from engine.pipeline import compute_design
    from engine.presets import load_preset
    from engine.spec import parse_spec

    d = load_preset("dgx-h100-superpod-4su")
    d["physical"] = PANELS
    return compute_design(parse_spec(d))


@pytest.fixture(scope="session")
def direct_design():
    from engine.pipeline import compute_design
    from engine.presets import load_preset
    from engine.spec import parse_spec

    return compute_design(parse_spec(load_preset("dgx-b300-xdr-8su")))


@pytest.fixture(scope="session")
def out(design, tmp_path_factory):
    from deliverables import write_deliverables

    path = tmp_path_factory.mktemp("deliverables")
    written = write_deliverables(design, path, revision_label="r7", options=OPTIONS)
    return path, written


def read_csv(path: Path) -> list[dict]:
    import csv

    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


class PdfText:
    """Text fragments of a PDF with positions: (page, x, y, text, font size, font name)."""

    def __init__(self, path: Path, pages=None):
        from pypdf import PdfReader

        self.reader = PdfReader(str(path))
        self.n = len(self.reader.pages)
        self.items = []
        want = range(self.n) if pages is None else [p for p in pages if p < self.n]
        for i in want:
            self.items.extend(self.page_items(i))

    def page_items(self, i: int):
        out = []

        def visit(text, cm, tm, fd, fs):
            t = text.strip("\n")
            if t.strip():
                x = tm[4] * cm[0] + cm[4]
                y = tm[5] * cm[3] + cm[5]
                out.append((i, round(x, 2), round(y, 2), t, fs, (fd or {}).get("/BaseFont", "")))

        self.reader.pages[i].extract_text(visitor_text=visit)
        return out

    def texts(self, page=None) -> list[str]:
        return [it[3] for it in self.items if page is None or it[0] == page]

    def rows(self, page: int, tol: float = 1.0) -> list[list[str]]:
        """Fragments of one page grouped into visual lines (same y), left to right."""
        items = sorted((it for it in self.items if it[0] == page), key=lambda it: (-it[2], it[1]))
        rows, last_y = [], None
        for it in items:
            if last_y is None or abs(it[2] - last_y) > tol:
                rows.append([])
                last_y = it[2]
            rows[-1].append(it[3])
        return rows


def num(s: str) -> float:
    return float(s.replace(",", ""))


def font_sizes(path: Path, pages=None) -> list[float]:
    """Every Tf operand (font size) in the content streams."""
    from pypdf import PdfReader

    r = PdfReader(str(path))
    sizes = []
    for i, page in enumerate(r.pages):
        if pages is not None and i not in pages:
            continue
        data = page.get_contents().get_data().decode("latin-1")
        sizes += [float(m) for m in re.findall(r"/F\S+\s+([\d.]+)\s+Tf", data)]
    return sizes
