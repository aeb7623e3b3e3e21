"""Deliverables of a stored revision, for the REST API and the HTML views.

The meeting point with the framework-free package `deliverables`, whose registry holds every renderer. They read the
engine's DesignResult as the revision stored it (its snapshot, apps/designs/snapshots.py): nothing here runs
the engine's compute, so a revision's files never follow a later catalog, custom part or engine change.

A kind the registry does not list raises DeliverableUnavailable; callers answer 501 for it.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Callable, Iterable
from typing import IO, TYPE_CHECKING, Any

from deliverables import ExportOptions, RevisionView

# The one deliverable registry; callers of this service read it through here as well.
from deliverables.registry import ARCHIVES, DELIVERABLES, Deliverable, Renderer  # noqa: F401
from engine.errors import SpecError
from engine.result import DesignResult
from engine.spec import parse_spec

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from apps.designs.models import Revision
    from apps.jobs.models import Job
    from apps.jobs.progress import DbProgress
    from engine.qos import QosPlan

log = logging.getLogger(__name__)


class DeliverableUnavailable(Exception):
    """The renderer for a deliverable is not part of this build."""


def deliverable_renderer(kind: str) -> Renderer:
    d = DELIVERABLES.get(kind)
    if d is None:
        raise DeliverableUnavailable(kind)
    return d.render


def deliverable_available(kind: str) -> bool:
    return kind in DELIVERABLES


def deliverable_applies(kind: str, spec: dict | None) -> bool:
    """False for a file the design cannot have: topology.ibnetdiscover without an InfiniBand network,
    workloads.pdf without workloads."""
    d = DELIVERABLES.get(kind)  # the stored rows' files (links.csv, ...) are not rendered: every design has them
    needs = d.needs if d is not None else ""
    if not needs:
        return True
    try:
        s = parse_spec(spec or {})
    except SpecError:
        return True  # let the download report why it cannot be built
    if needs == "workloads":
        return bool(s.workloads)
    return s.compute.technology == "infiniband" or (s.storage.enabled and s.storage.technology == "infiniband")


def deliverable_missing_reason(kind: str) -> str:
    """Why deliverable_applies() is False for this kind."""
    return (
        "it has no workloads (spec section `workloads`)"
        if DELIVERABLES[kind].needs == "workloads"
        else "it has no InfiniBand network"
    )


def revision_result(*, revision: Revision) -> DesignResult:
    """The engine result of a revision as it was computed: its stored snapshot, decoded (never recomputed).

    SnapshotUnavailable (a SpecError, answered as "not reproducible" by every caller) when the revision has
    no snapshot to render from: stored before snapshots and not backfilled yet, or backfilled as rows only.
    The snapshot holds the catalog the revision was computed with, custom parts included."""
    from apps.designs.snapshots import revision_snapshot

    return revision_snapshot(revision)


def export_options(options: dict | None, result: DesignResult | None = None) -> ExportOptions:
    """Validated ExportOptions (ValueError naming the option); with `result`, its catalog (the one the revision
    was computed with) is the one the renderers read part facts from."""
    opts = ExportOptions.from_any(dict(options or {}))
    if result is not None and result.catalog is not None and opts.catalog is None:
        from dataclasses import replace

        opts = replace(opts, catalog=result.catalog)
    return opts


def _render_options(options: dict | None, result: DesignResult) -> ExportOptions:
    """export_options plus what the installation decides rather than the request: the counter thresholds the
    Prometheus rules take (settings.COUNTER_THRESHOLDS, from COUNTER_THRESHOLDS_FILE; the CLI: its options')."""
    from dataclasses import replace

    from django.conf import settings

    opts = export_options(options, result)
    return replace(opts, counter_thresholds=getattr(settings, "COUNTER_THRESHOLDS", None))


def deliverable_lines(*, kind: str, result: DesignResult, options: dict | None) -> Iterable[str]:
    """A text deliverable's lines (as render() writes them), for a caller that streams or reads text."""
    lines = DELIVERABLES[kind].lines
    if lines is None:
        raise ValueError(f"{kind} is a document, not text")
    return lines(RevisionView(result), _render_options(options, result))


# --- background exports ------------------------------------------------------------------------
# A 400,000-cable plan takes tens of seconds to render, so big deliverables are built by a worker into the
# artifact store (apps.exports.artifacts), from which the web serves them on any host.


def export_enqueue(*, revision: Revision, kind: str, user: User, options: dict | None = None) -> Job:
    """Queue the build of one deliverable (or archive) of a revision; returns the Job. A queued or running
    build of the same file (same artifact key) is returned instead of starting another."""
    from django.db import connection, transaction

    from apps.jobs.models import Job, JobStatus
    from apps.jobs.services import job_create

    from .artifacts import artifact_lookup, artifact_options_plain

    if kind not in DELIVERABLES and kind not in ARCHIVES:
        raise ValueError(f"kind: unknown deliverable {kind!r}")
    if kind in DELIVERABLES:
        if not deliverable_applies(kind, revision.spec):
            raise ValueError(f"kind: this design has no {kind} ({deliverable_missing_reason(kind)})")
        opts = export_options(options)  # reject bad options now, not in the worker
        if kind == "labels.pdf" and opts.row is None and opts.rack is None:
            _refuse_whole_design_labels(revision)
    elif options:
        raise ValueError(f"options: {kind} takes no options")
    options = artifact_options_plain(options)  # JSON for the job, and the same key in the worker
    key, _full, _stored = artifact_lookup(revision=revision, kind=kind, options=options)
    with transaction.atomic():
        if connection.vendor == "postgresql":
            # Two requests for the same file at once (two tabs, two readers of a large revision's QoS page)
            # queue one build: the second waits here until the first's job is committed, then finds it.
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"export:{key}"])
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
            params={"revision_id": revision.pk, "kind": kind, "options": options, "key": key},
        )


def _refuse_whole_design_labels(revision: Revision) -> None:
    """A whole-design labels.pdf the worker would refuse (deliverables.labels.MAX_WHOLE_DESIGN_LABELS), refused
    when asked for: every cable has a label at each end, so twice the stored cable count is a floor of the label
    count, known without decoding the revision. Designs under the floor but over the limit (panel-port labels
    make up the rest) are refused by the worker with the same advice (export_build_job)."""
    from deliverables.labels import MAX_WHOLE_DESIGN_LABELS

    floor = 2 * revision.cable_count
    if floor > MAX_WHOLE_DESIGN_LABELS:
        raise ValueError(
            f"options.row: this design has at least {floor:,} labels (one at each end of {revision.cable_count:,} "
            f"cables), more than the {MAX_WHOLE_DESIGN_LABELS:,} a whole-design labels.pdf is built with (it would "
            "outrun the export job's time limit): download the labels per row (options.row) or per rack "
            "(options.rack); labels.csv lists every label for label-printer software"
        )


def export_content_type(kind: str) -> str:
    return DELIVERABLES[kind].content_type if kind in DELIVERABLES else ARCHIVES[kind][0]


# kind -> what a worker does with a file it has just built and stored, registered by the app that reads the file
# (the qos app reads its report out of configs.zip here, so its pages find it in the cache).
_post_build: dict[str, list[Callable[[Any], object]]] = {}


def register_post_build(kind: str, fn: Callable[[Any], object]) -> None:
    """After a worker builds `kind` (a deliverable or archive), call fn(artifact); registered from AppConfig.ready()."""
    if kind not in DELIVERABLES and kind not in ARCHIVES:
        raise ValueError(f"no deliverable or archive {kind!r} to run a post-build step on")
    steps = _post_build.setdefault(kind, [])
    if fn not in steps:
        steps.append(fn)


def export_build_job(*, job: Job, progress: DbProgress) -> dict:
    """Worker side of export_enqueue: build the file into the artifact store (or find it there).

    Each step is marked on the job's progress, which stops the build (JobCancelled) when the user cancelled it
    meanwhile, as a compute stops at its next report; a cancel while a renderer runs is raised by the job's
    watchdog. Either way the build leaves no file behind (artifact_build)."""
    from apps.designs.models import Revision
    from apps.jobs.progress import JobFailed
    from deliverables.labels import TooManyLabels

    from .artifacts import artifact_build

    revision = Revision.objects.select_related("design__owner").get(pk=job.params["revision_id"])
    kind = job.params["kind"]

    def on_stage(stage: str, percent: float) -> None:
        progress.mark(stage, percent / 100)

    try:
        artifact = artifact_build(revision=revision, kind=kind, options=job.params.get("options"), on_stage=on_stage)
    except TooManyLabels as exc:  # the user's to act on (download per row or rack): no traceback, no retry
        raise JobFailed(str(exc)) from None
    if job.params.get("key") and artifact.key != job.params["key"]:
        # The web asked for the file under another key: this worker renders with other code or data (a deploy
        # half done), or the revision was repriced meanwhile. The web would never find what was stored under
        # this key and would ask again and again: say why instead.
        raise RuntimeError(
            f"{kind} was built under another key than was asked for: this worker's renderer version "
            f"({artifact.renderer_version[:12]}) is not the web's (deploy the same release to both), or the "
            "revision was repriced while the build waited (ask for the file again)"
        )
    for after in _post_build.get(kind, ()):
        # Best effort: the file is stored, and whoever reads what `after` derives from it can derive it itself.
        try:
            after(artifact)
        except Exception:
            log.exception("export %s: post-build step %s of the stored %s failed", job.pk, after.__qualname__, kind)
    return {
        "file": kind,
        "artifact_id": artifact.pk,
        "size": artifact.size,
        "sha256": artifact.sha256,
        "content_type": artifact.content_type,
        "build_seconds": artifact.build_seconds,
    }


def render_into(*, kind: str, result: DesignResult, revision: Revision, options: dict, fh: IO[bytes]) -> None:
    """Render one deliverable or archive of `result` into the binary file `fh` (`result.catalog` holds the
    parts it was computed with)."""
    if kind in ARCHIVES:
        from engine.qos_stage import build_qos

        fh.write(configs_zip(build_qos(result, result.catalog)))
    else:
        deliverable_renderer(kind)(RevisionView(result, f"r{revision.number}"), fh, _render_options(options, result))


def configs_zip(plan: QosPlan) -> bytes:
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
