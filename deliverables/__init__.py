"""Deliverables of a computed design: files that leave the building.

Django-free: imports only the engine, reportlab and the standard library. Every document has a
function that writes to a file object (PDF: binary; CSV/text: text) or yields text lines, so the
web layer can stream it; ``write_deliverables`` writes them all into a folder.

    from deliverables import write_deliverables
    paths = write_deliverables(result, Path("out"), revision_label="r3",
                               options={"prices": {"MQM9700-NS2F": 30000}, "currency": "USD",
                                        "spares_percent": {"transceiver": 2, "fiber": 5}})

See docs/deliverables.md for every file, column and option.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from engine.result import DesignResult

from ._view import CABLE_CSV_COLUMNS, DesignView, RevisionView
from .bom import BOM_CSV_COLUMNS, bom_of, iter_bom_csv, iter_bom_rows, render_bom_pdf, write_bom_csv
from .cabling import iter_cable_rows, iter_cables_csv, render_cabling_plan_pdf, write_cables_csv
from .labels import LABEL_CSV_COLUMNS, count_labels, iter_label_records, iter_labels, iter_labels_csv, render_labels_pdf
from .lossbudget import LOSS_COLUMNS, iter_loss_budget_csv, iter_loss_rows
from .monitoring import iter_grafana_dashboard, iter_monitoring_rules, iter_prometheus_targets
from .netbox import (
    IMPORT_ORDER as NETBOX_IMPORT_ORDER,
)
from .netbox import (
    has_halls,
    has_panels,
    iter_netbox_cables,
    iter_netbox_device_roles,
    iter_netbox_device_types,
    iter_netbox_devices,
    iter_netbox_front_ports,
    iter_netbox_interfaces,
    iter_netbox_locations,
    iter_netbox_manufacturers,
    iter_netbox_racks,
    iter_netbox_rear_ports,
    iter_netbox_sites,
)
from .options import ExportOptions, LabelStock, label_stock_presets
from .testsheet import (
    TEST_SHEET_COLUMNS,
    Comparison,
    MeasuredFiber,
    ParseError,
    compare,
    iter_results_csv,
    iter_test_rows,
    iter_test_sheet_csv,
    parse_test_results,
    render_test_sheet_pdf,
    render_test_sheets_zip,
)
from .topology import ib_networks, iter_ibnetdiscover, iter_topology_dot

__all__ = [
    "BOM_CSV_COLUMNS",
    "CABLE_CSV_COLUMNS",
    "Comparison",
    "DesignView",
    "ExportOptions",
    "LOSS_COLUMNS",
    "LabelStock",
    "MeasuredFiber",
    "ParseError",
    "RevisionView",
    "TEST_SHEET_COLUMNS",
    "compare",
    "bom_of",
    "count_labels",
    "iter_bom_csv",
    "iter_bom_rows",
    "iter_cable_rows",
    "iter_cables_csv",
    "iter_ibnetdiscover",
    "iter_labels",
    "iter_loss_budget_csv",
    "iter_loss_rows",
    "LABEL_CSV_COLUMNS",
    "iter_label_records",
    "iter_labels_csv",
    "label_stock_presets",
    "iter_netbox_cables",
    "iter_netbox_device_roles",
    "iter_netbox_device_types",
    "iter_netbox_devices",
    "iter_netbox_front_ports",
    "iter_netbox_interfaces",
    "iter_netbox_manufacturers",
    "iter_netbox_racks",
    "iter_netbox_rear_ports",
    "iter_netbox_sites",
    "iter_netbox_locations",
    "NETBOX_IMPORT_ORDER",
    "iter_results_csv",
    "iter_test_rows",
    "iter_test_sheet_csv",
    "iter_topology_dot",
    "iter_grafana_dashboard",
    "iter_monitoring_rules",
    "iter_prometheus_targets",
    "parse_test_results",
    "render_bom_pdf",
    "render_cabling_plan_pdf",
    "render_labels_pdf",
    "render_test_sheet_pdf",
    "render_test_sheets_zip",
    "write_bom_csv",
    "write_cables_csv",
    "write_deliverables",
    "write_lines",
    "chart_svgs",
    "render_workloads_pdf",
]


def write_lines(path: Path, lines: Iterable[str], chunk: int = 4000) -> Path:
    """Write an iterator of text lines to path (UTF-8, '\\n' line ends), in chunks."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as fh:
        buf: list[str] = []
        for line in lines:
            buf.append(line)
            if len(buf) >= chunk:
                fh.write("".join(buf))
                buf.clear()
        fh.write("".join(buf))
    return path


from .workloads import chart_svgs, render_workloads_pdf  # noqa: E402


def write_deliverables(
    result: DesignResult,
    out_dir: str | Path,
    *,
    revision_label: str = "r1",
    options: ExportOptions | Mapping[str, Any] | None = None,
    only: list[str] | None = None,
) -> list[Path]:
    """Write every deliverable of ``result`` into ``out_dir``; returns the paths written.

    links.csv and summary.json are the engine's (engine.outputs.write_plan). cables.csv here is
    the engine's cable table plus the installer's columns (same first columns, same order).
    The files are the deliverables of deliverables/registry.py, each at its folder path (FOLDER_FILES, in that
    order; cables.csv is the cable schedule); ``only`` limits the run to some of those paths.
    """
    from .labels import unlimited_labels
    from .registry import FOLDER_FILES

    opts = ExportOptions.from_any(options)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    revision = RevisionView(result, revision_label)
    written: list[Path] = []
    for name, d in FOLDER_FILES.items():
        if only is not None and name not in only:
            continue
        if (d.needs == "infiniband" and not ib_networks(result.spec)) or (
            d.needs == "workloads" and not (result.summary or {}).get("workloads")
        ):
            continue
        if d.folder_needs_panels and not has_panels(revision.view):
            continue
        if d.folder_needs_halls and not has_halls(revision.view):
            continue
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as fh, unlimited_labels():  # no time limit here, unlike the export job's
            d.render(revision, fh, opts)
        written.append(path)
    return written
