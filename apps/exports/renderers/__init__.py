"""Deliverables of a computed design: files that leave the building.

Django-free: imports only the engine, reportlab and the standard library. Every document has a
function that writes to a file object (PDF: binary; CSV/text: text) or yields text lines, so the
web layer can stream it; ``write_deliverables`` writes them all into a folder.

    from apps.exports.renderers import write_deliverables
    paths = write_deliverables(result, Path("out"), revision_label="r3",
                               options={"prices": {"QM9700": 30000}, "currency": "USD",
                                        "spares_percent": {"transceiver": 2, "fiber": 5}})

See docs/deliverables.md for every file, column and option.
"""

from __future__ import annotations

from pathlib import Path

from ._view import CABLE_CSV_COLUMNS, DesignView
from .bom import BOM_CSV_COLUMNS, compute_bom, iter_bom_csv, iter_bom_rows, render_bom_pdf, write_bom_csv
from .cabling import iter_cable_rows, iter_cables_csv, render_cabling_plan_pdf, write_cables_csv
from .labels import LABEL_CSV_COLUMNS, count_labels, iter_label_records, iter_labels, iter_labels_csv, render_labels_pdf
from .lossbudget import LOSS_COLUMNS, iter_loss_budget_csv, iter_loss_rows
from .monitoring import iter_grafana_dashboard, iter_monitoring_rules, iter_prometheus_targets
from .netbox import (
    IMPORT_ORDER as NETBOX_IMPORT_ORDER,
)
from .netbox import (
    has_panels,
    iter_netbox_cables,
    iter_netbox_device_roles,
    iter_netbox_device_types,
    iter_netbox_devices,
    iter_netbox_front_ports,
    iter_netbox_interfaces,
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
    "TEST_SHEET_COLUMNS",
    "compare",
    "compute_bom",
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
    "write_bom_csv",
    "write_cables_csv",
    "write_deliverables",
    "write_lines",
    "DOCUMENTS",
    "chart_svgs",
    "render_workloads_pdf",
]


def write_lines(path: Path, lines, chunk: int = 4000) -> Path:
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


def _pdf(path: Path, render, result, opts, revision_label) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:
        render(result, fh, opts, revision_label=revision_label)
    return path


# name -> writer(view, out_dir, options, revision_label) -> Path | None. Order = write order.
def _netbox(name, fn, when=None):
    """A netbox/ file writer; `when(view)` false = the design has no such file (ports of panels it lacks)."""

    def write(v, out, o, r):
        if when is not None and not when(v):
            return None
        return write_lines(out / "netbox" / name, fn(v))

    return write


from .workloads import chart_svgs, render_workloads_pdf  # noqa: E402

DOCUMENTS = {
    "bom.pdf": lambda v, out, o, r: _pdf(out / "bom.pdf", render_bom_pdf, v.result, o, r),
    "bom.csv": lambda v, out, o, r: write_lines(out / "bom.csv", iter_bom_csv(v.result, o)),
    "cabling-plan.pdf": lambda v, out, o, r: _pdf(out / "cabling-plan.pdf", render_cabling_plan_pdf, v, o, r),
    "cables.csv": lambda v, out, o, r: write_lines(
        out / "cables.csv", iter_cables_csv(v, row=o.row, rack=o.rack, raw=o.raw_csv)
    ),
    "labels.pdf": lambda v, out, o, r: _pdf(out / "labels.pdf", render_labels_pdf, v, o, r),
    "labels.csv": lambda v, out, o, r: write_lines(out / "labels.csv", iter_labels_csv(v, o)),
    "test-sheet.pdf": lambda v, out, o, r: _pdf(out / "test-sheet.pdf", render_test_sheet_pdf, v, o, r),
    "test-sheet.csv": lambda v, out, o, r: write_lines(
        out / "test-sheet.csv", iter_test_sheet_csv(v, row=o.row, rack=o.rack, test_limit=o.test_limit, raw=o.raw_csv)
    ),
    "loss-budget.csv": lambda v, out, o, r: write_lines(
        out / "loss-budget.csv", iter_loss_budget_csv(v, raw=o.raw_csv)
    ),
    "topology.dot": lambda v, out, o, r: write_lines(out / "topology.dot", iter_topology_dot(v)),
    "topology.ibnetdiscover": lambda v, out, o, r: (
        write_lines(out / "topology.ibnetdiscover", iter_ibnetdiscover(v)) if ib_networks(v.result.spec) else None
    ),
    # netbox/: in NetBox's import order (netbox.IMPORT_ORDER), then interfaces.csv (not in that order).
    "netbox/sites.csv": _netbox("sites.csv", iter_netbox_sites),
    "netbox/manufacturers.csv": _netbox("manufacturers.csv", iter_netbox_manufacturers),
    "netbox/device-roles.csv": _netbox("device-roles.csv", iter_netbox_device_roles),
    "netbox/racks.csv": _netbox("racks.csv", iter_netbox_racks),
    "netbox/device-types.yaml": _netbox("device-types.yaml", iter_netbox_device_types),
    "netbox/devices.csv": _netbox("devices.csv", iter_netbox_devices),
    "netbox/rear-ports.csv": _netbox("rear-ports.csv", iter_netbox_rear_ports, has_panels),
    "netbox/front-ports.csv": _netbox("front-ports.csv", iter_netbox_front_ports, has_panels),
    "netbox/cables.csv": _netbox("cables.csv", iter_netbox_cables),
    "netbox/interfaces.csv": _netbox("interfaces.csv", iter_netbox_interfaces),
    "monitoring/prometheus-rules.yaml": lambda v, out, o, r: write_lines(
        out / "monitoring" / "prometheus-rules.yaml", iter_monitoring_rules(v, o.counter_thresholds)
    ),
    "monitoring/prometheus-targets.json": lambda v, out, o, r: write_lines(
        out / "monitoring" / "prometheus-targets.json", iter_prometheus_targets(v)
    ),
    "monitoring/grafana-dashboard.json": lambda v, out, o, r: write_lines(
        out / "monitoring" / "grafana-dashboard.json", iter_grafana_dashboard(v)
    ),
    "workloads.pdf": lambda v, out, o, r: (
        _pdf(out / "workloads.pdf", render_workloads_pdf, v.result, o, r) if v.result.summary.get("workloads") else None
    ),
}


def write_deliverables(
    result, out_dir, *, revision_label: str = "r1", options=None, only: list[str] | None = None
) -> list[Path]:
    """Write every deliverable of ``result`` into ``out_dir``; returns the paths written.

    links.csv and summary.json are the engine's (engine.outputs.write_plan). cables.csv here is
    the engine's cable table plus the installer's columns (same first columns, same order).
    ``only`` limits the run to some DOCUMENTS keys.
    """
    opts = ExportOptions.from_any(options)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    v = DesignView(result)
    written: list[Path] = []
    for name, fn in DOCUMENTS.items():
        if only is not None and name not in only:
            continue
        p = fn(v, out, opts, revision_label)
        if p is not None:
            written.append(p)
    return written
