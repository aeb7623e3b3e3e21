"""Reads of a design's QoS policy and of a revision's QoS configuration set (docs/qos.md).

The policy lives in the spec's `qos` section; `design_qos` resolves it with the engine's own parser
(defaults for the design's technology filled in). A revision's configuration files, headroom table and
consistency warnings come from `engine.qos_stage.build_qos` on the revision's stored snapshot with the catalog
it was computed with, exactly as the configs.zip export builds them (apps.exports.services). One build fills
two cache entries keyed by the revision and its snapshot (apps.designs.revision_cache): the small report the
pages show and the configuration set as configs.zip bytes, which every file download and the archive are
served from. Concurrent misses wait for one build.
"""

from __future__ import annotations

import heapq
import io
import zipfile
from dataclasses import asdict, dataclass
from functools import cached_property

from django.core.cache import cache
from django.utils.text import slugify

from apps.exports.services import configs_zip
from engine.errors import CatalogError, FieldError, SpecError
from engine.physical.catalog import CatalogError as MediaCatalogError
from engine.qos import QosPlan, bytes_to_us, headroom_bytes, per_speed_bits
from engine.qos.policy import QosPolicy
from engine.qos.render import SUFFIX
from engine.qos_stage import QOS_NETWORKS, build_qos

from .models import Design, Revision
from .revision_cache import (
    CACHE_TIMEOUT_S,
    compute_once,
    revision_fingerprint,
    revision_key,
    store_blob,
)
from .snapshots import SnapshotUnavailable

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
# Bump when the cached report's shape changes (_CONFIGS_VERSION: the cached configuration set's).
_REPORT_VERSION = 2
_CONFIGS_VERSION = 1


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


def design_technology(design: Design) -> str:
    return (design.spec.get("compute_fabric") or {}).get("technology", "ethernet")


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
    speeds = {n.get("port_speed_gbps") for key, n in networks.items() if key in QOS_NETWORKS and isinstance(n, dict)}
    speeds = sorted(s for s in speeds if isinstance(s, int) and s > 0)
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
    computed with; QosPlanError when it cannot be built. Always built (revision_qos_report and
    revision_config_set are the cached reads)."""
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


def _config_files(entries) -> list[ConfigFile]:
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


@dataclass(frozen=True)
class ConfigSet:
    """A revision's configuration set as configs.zip bytes (what the cache keeps), its files listed from them."""

    archive: bytes

    @cached_property
    def _entries(self) -> tuple[zipfile.ZipFile, list[zipfile.ZipInfo]]:
        zf = zipfile.ZipFile(io.BytesIO(self.archive))
        return zf, [i for i in zf.infolist() if i.filename.startswith(_IN_ARCHIVE)]

    @cached_property
    def files(self) -> list[ConfigFile]:
        """As config_files(plan): sizes are the files' uncompressed sizes (their UTF-8 bytes)."""
        return _config_files((i.filename[len(_IN_ARCHIVE) :], i.file_size) for i in self._entries[1])

    def file(self, name: str) -> tuple[ConfigFile, bytes] | None:
        """One file by its name, or None."""
        zf, infos = self._entries
        for f, info in zip(self.files, infos):
            if f.name == name:
                return f, zf.read(info)
        return None


@dataclass(frozen=True)
class _QosKeys:
    report: str
    configs: str
    lock: str


def _qos_keys(revision: Revision) -> _QosKeys:
    """The cache keys of the revision's report and configuration set: by revision and snapshot."""
    fp = revision_fingerprint(revision)
    configs = revision_key("qos-configs", _CONFIGS_VERSION, fp)
    return _QosKeys(revision_key("qos-report", _REPORT_VERSION, fp), configs, f"{configs}:lock")


def _compute_and_store(revision: Revision, keys: _QosKeys) -> tuple[dict, bytes]:
    """One build from the snapshot: the report and the configs.zip bytes, both stored (the archive unless too big)."""
    plan = revision_qos_plan(revision=revision)
    report, archive = _report(plan), configs_zip(plan)
    cache.set(keys.report, report, timeout=CACHE_TIMEOUT_S)
    store_blob(keys.configs, archive)
    return report, archive


def revision_config_set(*, revision: Revision, keys: _QosKeys | None = None) -> ConfigSet:
    """The revision's configuration set from the cache; on a miss built once (concurrent misses wait for
    it) and kept unless larger than REVISION_CACHE_MAX_BYTES. QosPlanError when it cannot be built."""
    keys = keys or _qos_keys(revision)

    def ready() -> ConfigSet | None:
        archive = cache.get(keys.configs)
        return None if archive is None else ConfigSet(archive)

    return compute_once(keys.lock, ready, lambda: ConfigSet(_compute_and_store(revision, keys)[1]))


def revision_config_download(*, revision: Revision, name: str) -> tuple[bytes, str, str] | None:
    """(content, content type, file name) of one file of the revision's set, or of configs.zip; None when
    the set has no file of that name. QosPlanError when the set cannot be built."""
    keys = _qos_keys(revision)
    if name != ARCHIVE:
        # The cached report knows the names, so an unknown one costs no recomputation even when the set is
        # too big to be kept.
        report = cache.get(keys.report)
        if report is not None and name not in {f["name"] for f in report["files"]}:
            return None
    config_set = revision_config_set(revision=revision, keys=keys)
    if name == ARCHIVE:
        return config_set.archive, "application/zip", archive_filename(revision)
    found = config_set.file(name)
    if found is None:
        return None
    f, content = found
    return content, f.content_type, f.name


def revision_qos_report(*, revision: Revision) -> dict:
    """What the revision page shows: policy summary, warnings, headroom per speed, the switches needing the
    most headroom with their worst port's delay terms, and the file list. Cached by revision and snapshot,
    filled with the configuration set by one build."""
    keys = _qos_keys(revision)
    return compute_once(keys.lock, lambda: cache.get(keys.report), lambda: _compute_and_store(revision, keys)[0])


def _report(plan: QosPlan) -> dict:
    policy = plan.policy
    summary = plan.summary()
    n_pfc = len(policy.pfc_priorities)
    # Per switch: its total (what the buffer check compares) and its worst port, in one pass over the ports.
    per_switch: dict[str, list] = {}
    for r in plan.headroom_table:
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
    files = [asdict(f) for f in config_files(plan)]
    ecn = summary["ecn"]
    return {
        "technology": policy.technology,
        "mode": policy.mode,
        "summary": summary,
        "ecn_us": [
            {"speed_gbps": int(k), "min": f"{v['min_us']:g}", "max": f"{v['max_us']:g}"}
            for k, v in ecn["by_speed"].items()
        ],
        "warnings": [w.to_dict() for w in plan.warnings],
        "headroom_by_speed": [
            {"speed_gbps": int(s), **v} for s, v in summary["headroom"]["per_priority_bytes_by_speed"].items()
        ],
        "lossless_ports": len(plan.headroom_table),
        "pfc_priorities": list(policy.pfc_priorities),
        "worst_ports": rows,
        "term_names": [t["name"] for t in rows[0]["terms"]] if rows else [],
        "files": files,
        "switch_files": sum(1 for f in files if f["kind"] == "switch"),
    }
