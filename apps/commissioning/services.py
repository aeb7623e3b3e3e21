"""As-built imports: store an upload, work out the revision's standing classification and fix list.

An upload is parsed when it arrives (a file the parsers cannot read is refused, nothing stored) and kept as
sent. The standing classification reads every upload of the revision in order (engine.asbuilt.classify.
accumulate: a later file replaces what earlier ones said about the devices it covers) against the revision's
plan, recomputed from its spec (the engine is deterministic), and is stored in CommissioningStanding. For a
large fabric that is a background job (kind "asbuilt"); the CLI runs it in its own process.

State: planned (no upload) -> cabling (an upload) -> verified (no problem, no link unseen, and every link's
measured fibers within the loss budget: the measurement standing counts every link as passing).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction

from apps.designs.models import CableRecord
from apps.designs.revision_cache import (
    cached_value,
    revision_fingerprint,
    revision_key,
)
from apps.exports.services import revision_result
from apps.jobs.models import Job
from apps.jobs.progress import DbProgress, JobFailed
from apps.jobs.services import job_create
from apps.measurements.models import MeasurementStanding
from engine.asbuilt.classify import PROBLEMS, Classification, Finding, accumulate, classify
from engine.asbuilt.fixlist import device_places, fix_list
from engine.asbuilt.matching import PortMatcher, UserMapError, parse_user_map
from engine.asbuilt.parsers import FORMATS, AsBuiltParseError, parse
from engine.asbuilt.plan import PlannedFabric, planned_fabric
from engine.asbuilt.records import PlannedCable
from engine.errors import SpecError
from engine.result import ProgressFn

from .models import AsBuiltUpload, CommissioningStanding, RevisionState

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from apps.designs.models import Revision


class AsBuiltRejected(Exception):
    """The file was refused and nothing was stored: `field` names what is wrong (file, format, device, user_map)."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field
        self.message = message


def asbuilt_check(
    *, fmt: str, data: bytes, device: str = "", port: str = "", user_map: str = "", read_limit: int | None = None
) -> tuple[str, int | None]:
    """(text, observed links) of an upload, or AsBuiltRejected naming the field. A file larger than `read_limit`
    bytes is only checked for size and type here (observed links None): the "asbuilt" job reads it."""
    if fmt not in FORMATS:
        raise AsBuiltRejected("format", f"Unknown format {fmt!r}; one of {', '.join(FORMATS)}.")
    limit = settings.API_MAX_UPLOAD_BYTES
    if len(data) > limit:
        raise AsBuiltRejected("file", f"The file is {len(data):,} bytes; the limit is {limit:,} bytes.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise AsBuiltRejected("file", "The file is not UTF-8 text.") from None
    if not text.strip():
        raise AsBuiltRejected("file", "The file is empty.")
    if "\x00" in text:
        raise AsBuiltRejected("file", "The file holds NUL characters: not a text export.")
    try:
        parse_user_map(user_map)
    except UserMapError as exc:
        raise AsBuiltRejected("user_map", str(exc)) from None
    if read_limit is not None and len(data) > read_limit:
        return text, None
    return text, _observed_links(fmt, text, device, port)


def _observed_links(fmt: str, text: str, device: str, port: str) -> int:
    try:
        obs = parse(fmt, text, device=device, port=port)
    except AsBuiltParseError as exc:
        field = "device" if "give the device" in exc.message else "port" if "(port)" in exc.message else "file"
        raise AsBuiltRejected(field, str(exc)) from None
    return len(obs.links)


def asbuilt_upload(
    *,
    revision: Revision,
    user: User,
    fmt: str,
    data: bytes,
    filename: str,
    device: str = "",
    port: str = "",
    user_map: str = "",
    width_only: bool = False,
    read_limit: int | None = None,
) -> AsBuiltUpload:
    """Validate and store one as-built file (AsBuiltRejected: nothing stored); one over `read_limit` bytes is
    stored as received, unread (asbuilt_check)."""
    text, n = asbuilt_check(fmt=fmt, data=data, device=device, port=port, user_map=user_map, read_limit=read_limit)
    return AsBuiltUpload.objects.create(
        revision=revision,
        uploaded_by=user,
        format=fmt,
        filename=(filename or "as-built")[:200],
        device=device[:64],
        port=port[:64],
        user_map=user_map,
        width_only=width_only,
        size=len(data),
        links=n or 0,
        read=n is not None,
        sha256=hashlib.sha256(data).hexdigest(),
        content=text,
    )


def asbuilt_import(*, revision: Revision, user: User, **kw: Any) -> tuple[AsBuiltUpload, Job]:
    """Store an upload and queue the refresh of the revision's standing (job kind "asbuilt"): (upload, job).
    JobQuotaExceeded when the user has too many jobs waiting (nothing stored)."""
    with transaction.atomic():
        upload = asbuilt_upload(revision=revision, user=user, read_limit=settings.ASBUILT_READ_IN_REQUEST_BYTES, **kw)
        job = job_create(
            kind="asbuilt",
            user=user,
            design=revision.design,
            params={"revision_id": revision.pk, "upload_id": upload.pk},
        )
    return upload, job


def asbuilt_refresh_job(*, job: Job, progress: DbProgress) -> dict:
    """Worker side of asbuilt_import."""
    from apps.designs.models import Revision

    revision = Revision.objects.select_related("design__owner").get(pk=job.params["revision_id"])
    refused = asbuilt_read_pending(revision=revision, upload_id=job.params.get("upload_id"), progress=progress)
    standing = commissioning_refresh(revision=revision, progress=progress)
    if refused:
        raise JobFailed(" ".join(refused))
    return {"revision_id": revision.pk, "state": standing.state, "counts": standing.counts}


def asbuilt_read_pending(*, revision: Revision, upload_id: int | None, progress: ProgressFn | None = None) -> list[str]:
    """Read the job's upload if it was stored unread (too large for the web request): it is counted and kept, or
    refused (deleted: it never counts) with why. Returns the refusal's text (none when read)."""
    refused: list[str] = []
    if upload_id is None:  # the upload was read in the web request
        return refused
    pending = list(AsBuiltUpload.objects.filter(revision=revision, pk=upload_id, read=False))
    for i, u in enumerate(pending):
        if progress:
            progress(f"reading {u.filename}", i, len(pending))
        try:
            n = _observed_links(u.format, u.content, u.device, u.port)
        except AsBuiltRejected as exc:
            AsBuiltUpload.objects.filter(pk=u.pk).delete()
            refused.append(f"{u.filename} was refused and not kept ({exc.field}): {exc.message}")
        else:
            AsBuiltUpload.objects.filter(pk=u.pk).update(links=n, read=True)
    return refused


_PLAN_VERSION = 2  # bump when PlannedFabric's shape changes (2: spare port names)


def _planned(revision: Revision) -> PlannedFabric:
    """The revision's plan side (links, port names) from the cache; a miss decodes the revision's snapshot once
    (concurrent misses wait) and keeps it unless larger than REVISION_CACHE_MAX_BYTES. Every import reclassifies
    all the revision's files against it, so a campaign of partial imports reads it once."""
    key = revision_key("asbuilt-plan", _PLAN_VERSION, revision_fingerprint(revision))
    return cached_value(key, lambda: planned_fabric(revision_result(revision=revision), cables=False))


def _measured_ok(revision: Revision) -> bool:
    row = MeasurementStanding.objects.filter(revision=revision).first()
    links = (row.counts or {}).get("links", {}) if row is not None else {}
    total = sum(links.values()) if links else 0
    return bool(total) and links.get("pass", 0) == total


def classify_uploads(fabric: PlannedFabric, uploads: Iterable[AsBuiltUpload]) -> Classification:
    """Every upload (oldest first) matched together against the plan: the one classification the standing and
    the build-progress view both read."""
    user_map = tuple(e for u in uploads for e in parse_user_map(u.user_map))
    matcher = PortMatcher(fabric.links, fabric.aliases, user_map, fabric.spare)
    observations = []
    for u in uploads:
        obs = parse(u.format, u.content, device=u.device, port=u.port)
        observations.append(obs.width_only() if u.width_only else obs)
    observed, covered = accumulate(observations, matcher)
    return classify(fabric.links, observed, matcher, covered)


def commissioning_refresh(*, revision: Revision, progress: ProgressFn | None = None) -> CommissioningStanding:  # noqa: ARG001 - job handler call
    """Classify every upload of the revision together and store the standing (one refresh at a time per
    revision: the row is locked, and the uploads are read after taking the lock)."""
    with transaction.atomic():
        row, _ = CommissioningStanding.objects.select_for_update().get_or_create(revision=revision)
        uploads = list(AsBuiltUpload.objects.filter(revision=revision, read=True).order_by("id"))
        row.uploads = len(uploads)
        if not uploads:
            row.state, row.counts, row.per_rack, row.fixes, row.error = RevisionState.PLANNED, {}, {}, [], ""
            row.save()
            return row
        try:
            fabric = _planned(revision)
        except SpecError as exc:
            row.error = f"The revision cannot be rendered from its snapshot: {exc}"
            row.save()
            return row
        c = classify_uploads(fabric, uploads)
        from .progress import remember_asbuilt_classes  # the build progress view reads each link's class

        remember_asbuilt_classes(revision=revision, uploads=uploads, status=c.status)
        fixes = fix_list(c.findings, _labels(revision, c.findings), device_places(fabric.links))
        problems = sum(c.counts.get(k, 0) for k in PROBLEMS)
        clean = problems == 0 and c.counts.get("unseen", 0) == 0
        row.state = RevisionState.VERIFIED if clean and _measured_ok(revision) else RevisionState.CABLING
        row.counts = c.counts
        row.per_rack = c.per_rack
        row.fixes = [f.to_dict() for f in fixes]
        row.error = ""
        row.save()
    return row


def _labels(revision: Revision, findings: Iterable[Finding]) -> dict[str, PlannedCable]:
    """The stored cable rows (labels, ends) of the cables the findings name: one query, not 400,000 labels."""
    ids = {int(c[1:]) for f in findings for lk in f.links for c in lk.cables if c[1:].isdigit()}
    rows = CableRecord.objects.filter(revision=revision, cable_id__in=ids).values_list(
        "cable_id", "label_a", "label_b", "a_device", "a_port", "b_device", "b_port"
    )
    return {f"C{cid:06d}": PlannedCable(f"C{cid:06d}", *rest) for cid, *rest in rows}


def commissioning_standing(*, revision: Revision) -> CommissioningStanding | None:
    return CommissioningStanding.objects.filter(revision=revision).first()
