"""Import a counter file into a revision: parse it (engine.counters), match every reading to a planned port
(engine.asbuilt.matching, the as-built import's matcher) and store the matched readings.

Nothing is stored from a file that cannot be read; readings of ports the plan does not have are counted and
the first of them listed with the snapshot (never silently dropped).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apps.commissioning.models import AsBuiltUpload
from apps.designs.models import LinkRecord, Revision
from apps.designs.revision_cache import (
    cached_value,
    revision_fingerprint,
    revision_key,
)
from apps.exports.services import revision_result
from apps.jobs.models import Job
from apps.jobs.progress import DbProgress, JobFailed
from apps.jobs.services import job_create
from engine.asbuilt.matching import PortMatcher, PortRef, UserMapError, parse_user_map, port_aliases
from engine.asbuilt.records import ObservedEnd, PlannedLink
from engine.counters import FORMATS, CounterParseError, parse_counters
from engine.counters.formats import NEEDS_DEVICE
from engine.counters.lids import lid_names, resolve_lids
from engine.errors import SpecError

from .models import CounterReading, CounterSnapshot

if TYPE_CHECKING:
    from django.contrib.auth.models import User

UNMATCHED_KEPT = 50
_ALIASES_VERSION = 1
IB_FORMATS = frozenset(("ibqueryerrors", "perfquery"))


@dataclass
class CounterImportRejected(Exception):
    """Nothing stored: `field` names the input at fault (format, file, device, interface, taken_at, network)."""

    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"


def _planned_links(revision: Revision) -> list[PlannedLink]:
    rows = LinkRecord.objects.filter(revision=revision).values_list(
        "link_id", "network", "speed_gbps", "a_device", "a_port", "b_device", "b_port", "tier", "cables"
    )
    return [
        PlannedLink(f"L{i:06d}", net, speed, ad, ap, bd, bp, cables=tuple(c.split()), tier=tier)
        for i, net, speed, ad, ap, bd, bp, tier, c in rows.iterator(chunk_size=5000)
    ]


def _user_map(revision: Revision) -> tuple:
    """The port maps given with the revision's as-built uploads (RDMA device, netdev or GUID -> planned port):
    the counters match ports exactly as the as-built import does."""
    out: list = []
    for text in AsBuiltUpload.objects.filter(revision=revision).order_by("id").values_list("user_map", flat=True):
        try:
            out.extend(parse_user_map(text))
        except UserMapError:
            continue  # checked when it was uploaded; a map that no longer reads adds nothing
    return tuple(out)


def _aliases(revision: Revision) -> dict:
    """Every other name of every planned port (engine.asbuilt.matching.port_aliases), from the cache; on a miss
    the revision's snapshot is read once (concurrent misses wait) and the names kept unless larger than
    REVISION_CACHE_MAX_BYTES: a revision never changes, so later imports skip the recomputation."""
    key = revision_key("port-aliases", _ALIASES_VERSION, revision_fingerprint(revision))

    def compute() -> dict:
        try:
            result = revision_result(revision=revision)
        except SpecError as exc:
            raise CounterImportRejected(
                "revision", f"this revision no longer computes ({exc}); cannot name its ports"
            ) from None
        aliases = {tuple(ref): names for ref, names in port_aliases(result).items()}
        del result
        return aliases

    return cached_value(key, compute)


def _lid_names(revision: Revision) -> dict[int, str]:
    """LID -> node description from the revision's ibnetdiscover as-built uploads, the newest winning."""
    names: dict[int, str] = {}
    uploads = AsBuiltUpload.objects.filter(revision=revision, format="ibnetdiscover", read=True).order_by("id")
    for text in uploads.values_list("content", flat=True):
        names.update(lid_names(text))
    return names


def revision_matcher(revision: Revision) -> tuple[PortMatcher, dict[str, PlannedLink]]:
    """The matcher of a revision's planned ports (names from its stored links, the platform names from a
    recomputation of its design, cached, and the maps of its as-built uploads) and its links by id."""
    links = _planned_links(revision)
    aliases = {PortRef(*ref): names for ref, names in _aliases(revision).items()}
    return PortMatcher(links, aliases, _user_map(revision)), {lk.link_id: lk for lk in links}


def _check(*, text: str, fmt: str, taken_at: datetime | None, device: str) -> datetime:
    """What the request can tell without reading the file: the format, the device, the time; the time taken."""
    if fmt not in FORMATS:
        raise CounterImportRejected("format", f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")
    if fmt in NEEDS_DEVICE and not device:
        raise CounterImportRejected("device", f"{fmt} output does not name its device: give the device name")
    if not text.strip():
        raise CounterImportRejected("file", "the file is empty")
    if "\x00" in text:
        raise CounterImportRejected("file", "the file holds NUL characters: not a tool's text output")
    taken = taken_at or timezone.now()
    if timezone.is_naive(taken):
        raise CounterImportRejected("taken_at", "give a time zone (e.g. 2026-12-03T18:00:00Z)")
    if taken > timezone.now() + timedelta(minutes=5):
        raise CounterImportRejected("taken_at", "is in the future")
    return taken


def _read(
    *, revision: Revision, text: str, fmt: str, device: str, interface: str, network: str
) -> tuple[dict, dict[tuple[int, str], dict[str, int]]]:
    """Parse and match one counter file: (the snapshot's fields, the matched readings by (link id, end))."""
    try:
        parsed = parse_counters(text, fmt, device=device or None, interface=interface or None)
    except CounterParseError as exc:
        field = "interface" if "interface is required" in str(exc) else "file"
        raise CounterImportRejected(field, str(exc)) from None
    notes = list(parsed.notes)
    if fmt == "perfquery":
        parsed = resolve_lids(parsed, _lid_names(revision))
        unnamed = sum(r.device.startswith("lid ") for r in parsed.readings)
        if unnamed:
            notes.append(
                f"{unnamed} perfquery readings name a LID no ibnetdiscover as-built upload of this revision names "
                "(upload a discovery of the running fabric first)"
            )
    matcher, by_id = revision_matcher(revision)
    matched: dict[tuple[int, str], dict[str, int]] = {}
    unmatched: list[str] = []
    networks: set[str] = set()
    for r in parsed.readings:
        ref = matcher.port(ObservedEnd(r.device, r.port, r.guid))
        link = matcher.link_at(ref)
        if link is None or ref is None:
            unmatched.append(f"{r.device} {r.port}")
            continue
        end = "a" if (ref.device, ref.port) == (link.a_device, link.a_port) else "b"
        matched[(int(link.link_id[1:]), end)] = dict(r.counters)
        networks.add(link.network)
    if network:
        if network not in {lk.network for lk in by_id.values()}:
            raise CounterImportRejected("network", f"this revision has no {network!r} network")
        networks = {network}
    elif parsed.implicit_zero and not networks:
        # A clean sweep lists no port: it covers the revision's InfiniBand networks.
        networks = {lk.network for lk in by_id.values() if lk.speed_gbps > 1} & _ib_networks(revision)
    fields = {
        "ports": len(parsed.readings),
        "matched": len(matched),
        "unmatched": unmatched[:UNMATCHED_KEPT],
        "implicit_zero": parsed.implicit_zero,
        "networks": sorted(networks),
        "reported": list(parsed.reported),
        "notes": notes + ([f"{len(unmatched)} ports not in the plan"] if unmatched else []),
    }
    return fields, matched


def _store_readings(snap: CounterSnapshot, matched: dict[tuple[int, str], dict[str, int]]) -> None:
    CounterReading.objects.bulk_create(
        [
            CounterReading(snapshot=snap, revision_id=snap.revision_id, link_id=link_id, end=end, counters=c)
            for (link_id, end), c in matched.items()
        ],
        batch_size=2000,
    )


def counter_snapshot_create(
    *,
    revision: Revision,
    user: User,
    text: str,
    fmt: str,
    taken_at: datetime | None = None,
    device: str = "",
    interface: str = "",
    network: str = "",
    filename: str = "",
    read_limit: int | None = None,
) -> CounterSnapshot:
    """Parse, match and store one counter file; CounterImportRejected (nothing stored) when it cannot be read.
    A file over `read_limit` bytes is only checked (format, device, time) and stored unread (`read` False): the
    "counters" job reads it (counter_import)."""
    taken = _check(text=text, fmt=fmt, taken_at=taken_at, device=device)
    row = {
        "revision": revision,
        "format": fmt,
        "device": device,
        "interface": interface,
        "filename": filename[:200],
        "taken_at": taken,
        "uploaded_by": user,
        "content": text,
    }
    if read_limit is not None and len(text.encode()) > read_limit:
        return CounterSnapshot.objects.create(**row, read=False)
    fields, matched = _read(revision=revision, text=text, fmt=fmt, device=device, interface=interface, network=network)
    with transaction.atomic():
        snap = CounterSnapshot.objects.create(**row, **fields)
        _store_readings(snap, matched)
    return snap


def counter_import(*, revision: Revision, user: User, **kw: Any) -> tuple[CounterSnapshot, Job | None]:
    """Store a counter file: read at once up to COUNTERS_READ_IN_REQUEST_BYTES, (snapshot, None); a larger one
    stored as received with the job that reads it (kind "counters"), (snapshot, job). JobQuotaExceeded when the
    user has too many jobs waiting (nothing stored)."""
    with transaction.atomic():
        snap = counter_snapshot_create(
            revision=revision, user=user, read_limit=settings.COUNTERS_READ_IN_REQUEST_BYTES, **kw
        )
        if snap.read:
            return snap, None
        job = job_create(
            kind="counters",
            user=user,
            design=revision.design,
            # the network asked for travels with the job, which reads the file against it
            params={"revision_id": revision.pk, "snapshot_id": snap.pk, "network": kw.get("network", "")},
        )
    return snap, job


def counters_read_job(*, job: Job, progress: DbProgress) -> dict:
    """Job kind "counters": read a counter file stored unread. One it cannot read is deleted (it never counts)
    and the job fails saying why (JobFailed: no traceback)."""
    snap = CounterSnapshot.objects.filter(pk=job.params["snapshot_id"]).select_related("revision").first()
    if snap is None:
        raise JobFailed("The counter file is no longer stored (deleted before it was read).")
    if not snap.read:
        progress(f"reading {snap.filename or 'the counter file'}", 0, 2)
        try:
            fields, matched = _read(
                revision=snap.revision,
                text=snap.content,
                fmt=snap.format,
                device=snap.device,
                interface=snap.interface,
                network=job.params.get("network", ""),
            )
        except CounterImportRejected as exc:
            CounterSnapshot.objects.filter(pk=snap.pk).delete()
            name = snap.filename or "the counter file"
            raise JobFailed(f"{name} was refused and not kept ({exc.field}): {exc.message}") from None
        progress("storing the readings", 1, 2)
        with transaction.atomic():
            CounterSnapshot.objects.filter(pk=snap.pk).update(**fields, read=True)
            _store_readings(snap, matched)
        snap.refresh_from_db()
    return {"revision_id": snap.revision_id, "snapshot_id": snap.pk, "ports": snap.ports, "matched": snap.matched}


def _ib_networks(revision: Revision) -> set[str]:
    spec = revision.spec or {}
    out = set()
    if (spec.get("compute_fabric") or {}).get("technology") == "infiniband":
        out.add("compute")
    storage = spec.get("storage_fabric") or {}
    if storage.get("enabled") and storage.get("technology", "infiniband") == "infiniband":
        out.add("storage")
    return out
