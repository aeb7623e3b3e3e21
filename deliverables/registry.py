"""The one registry of a revision's deliverables: every file the web page lists, the API serves, an export job
builds and the CLI `plan` writes, with its media type, renderer, the options it takes and where the CLI puts it.

Plain data (no Django): apps.exports.services renders through it for the web, API and export jobs, and
deliverables.write_deliverables for the CLI. links.csv, cables.csv and summary.json are the stored
rows (apps/api/downloads.py DB_FILES) and are not listed here.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

_CSV = "text/csv; charset=utf-8"
_TEXT = "text/plain; charset=utf-8"
_BOM = frozenset(
    {"spares_percent", "spares_rule", "spares_afr_percent", "spares_replenish_hours", "spares_service_level_percent"}
)
_PDF = frozenset({"page_size"})
_SCOPED = frozenset({"row", "rack"})
_TEST = frozenset({"test_limit"})


@dataclass(frozen=True)
class Deliverable:
    kind: str  # the file name's tail in downloads and exports, e.g. "bom.pdf"
    content_type: str
    renderer: str  # function name in deliverables
    pdf: bool  # render(result, fh, options, revision_label=...) into bytes; else an iterator of text lines
    args: tuple[str, ...] = ()  # ExportOptions fields a line renderer takes as keyword arguments ("options": all)
    description: str = ""
    options: frozenset[str] = frozenset()  # download/export options it takes besides csv (the API refuses others)
    path: str = ""  # where the CLI `plan` writes it in its output folder (and names it in --deliverables); kind
    needs: str = ""  # "infiniband" | "workloads": a design without them has no such file
    folder_needs_panels: bool = False  # the CLI writes it only for a design with patch panels (header only else)
    reads_index: bool = True  # the renderer takes a DesignView as well as a result (built once per CLI run)

    @property
    def file(self) -> str:
        return self.path or self.kind


# kind -> renderer. links.csv, cables.csv, summary.json and spec.json come from the database instead.
DELIVERABLES: dict[str, Deliverable] = {
    d.kind: d
    for d in (
        Deliverable(
            "bom.pdf",
            "application/pdf",
            "render_bom_pdf",
            True,
            description="Bill of materials: order summary with spares and prices, by network, per SU.",
            options=_BOM | _PDF,
            reads_index=False,
        ),
        Deliverable(
            "bom.csv",
            _CSV,
            "iter_bom_csv",
            False,
            ("options",),
            description="The BOM as CSV.",
            options=_BOM,
            reads_index=False,
        ),
        Deliverable(
            "cabling-plan.pdf",
            "application/pdf",
            "render_cabling_plan_pdf",
            True,
            description="Fabric diagram, rack elevations and every cable, rack by rack.",
            options=_PDF | _SCOPED,
        ),
        Deliverable(
            "cable-schedule.csv",
            _CSV,
            "iter_cables_csv",
            False,
            ("row", "rack"),
            description="The installer's cable schedule (cables.csv plus rooms, rows, modules, polarity).",
            options=_SCOPED,
            path="cables.csv",
        ),
        Deliverable(
            "labels.pdf",
            "application/pdf",
            "render_labels_pdf",
            True,
            description="Both-end labels of every cable and trunk, panels and panel ports.",
            options=_PDF | _SCOPED,
        ),
        Deliverable(
            "labels.csv",
            _CSV,
            "iter_labels_csv",
            False,
            ("options",),
            description="The labels of labels.pdf for label-printer software: barcode value, texts, sheet position.",
            options=_SCOPED,
        ),
        Deliverable(
            "test-sheet.pdf",
            "application/pdf",
            "render_test_sheet_pdf",
            True,
            description="One row per fiber of every optical link, with expected loss and pass limit.",
            options=_PDF | _SCOPED | _TEST,
        ),
        Deliverable(
            "test-sheets-by-rack.zip",
            "application/zip",
            "render_test_sheets_zip",
            True,
            description="The test sheet split by rack: one PDF per rack, every link in exactly one of them.",
            options=_PDF | _SCOPED | _TEST,
        ),
        Deliverable(
            "test-sheet.csv",
            _CSV,
            "iter_test_sheet_csv",
            False,
            ("row", "rack", "test_limit"),
            description="The test sheet as CSV: fill in measured_loss_db and upload it as measurements.",
            options=_SCOPED | _TEST,
        ),
        Deliverable(
            "loss-budget.csv",
            _CSV,
            "iter_loss_budget_csv",
            False,
            description="Per optical link: the loss-budget terms, worst links first.",
        ),
        Deliverable(
            "topology.dot",
            "text/vnd.graphviz; charset=utf-8",
            "iter_topology_dot",
            False,
            description="Graphviz / Cumulus PTM topology of the intended cabling.",
        ),
        Deliverable(
            "topology.ibnetdiscover",
            _TEXT,
            "iter_ibnetdiscover",
            False,
            description="The InfiniBand networks in ibnetdiscover's format.",
            needs="infiniband",
        ),
        # NetBox bulk import, in import order (docs/deliverables.md); interfaces only for existing device types.
        Deliverable(
            "netbox-sites.csv",
            _CSV,
            "iter_netbox_sites",
            False,
            description="NetBox import 1: sites.",
            path="netbox/sites.csv",
        ),
        Deliverable(
            "netbox-manufacturers.csv",
            _CSV,
            "iter_netbox_manufacturers",
            False,
            description="NetBox import 2: manufacturers.",
            path="netbox/manufacturers.csv",
        ),
        Deliverable(
            "netbox-device-roles.csv",
            _CSV,
            "iter_netbox_device_roles",
            False,
            description="NetBox import 3: device roles.",
            path="netbox/device-roles.csv",
        ),
        Deliverable(
            "netbox-racks.csv",
            _CSV,
            "iter_netbox_racks",
            False,
            description="NetBox import 4: racks.",
            path="netbox/racks.csv",
        ),
        Deliverable(
            "netbox-device-types.yaml",
            "application/yaml; charset=utf-8",
            "iter_netbox_device_types",
            False,
            description="NetBox import 5: device types with heights and interface templates.",
            path="netbox/device-types.yaml",
        ),
        Deliverable(
            "netbox-devices.csv",
            _CSV,
            "iter_netbox_devices",
            False,
            description="NetBox import 6: devices.",
            path="netbox/devices.csv",
        ),
        Deliverable(
            "netbox-rear-ports.csv",
            _CSV,
            "iter_netbox_rear_ports",
            False,
            description="NetBox import 7: patch-panel rear ports, one per trunk (header only without panels).",
            path="netbox/rear-ports.csv",
            folder_needs_panels=True,
        ),
        Deliverable(
            "netbox-front-ports.csv",
            _CSV,
            "iter_netbox_front_ports",
            False,
            description="NetBox import 8: patch-panel front ports (header only without panels).",
            path="netbox/front-ports.csv",
            folder_needs_panels=True,
        ),
        Deliverable(
            "netbox-cables.csv",
            _CSV,
            "iter_netbox_cables",
            False,
            description="NetBox import 9: cables, one per link of a multi-link cable.",
            path="netbox/cables.csv",
        ),
        Deliverable(
            "netbox-interfaces.csv",
            _CSV,
            "iter_netbox_interfaces",
            False,
            description="NetBox interfaces, for device types that exist without them (not in the order).",
            path="netbox/interfaces.csv",
        ),
        # Monitoring (docs/monitoring.md): rules and dashboard from the design, targets that label the series.
        Deliverable(
            "prometheus-rules.yaml",
            "application/yaml; charset=utf-8",
            "iter_monitoring_rules",
            False,
            description="Prometheus recording and alerting rules with the design's device, port, tier, rail, "
            "plane and SU labels: utilization against the targets, loss, PFC, ECN, flaps, FEC and symbol errors.",
            path="monitoring/prometheus-rules.yaml",
        ),
        Deliverable(
            "prometheus-targets.json",
            "application/json",
            "iter_prometheus_targets",
            False,
            description="Prometheus file_sd targets: every server and switch with its design labels, which the "
            "rules select on.",
            path="monitoring/prometheus-targets.json",
        ),
        Deliverable(
            "grafana-dashboard.json",
            "application/json",
            "iter_grafana_dashboard",
            False,
            description="Grafana dashboard over the recording rules: utilization per tier, rail x spine, per SU "
            "and per rail, and link health.",
            path="monitoring/grafana-dashboard.json",
        ),
        Deliverable(
            "workloads.pdf",
            "application/pdf",
            "render_workloads_pdf",
            True,
            description="Training-traffic analysis of the design's workloads, with charts.",
            options=_PDF,
            needs="workloads",
            reads_index=False,
        ),
    )
}

# Built only as background jobs (archives of many files): kind -> (content type, description).
ARCHIVES = {
    "configs.zip": (
        "application/zip",
        "QoS / congestion-control configuration: one file per switch, hosts, subnet manager.",
    ),
}


# The CLI's output folder: file path -> deliverable, in the order it writes them.
FOLDER_FILES: dict[str, Deliverable] = {d.file: d for d in DELIVERABLES.values()}


def kinds_taking(option: str) -> frozenset[str]:
    """The deliverables that take a download/export option (an option sent for another kind is refused)."""
    return frozenset(k for k, d in DELIVERABLES.items() if option in d.options)


OPTIONS = sorted({o for d in DELIVERABLES.values() for o in d.options})


def render_lines(deliverable: Deliverable, fn, result, opts, *, counter_thresholds=None):
    """A line renderer's text lines, called as the registry says: the whole ExportOptions, or the fields it
    names, plus the declared csv=safe|raw option and the installation's counter thresholds when it takes them."""
    if deliverable.args == ("options",):
        return fn(result, opts)
    kwargs = {name: getattr(opts, name) for name in deliverable.args}
    params = inspect.signature(fn).parameters
    if "raw" in params:
        kwargs["raw"] = opts.raw_csv
    if "counter_thresholds" in params:
        kwargs["counter_thresholds"] = counter_thresholds
    return fn(result, **kwargs)
