"""Design actions: create, update, share, delete, compute (enqueue and run), compare revisions."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, replace

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import Max

from apps.catalog.services import CustomPartsBroken, catalog_for, custom_catalog_for
from apps.jobs.models import Job, JobStatus
from apps.jobs.progress import DbProgress, JobCancelled
from apps.jobs.services import job_create, job_succeed
from engine.catalog import load_catalog
from engine.errors import FieldError, SpecError
from engine.gcpause import cyclic_gc_paused
from engine.guard import Limits, check_spec
from engine.pipeline import check_design, finish_design, start_design
from engine.presets import load_preset
from engine.result import ENGINE_VERSION, DesignResult
from engine.spec import SCHEMA_VERSION, parse_spec

from . import adapters
from .models import Access, CableRecord, Design, DesignShare, LinkRecord, Revision
from .partitions import analyze_partitions, build_sort_indexes, partitioned
from .snapshots import encode_result, snapshot_save
from .storage import RowLoad, peak_mb, store_revision_rows

log = logging.getLogger(__name__)


def design_limits() -> Limits:
    """The largest design a compute accepts (settings DESIGN_MAX_DEVICES / DESIGN_MAX_LINKS)."""
    return Limits(max_devices=settings.DESIGN_MAX_DEVICES, max_links=settings.DESIGN_MAX_LINKS)


def design_check_spec(data, *, owner=None) -> tuple[dict, list[FieldError]]:
    """(normalized spec dict, warnings) or SpecError naming every bad field: the schema, then everything a compute
    would refuse, from the plans alone (engine/guard.py: catalog keys with the owner's custom parts, the sizing
    rules, the size limits, the workloads). Warnings (FieldError) are the workloads' implausible step times."""
    spec = parse_spec(data)
    check = check_spec(spec, _catalog_for(owner), design_limits())
    return spec.to_dict(), list(check.warnings)


def design_validate_spec(data, *, owner=None) -> dict:
    """Normalized spec dict, or SpecError naming every bad field (design_check_spec without the warnings)."""
    return design_check_spec(data, owner=owner)[0]


def _catalog_for(owner):
    """The catalog a save is checked against: the shipped one with the owner's custom parts (cached per parts
    state); custom parts that no longer load are the spec's problem to report, not a server error."""
    if owner is None or not getattr(owner, "pk", None):
        return load_catalog()
    try:
        return catalog_for(owner)[0]
    except CustomPartsBroken as exc:
        raise SpecError.at("servers.model", exc.message) from None


def design_create(*, user, spec: dict | None = None, preset: str | None = None, name: str | None = None) -> Design:
    if preset:
        try:
            spec = load_preset(preset)
        except KeyError:
            raise SpecError.at("preset", f"unknown preset {preset!r}") from None
        if name:
            spec = {**spec, "name": name}
    if spec is None:
        raise SpecError.at("spec", "is required (or give a preset)")
    normalized, warnings = design_check_spec(spec, owner=user)
    design = Design.objects.create(
        owner=user, name=normalized["name"], spec=normalized, schema_version=SCHEMA_VERSION, preset=preset or ""
    )
    design.spec_warnings = warnings  # shown with the answer, not stored: the check repeats at every save
    return design


def design_update(*, design: Design, spec: dict) -> Design:
    normalized, warnings = design_check_spec(spec, owner=design.owner)
    design.spec_warnings = warnings
    design.spec = normalized
    design.name = normalized["name"]
    design.schema_version = SCHEMA_VERSION
    design.save(update_fields=["spec", "name", "schema_version", "updated_at"])
    return design


def design_delete(*, design: Design) -> None:
    design.delete()


def design_share(*, design: Design, username: str | None = None, user=None, access: str = Access.READ) -> DesignShare:
    """Share with a username (or a user): the same whether or not such an account exists, so sharing
    reveals nothing about accounts. A name with no active account is kept and grants nothing until that
    account exists (signals.link_pending_shares)."""
    if username is None:
        username = user.get_username()
    username = username.strip()
    if not username or len(username) > 150:
        raise SpecError.at("username", "give a username of 1 to 150 characters")
    if username == design.owner.get_username():
        raise SpecError.at("username", "the owner already has full access")
    if user is None:
        user = get_user_model().objects.filter(username=username).first()
    share, _ = DesignShare.objects.update_or_create(
        design=design, username=username, defaults={"access": access, "user": user}
    )
    return share


def design_unshare(*, design: Design, username: str | None = None, user=None) -> None:
    """The owner takes a share back (none by that name: nothing happens, and nothing is said)."""
    DesignShare.objects.filter(design=design, username=username if user is None else user.get_username()).delete()


def design_leave(*, design_id: int, user) -> bool:
    """The recipient gives a share back: the design leaves their "Shared with you" list."""
    return DesignShare.objects.filter(design_id=design_id, user=user).delete()[0] > 0


def design_compute_enqueue(
    *, design: Design, user, idempotency_key: str | None = None, fingerprint: tuple[str, str, str] | None = None
) -> Job:
    """Queue a computation of the design's current spec (snapshotted now, so later edits don't change it).

    A key the user already used returns that job (whatever design it was for: callers compare), so a
    retried request never computes twice, even when both copies arrive at once. `fingerprint`
    (compute_fingerprint) is kept with the job so that a same request meanwhile finds it.
    """
    if idempotency_key:
        existing = Job.objects.filter(created_by=user, idempotency_key=idempotency_key).first()
        if existing is not None:
            return existing
    try:
        params = {"spec": design.spec, **({"fingerprint": list(fingerprint)} if fingerprint else {})}
        return job_create(kind="compute", user=user, design=design, params=params, idempotency_key=idempotency_key)
    except IntegrityError:
        # A concurrent request with the same key committed first (job_idempotency_per_user).
        existing = (
            Job.objects.filter(created_by=user, idempotency_key=idempotency_key).first() if idempotency_key else None
        )
        if existing is None:
            raise
        return existing


@dataclass(frozen=True)
class ComputeRequest:
    """What asking to compute a design gave: a new job, or (deduplicated) the revision or the running job
    that already has this exact computation."""

    job: Job | None = None
    revision: Revision | None = None
    deduplicated: bool = False


def design_compute_request(*, design: Design, user, force: bool = False) -> ComputeRequest:
    """Compute the design's current spec, unless that exact computation exists (unless `force`).

    The same computation is the same normalized spec (spec_hash), engine version and catalog version (the
    shipped catalog's version with a digest of the owner's custom parts, as load_catalog builds it): then the
    latest such revision of the design is the answer, or a queued or running job computing it. Otherwise a
    new job, subject to the user's quota (JobQuotaExceeded). Call job_sent(result.job) after the commit.
    """
    fingerprint = compute_fingerprint(design)
    if fingerprint is not None and not force:
        spec_hash, engine_version, catalog_version = fingerprint
        revision = (
            Revision.objects.filter(
                design=design, spec_hash=spec_hash, engine_version=engine_version, catalog_version=catalog_version
            )
            .order_by("-number")
            .first()
        )
        if revision is not None:
            return ComputeRequest(revision=revision, deduplicated=True)
        job = (
            Job.objects.filter(
                design=design,
                kind="compute",
                status__in=(JobStatus.QUEUED, JobStatus.RUNNING),
                cancel_requested=False,
                params__fingerprint=list(fingerprint),
            )
            .order_by("-created_at")
            .first()
        )
        if job is not None:
            return ComputeRequest(job=job, deduplicated=True)
    return ComputeRequest(job=design_compute_enqueue(design=design, user=user, fingerprint=fingerprint))


def compute_fingerprint(design: Design) -> tuple[str, str, str] | None:
    """(spec_hash, engine version, catalog version) a compute of the design now would store on its revision,
    or None when they cannot be known here (a spec or custom parts that no longer load: the job says why)."""
    try:
        spec = parse_spec(design.spec)
        catalog = catalog_for(design.owner)[0] if custom_catalog_for(design.owner) else load_catalog()
    except Exception:  # the worker reports the error with the job; nothing to match here
        log.info("design %s: no compute fingerprint", design.pk, exc_info=True)
        return None
    return adapters.spec_hash(spec.normalized), ENGINE_VERSION, catalog.version


def design_compute_job(*, job: Job, progress: DbProgress) -> dict:
    """Compute a job's design and store it as the next revision; nothing is visible until it all commits.

    The revision, all its link and cable rows and the job's "succeeded" commit in one transaction, so a
    failure, a cancel or a killed worker leaves no revision behind. The engine's second half runs while
    PostgreSQL builds the partitions' indexes (store_revision_rows): the invariant checks during the link
    indexes (`early`; before the cable rows made there when there are more than it makes ahead), the BOM, fiber totals and summary during the cable indexes
    (`meanwhile`), so that neither takes turns with the thread sending a COPY. At 128K GPUs that leaves about
    3 s of engine before the store instead of 5 (bench_store.py). A broken invariant still fails the job,
    and the transaction with it. The cyclic garbage collector stays
    paused from the engine's run to the last stored row (engine/gcpause.py): the rows are millions of
    acyclic tuples, and collections over them cost more the bigger the design.
    """
    with cyclic_gc_paused():
        return _compute_and_store(job, progress)


def _compute_and_store(job: Job, progress: DbProgress) -> dict:
    t0 = time.perf_counter()
    attempt = job.attempts
    spec = parse_spec(job.params["spec"])
    catalog = load_catalog(_owners_parts(job))
    draft = start_design(spec, catalog, _engine_progress(progress.sub(0.0, 0.7)), design_limits())
    start_s = time.perf_counter() - t0
    peaks = {"engine first half": peak_mb()}  # VmHWM (MB) at the end of each phase: which one sets the peak
    links = len(draft.links)
    cables = adapters.cable_count(draft)
    progress.mark("storing", 0.7)
    finish_s = 0.0
    checks: tuple[str, ...] | None = None

    # Both in threads while the rows are stored: no database, no progress (DbProgress writes rows).
    def check() -> None:
        nonlocal checks, finish_s
        t = time.perf_counter()
        checks = check_design(draft)
        finish_s += time.perf_counter() - t

    document = b""
    encode_s = 0.0

    def finish() -> DesignResult:
        # Runs after check() in its thread while the cable rows are sent (they are all made ahead up to
        # AHEAD_ROWS cables), otherwise once they are sent, maybe before check() is done: the checks are
        # check()'s to run (checks=() skips them here); their names go into the result once the store has
        # waited for both. The snapshot is encoded here too, while the server loads the cables and builds their
        # indexes; the checks' names are stored beside it (RevisionSnapshot.checks).
        nonlocal finish_s, document, encode_s
        t = time.perf_counter()
        result = finish_design(draft, checks=())
        finish_s += time.perf_counter() - t
        peaks["engine second half"] = peak_mb()
        t = time.perf_counter()
        document = encode_result(result)
        encode_s = time.perf_counter() - t
        peaks["snapshot encode"] = peak_mb()
        return result

    # Progress written inside this transaction would stay invisible until the commit and would lock the
    # job row against heartbeats and cancel requests meanwhile, so the job row is touched only at the end.
    design_id = job.design_id
    if design_id is None:  # Job.design is nullable for other kinds of job; a compute job always names one
        raise RuntimeError(f"compute job {job.pk} names no design")
    with transaction.atomic():
        _lock_revision_numbers(design_id)
        number = (Revision.objects.filter(design_id=design_id).aggregate(m=Max("number"))["m"] or 0) + 1
        # Its summary and engine time are written below, once finish() has them, before anything commits.
        rev = Revision.objects.create(
            design_id=design_id,
            number=number,
            spec=spec.to_dict(),
            spec_hash=adapters.spec_hash(spec.normalized),
            engine_version=draft.engine_version,
            catalog_version=draft.catalog_version,
            summary={},
            link_count=links,
            cable_count=cables,
            created_by=job.created_by,
        )
        t1 = time.perf_counter()
        timings: dict[str, float] = {}
        (stored_links, stored_cables), result = store_revision_rows(
            rev.pk,
            [
                RowLoad(LinkRecord._meta.db_table, adapters.LINK_DB_COLUMNS, adapters.link_db_rows(draft, rev.pk)),
                RowLoad(
                    CableRecord._meta.db_table,
                    adapters.CABLE_DB_COLUMNS,
                    adapters.cable_db_rows(draft, rev.pk),
                    expected=cables,
                ),
            ],
            between=(lambda: _test_stall("storing")) if settings.JOB_TEST_STALL else None,
            early=check,
            meanwhile=finish,
            timings=timings,
        )
        if (stored_links, stored_cables) != (links, cables):
            raise RuntimeError(f"stored {stored_links} links and {stored_cables} cables, expected {links} and {cables}")
        compute_s = round(start_s + finish_s, 3)
        # store_revision_rows waited for both threads: meanwhile=finish gave its result, early=check its names
        assert result is not None and checks is not None
        result = replace(result, checks=checks)  # check() has finished: store_revision_rows waited for it
        Revision.objects.filter(pk=rev.pk).update(summary=result.summary, compute_seconds=compute_s)
        snapshot_save(revision_id=rev.pk, document=document, encode_seconds=encode_s, checks=checks or ())
        # compute_seconds is the engine's time, both halves; the second overlaps store_seconds.
        outcome = {
            "revision": number,
            "revision_id": rev.pk,
            "links": links,
            "cables": cables,
            "compute_seconds": compute_s,
            "compute_before_store_seconds": round(start_s, 3),
            "store_seconds": round(time.perf_counter() - t1, 3),
            "seconds": round(time.perf_counter() - t0, 3),
            "store_phases": {k: round(v, 3) for k, v in timings.items() if not k.endswith(" peak MB")},
            "peak_mb": peaks | {k[: -len(" peak MB")]: v for k, v in timings.items() if k.endswith(" peak MB")},
            "snapshot_bytes": len(document),
            "snapshot_encode_seconds": round(encode_s, 3),
        }
        # The job flips to succeeded in the same transaction as the revision: both or neither.
        if not job_succeed(job_id=job.pk, result=outcome, attempt=attempt):
            raise JobCancelled("the job was cancelled, or another worker took it over, before its result was stored")
    _after_store(rev.pk, links + cables)
    return outcome


def _after_store(revision_id: int, rows: int) -> None:
    """Once the revision has committed and is visible: what only makes its pages faster. A failure here
    costs speed, not data, and the hourly partition sweep builds whatever sort index is missing."""
    if partitioned(LinkRecord._meta.db_table):
        try:
            build_sort_indexes(revision_id)
        except DatabaseError:
            log.warning(
                "building the sort indexes of revision %s failed; the sweep will retry", revision_id, exc_info=True
            )
    if rows >= ANALYZE_AFTER_ROWS:
        _analyze_rows(revision_id)


def _owners_parts(job: Job) -> dict | None:
    """The design owner's custom parts as a catalog extension: a design computes with them, and its snapshot
    keeps them (apps/designs/snapshots.py)."""
    return custom_catalog_for(job.design.owner) if job.design else None


# PostgreSQL plans a page query with statistics that know nothing of rows loaded since the last ANALYZE:
# a new revision's rows are estimated as an average one's, and a big revision's pages may then sort the
# whole revision instead of walking an index. Its docs advise ANALYZE after a bulk load; it samples a fixed
# number of rows (a few hundred ms), so only big stores pay for it and autovacuum covers the rest.
ANALYZE_AFTER_ROWS = 50_000


def _analyze_rows(revision_id: int) -> None:
    if connection.vendor != "postgresql":
        return
    try:
        with transaction.atomic(), connection.cursor() as cur:
            if partitioned(LinkRecord._meta.db_table):  # the revision's own partitions: what its queries read
                analyze_partitions(revision_id)
            else:
                cur.execute(f"ANALYZE {LinkRecord._meta.db_table}, {CableRecord._meta.db_table}")
    except DatabaseError:  # the revision is stored; better statistics can wait for autovacuum
        log.warning("ANALYZE after storing a revision failed", exc_info=True)


# The advisory lock space (first key) of revision numbering; the second key is the design id.
_REVISION_LOCK = 0x6664  # "fd"


def _lock_revision_numbers(design_id: int) -> None:
    """Serialize the stores of one design's revisions until the transaction ends, so each takes the next number.

    PostgreSQL: a transaction-level advisory lock, which (unlike locking the design row) leaves the design
    free to be edited during a long store. SQLite: every write transaction already holds the database's
    write lock (BEGIN IMMEDIATE).
    """
    if connection.vendor == "postgresql":
        with connection.cursor() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s, %s)", [_REVISION_LOCK, design_id % 2**31])
    elif connection.vendor != "sqlite":
        Design.objects.select_for_update().filter(pk=design_id).first()


def _test_stall(stage: str, keep_reporting=None) -> None:
    """Test hook: with JOB_TEST_STALL="<stage>:<seconds>[:silent|:blocking]" (unset in production) a computation
    waits that long at `stage`, so integration tests can kill or cancel a worker mid-run deterministically.

    `stage` is an engine stage (the wait then calls `keep_reporting` every 0.2 s, so a cancel is noticed) or
    "storing" (inside the store's transaction, after the links are written and before the cables). "silent"
    waits without reporting progress, like a long stage that reports none; "blocking" waits in one call that
    never returns to Python meanwhile, like a stuck C extension (only the hard limit ends it).
    """
    wanted, _, rest = settings.JOB_TEST_STALL.partition(":")
    if wanted != stage:
        return
    seconds, _, mode = rest.partition(":")
    try:
        until = time.monotonic() + float(seconds)
    except ValueError:
        raise ImproperlyConfigured(f"JOB_TEST_STALL={settings.JOB_TEST_STALL!r}: write <stage>:<seconds>") from None
    log.warning(
        "JOB_TEST_STALL: holding the computation at %r for %s s%s", stage, seconds, f" ({mode})" if mode else ""
    )
    if mode == "blocking":
        time.sleep(float(seconds))
        return
    while time.monotonic() < until:
        time.sleep(0.2)
        if keep_reporting is not None and mode != "silent":
            keep_reporting()


def _engine_progress(progress):
    """The engine's progress callback: `progress` itself, or with the test hook around it when it is set."""
    if not settings.JOB_TEST_STALL:
        return progress

    def reporting(stage: str, done: int, total: int) -> None:
        progress(stage, done, total)
        _test_stall(stage, lambda: progress(stage, done, total))

    return reporting


def revision_compare(*, old: Revision, new: Revision) -> dict:
    """What changed between two revisions: the counts that differ (labelled, in page order, signed deltas) and
    how many links and cables were added, removed or changed (apps.designs.compare)."""
    from .compare import revision_counts_diff, revision_row_diff

    rows = revision_row_diff(old=old, new=new).counts()
    return {
        "old": old.number,
        "new": new.number,
        "counts": revision_counts_diff(old=old, new=new),
        "rows": rows,
        "links_added": rows["links"]["added"],
        "links_removed": rows["links"]["removed"],
    }


__all__ = [
    "design_check_spec",
    "design_limits",
    "design_validate_spec",
    "design_create",
    "design_update",
    "design_delete",
    "design_share",
    "design_unshare",
    "design_leave",
    "design_compute_enqueue",
    "design_compute_request",
    "ComputeRequest",
    "design_compute_job",
    "revision_compare",
    "JobStatus",
]


def owner_custom_parts(owner) -> dict | None:
    """A user's custom parts as a catalog extension (None when they have none): the snapshot backfill
    recomputes an old revision with them, as its compute did."""
    return custom_catalog_for(owner) if owner is not None else None
