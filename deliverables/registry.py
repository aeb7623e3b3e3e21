"""The one registry of a revision's deliverables: every file the web page lists, the API serves, an export job
builds and the CLI `plan` writes, with its media type, its renderer, the options it takes and where the CLI puts it.

Every renderer is called the same way, `render(revision, fh, options) -> int`: a RevisionView (the result, its
label and its DesignView index), a binary file to write into and the validated ExportOptions; it returns the pages
(documents) or lines (text files) written. A text file also has `lines(revision, options)`, the same text as an
iterator of lines for callers that stream or write text. apps.exports.services renders through this registry for
the web, API and export jobs, and deliverables.write_deliverables for the CLI. The files that come from the stored
revision instead (links.csv, cables.csv, summary.json, spec.json) are STORED_FILES.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import IO, Any

from ._view import RevisionView
from .bom import iter_bom_csv, render_bom_pdf
from .cabling import iter_cables_csv, render_cabling_plan_pdf
from .labels import iter_labels_csv, render_labels_pdf
from .lossbudget import iter_loss_budget_csv
from .monitoring import iter_grafana_dashboard, iter_monitoring_rules, iter_prometheus_targets
from .netbox import (
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
from .options import ExportOptions
from .testsheet import iter_test_sheet_csv, render_test_sheet_pdf, render_test_sheets_zip
from .topology import iter_ibnetdiscover, iter_topology_dot
from .workloads import render_workloads_pdf

Renderer = Callable[[RevisionView, IO[bytes], ExportOptions], int]
Lines = Callable[[RevisionView, ExportOptions], Iterable[str]]

_CSV = "text/csv; charset=utf-8"
_TEXT = "text/plain; charset=utf-8"
_BOM = frozenset(
    {"spares_percent", "spares_rule", "spares_afr_percent", "spares_replenish_hours", "spares_service_level_percent"}
)
_PDF = frozenset({"page_size"})
_SCOPED = frozenset({"row", "rack"})
_TEST = frozenset({"test_limit"})


def write_text(fh: IO[bytes], lines: Iterable[str], chunk: int = 4000) -> int:
    """Write text lines as UTF-8 into a binary file ('\\n' line ends as given), `chunk` lines per write (a
    400,000-line cable schedule: a hundred writes, not 400,000); returns the lines written."""
    n = 0
    buf: list[str] = []
    for line in lines:
        buf.append(line)
        if len(buf) >= chunk:
            fh.write("".join(buf).encode("utf-8"))
            n += len(buf)
            buf.clear()
    fh.write("".join(buf).encode("utf-8"))
    return n + len(buf)


def _text(lines: Lines) -> Renderer:
    def render(revision: RevisionView, fh: IO[bytes], options: ExportOptions) -> int:
        return write_text(fh, lines(revision, options))

    return render


@dataclass(frozen=True)
class Deliverable:
    kind: str  # the file name's tail in downloads and exports, e.g. "bom.pdf"
    content_type: str
    render: Renderer
    lines: Lines | None = None  # a text file's lines (render writes them); None for a document (PDF, zip)
    description: str = ""
    options: frozenset[str] = frozenset()  # download/export options it takes besides csv (the API refuses others)
    path: str = ""  # where the CLI `plan` writes it in its output folder (and names it in --deliverables); kind
    needs: str = ""  # "infiniband" | "workloads": a design without them has no such file
    folder_needs_panels: bool = False  # the CLI writes it only for a design with patch panels (header only else)
    folder_needs_halls: bool = False  # the CLI writes it only for a design over several halls (header only else)

    @property
    def file(self) -> str:
        return self.path or self.kind

    @property
    def document(self) -> bool:
        """A PDF or an archive of them (binary, paged), rather than a text file."""
        return self.lines is None


def document(kind: str, content_type: str, render: Renderer, **kw: Any) -> Deliverable:
    return Deliverable(kind, content_type, render, **kw)


def text(kind: str, content_type: str, lines: Lines, **kw: Any) -> Deliverable:
    return Deliverable(kind, content_type, _text(lines), lines, **kw)


# kind -> deliverable, in the order the CLI writes them. Each renderer reads what it needs from the RevisionView:
# the result alone (BOM, workloads, monitoring) or the DesignView index over it (everything that walks racks and cables).
DELIVERABLES: dict[str, Deliverable] = {
    d.kind: d
    for d in (
        document(
            "bom.pdf",
            "application/pdf",
            lambda r, fh, o: render_bom_pdf(r.result, fh, o, revision_label=r.label),
            description="Bill of materials: order summary with spares and prices, by network, per SU.",
            options=_BOM | _PDF,
        ),
        text(
            "bom.csv",
            _CSV,
            lambda r, o: iter_bom_csv(r.result, o),
            description="The BOM as CSV.",
            options=_BOM,
        ),
        document(
            "cabling-plan.pdf",
            "application/pdf",
            lambda r, fh, o: render_cabling_plan_pdf(r.view, fh, o, revision_label=r.label),
            description="Fabric diagram, rack elevations and every cable, rack by rack.",
            options=_PDF | _SCOPED,
        ),
        text(
            "cable-schedule.csv",
            _CSV,
            lambda r, o: iter_cables_csv(r.view, row=o.row, rack=o.rack, raw=o.raw_csv),
            description="The installer's cable schedule (cables.csv plus rooms, rows, modules, polarity).",
            options=_SCOPED,
            path="cables.csv",
        ),
        document(
            "labels.pdf",
            "application/pdf",
            lambda r, fh, o: render_labels_pdf(r.view, fh, o, revision_label=r.label),
            description="Both-end labels of every cable and trunk, panels and panel ports.",
            options=_PDF | _SCOPED,
        ),
        text(
            "labels.csv",
            _CSV,
            lambda r, o: iter_labels_csv(r.view, o),
            description="The labels of labels.pdf for label-printer software: barcode value, texts, sheet position.",
            options=_SCOPED,
        ),
        document(
            "test-sheet.pdf",
            "application/pdf",
            lambda r, fh, o: render_test_sheet_pdf(r.view, fh, o, revision_label=r.label),
            description="One row per fiber of every optical link, with expected loss and pass limit.",
            options=_PDF | _SCOPED | _TEST,
        ),
        document(
            "test-sheets-by-rack.zip",
            "application/zip",
            lambda r, fh, o: render_test_sheets_zip(r.view, fh, o, revision_label=r.label),
            description="The test sheet split by rack: one PDF per rack, every link in exactly one of them.",
            options=_PDF | _SCOPED | _TEST,
        ),
        text(
            "test-sheet.csv",
            _CSV,
            lambda r, o: iter_test_sheet_csv(r.view, row=o.row, rack=o.rack, test_limit=o.test_limit, raw=o.raw_csv),
            description="The test sheet as CSV: fill in measured_loss_db and upload it as measurements.",
            options=_SCOPED | _TEST,
        ),
        text(
            "loss-budget.csv",
            _CSV,
            lambda r, o: iter_loss_budget_csv(r.view, raw=o.raw_csv),
            description="Per optical link: the loss-budget terms, worst links first.",
        ),
        text(
            "topology.dot",
            "text/vnd.graphviz; charset=utf-8",
            lambda r, _o: iter_topology_dot(r.view),
            description="Graphviz / Cumulus PTM topology of the intended cabling.",
        ),
        text(
            "topology.ibnetdiscover",
            _TEXT,
            lambda r, _o: iter_ibnetdiscover(r.view),
            description="The InfiniBand networks in ibnetdiscover's format.",
            needs="infiniband",
        ),
        # NetBox bulk import, in import order (docs/deliverables.md); interfaces only for existing device types.
        text(
            "netbox-sites.csv",
            _CSV,
            lambda r, _o: iter_netbox_sites(r.view),
            description="NetBox import 1: sites.",
            path="netbox/sites.csv",
        ),
        text(
            "netbox-locations.csv",
            _CSV,
            lambda r, _o: iter_netbox_locations(r.view),
            description="NetBox import 1b: a location per data hall and the MDA (header only in one hall).",
            path="netbox/locations.csv",
            folder_needs_halls=True,
        ),
        text(
            "netbox-manufacturers.csv",
            _CSV,
            lambda r, _o: iter_netbox_manufacturers(r.view),
            description="NetBox import 2: manufacturers.",
            path="netbox/manufacturers.csv",
        ),
        text(
            "netbox-device-roles.csv",
            _CSV,
            lambda r, _o: iter_netbox_device_roles(r.view),
            description="NetBox import 3: device roles.",
            path="netbox/device-roles.csv",
        ),
        text(
            "netbox-racks.csv",
            _CSV,
            lambda r, _o: iter_netbox_racks(r.view),
            description="NetBox import 4: racks.",
            path="netbox/racks.csv",
        ),
        text(
            "netbox-device-types.yaml",
            "application/yaml; charset=utf-8",
            lambda r, _o: iter_netbox_device_types(r.view),
            description="NetBox import 5: device types with heights and interface templates.",
            path="netbox/device-types.yaml",
        ),
        text(
            "netbox-devices.csv",
            _CSV,
            lambda r, _o: iter_netbox_devices(r.view),
            description="NetBox import 6: devices.",
            path="netbox/devices.csv",
        ),
        text(
            "netbox-rear-ports.csv",
            _CSV,
            lambda r, _o: iter_netbox_rear_ports(r.view),
            description="NetBox import 7: patch-panel rear ports, one per trunk (header only without panels).",
            path="netbox/rear-ports.csv",
            folder_needs_panels=True,
        ),
        text(
            "netbox-front-ports.csv",
            _CSV,
            lambda r, _o: iter_netbox_front_ports(r.view),
            description="NetBox import 8: patch-panel front ports (header only without panels).",
            path="netbox/front-ports.csv",
            folder_needs_panels=True,
        ),
        text(
            "netbox-cables.csv",
            _CSV,
            lambda r, _o: iter_netbox_cables(r.view),
            description="NetBox import 9: cables, one per link of a multi-link cable.",
            path="netbox/cables.csv",
        ),
        text(
            "netbox-interfaces.csv",
            _CSV,
            lambda r, _o: iter_netbox_interfaces(r.view),
            description="NetBox interfaces, for device types that exist without them (not in the order).",
            path="netbox/interfaces.csv",
        ),
        # Monitoring (docs/monitoring.md): rules and dashboard from the design, targets that label the series.
        text(
            "prometheus-rules.yaml",
            "application/yaml; charset=utf-8",
            lambda r, o: iter_monitoring_rules(r.result, o.counter_thresholds),
            description="Prometheus recording and alerting rules with the design's device, port, tier, rail, "
            "plane and SU labels: utilization against the targets, loss, PFC, ECN, flaps, FEC and symbol errors.",
            path="monitoring/prometheus-rules.yaml",
        ),
        text(
            "prometheus-targets.json",
            "application/json",
            lambda r, _o: iter_prometheus_targets(r.result),
            description="Prometheus file_sd targets: every server and switch with its design labels, which the "
            "rules select on.",
            path="monitoring/prometheus-targets.json",
        ),
        text(
            "grafana-dashboard.json",
            "application/json",
            lambda r, _o: iter_grafana_dashboard(r.result),
            description="Grafana dashboard over the recording rules: utilization per tier, rail x spine, per SU "
            "and per rail, and link health.",
            path="monitoring/grafana-dashboard.json",
        ),
        document(
            "workloads.pdf",
            "application/pdf",
            lambda r, fh, o: render_workloads_pdf(r.result, fh, o, revision_label=r.label),
            description="Training-traffic analysis of the design's workloads, with charts.",
            options=_PDF,
            needs="workloads",
        ),
    )
}


@dataclass(frozen=True)
class StoredFile:
    """A file of a revision that comes from what the revision stored (its rows, summary and spec), not a renderer."""

    kind: str
    content_type: str
    description: str


STORED_FILES: dict[str, StoredFile] = {
    f.kind: f
    for f in (
        StoredFile("links.csv", _CSV, "Every link, as the CLI's links.csv."),
        StoredFile("cables.csv", _CSV, "Every cable, as the CLI's cables.csv."),
        StoredFile("summary.json", "application/json", "The design's summary: counts, oversubscription, BOM lines."),
        StoredFile("spec.json", "application/json", "The spec the revision was computed from."),
    )
}

# Every downloadable file of a revision, kind -> content type, in the order pages and the API list them: the
# stored files, then the rendered deliverables. The one list; the API, the revision page and its card derive theirs.
CONTENT_TYPES: dict[str, str] = {
    **{k: f.content_type for k, f in STORED_FILES.items()},
    **{k: d.content_type for k, d in DELIVERABLES.items()},
}
DOWNLOADS: tuple[str, ...] = tuple(CONTENT_TYPES)

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
