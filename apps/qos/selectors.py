"""Reads of a design's QoS policy and of a revision's QoS configuration set (docs/qos.md).

The policy lives in the spec's `qos` section; `design_qos` resolves it with the engine's own parser
(defaults for the design's technology filled in).

A revision's configuration set is its configs.zip in the artifact store (apps.exports.artifacts): built once
from the revision's snapshot with the catalog it was computed with (`engine.qos_stage.build_qos`), in the request
for a small revision and by a worker's export job for a large one (`revision_qos_request`, the same
DOWNLOAD_INLINE_MAX_CABLES line as the other deliverables: a 128K-GPU set takes seconds). Every file download,
the file list and the report the pages show are read from that archive: the report from its summary.json,
policy.json and headroom.csv, kept in the cache under the archive's key, so it follows the archive's renderer
version and never disagrees with the files.
"""

from __future__ import annotations

import hashlib
import heapq
import io
import json
import zipfile
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import timedelta
from functools import cached_property
from typing import IO, TYPE_CHECKING

from django.core.cache import cache
from django.utils import timezone
from django.utils.text import slugify

from apps.designs.models import Design, Revision, SnapshotState
from apps.designs.revision_cache import CACHE_TIMEOUT_S, compute_once
from apps.designs.snapshots import SnapshotUnavailable, snapshot_state
from apps.exports.artifacts import (
    artifact_build,
    artifact_key,
    artifact_lookup,
    artifact_open,
    artifact_options,
    artifact_stored,
    inline_render_allowed,
)
from apps.exports.models import Artifact
from apps.exports.services import export_enqueue
from apps.jobs.models import Job, JobStatus
from apps.jobs.services import job_sent
from engine.errors import CatalogError, FieldError, SpecError
from engine.physical.catalog import CatalogError as MediaCatalogError
from engine.qos import HeadroomRow, QosPlan, bytes_to_us, headroom_bytes, per_speed_bits
from engine.qos.policy import QosPolicy
from engine.qos.render import SUFFIX
from engine.qos_stage import QOS_NETWORKS, build_qos

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# The speeds C.4 tabulates thresholds at, shown while a design has no revision to take its own from.
C4_SPEEDS = (100, 400, 800)
WORST_PORTS = 10  # switches shown with their worst port
ARCHIVE = "configs.zip"
_TEXT = "text/plain; charset=utf-8"
_FORMATS = {  # format -> content type
    "nvue": _TEXT,
    "eos": _TEXT,
    "sonic": "application/json",
    "opensm": _TEXT,
    "shell": _TEXT,
    "json": "application/json",
    "csv": "text/csv; charset=utf-8",
}
# Bump when the cached report's shape changes.
_REPORT_VERSION = 3


class QosPlanError(Exception):
    """A revision's configuration cannot be built: `code` is revision_not_reproducible (it has no snapshot to
    build from) or invalid_qos_policy (the policy stored with it does not parse)."""

    def __init__(self, code: str, message: str, errors: list[FieldError] | None = None):
        super().__init__(message)
        self.code, self.message, self.errors = code, message, list(errors or [])


@dataclass(frozen=True)
class DesignQos:
    technology: str
    stored: dict | None  # the spec's qos value as saved (only what differs from the defaults)
    policy: QosPolicy | None  # the effective policy; None when the stored value does not parse
    errors: tuple[FieldError, ...]


@dataclass(frozen=True)
class ConfigFile:
    name: str  # unique in the set: the URL segment and the download's file name
    path: str  # path under configs/ (as in configs.zip and the CLI's output folder)
    kind: str  # switch | hosts | subnet-manager | policy | headroom | summary
    switch: str | None
    format: str  # nvue | sonic | eos | opensm | shell | json | csv
    content_type: str
    size: int


def design_technology(design: Design | Revision) -> str:
    return ((design.spec or {}).get("compute_fabric") or {}).get("technology", "ethernet")


def design_qos(*, design: Design) -> DesignQos:
    """The design's policy as the engine reads it, or the errors that stop it."""
    tech = design_technology(design)
    stored = design.spec.get("qos")
    try:
        return DesignQos(tech, stored, QosPolicy.from_dict(stored, tech), ())
    except SpecError as exc:
        return DesignQos(tech, stored, None, tuple(exc.errors))


def design_port_speeds(*, design: Design) -> tuple[int, ...]:
    """Port speeds of the design's RoCE/InfiniBand fabrics, from its latest revision (C.4's speeds without one)."""
    latest = design.revisions.order_by("-number").values_list("summary", flat=True).first()
    networks = (latest or {}).get("networks") or {}
    found = {n.get("port_speed_gbps") for key, n in networks.items() if key in QOS_NETWORKS and isinstance(n, dict)}
    speeds = sorted(s for s in found if isinstance(s, int) and s > 0)
    return tuple(speeds) or C4_SPEEDS


def ecn_microseconds(n_bytes: int, speeds: tuple[int, ...]) -> list[tuple[int, str]]:
    """(speed, µs of line rate as text) for a threshold in bytes (C.4: bytes x 8 / (Gb/s x 1000))."""
    return [(s, f"{round(bytes_to_us(n_bytes, s), 3):g}") for s in speeds]


def headroom_term_bits(policy: QosPolicy, speeds: tuple[int, ...]) -> dict[str, list[tuple[int, int, bool]]]:
    """D-Intf and D-Resp at each speed: (speed, bits, listed) where listed=False means derived by time."""
    terms = policy.headroom
    return {k: [(s, *per_speed_bits(getattr(terms, k), s)) for s in speeds] for k in ("d_intf_bits", "d_resp_bits")}


# --- a revision's configuration set ------------------------------------------------------------------


def revision_qos_plan(*, revision: Revision) -> QosPlan:
    """The revision's QoS plan (files, headroom table, warnings) from its snapshot, with the catalog it was
    computed with; QosPlanError when it cannot be built. Always built (the pages and API read the stored
    configs.zip instead)."""
    from apps.exports.services import revision_result

    try:
        result = revision_result(revision=revision)
        return build_qos(result, result.catalog)
    except SnapshotUnavailable as exc:
        raise QosPlanError(
            "revision_not_reproducible", f"This revision's configuration is not available: {exc.reason}"
        ) from None
    except SpecError as exc:
        # parse_spec checks the policy, so only a revision stored before it did can hold one that does not parse.
        if exc.errors and all(_is_qos_path(e.path) for e in exc.errors):
            raise QosPlanError(
                "invalid_qos_policy",
                "The QoS policy stored with this revision is not valid: " + "; ".join(str(e) for e in exc.errors),
                exc.errors,
            ) from None
        raise QosPlanError(
            "revision_not_reproducible", f"The revision cannot be rendered from its snapshot: {exc}"
        ) from None
    except (CatalogError, MediaCatalogError) as exc:
        raise QosPlanError(
            "revision_not_reproducible", f"The revision cannot be rendered from its snapshot: {exc}"
        ) from None


def _is_qos_path(path: str) -> bool:
    return path == "qos" or path.startswith(("qos.", "qos["))


def config_files(plan: QosPlan) -> list[ConfigFile]:
    """Every file of the plan, named by its file name (made unique with its folder if two ever clash)."""
    return _config_files((path, len(text.encode())) for path, text in plan.files)


def _config_files(entries: Iterable[tuple[str, int]]) -> list[ConfigFile]:
    """config_files from (path, size in bytes) pairs, in the plan's order."""
    out = []
    for path, size in entries:
        folder, _, filename = path.rpartition("/")
        kind, switch, fmt = _describe(folder, filename)
        out.append(ConfigFile(filename, path, kind, switch, fmt, _FORMATS[fmt], size))
    seen: dict[str, int] = {}
    for f in out:
        seen[f.name] = seen.get(f.name, 0) + 1
    return [f if seen[f.name] == 1 else ConfigFile(**{**asdict(f), "name": f.path.replace("/", "-")}) for f in out]


def _describe(folder: str, filename: str) -> tuple[str, str | None, str]:
    if folder.endswith("switches"):
        for os_name, suffix in SUFFIX.items():
            if filename.endswith("." + suffix):
                return "switch", filename[: -len(suffix) - 1], os_name
    if folder.endswith("hosts"):
        return "hosts", None, "shell"
    if folder.endswith("subnet-manager"):
        return "subnet-manager", None, "opensm"
    if filename.endswith(".csv"):
        return "headroom", None, "csv"
    return filename.rsplit(".", 1)[0], None, "json"


def archive_filename(revision: Revision) -> str:
    name = slugify(revision.design.name)[:60] or f"design-{revision.design_id}"
    return f"{name}-r{revision.number}-{ARCHIVE}"


_IN_ARCHIVE = "configs/"  # every file's folder in configs.zip
_SUMMARY, _POLICY, _HEADROOM = "configs/qos/summary.json", "configs/qos/policy.json", "configs/qos/headroom.csv"


class ConfigSet:
    """A revision's configuration set: its configs.zip, read from the artifact store (a seekable file: the
    files store's; other stores' streams are read into memory first). Only the members asked for are read."""

    def __init__(self, archive: Artifact | bytes):
        fh: IO[bytes]
        if isinstance(archive, bytes):
            fh = io.BytesIO(archive)
        else:
            fh = artifact_open(archive)
            if not (hasattr(fh, "seekable") and fh.seekable()):
                with fh:
                    fh = io.BytesIO(fh.read())
        self._fh = fh
        try:
            self.zip = zipfile.ZipFile(fh)
        except BaseException:
            fh.close()
            raise

    def close(self) -> None:
        self.zip.close()
        self._fh.close()

    def __enter__(self) -> ConfigSet:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @cached_property
    def _infos(self) -> list[zipfile.ZipInfo]:
        return [i for i in self.zip.infolist() if i.filename.startswith(_IN_ARCHIVE)]

    @cached_property
    def files(self) -> list[ConfigFile]:
        """As config_files(plan): sizes are the files' uncompressed sizes (their UTF-8 bytes)."""
        return _config_files((i.filename[len(_IN_ARCHIVE) :], i.file_size) for i in self._infos)

    def file(self, name: str) -> tuple[ConfigFile, bytes] | None:
        """One file by its name, or None."""
        for f, info in zip(self.files, self._infos):
            if f.name == name:
                return f, self.zip.read(info)
        return None

    def report(self) -> dict:
        """The report the revision page shows, from the archive's own files: summary.json (warnings, headroom per
        speed), policy.json (the policy, for the worst ports' delay terms) and headroom.csv (every lossless port),
        so the report and the files can never disagree."""
        summary = json.loads(self.zip.read(_SUMMARY))
        stored = json.loads(self.zip.read(_POLICY))
        technology = stored.pop("technology")  # policy.json is QosPolicy.to_dict(): the technology is the argument
        policy = QosPolicy.from_dict(stored, technology)
        names = set(self.zip.namelist())
        rows = _headroom_rows(self.zip.read(_HEADROOM).decode()) if _HEADROOM in names else []
        return _report(policy, summary, rows, self.files)


def _headroom_rows(text: str) -> list[HeadroomRow]:
    """headroom.csv (engine.qos.headroom_csv: unquoted, names without commas) back into rows."""
    out = []
    for line in text.splitlines()[1:]:
        head, speed, cable, hb = line.rsplit(",", 3)
        switch, port, peer = head.split(",", 2)
        out.append(HeadroomRow(switch, port, peer, int(speed), float(cable), int(hb)))
    return out


# --- where a revision's set comes from: the artifact store, built in the request or by a worker ----------


@dataclass(frozen=True)
class QosState:
    """What a request for a revision's QoS configuration gets: the report (the set is stored), or the job
    building the set, or the failed job that tried last (shown until the user asks again)."""

    report: dict | None = None
    job: Job | None = None

    @property
    def building(self) -> bool:
        return self.report is None and self.job is not None and not self.job.is_terminal


def _report_key(artifact_key: str) -> str:
    # The archive's key covers the revision, its snapshot and the renderer version: so does the report's.
    return f"qos:report:v{_REPORT_VERSION}:{artifact_key}"  # the qos app's own key space


def _archive_key(revision: Revision) -> str:
    """configs.zip's artifact key for the revision (no query: the options and key are hashed here)."""
    return artifact_key(
        revision=revision, kind=ARCHIVE, options=artifact_options(revision=revision, kind=ARCHIVE, options=None)
    )


def qos_precheck(*, revision: Revision) -> None:
    """QosPlanError now for what would make a build fail (no snapshot; a stored policy that does not parse),
    so no job is queued only to fail."""
    snap = snapshot_state(revision)
    if snap is None or snap.state != SnapshotState.COMPLETE:
        reason = (
            (snap.note or "not reproducible: only the stored rows are shown")
            if snap is not None
            else "this revision was stored before snapshots; its files are being prepared (snapshot backfill), "
            "try again shortly"
        )
        raise QosPlanError("revision_not_reproducible", f"This revision's configuration is not available: {reason}")
    technology = design_technology(revision)
    try:
        QosPolicy.from_dict((revision.spec or {}).get("qos"), technology)
    except SpecError as exc:
        raise QosPlanError(
            "invalid_qos_policy",
            "The QoS policy stored with this revision is not valid: " + "; ".join(str(e) for e in exc.errors),
            exc.errors,
        ) from None


def qos_report_stored(*, revision: Revision) -> dict | None:
    """The revision's report when its configs.zip is stored (read from the cache, else from the archive once
    for concurrent callers); None when the set is not built yet.

    The archive is looked up first, even when the cache holds the report: a report whose archive the retention
    has removed would list files whose links then have nothing to serve, and no build would be started."""
    key = _archive_key(revision)
    artifact = artifact_stored(key)
    if artifact is None:
        return None
    report_key = _report_key(key)

    def ready() -> dict | None:
        return cache.get(report_key)

    report = ready()
    if report is not None:
        return report
    try:
        return compute_once(f"{report_key}:lock", ready, lambda: qos_report_from_artifact(artifact))
    except FileNotFoundError:  # its file is gone from the store (artifact_open forgot the row): not built
        return None


def qos_report_from_artifact(artifact: Artifact) -> dict:
    """Read the report out of a stored configs.zip and keep it in the cache (the export job calls this after
    building the archive, so the pages find it ready)."""
    with ConfigSet(artifact) as config_set:
        report = config_set.report()
    cache.set(_report_key(artifact.key), report, timeout=CACHE_TIMEOUT_S)
    return report


def qos_archive_build(*, revision: Revision) -> Artifact:
    """Build the revision's configs.zip into the artifact store in this process (or find it there);
    QosPlanError when the revision cannot be rendered."""
    try:
        return artifact_build(revision=revision, kind=ARCHIVE, options=None)
    except (SpecError, CatalogError, MediaCatalogError) as exc:
        revision_qos_plan(revision=revision)  # raises the QosPlanError that says why, when it can
        raise QosPlanError(
            "revision_not_reproducible", f"The revision cannot be rendered from its snapshot: {exc}"
        ) from None


def revision_qos_report(*, revision: Revision) -> dict:
    """The revision's report: stored, else built in this process (for any size: the pages and API ask
    revision_qos_request instead, which hands large revisions to a worker). QosPlanError when it cannot be built."""
    report = qos_report_stored(revision=revision)
    if report is not None:
        return report
    qos_precheck(revision=revision)
    return qos_report_from_artifact(qos_archive_build(revision=revision))


def revision_qos_request(*, revision: Revision, user: User, retry: bool = True) -> QosState:
    """The report when the set is stored or cheap to build here (apps.exports.artifacts.inline_render_allowed);
    else the worker's build of configs.zip (the running one, or a new one). With retry=False, a failed last
    build is returned rather than queued again, so a page that reloads when the job ends does not loop.
    QosPlanError when the set cannot be built; JobQuotaExceeded / JobNotQueued from queueing."""
    report = qos_report_stored(revision=revision)
    if report is not None:
        return QosState(report=report)
    if not retry and not inline_render_allowed(revision):
        last = (
            Job.objects.filter(kind="export", design_id=revision.design_id, params__key=_archive_key(revision))
            .order_by("-created_at")
            .first()
        )
        if last is not None and last.status in (JobStatus.FAILED, JobStatus.CANCELLED):
            return QosState(job=last)
        if (
            last is not None
            and last.status == JobStatus.SUCCEEDED
            and last.finished_at is not None
            and timezone.now() - last.finished_at < UNSHARED_STORE_WINDOW
        ):
            # A build that just succeeded stored its archive under this key (export_build_job checks it), yet
            # this process cannot read it: queueing another would only repeat that, on every reload.
            raise QosPlanError(
                "artifact_not_found",
                "The configuration set was built but this server cannot read it from the artifact store: web and "
                "worker processes must share the store (README, Production: ARTIFACT_STORE).",
            )
    built = qos_archive_request(revision=revision, user=user)
    if isinstance(built, Job):
        return QosState(job=built)
    return QosState(report=qos_report_from_artifact(built))


# How long after a build succeeded its archive must be readable here (else the store is not shared): far shorter
# than any retention age, far longer than a page's reload after its job ended.
UNSHARED_STORE_WINDOW = timedelta(minutes=10)


def qos_archive_request(*, revision: Revision, user: User) -> Artifact | Job:
    """The revision's stored configs.zip; when it is not stored (never built, or removed by the retention while
    its report stayed in the cache), built here for a small revision, else the worker's build job (the running
    one or a new one). QosPlanError when the set cannot be built; JobQuotaExceeded / JobNotQueued from queueing."""
    artifact = qos_archive_stored(revision=revision)
    if artifact is not None:
        return artifact
    qos_precheck(revision=revision)
    if inline_render_allowed(revision):
        return qos_archive_build(revision=revision)
    return job_sent(export_enqueue(revision=revision, kind=ARCHIVE, user=user))


def config_file_names(artifact: Artifact) -> set[str]:
    """The names of a stored set's files: from the cached report, else from the archive's directory."""
    report = cache.get(_report_key(artifact.key))
    if report is not None:
        return {f["name"] for f in report["files"]}
    with ConfigSet(artifact) as config_set:
        return {f.name for f in config_set.files}


def revision_config_download(*, artifact: Artifact, name: str) -> tuple[ConfigFile, bytes] | None:
    """One file of a stored configs.zip by name: (the file, its bytes); None when the set has no such file
    (config_file_names answers that without opening the archive when the report is cached)."""
    with ConfigSet(artifact) as config_set:
        return config_set.file(name)


def qos_archive_stored(*, revision: Revision) -> Artifact | None:
    return artifact_lookup(revision=revision, kind=ARCHIVE, options=None)[2]


def config_file_etag(artifact: Artifact, name: str) -> str:
    """A strong ETag for one file of a stored archive: the archive's digest and the file's name."""
    return '"' + hashlib.sha256(f"{artifact.sha256}/{name}".encode()).hexdigest() + '"'


def _report(policy: QosPolicy, summary: dict, headroom_table: list[HeadroomRow], files: list[ConfigFile]) -> dict:
    n_pfc = len(policy.pfc_priorities)
    # Per switch: its total (what the buffer check compares) and its worst port, in one pass over the ports.
    per_switch: dict[str, list] = {}
    for r in headroom_table:
        acc = per_switch.get(r.switch)
        if acc is None:
            per_switch[r.switch] = [r.headroom_bytes, 1, r]
        else:
            acc[0] += r.headroom_bytes
            acc[1] += 1
            if (r.headroom_bytes, r.cable_m) > (acc[2].headroom_bytes, acc[2].cable_m):
                acc[2] = r
    worst = heapq.nlargest(WORST_PORTS, per_switch.values(), key=lambda a: (a[0], a[2].headroom_bytes, a[2].switch))
    rows = []
    for total, ports, r in worst:
        h = headroom_bytes(r.speed_gbps, r.cable_m, policy.mtu.switch, policy.headroom)
        rows.append(
            {
                **r._asdict(),
                "switch_ports": ports,
                "switch_total_bytes": total * n_pfc,
                "switch_total_mb": f"{total * n_pfc / 1e6:.2f}",
                "terms": [{"name": n, "bits": b, "bytes": y} for n, b, y in h.terms],
            }
        )
    file_list = [asdict(f) for f in files]
    ecn = summary["ecn"]
    return {
        "technology": policy.technology,
        "mode": policy.mode,
        "summary": summary,
        "ecn_us": [
            {"speed_gbps": int(k), "min": f"{v['min_us']:g}", "max": f"{v['max_us']:g}"}
            for k, v in sorted(ecn["by_speed"].items(), key=lambda kv: int(kv[0]))
        ],
        "warnings": summary["warnings"],
        "headroom_by_speed": [
            {"speed_gbps": int(s), **v}
            # summary.json's keys are sorted as text: 1600 would come before 400
            for s, v in sorted(summary["headroom"]["per_priority_bytes_by_speed"].items(), key=lambda kv: int(kv[0]))
        ],
        "lossless_ports": len(headroom_table),
        "pfc_priorities": list(policy.pfc_priorities),
        "worst_ports": rows,
        "term_names": [t["name"] for t in rows[0]["terms"]] if rows else [],
        "files": file_list,
        "switch_files": sum(1 for f in file_list if f["kind"] == "switch"),
    }
