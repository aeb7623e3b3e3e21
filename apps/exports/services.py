"""Deliverables of a stored revision, for the REST API and the HTML views.

The meeting point with the (Django-free) renderers in `apps.exports.renderers`. The renderers read the
engine's DesignResult as the revision stored it (its snapshot, apps/designs/snapshots.py): nothing here runs
the engine's compute, so a revision's files never follow a later catalog, custom part or engine change.

A deliverable whose renderer is not in this build raises DeliverableUnavailable; callers
answer 501 for it.
"""

from __future__ import annotations

import importlib
import inspect
import io
from collections.abc import Iterator
from dataclasses import dataclass

from engine.errors import SpecError
from engine.result import DesignResult
from engine.spec import parse_spec


class DeliverableUnavailable(Exception):
    """The renderer for a deliverable is not part of this build."""


@dataclass(frozen=True)
class Deliverable:
    kind: str  # the file name's tail, e.g. "bom.pdf"
    content_type: str
    renderer: str  # function name in apps.exports.renderers
    pdf: bool  # render(view, fh, options, revision_label=...) into bytes; else an iterator of text lines
    args: tuple[str, ...] = ()  # ExportOptions fields a line renderer takes as keyword arguments ("options": all)
    description: str = ""


_CSV = "text/csv; charset=utf-8"
_TEXT = "text/plain; charset=utf-8"

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
        ),
        Deliverable("bom.csv", _CSV, "iter_bom_csv", False, ("options",), description="The BOM as CSV."),
        Deliverable(
            "cabling-plan.pdf",
            "application/pdf",
            "render_cabling_plan_pdf",
            True,
            description="Fabric diagram, rack elevations and every cable, rack by rack.",
        ),
        Deliverable(
            "cable-schedule.csv",
            _CSV,
            "iter_cables_csv",
            False,
            ("row", "rack"),
            description="The installer's cable schedule (cables.csv plus rooms, rows, modules, polarity).",
        ),
        Deliverable(
            "labels.pdf",
            "application/pdf",
            "render_labels_pdf",
            True,
            description="Both-end labels of every cable and trunk, panels and panel ports.",
        ),
        Deliverable(
            "labels.csv",
            _CSV,
            "iter_labels_csv",
            False,
            ("options",),
            description="The labels of labels.pdf for label-printer software: barcode value, texts, sheet position.",
        ),
        Deliverable(
            "test-sheet.pdf",
            "application/pdf",
            "render_test_sheet_pdf",
            True,
            description="One row per fiber of every optical link, with expected loss and pass limit.",
        ),
        Deliverable(
            "test-sheet.csv",
            _CSV,
            "iter_test_sheet_csv",
            False,
            ("row", "rack", "test_limit"),
            description="The test sheet as CSV: fill in measured_loss_db and upload it as measurements.",
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
        ),
        # NetBox bulk import, in import order (docs/deliverables.md); interfaces only for existing device types.
        Deliverable("netbox-sites.csv", _CSV, "iter_netbox_sites", False, description="NetBox import 1: sites."),
        Deliverable(
            "netbox-manufacturers.csv",
            _CSV,
            "iter_netbox_manufacturers",
            False,
            description="NetBox import 2: manufacturers.",
        ),
        Deliverable(
            "netbox-device-roles.csv",
            _CSV,
            "iter_netbox_device_roles",
            False,
            description="NetBox import 3: device roles.",
        ),
        Deliverable("netbox-racks.csv", _CSV, "iter_netbox_racks", False, description="NetBox import 4: racks."),
        Deliverable(
            "netbox-device-types.yaml",
            "application/yaml; charset=utf-8",
            "iter_netbox_device_types",
            False,
            description="NetBox import 5: device types with heights and interface templates.",
        ),
        Deliverable("netbox-devices.csv", _CSV, "iter_netbox_devices", False, description="NetBox import 6: devices."),
        Deliverable(
            "netbox-rear-ports.csv",
            _CSV,
            "iter_netbox_rear_ports",
            False,
            description="NetBox import 7: patch-panel rear ports, one per trunk (header only without panels).",
        ),
        Deliverable(
            "netbox-front-ports.csv",
            _CSV,
            "iter_netbox_front_ports",
            False,
            description="NetBox import 8: patch-panel front ports (header only without panels).",
        ),
        Deliverable(
            "netbox-cables.csv",
            _CSV,
            "iter_netbox_cables",
            False,
            description="NetBox import 9: cables, one per link of a multi-link cable.",
        ),
        Deliverable(
            "netbox-interfaces.csv",
            _CSV,
            "iter_netbox_interfaces",
            False,
            description="NetBox interfaces, for device types that exist without them (not in the order).",
        ),
        # Monitoring (docs/monitoring.md): rules and dashboard from the design, targets that label the series.
        Deliverable(
            "prometheus-rules.yaml",
            "application/yaml; charset=utf-8",
            "iter_monitoring_rules",
            False,
            description="Prometheus recording and alerting rules with the design's device, port, tier, rail, "
            "plane and SU labels: utilization against the targets, loss, PFC, ECN, flaps, FEC and symbol errors.",
        ),
        Deliverable(
            "prometheus-targets.json",
            "application/json",
            "iter_prometheus_targets",
            False,
            description="Prometheus file_sd targets: every server and switch with its design labels, which the "
            "rules select on.",
        ),
        Deliverable(
            "grafana-dashboard.json",
            "application/json",
            "iter_grafana_dashboard",
            False,
            description="Grafana dashboard over the recording rules: utilization per tier, rail x spine, per SU "
            "and per rail, and link health.",
        ),
        Deliverable(
            "workloads.pdf",
            "application/pdf",
            "render_workloads_pdf",
            True,
            description="Training-traffic analysis of the design's workloads, with charts.",
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


def _renderers():
    try:
        return importlib.import_module("apps.exports.renderers")
    except ImportError:
        return None


def deliverable_renderer(kind: str):
    fn = getattr(_renderers(), DELIVERABLES[kind].renderer, None)
    if fn is None:
        raise DeliverableUnavailable(kind)
    return fn


def deliverable_available(kind: str) -> bool:
    return getattr(_renderers(), DELIVERABLES[kind].renderer, None) is not None


def deliverable_applies(kind: str, spec: dict | None) -> bool:
    """False for a file the design cannot have: topology.ibnetdiscover without an InfiniBand network,
    workloads.pdf without workloads."""
    if kind not in ("topology.ibnetdiscover", "workloads.pdf"):
        return True
    try:
        s = parse_spec(spec or {})
    except SpecError:
        return True  # let the download report why it cannot be built
    if kind == "workloads.pdf":
        return bool(s.workloads)
    return s.compute.technology == "infiniband" or (s.storage.enabled and s.storage.technology == "infiniband")


def deliverable_missing_reason(kind: str) -> str:
    """Why deliverable_applies() is False for this kind."""
    return (
        "it has no workloads (spec section `workloads`)" if kind == "workloads.pdf" else "it has no InfiniBand network"
    )


def revision_result(*, revision) -> DesignResult:
    """The engine result of a revision as it was computed: its stored snapshot, decoded (never recomputed).

    SnapshotUnavailable (a SpecError, answered as "not reproducible" by every caller) when the revision has
    no snapshot to render from: stored before snapshots and not backfilled yet, or backfilled as rows only.
    The snapshot holds the catalog the revision was computed with, custom parts included."""
    from apps.designs.snapshots import revision_snapshot

    return revision_snapshot(revision)


def export_options(options: dict | None, result: DesignResult | None = None):
    """Validated ExportOptions (ValueError naming the option); with `result`, its catalog (the one the revision
    was computed with) is the one the renderers read part facts from."""
    opts = _renderers().ExportOptions.from_any(dict(options or {}))
    if result is not None and result.catalog is not None and opts.catalog is None:
        from dataclasses import replace

        opts = replace(opts, catalog=result.catalog)
    return opts


def deliverable_pdf(*, kind: str, result: DesignResult, options: dict | None, revision_label: str) -> bytes:
    fn = deliverable_renderer(kind)
    fh = io.BytesIO()
    fn(result, fh, export_options(options, result), revision_label=revision_label)
    return fh.getvalue()


def deliverable_lines(*, kind: str, result: DesignResult, options: dict | None) -> Iterator[str]:
    d = DELIVERABLES[kind]
    fn = deliverable_renderer(kind)
    opts = export_options(options, result)
    if d.args == ("options",):
        return fn(result, opts)
    kwargs = {name: getattr(opts, name) for name in d.args}
    params = inspect.signature(fn).parameters
    if "raw" in params:  # CSV renderers: the declared csv=safe|raw option
        kwargs["raw"] = opts.raw_csv
    if "counter_thresholds" in params:  # the monitoring rules: the installation's thresholds
        from django.conf import settings

        kwargs["counter_thresholds"] = getattr(settings, "COUNTER_THRESHOLDS", None)
    return fn(result, **kwargs)


# --- background exports ------------------------------------------------------------------------
# A 400,000-cable plan takes tens of seconds to render, so big deliverables are built by a worker into the
# artifact store (apps.exports.artifacts), from which the web serves them on any host.


def export_enqueue(*, revision, kind: str, user, options: dict | None = None):
    """Queue the build of one deliverable (or archive) of a revision; returns the Job. A queued or running
    build of the same file (same artifact key) is returned instead of starting another."""
    from apps.jobs.models import Job, JobStatus
    from apps.jobs.services import job_create

    from .artifacts import artifact_lookup

    if kind not in DELIVERABLES and kind not in ARCHIVES:
        raise ValueError(f"kind: unknown deliverable {kind!r}")
    if kind in DELIVERABLES:
        if not deliverable_applies(kind, revision.spec):
            raise ValueError(f"kind: this design has no {kind} ({deliverable_missing_reason(kind)})")
        export_options(options)  # reject bad options now, not in the worker
    elif options:
        raise ValueError(f"options: {kind} takes no options")
    key, _full, _stored = artifact_lookup(revision=revision, kind=kind, options=options)
    running = Job.objects.filter(
        kind="export",
        design=revision.design,
        params__key=key,
        status__in=(JobStatus.QUEUED, JobStatus.RUNNING),
        cancel_requested=False,
    ).first()
    if running is not None:
        return running
    return job_create(
        kind="export",
        user=user,
        design=revision.design,
        params={"revision_id": revision.pk, "kind": kind, "options": options or {}, "key": key},
    )


def export_content_type(kind: str) -> str:
    return DELIVERABLES[kind].content_type if kind in DELIVERABLES else ARCHIVES[kind][0]


def export_build_job(*, job, progress) -> dict:
    """Worker side of export_enqueue: build the file into the artifact store (or find it there).

    Each step is marked on the job's progress, which stops the build (JobCancelled) when the user cancelled it
    meanwhile, as a compute stops at its next report; a cancel while a renderer runs is raised by the job's
    watchdog. Either way the build leaves no file behind (artifact_build)."""
    from apps.designs.models import Revision

    from .artifacts import artifact_build

    revision = Revision.objects.select_related("design__owner").get(pk=job.params["revision_id"])
    kind = job.params["kind"]

    def on_stage(stage: str, percent: float) -> None:
        progress.mark(stage, percent / 100)

    artifact = artifact_build(revision=revision, kind=kind, options=job.params.get("options"), on_stage=on_stage)
    return {
        "file": kind,
        "artifact_id": artifact.pk,
        "size": artifact.size,
        "sha256": artifact.sha256,
        "content_type": artifact.content_type,
        "build_seconds": artifact.build_seconds,
    }


def render_into(*, kind: str, result: DesignResult, revision, options: dict, fh) -> None:
    """Render one deliverable or archive of `result` into the binary file `fh` (`result.catalog` holds the
    parts it was computed with)."""
    from .artifacts import text_into

    if kind in ARCHIVES:
        from engine.qos_stage import build_qos

        fh.write(configs_zip(build_qos(result, result.catalog)))
    elif DELIVERABLES[kind].pdf:
        deliverable_renderer(kind)(result, fh, export_options(options, result), revision_label=f"r{revision.number}")
    else:
        text_into(fh, deliverable_lines(kind=kind, result=result, options=options))


def configs_zip(plan) -> bytes:
    """configs.zip of a QoS plan: every file under configs/, as the CLI lays them out in its output folder."""
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for rel, text in plan.files:
            # A fixed timestamp: the archive of a revision is the same bytes whenever it is built.
            info = zipfile.ZipInfo(f"configs/{rel}", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, text)
    return buf.getvalue()
