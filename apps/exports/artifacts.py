"""The artifact store: every rendered deliverable is built once per (revision, kind, options, renderer version),
kept in settings.STORAGES["artifacts"] and served from there afterwards.

A renderer reads the revision's stored snapshot (apps.exports.services.revision_result), never a
recomputation. An artifact's key hashes everything its bytes depend on: the revision's fingerprint (the
revision and its snapshot's digest), the kind, the options with the revision's prices for priced kinds, and
`renderer_version()`, a hash of the renderer and engine source and the shipped catalog data. A deploy that changes any of them builds new artifacts; the old
ones age out (`artifact_prune`).

A build renders into an unnamed local spool file, then saves it to the storage, whose writes are atomic
(apps.exports.storage), then records the row: a file nobody has a row for is an orphan the sweep deletes.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import logging
import os
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from datetime import timedelta
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, cast

from django.conf import settings
from django.core.files import File
from django.core.files.storage import Storage, storages
from django.db import IntegrityError, connection, transaction
from django.db.models import QuerySet, Sum
from django.utils import timezone

from apps.common.errors import StorageFull

from .models import Artifact

if TYPE_CHECKING:
    from apps.designs.models import Revision
    from engine.result import DesignResult, ProgressFn

    class ArtifactStorage(Storage):
        """What the store needs of settings.STORAGES["artifacts"] beyond a Storage, for the retention sweep: the
        storages of apps.exports.storage have it."""

        def all_names(self) -> list[str]: ...
        def stale_partials(self, older_than_s: float) -> list[str]: ...

    class ChunkedStorage(ArtifactStorage):
        """A store that streams its own blocks (DatabaseStorage): downloads ask hasattr(storage, "iter_chunks")."""

        def iter_chunks(self, name: str) -> Iterator[bytes]: ...


OnStage = Callable[[str, float], None]  # a build's step and its percent (an export job's progress)

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[2]
# Files whose content shapes a rendered deliverable (the engine's result types, which a snapshot decodes into).
RENDERER_SOURCES = ("deliverables", "apps/exports/services.py", "engine")
PRICED_KINDS = frozenset({"bom.pdf", "bom.csv"})  # the only renderers that read prices
# Renderers that read the app-wide error-counter thresholds (COUNTER_THRESHOLDS_FILE): a stored file made under
# other thresholds is not the one asked for.
THRESHOLD_KINDS = frozenset({"prometheus-rules.yaml"})
USED_AT_RESOLUTION = timedelta(hours=1)  # how stale `used_at` may get before a download refreshes it
ORPHAN_GRACE_S = 3600  # a stored file without its row is left alone this long (a build between save and row)


def artifact_storage() -> ArtifactStorage:
    return cast("ArtifactStorage", storages["artifacts"])


def stored() -> QuerySet[Artifact]:
    """The artifacts of the store in use (settings.ARTIFACT_STORE)."""
    return Artifact.objects.filter(store=settings.ARTIFACT_STORE)


@lru_cache(maxsize=1)
def renderer_version() -> str:
    """Hash of the renderer and engine source and the shipped catalog data (computed once per process)."""
    h = hashlib.sha256()
    for top in RENDERER_SOURCES:
        base = ROOT / top
        paths = (
            [base]
            if base.is_file()
            else sorted(p for p in base.rglob("*") if p.suffix in (".py", ".yaml", ".yml", ".json") and p.is_file())
        )
        for p in paths:
            h.update(str(p.relative_to(ROOT)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()[:32]


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value.normalize())
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def artifact_options_plain(options: dict | None) -> dict:
    """Options as the plain JSON data the artifact key hashes (a Decimal as its normalized string): what an export
    job carries, so the worker, reading them back from the job's JSON, keys the file as the web did."""
    return _plain(dict(options or {}))


def revision_date(revision: Revision) -> str:
    """The day the revision was computed (ISO, the installation's time zone): the date its documents print unless
    the caller names one, so a frozen revision's files are the same bytes whichever day they are rendered."""
    return timezone.localtime(revision.created_at).date().isoformat()


def artifact_options(*, revision: Revision, kind: str, options: dict | None) -> dict:
    """The options a build renders with: the caller's (validated), plus the revision's date (revision_date) and
    for the BOM files the revision's prices (its price-list version in force when computed, unless repriced),
    unless the caller names them."""
    from apps.designs.pricing import revision_pricing

    out = {k: v for k, v in (options or {}).items() if v is not None and v != ""}
    out.setdefault("date", revision_date(revision))
    if kind in PRICED_KINDS and "prices" not in out:
        pricing = revision_pricing(revision=revision, latest=False)
        if pricing.version is not None:
            out.update(prices=pricing.prices, currency=pricing.currency, price_source=pricing.source)
    return _plain(out)


def artifact_key(*, revision: Revision, kind: str, options: dict, fingerprint: str | None = None) -> str:
    """``fingerprint``: the revision's (revision_fingerprint), when the caller keys several kinds at once."""
    from apps.designs.revision_cache import revision_fingerprint

    fingerprint = fingerprint or revision_fingerprint(revision)
    state = {"revision": fingerprint, "kind": kind, "options": options, "renderer": renderer_version()}
    if kind in THRESHOLD_KINDS:
        state["counter_thresholds"] = getattr(settings, "COUNTER_THRESHOLDS", None) or {}
    return hashlib.sha256(json.dumps(state, sort_keys=True, default=str).encode()).hexdigest()


def artifact_lookup(*, revision: Revision, kind: str, options: dict | None) -> tuple[str, dict, Artifact | None]:
    """(key, full options, the stored Artifact or None) for this deliverable of the revision."""
    full = artifact_options(revision=revision, kind=kind, options=options)
    key = artifact_key(revision=revision, kind=kind, options=full)
    return key, full, artifact_stored(key)


def stored_kinds(*, revision: Revision, kinds: Iterable[str]) -> set[str]:
    """Which of ``kinds`` are stored as a plain download would build them (default options, today's renderer):
    one fingerprint and one query for the lot."""
    from apps.designs.revision_cache import revision_fingerprint

    fingerprint = revision_fingerprint(revision)
    keys = [
        artifact_key(
            revision=revision,
            kind=k,
            options=artifact_options(revision=revision, kind=k, options={}),
            fingerprint=fingerprint,
        )
        for k in kinds
    ]
    return set(stored().filter(key__in=keys).values_list("kind", flat=True))


def artifact_stored(key: str) -> Artifact | None:
    """stored().filter(key=key).first(), hand-written: every download asks it, and the ORM's query cost more CPU
    to build than to run (apps/common/db.py)."""
    table = connection.ops.quote_name(Artifact._meta.db_table)
    sql = f"SELECT * FROM {table} WHERE {connection.ops.quote_name('key')} = %s AND store = %s"
    return next(iter(Artifact.objects.raw(sql, [key, settings.ARTIFACT_STORE])), None)


def inline_render_allowed(revision: Revision) -> bool:
    """True when a deliverable of this revision renders fast enough to be built inside a web request
    (settings.DOWNLOAD_INLINE_MAX_CABLES, measured: docs/deliverables.md, Downloads)."""
    return revision.cable_count <= settings.DOWNLOAD_INLINE_MAX_CABLES


def artifact_build(
    *,
    revision: Revision,
    kind: str,
    options: dict | None,
    progress: ProgressFn | None = None,  # noqa: ARG001 - an export job's handler passes it
    on_stage: OnStage | None = None,
) -> Artifact:
    """Render one deliverable (or archive) of the revision into the store and return its Artifact; the one
    already stored when another build finished first. `on_stage(stage, percent)` reports its steps
    (`progress`, the engine's progress before snapshots, is unused: nothing is computed).

    Raises SpecError (SnapshotUnavailable) when the revision has no snapshot to render from, ValueError for
    options the renderer refuses. A build stopped on the way (an error, or a job's cancel raised by on_stage or
    its watchdog) stores nothing: the file is rendered into an unnamed spool, named in the store only complete,
    and deleted again when its row is not written."""
    from .services import revision_result

    full = artifact_options(revision=revision, kind=kind, options=options)
    key = artifact_key(revision=revision, kind=kind, options=full)
    existing = stored().filter(key=key).first()
    if existing is not None:
        return existing
    started = time.monotonic()
    if on_stage:
        on_stage("reading the revision's snapshot", 10)
    result = revision_result(revision=revision)
    if on_stage:
        on_stage(f"rendering {kind}", 50)
    storage = artifact_storage()
    user_options = {k: v for k, v in full.items() if k != "prices"}
    try:
        return _render_and_store(revision, kind, key, full, user_options, storage, started, on_stage, result)
    except OSError as exc:
        if exc.errno not in _FULL:
            raise
        # The spool or the store has no room: nothing was stored (a partial file is never named, see below).
        log.error("artifact store full building %s of revision %s: %s", kind, revision.pk, exc)
        raise StorageFull(
            f"{kind} could not be stored: the server's file store is full ({os.strerror(exc.errno)}). Nothing was "
            "saved; try again later (old files are pruned hourly) or ask an administrator to free space."
        ) from None


# No space left, or over a disk quota: the store is full, not broken.
_FULL = {errno.ENOSPC, errno.EDQUOT}


def _render_and_store(
    revision: Revision,
    kind: str,
    key: str,
    full: dict,
    user_options: dict,
    storage: Storage,
    started: float,
    on_stage: OnStage | None,
    result: DesignResult,
) -> Artifact:
    from .services import render_into

    with tempfile.TemporaryFile(dir=settings.VAR_DIR) as spool:  # unnamed: a killed build leaves nothing
        render_into(kind=kind, result=result, revision=revision, options=full, fh=spool)
        size = spool.tell()
        spool.seek(0)
        digest = hashlib.sha256()
        for block in iter(lambda: spool.read(1024 * 1024), b""):
            digest.update(block)
        if on_stage:
            on_stage(f"storing {kind}", 90)
        name = f"{revision.pk}/{key[:32]}-{uuid.uuid4().hex[:8]}/{kind}"
        spool.seek(0)
        saved = None
        try:
            saved = storage.save(name, File(spool, name=kind))
            with transaction.atomic():
                return Artifact.objects.create(
                    revision=revision,
                    kind=kind,
                    key=key,
                    store=settings.ARTIFACT_STORE,
                    renderer_version=renderer_version(),
                    options=user_options,
                    name=saved,
                    content_type=content_type(kind),
                    size=size,
                    sha256=digest.hexdigest(),
                    build_seconds=round(time.monotonic() - started, 3),
                    used_at=timezone.now(),
                )
        except IntegrityError:
            if saved is None:
                raise
            storage.delete(saved)  # another build of the same key won: serve that one
            return stored().get(key=key)
        except BaseException:
            # A stop (a cancel or a limit, raised into this thread) between the store and the row: a file no
            # row names would wait for the prune; delete it now, so a stopped build leaves nothing behind. It may
            # land as save returns, before `saved` is set: the name asked for is then the one (it is unique).
            storage.delete(saved if saved is not None else name)
            raise


def content_type(kind: str) -> str:
    from .services import export_content_type

    return export_content_type(kind)


def artifact_touch(artifact: Artifact) -> None:
    """Record a use for the age retention, at most once per USED_AT_RESOLUTION (not a write per download)."""
    now = timezone.now()
    if now - artifact.used_at > USED_AT_RESOLUTION:
        Artifact.objects.filter(pk=artifact.pk).update(used_at=now)


def artifact_open(artifact: Artifact) -> IO[bytes]:
    """The stored file, opened for reading (streamed from the storage, never read whole). A file gone from the
    storage (deleted by hand, a store restored from an older backup) takes its row with it: FileNotFoundError,
    and the next request builds it again."""
    storage = artifact_storage()
    try:
        if hasattr(storage, "open_stream"):
            return storage.open_stream(artifact.name)
        return storage.open(artifact.name, "rb")
    except FileNotFoundError:
        log.warning("artifact %s: its file %s is missing from the store; forgetting it", artifact.pk, artifact.name)
        Artifact.objects.filter(pk=artifact.pk).delete()
        raise


def artifact_chunks(artifact: Artifact) -> Iterator[bytes]:
    """The stored file as an iterator of byte blocks, from a storage that streams its own (the database store's
    iter_chunks); FileNotFoundError, forgetting the row, as artifact_open."""
    try:
        return cast("ChunkedStorage", artifact_storage()).iter_chunks(artifact.name)
    except FileNotFoundError:
        log.warning("artifact %s: its file %s is missing from the store; forgetting it", artifact.pk, artifact.name)
        Artifact.objects.filter(pk=artifact.pk).delete()
        raise


def artifact_prune(*, max_bytes: int | None = None, max_age_days: float | None = None) -> dict:
    """Keep the store bounded: delete artifacts unused for max_age_days, then the least recently used until the
    total is at most max_bytes, then stored files that no row names (older than ORPHAN_GRACE_S) and partial
    files a killed writer left (the rename fallback; the s3 store's unfinished multipart uploads). Deleting a row deletes its file (apps.exports.signals)."""
    max_bytes = settings.ARTIFACT_MAX_BYTES if max_bytes is None else max_bytes
    max_age_days = settings.ARTIFACT_MAX_AGE_DAYS if max_age_days is None else max_age_days
    aged = Artifact.objects.filter(used_at__lt=timezone.now() - timedelta(days=max_age_days))
    n_aged = aged.count()
    for artifact in aged.iterator():
        artifact.delete()
    total = stored().aggregate(n=Sum("size"))["n"] or 0
    n_size = 0
    if total > max_bytes:
        for artifact in stored().order_by("used_at", "pk").only("pk", "size", "name").iterator():
            if total <= max_bytes:
                break
            total -= artifact.size
            artifact.delete()
            n_size += 1
    storage = artifact_storage()
    orphans = 0
    known = set(stored().values_list("name", flat=True))
    cutoff = timezone.now() - timedelta(seconds=ORPHAN_GRACE_S)
    from .storage import modified_at

    for name in storage.all_names():
        if name in known:
            continue
        when = modified_at(storage, name)
        if when is not None and when < cutoff:
            storage.delete(name)
            orphans += 1
    partials = storage.stale_partials(ORPHAN_GRACE_S)
    for name in partials:
        storage.delete(name)
    uploads = storage.abort_stale_uploads(ORPHAN_GRACE_S) if hasattr(storage, "abort_stale_uploads") else 0
    legacy = legacy_exports_prune()
    out = {
        "aged": n_aged,
        "over_size": n_size,
        "orphans": orphans,
        "partials": len(partials) + uploads,
        "legacy": legacy,
        "bytes": int(total),
    }
    if n_aged or n_size or orphans or partials or uploads or legacy:
        log.info("pruned artifacts: %s", out)
    return out


def legacy_exports_prune() -> int:
    """Delete what export jobs wrote before the artifact store (MEDIA_ROOT/exports/<job id>/<file>, and the
    `.part` files of failed ones): no code reads them any more (such a job's file URL answers 410). Files younger
    than ORPHAN_GRACE_S are left, in case a worker of the previous release is still writing one during a deploy.
    Returns the number of files deleted; empty folders go too."""
    root = Path(settings.MEDIA_ROOT) / "exports"
    if not root.is_dir():
        return 0
    cutoff = time.time() - ORPHAN_GRACE_S
    deleted = 0
    for path in sorted(root.rglob("*"), key=lambda p: len(p.parts), reverse=True):  # files before their folders
        try:
            if path.is_dir():
                path.rmdir()  # only when empty
            elif path.lstat().st_mtime < cutoff:
                path.unlink()
                deleted += 1
        except OSError:  # a folder still holding a young file, or one removed meanwhile
            continue
    with contextlib.suppress(OSError):
        root.rmdir()
    return deleted
