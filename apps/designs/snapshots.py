"""A revision's snapshot: the engine result it was computed as, stored, and read back by every renderer.

The compute job encodes its DesignResult (engine/snapshot_codec.py) while the database builds the row
indexes and writes it in the revision's transaction (services._compute_and_store). Pages, API answers and
export jobs read it back with `revision_snapshot`, which never runs the engine's compute: a revision reads
the same whatever happens later to the shipped catalog, the owner's custom parts or the engine.

Revisions stored before snapshots existed get theirs once from `snapshot_backfill` (a background job kind,
"snapshot-backfill", and the `snapshot_backfill` management command): it recomputes the design with today's
catalog and the owner's parts and keeps the result only when its links.csv and cables.csv equal the stored
rows byte for byte. Otherwise the snapshot is kept as "rows-only" with a note naming the catalog ("not
reproducible with catalog X"): the revision shows its stored rows (tables, links.csv, cables.csv, summary)
and nothing rendered from a recomputation, never a mix of the two.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import replace

from django.db import IntegrityError, transaction

from engine import snapshot_codec
from engine.columns import CABLE_COLUMNS
from engine.csvcells import line_writer
from engine.errors import FieldError, SpecError
from engine.result import DesignResult

from .models import CableRecord, LinkRecord, Revision, RevisionSnapshot, SnapshotState
from .table_csv import csv_lines, stored_columns

log = logging.getLogger(__name__)

# Decoded snapshots kept per process: a page that reads a revision's QoS report and then its test limits
# decodes it once. Only small designs are kept (a 128K-GPU result holds hundreds of MB once decoded).
CACHE_ENTRIES = 4
CACHE_MAX_LINKS = 60_000


class SnapshotUnavailable(SpecError):
    """The revision has no snapshot to render from: not backfilled yet, or rows only (not reproducible).

    A SpecError at "revision", as a recomputation that failed used to be, so every caller answers it as the
    409 "not reproducible" it already knows, with this message."""

    def __init__(self, message: str) -> None:
        super().__init__(FieldError("revision", message))
        self.reason = message


def encode_result(result: DesignResult) -> bytes:
    return snapshot_codec.encode(result)


def snapshot_save(
    *,
    revision_id: int,
    document: bytes,
    encode_seconds: float = 0.0,
    backfilled: bool = False,
    digests: tuple[str, str] = ("", ""),
    catalog_version: str = "",
    checks: Iterable[str] = (),
) -> RevisionSnapshot:
    """Store a revision's complete snapshot (inside the caller's transaction when there is one)."""
    return RevisionSnapshot.objects.create(
        checks=list(checks),
        revision_id=revision_id,
        state=SnapshotState.COMPLETE,
        codec=snapshot_codec.CODEC_VERSION,
        document=document,
        size=len(document),
        sha256=hashlib.sha256(document).hexdigest(),
        encode_seconds=round(encode_seconds, 3),
        backfilled=backfilled,
        links_digest=digests[0],
        cables_digest=digests[1],
        catalog_version=catalog_version,
    )


_cache: OrderedDict[tuple[int, str], DesignResult] = OrderedDict()
_cache_lock = threading.Lock()


def revision_snapshot(revision: Revision) -> DesignResult:
    """The revision's stored result, decoded (SnapshotUnavailable when it has none to render from)."""
    snap = (
        RevisionSnapshot.objects.filter(revision_id=revision.pk)
        .only("state", "sha256", "note", "codec", "catalog_version", "checks")
        .first()
    )
    if snap is None:
        raise SnapshotUnavailable(
            "this revision was stored before snapshots; its files are being prepared (snapshot backfill), "
            "try again shortly"
        )
    if snap.state != SnapshotState.COMPLETE:
        raise SnapshotUnavailable(snap.note or "not reproducible: only the stored rows are shown")
    key = (revision.pk, snap.sha256)
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            return hit
    document = RevisionSnapshot.objects.filter(pk=snap.pk).values_list("document", flat=True).get()
    if document is None:
        raise SnapshotUnavailable("the snapshot has no document stored")
    try:
        result = snapshot_codec.decode(bytes(document))
    except snapshot_codec.CodecError as exc:
        raise SnapshotUnavailable(f"the stored snapshot cannot be read by this version: {exc}") from None
    if snap.checks:
        result = replace(result, checks=tuple(snap.checks))
    if len(result.links) <= CACHE_MAX_LINKS:
        with _cache_lock:
            _cache[key] = result
            while len(_cache) > CACHE_ENTRIES:
                _cache.popitem(last=False)
    return result


def snapshot_state(revision: Revision) -> RevisionSnapshot | None:
    """The snapshot row without its document (state, note), or None before the backfill reached it."""
    return RevisionSnapshot.objects.filter(revision_id=revision.pk).defer("document").first()


# --- backfill ----------------------------------------------------------------------------------------------


def _digest(lines: Iterable[str]) -> str:
    h = hashlib.sha256()
    for line in lines:
        h.update(line.encode())
    return h.hexdigest()


def stored_digests(revision: Revision) -> tuple[str, str]:
    """Hashes of the revision's stored links.csv and cables.csv (raw cells, as the CLI writes them)."""
    out = []
    for table, model, order in (("links", LinkRecord, "link_id"), ("cables", CableRecord, "cable_id")):
        rows = model.objects.filter(revision_id=revision.pk).order_by(order).values_list(*stored_columns(table))
        out.append(_digest(csv_lines(table, rows.iterator(chunk_size=5000), raw=True)))
    return out[0], out[1]


def result_digests(result: DesignResult) -> tuple[str, str]:
    """The same hashes for a computed result (its links.csv and cables.csv as the CLI writes them)."""
    from engine.outputs import _link_table

    write = line_writer()  # as csv_lines writes the stored rows
    cols, rows = _link_table(result)

    def lines(header, body) -> Iterator[str]:
        yield write(header)
        for row in body:
            yield write(row)

    links = _digest(lines(cols, rows))
    cables = _digest(lines(CABLE_COLUMNS, result.physical.cable_rows_out(result) if result.physical else ()))
    return links, cables


def snapshot_backfill(revision: Revision, *, custom: dict | None = None) -> RevisionSnapshot:
    """Give a revision stored before snapshots its snapshot, once (the existing one when it has one).

    Recomputes with today's catalog and the owner's custom parts (`custom`); complete when the recomputed
    links.csv and cables.csv equal the stored ones byte for byte, else "rows-only" with the reason."""
    from engine.catalog import load_catalog
    from engine.errors import CatalogError
    from engine.physical.catalog import CatalogError as MediaCatalogError
    from engine.pipeline import compute_design
    from engine.spec import parse_spec

    existing = snapshot_state(revision)
    if existing is not None:
        return existing
    stored = stored_digests(revision)
    result = None
    catalog_version = ""
    try:
        catalog = load_catalog(custom)
        catalog_version = catalog.version
        result = compute_design(parse_spec(revision.spec), catalog)
    except (SpecError, CatalogError, MediaCatalogError) as exc:
        note = f"not reproducible with catalog {catalog_version or 'of today'}: {exc}"
    else:
        recomputed = result_digests(result)
        if recomputed == stored:
            note = ""
        else:
            which = " and ".join(
                name
                for name, a, b in (("links", recomputed[0], stored[0]), ("cables", recomputed[1], stored[1]))
                if a != b
            )
            note = (
                f"not reproducible with catalog {catalog_version}: the recomputed {which} differ from the stored "
                "ones; only the stored rows are shown"
            )
    try:
        with transaction.atomic():
            if not note and result is not None:
                t = time.perf_counter()
                document = encode_result(result)
                return snapshot_save(
                    revision_id=revision.pk,
                    document=document,
                    encode_seconds=time.perf_counter() - t,
                    backfilled=True,
                    digests=stored,
                    catalog_version=catalog_version,
                    checks=result.checks,
                )
            return RevisionSnapshot.objects.create(
                revision_id=revision.pk,
                state=SnapshotState.ROWS_ONLY,
                codec=snapshot_codec.CODEC_VERSION,
                document=None,
                links_digest=stored[0],
                cables_digest=stored[1],
                catalog_version=catalog_version,
                note=note,
                backfilled=True,
            )
    except IntegrityError:  # another backfill got there first
        found = snapshot_state(revision)
        if found is None:
            raise
        return found


def revisions_without_snapshot():
    return Revision.objects.filter(snapshot__isnull=True).select_related("design__owner").order_by("pk")


def snapshot_backfill_all(*, limit: int | None = None, seconds: float | None = None) -> dict:
    """Backfill revisions without a snapshot, oldest first, up to `limit` of them or for about `seconds`;
    returns the counts by outcome."""
    from .services import owner_custom_parts

    started = time.monotonic()
    counts = {"complete": 0, "rows-only": 0}
    for n, revision in enumerate(revisions_without_snapshot().iterator(chunk_size=20)):
        if (limit is not None and n >= limit) or (seconds is not None and time.monotonic() - started > seconds):
            break
        snap = snapshot_backfill(revision, custom=owner_custom_parts(revision.design.owner))
        counts[snap.state] = counts.get(snap.state, 0) + 1
        log.info("revision %s snapshot backfilled: %s %s", revision.pk, snap.state, snap.note)
    return counts
