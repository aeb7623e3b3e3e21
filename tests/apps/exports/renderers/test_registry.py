"""The one deliverable registry (apps/exports/registry.py): every kind it lists has a renderer, the CLI's folder is
the registry's files, and the options each kind takes are the ones the API accepts for it."""

from __future__ import annotations

from apps.exports import renderers
from apps.exports.registry import DELIVERABLES, FOLDER_FILES, kinds_taking


def test_every_listed_deliverable_has_its_renderer():
    missing = [d.kind for d in DELIVERABLES.values() if not callable(getattr(renderers, d.renderer, None))]
    assert missing == []


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
    }
    assert names == set(FOLDER_FILES) - skipped
    assert "cables.csv" in names and "bom.pdf" in names


def test_every_pdf_takes_a_page_size_and_only_the_bom_takes_spares():
    assert kinds_taking("page_size") == {k for k, d in DELIVERABLES.items() if d.pdf}
    assert kinds_taking("spares_percent") == {"bom.pdf", "bom.csv"}
    assert kinds_taking("test_limit") == {"test-sheet.pdf", "test-sheet.csv", "test-sheets-by-rack.zip"}
