"""The one deliverable registry (deliverables/registry.py): every kind it lists holds its renderer, each called the
same way; the CLI's folder is the registry's files, and the options each kind takes are the ones the API accepts
for it."""

from __future__ import annotations

import inspect
import io

import pytest

import deliverables as renderers
from deliverables import ExportOptions, RevisionView
from deliverables.registry import DELIVERABLES, FOLDER_FILES, kinds_taking

from .conftest import OPTIONS


def test_every_listed_deliverable_holds_a_renderer_of_the_one_signature():
    """render(revision, fh, options): three positional arguments, nothing looked up by name."""
    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    for d in DELIVERABLES.values():
        params = inspect.signature(d.render).parameters.values()
        assert [p.kind for p in params] == [positional] * 3, d.kind


@pytest.mark.parametrize("kind", [k for k, d in DELIVERABLES.items() if not d.document])
def test_a_text_file_renders_the_same_bytes_as_its_lines(design, kind):
    revision = RevisionView(design, "r7")
    options = ExportOptions.from_any(OPTIONS)
    d = DELIVERABLES[kind]
    fh = io.BytesIO()
    written = d.render(revision, fh, options)
    lines = list(d.lines(revision, options))
    assert written == len(lines) > 0
    assert fh.getvalue() == "".join(lines).encode()


def test_the_renderers_of_a_revision_share_one_index_of_the_design(design):
    revision = RevisionView(design, "r1")
    assert revision.view is revision.view and revision.view.result is design


def test_folder_paths_are_one_per_deliverable():
    assert len(FOLDER_FILES) == len(DELIVERABLES)
    assert FOLDER_FILES["cables.csv"].kind == "cable-schedule.csv"
    assert FOLDER_FILES["netbox/sites.csv"].kind == "netbox-sites.csv"


def test_the_cli_folder_holds_the_registry_files_the_design_has(out, design):
    path, written = out
    names = {p.relative_to(path).as_posix() for p in written}
    skipped = {
        name
        for name, d in FOLDER_FILES.items()
        if (d.needs == "workloads" and not design.summary.get("workloads"))
        or (d.needs == "infiniband" and not renderers.ib_networks(design.spec))
        or (d.folder_needs_panels and not renderers.has_panels(design))
        or (d.folder_needs_halls and not renderers.has_halls(design))
    }
    assert names == set(FOLDER_FILES) - skipped
    assert "cables.csv" in names and "bom.pdf" in names


def test_every_pdf_takes_a_page_size_and_only_the_bom_takes_spares():
    assert kinds_taking("page_size") == {k for k, d in DELIVERABLES.items() if d.document}
    assert kinds_taking("spares_percent") == {"bom.pdf", "bom.csv"}
    assert kinds_taking("test_limit") == {"test-sheet.pdf", "test-sheet.csv", "test-sheets-by-rack.zip"}
