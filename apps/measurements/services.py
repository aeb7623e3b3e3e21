"""Measured fiber test results in the browser: store an upload, list a revision's uploads, judge one.

Storing is `apps.measurements.uploads.measurement_upload`, shared with the REST API and
`manage.py import-results`: it decides what is refused and what is kept (by default the valid rows of a
sheet that has some bad rows). This module adds what the browser needs around it: the file's size and
encoding, structured row errors when nothing is stored, and the full verdicts of one upload (per fiber
and per link, worst first).

Only the counts are stored with an upload; the verdicts are worked out again from the stored CSV
and the revision's test sheet (from its snapshot), as the API's downloads are. What an upload
is judged against (per fiber its link, expected loss and limit; per link its ends) is a per-revision
limits table, derived once from the snapshot and kept in the cache under the revision's fingerprint
(apps.designs.revision_cache), so an upload's page decodes no snapshot.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.http import Http404
from django.utils import timezone

from apps.common.errors import DomainError
from apps.designs.models import Revision
from apps.designs.revision_cache import (
    cached_value,
    revision_fingerprint,
    revision_key,
)
from apps.exports.services import DeliverableUnavailable, revision_result
from apps.jobs.models import Job
from apps.jobs.progress import DbProgress, JobFailed
from apps.jobs.services import job_create
from engine.errors import SpecError

from .models import MeasurementStanding, MeasurementUpload
from .uploads import (
    MAX_STORED_ERRORS,
    ErrorRow,
    UploadInvalid,
    UploadRejected,
    error_field_text,
    measurement_judge,
    measurement_upload,
    measurement_upload_unread,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from deliverables.testsheet import Comparison, MeasuredFiber, ParseError

TEST_LIMITS = {
    "pmd": "The PMD's maximum channel loss (the test sheet's limit_db)",
    "budget": "The design's worst-case loss (stricter)",
}


class MeasurementRejected(Exception):
    """The file was refused and nothing was stored: a message, and the rows that do not fit."""

    def __init__(self, message: str, errors: Iterable[ErrorRow] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.errors: list[tuple[int | None, str, str]] = list(errors)  # (line, column, message)


class MeasurementUnavailable(Exception):
    """The verdicts of an upload cannot be worked out (no parser in this build, or the revision no
    longer computes with its owner's current custom parts)."""


# --- services --------------------------------------------------------------------------------------


def measurement_create(
    *, revision: Revision, user: User, data: bytes, filename: str, test_limit: str = "pmd", keep_valid: bool = True
) -> MeasurementUpload:
    """Validate a filled test sheet against the revision and store it.

    Refused (MeasurementRejected, nothing stored): a file over API_MAX_UPLOAD_BYTES, not UTF-8 text,
    empty, with NUL characters, without the fiber_id / measured_loss_db header, with no valid row, or
    with any bad row unless `keep_valid`; then the valid rows are stored and the bad ones listed.
    """
    if test_limit not in TEST_LIMITS:
        raise MeasurementRejected(f"Unknown pass limit {test_limit!r}.")
    limit = settings.API_MAX_UPLOAD_BYTES
    if len(data) > limit:
        raise MeasurementRejected(f"The file is {len(data):,} bytes; the limit is {limit:,} bytes.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise MeasurementRejected("The file is not UTF-8 text. Upload the test sheet saved as CSV (UTF-8).") from None

    def check(text: str) -> dict | None:
        try:
            return measurements_check_revision(revision=revision, text=text, test_limit=test_limit)
        except DeliverableUnavailable:
            return None  # this build has no test-sheet parser: the service checks the CSV's shape only
        except MeasurementUnavailable as exc:
            raise MeasurementRejected(str(exc)) from None

    # What is refused and what is kept is the service's rule, the same for the API and import-results.
    try:
        upload = measurement_upload(
            revision=revision,
            user=user,
            text=text,
            filename=filename,
            check=check,
            test_limit=test_limit,
            keep_valid=keep_valid,
        )
    except UploadRejected as exc:
        raise MeasurementRejected(exc.message, exc.errors) from None
    except DomainError as exc:
        raise MeasurementRejected(exc.message, _errors_of(exc.fields)) from None
    measurement_standing_refresh(revision=revision)
    return upload


def measurement_submit(
    *, revision: Revision, user: User, data: bytes, filename: str, test_limit: str = "pmd", keep_valid: bool = True
) -> tuple[MeasurementUpload, Job | None]:
    """The browser's upload: (upload, None) once stored by measurement_create, or for a file over
    MEASUREMENTS_READ_IN_REQUEST_BYTES (upload, job): stored as received and judged by the job. MeasurementRejected
    as measurement_create (only what size and type tell for a large file); JobQuotaExceeded."""
    if len(data) <= settings.MEASUREMENTS_READ_IN_REQUEST_BYTES:
        return measurement_create(
            revision=revision, user=user, data=data, filename=filename, test_limit=test_limit, keep_valid=keep_valid
        ), None
    limit = settings.API_MAX_UPLOAD_BYTES
    if len(data) > limit:
        raise MeasurementRejected(f"The file is {len(data):,} bytes; the limit is {limit:,} bytes.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise MeasurementRejected("The file is not UTF-8 text. Upload the test sheet saved as CSV (UTF-8).") from None
    try:
        return measurement_import_unread(
            revision=revision, user=user, text=text, filename=filename, test_limit=test_limit, keep_valid=keep_valid
        )
    except UploadInvalid as exc:
        raise MeasurementRejected(exc.message, _errors_of(exc.fields)) from None


def measurement_import_unread(
    *, revision: Revision, user: User, text: str, filename: str, test_limit: str = "pmd", keep_valid: bool = True
) -> tuple[MeasurementUpload, Job]:
    """A CSV over MEASUREMENTS_READ_IN_REQUEST_BYTES: stored as received and read by the job it returns with it
    (kind "measurements"), never in the web process. UploadInvalid when empty or not text, JobQuotaExceeded when
    the user has too many jobs waiting (nothing stored either way)."""
    if test_limit not in TEST_LIMITS:
        raise MeasurementRejected(f"Unknown pass limit {test_limit!r}.")
    with transaction.atomic():
        upload = measurement_upload_unread(
            revision=revision, user=user, text=text, filename=filename, test_limit=test_limit
        )
        job = job_create(
            kind="measurements",
            user=user,
            design=revision.design,
            params={"revision_id": revision.pk, "upload_id": upload.pk, "keep_valid": keep_valid},
        )
    return upload, job


def measurements_read_job(*, job: Job, progress: DbProgress) -> dict:
    """Job kind "measurements": judge a CSV stored unread against the revision's test sheet, as the request does
    for a small one (measurement_judge), then refresh the standing. One it refuses is deleted (it never counts)
    and the job fails saying why (JobFailed: no traceback)."""
    upload = MeasurementUpload.objects.filter(pk=job.params["upload_id"]).select_related("revision").first()
    if upload is None:
        raise JobFailed("The measured-results file is no longer stored (deleted before it was read).")
    revision = upload.revision
    if not upload.read:
        progress(f"reading {upload.filename}", 0, 2)

        def check(text: str) -> dict | None:
            try:
                return measurements_check_revision(revision=revision, text=text, test_limit=upload.test_limit)
            except DeliverableUnavailable:
                return None

        try:
            rows, counts, errors = measurement_judge(
                text=upload.content, check=check, keep_valid=job.params.get("keep_valid", True)
            )
        except (DomainError, MeasurementUnavailable) as exc:
            MeasurementUpload.objects.filter(pk=upload.pk).delete()
            fields = getattr(exc, "fields", None) or []
            where = "; ".join(f"{error_field_text(f)}: {f['message']}" for f in fields[:5])
            message = getattr(exc, "message", str(exc))
            raise JobFailed(
                f"{upload.filename} was refused and not kept: {message}" + (f" ({where})" if where else "")
            ) from None
        MeasurementUpload.objects.filter(pk=upload.pk).update(
            rows=rows,
            counts=counts,
            errors=[list(e) for e in errors[:MAX_STORED_ERRORS]],
            error_count=len(errors),
            read=True,
        )
    progress("counting it with the other uploads", 1, 2)
    measurement_standing_refresh(revision=revision)
    upload.refresh_from_db()
    return {"revision_id": revision.pk, "upload_id": upload.pk, "rows": upload.rows, "errors": upload.error_count}


def measurements_check_revision(*, revision: Revision, text: str, test_limit: str = "pmd") -> dict:
    """Check a filled test sheet against the revision's limits table, as an upload is stored: {"rows",
    "errors": [(line, column, message)], "counts"} (counts of the valid rows). The table comes from the cache,
    and a miss reads the snapshot once and fills it, so the upload's own page then reads nothing more.

    DeliverableUnavailable when this build cannot read test sheets; MeasurementUnavailable when the revision
    no longer computes.
    """
    r = _test_sheet_renderers()
    if r is None:
        raise DeliverableUnavailable("measurements")
    index = _limits_table(r, revision, test_limit).index
    rows, errors = r.parse_test_results(text, index)
    counts = r.compare(rows, index).counts if rows or not errors else {}
    return {"rows": len(rows), "errors": [(e.line, e.column, e.message) for e in errors], "counts": counts}


def _test_sheet_renderers() -> ModuleType | None:
    """The renderers module when it can read test sheets back, else None."""
    try:
        import deliverables as r
    except ImportError:
        return None
    return r if hasattr(r, "parse_test_results") else None


def _errors_of(fields: Iterable[Mapping[str, Any]] | None) -> list[ErrorRow]:
    """A refusal's fields ({path: column, line, message}) as (line, column, message)."""
    return [(f.get("line"), f.get("path") or "", f["message"]) for f in fields or []]


# --- selectors -------------------------------------------------------------------------------------


def measurement_list(*, revision: Revision) -> QuerySet[MeasurementUpload]:
    """A revision's uploads, newest first, without their CSV text."""
    return (
        revision.measurements.filter(read=True)
        .select_related("uploaded_by", "withdrawn_by")
        .defer("content", "errors")
        .order_by("-id")
    )


def measurement_get(*, revision: Revision, upload_id: int) -> MeasurementUpload:
    upload = revision.measurements.select_related("uploaded_by").filter(pk=upload_id, read=True).first()
    if upload is None:
        raise Http404("No such upload.")
    return upload


# The test-sheet columns of a link's ends that an upload's page shows (from the link's first row).
END_COLUMNS = ("network", "tier", "a_device", "a_port", "b_device", "b_port", "medium", "cable_ids")
_LIMITS_VERSION = 1  # bump when the cached table's shape changes


@dataclass(frozen=True)
class LimitsTable:
    """A revision's test sheet as an upload is judged against it.

    index: fiber_id -> (link_id, expected dB, limit dB), in test-sheet order (the mapping form the renderers'
    parse_test_results and compare accept); ends: link_id -> END_COLUMNS values of the link's first row.
    """

    index: dict
    ends: dict


def _num(x: str | float | None) -> float | None:
    return None if x is None or x == "" else float(x)


def _encode_limits(rows: Iterable[Sequence[Any]], columns: Sequence[str]) -> tuple[list, list]:
    """Test-sheet rows as a compact blob: runs of rows of one link with the same values share one entry and
    the tuple of their fiber ids' suffixes after "<link_id>:" (a few distinct ones per design)."""
    c = {name: i for i, name in enumerate(columns)}
    i_f, i_l, i_e, i_m = c["fiber_id"], c["link_id"], c["expected_loss_db"], c["limit_db"]
    i_ends = [c[k] for k in END_COLUMNS]
    runs: list[list] = []  # [link_id, ends, expected, limit, joined, [fiber id suffixes]]
    run = None
    for row in rows:
        lid, fid = row[i_l], row[i_f]
        joined = fid.startswith(f"{lid}:")
        suffix = fid[len(lid) + 1 :] if joined else fid
        ends = tuple(row[i] for i in i_ends)
        if (
            run is None
            or run[0] != lid
            or run[2] != row[i_e]
            or run[3] != row[i_m]
            or run[4] != joined
            or run[1] != ends
        ):
            run = [lid, ends, row[i_e], row[i_m], joined, []]
            runs.append(run)
        run[5].append(suffix)
    patterns: dict[tuple, int] = {}
    out = [
        (lid, ends, e, m, joined, patterns.setdefault(tuple(sfx), len(patterns)))
        for lid, ends, e, m, joined, sfx in runs
    ]
    return list(patterns), out


def _decode_limits(compact: tuple[list, list]) -> LimitsTable:
    patterns, runs = compact
    index: dict = {}
    ends: dict = {}
    for lid, link_ends, e, m, joined, p in runs:
        value = (lid, _num(e), _num(m))
        prefix = f"{lid}:" if joined else ""
        for suffix in patterns[p]:
            index[prefix + suffix] = value
        ends.setdefault(lid, link_ends)
    return LimitsTable(index, ends)


def _limits_table(r: ModuleType, revision: Revision, test_limit: str) -> LimitsTable:
    """The revision's limits table for `test_limit` from the cache; on a miss the snapshot is read once
    (concurrent misses wait) and the table kept unless larger than REVISION_CACHE_MAX_BYTES."""
    key = revision_key("test-limits", _LIMITS_VERSION, revision_fingerprint(revision), test_limit)

    def compute() -> tuple[list, list]:
        try:
            result = revision_result(revision=revision)
        except SpecError as exc:
            raise MeasurementUnavailable(f"The revision's test limits are not available: {exc}") from None
        compact = _encode_limits(r.iter_test_rows(result, test_limit=test_limit), r.TEST_SHEET_COLUMNS)
        del result
        return compact

    return _decode_limits(cached_value(key, compute, level=6))


def _comparison(
    upload: MeasurementUpload,
) -> tuple[ModuleType, LimitsTable, list[MeasuredFiber], list[ParseError], Comparison]:
    """(renderers, limits table, parsed rows, parse errors, Comparison) of an upload."""
    r = _test_sheet_renderers()
    if r is None:
        raise MeasurementUnavailable("This build cannot read test sheets back.")
    table = _limits_table(r, upload.revision, upload.test_limit)
    rows, errors = r.parse_test_results(upload.content, table.index)
    return r, table, rows, errors, r.compare(rows, table.index)


def measurement_report(*, upload: MeasurementUpload, limit: int = 200) -> dict:
    """Everything about one upload: counts of fibers and links by verdict, the rows with errors, the
    failing links worst first (smallest margin) with their ends, the failing fibers and the fibers that
    pass above the design's worst case; at most `limit` of each list.

    {"unavailable": message, "errors", "error_count"} (the stored ones) when the verdicts cannot be
    worked out.
    """
    try:
        _r, table, _rows, errors, comparison = _comparison(upload)
    except MeasurementUnavailable as exc:
        return {"unavailable": str(exc), "errors": upload.errors, "error_count": upload.error_count}
    report = _verdicts(table, comparison, limit)
    # Read again from the stored CSV (the same rows as stored, all of them counted).
    report["errors"] = [(e.line, e.column, e.message) for e in errors[:MAX_STORED_ERRORS]]
    report["error_count"] = len(errors)
    # The stored counts were taken at upload time; different ones now mean the revision computes
    # differently (its owner's custom parts changed), and the verdicts are today's.
    report["changed"] = bool(upload.counts) and comparison.counts != upload.counts
    return report


def _verdicts(table: LimitsTable, comparison: Comparison, limit: int) -> dict:
    """Counts by verdict, the failing links worst first with their ends, the failing fibers and the fibers
    passing above the design's worst case (at most `limit` of each list)."""
    link_margin: dict[str, float] = {}
    link_limit: dict[str, float | None] = {}
    for f in comparison.fibers:
        link_limit.setdefault(f.link_id, f.limit_db)
        if f.margin_db is not None and (f.link_id not in link_margin or f.margin_db < link_margin[f.link_id]):
            link_margin[f.link_id] = f.margin_db
    failing = sorted(
        (lk for lk in comparison.links if lk.status == "fail"),
        key=lambda lk: (link_margin.get(lk.link_id, 0.0), lk.link_id),
    )
    ends = {
        lk.link_id: dict(zip(END_COLUMNS, table.ends[lk.link_id]))  # the shown links' ends (first row)
        for lk in failing[:limit]
        if lk.link_id in table.ends
    }
    failing_fibers = sorted(
        (f for f in comparison.fibers if f.status == "fail"),
        key=lambda f: (f.margin_db if f.margin_db is not None else 0.0, f.fiber_id),
    )
    above = [f for f in comparison.fibers if f.above_expected]
    fibers = Counter(f.status for f in comparison.fibers)
    links = Counter(
        "pass"
        if lk.status == "pass"
        else "fail"
        if lk.status == "fail"
        else "incomplete"
        if lk.measured
        else "not-measured"
        for lk in comparison.links
    )
    return {
        "fibers": {
            "pass": fibers["pass"],
            "fail": fibers["fail"],
            "not_measured": fibers["not-measured"],
            "total": len(comparison.fibers),
            "above_expected": len(above),
        },
        "links": {
            "pass": links["pass"],
            "fail": links["fail"],
            "incomplete": links["incomplete"],
            "not_measured": links["not-measured"],
            "total": len(comparison.links),
        },
        "failing_links": [
            {
                "link_id": lk.link_id,
                "fibers": lk.fibers,
                "measured": lk.measured,
                "failed": lk.failed,
                "worst_db": lk.worst_db,
                "limit_db": link_limit.get(lk.link_id),
                "margin_db": link_margin.get(lk.link_id),
                **ends.get(lk.link_id, {}),
            }
            for lk in failing[:limit]
        ],
        "failing_fibers": failing_fibers[:limit],
        "above_expected": above[:limit],
    }


# --- standing results: every upload of a revision together ------------------------------------------
#
# A test campaign uploads per rack or per day, and re-tests a fiber after cleaning it. What counts for a fiber
# is its latest measured value in any upload not withdrawn (a later upload with the cell empty does not erase
# it). The standing results are judged against the pass limit of the newest upload counted, unless asked for
# another; MeasurementStanding keeps their counts for the revision page.


def _counted_uploads(revision: Revision) -> list[MeasurementUpload]:
    return list(revision.measurements.filter(withdrawn_at__isnull=True, read=True).order_by("id"))


@dataclass(frozen=True)
class Standing:
    test_limit: str
    table: LimitsTable
    comparison: Comparison  # the latest measurement of every fiber
    source: dict  # fiber_id -> id of the upload its counted value comes from
    uploads: list  # the uploads counted, oldest first


def _standing(revision: Revision, test_limit: str | None = None) -> Standing:
    """The standing results; MeasurementUnavailable when they cannot be worked out."""
    r = _test_sheet_renderers()
    if r is None:
        raise MeasurementUnavailable("This build cannot read test sheets back.")
    uploads = _counted_uploads(revision)
    limit = test_limit or (uploads[-1].test_limit if uploads else "pmd")
    table = _limits_table(r, revision, limit)
    latest: dict = {}
    source: dict = {}
    for upload in uploads:
        rows, _errors = r.parse_test_results(upload.content, table.index)
        for row in rows:
            if row.measured_db is not None:
                latest[row.fiber_id] = row
                source[row.fiber_id] = upload.pk
    return Standing(limit, table, r.compare(latest.values(), table.index), source, uploads)


def measurement_standing_report(*, revision: Revision, test_limit: str | None = None, limit: int = 200) -> dict:
    """The revision's standing results (see above) as measurement_report gives one upload's, plus the uploads
    counted with the number of fibers whose counted value each supplies, and the pass limit judged against.
    {"unavailable": message} when they cannot be worked out."""
    try:
        st = _standing(revision, test_limit)
    except MeasurementUnavailable as exc:
        return {"unavailable": str(exc)}
    report = _verdicts(st.table, st.comparison, limit)
    supplied = Counter(st.source.values())
    report["test_limit"] = st.test_limit
    report["uploads"] = [{"upload": u, "fibers": supplied[u.pk]} for u in reversed(st.uploads)]
    return report


def measurement_link_margins(*, revision: Revision) -> dict[str, float]:
    """Per measured link ("L000001") the least margin of its measured fibers to their limit (dB), from the
    standing results; empty before any upload or when they cannot be worked out."""
    if not _counted_uploads(revision):
        return {}
    try:
        st = _standing(revision)
    except MeasurementUnavailable:
        return {}
    out: dict[str, float] = {}
    for f in st.comparison.fibers:
        if f.margin_db is not None:
            out[f.link_id] = min(out.get(f.link_id, f.margin_db), f.margin_db)
    return out


def measurement_link_status(*, revision: Revision) -> dict[str, str] | None:
    """Per link of the test sheet ("L000001") its standing loss verdict: pass, fail or incomplete (not every
    fiber measured yet; every link before the first upload); None when the verdicts cannot be worked out. A link
    not on the test sheet (copper) has no loss test."""
    try:
        st = _standing(revision)
    except MeasurementUnavailable:
        return None
    return {lk.link_id: lk.status for lk in st.comparison.links}


def measurement_standing_refresh(*, revision: Revision) -> MeasurementStanding:
    """Work out the revision's standing counts again and store them (after an upload is stored or withdrawn).

    Refreshes of one revision run one at a time (the row is locked), each reading the uploads after taking
    the lock, so the last one to finish has counted every upload committed before it."""
    with transaction.atomic():
        row, _ = MeasurementStanding.objects.select_for_update().get_or_create(revision=revision)
        try:
            st = _standing(revision)
        except MeasurementUnavailable:
            return row  # kept as it was: the pages say why the verdicts cannot be worked out
        row.test_limit = st.test_limit
        row.counts = st.comparison.counts if st.uploads else {}
        row.uploads = len(st.uploads)
        row.measured_fibers = len(st.source)
        row.save()
    return row


def measurement_standing(*, revision: Revision) -> MeasurementStanding | None:
    """The stored standing counts of a revision (MeasurementStanding), or None before its first upload."""
    return MeasurementStanding.objects.filter(revision=revision).first()


def measurement_withdraw(*, upload: MeasurementUpload, user: User, withdraw: bool = True) -> MeasurementUpload:
    """Withdraw an upload (its rows stop counting; it stays listed) or, with withdraw=False, count it again."""
    if withdraw and upload.withdrawn_at is None:
        upload.withdrawn_at, upload.withdrawn_by = timezone.now(), user
    elif not withdraw and upload.withdrawn_at is not None:
        upload.withdrawn_at, upload.withdrawn_by = None, None
    else:
        return upload
    upload.save(update_fields=["withdrawn_at", "withdrawn_by"])
    measurement_standing_refresh(revision=upload.revision)
    return upload


def measurement_fiber_history(*, revision: Revision, fiber_id: str) -> dict:
    """Every measurement of one fiber across the revision's uploads, newest first, and which one counts:
    {"fiber_id", "link_id", "expected_db", "limit_db", "rows": [{"upload", "line", "measured_db", "counted",
    "status"}]}. MeasurementUnavailable when the test sheet cannot be read; Http404 for a fiber not on it."""
    st = _standing(revision)
    entry = st.table.index.get(fiber_id)
    if entry is None:
        raise Http404("No such fiber in this revision's test sheet.")
    link_id, expected, limit_db = entry
    r = _test_sheet_renderers()
    if r is None:  # _standing has just read the test sheet with it: the same answer, said as the docstring says
        raise MeasurementUnavailable("This build cannot read test sheets back.")
    rows = []
    uploads = revision.measurements.filter(read=True).select_related("uploaded_by", "withdrawn_by").order_by("-id")
    for upload in uploads:
        if fiber_id not in upload.content:  # cheap filter before parsing the whole file
            continue
        parsed, _errors = r.parse_test_results(upload.content, st.table.index)
        for row in (p for p in parsed if p.fiber_id == fiber_id):
            status = (
                "not-measured"
                if row.measured_db is None
                else "pass"
                if limit_db is None or row.measured_db <= limit_db
                else "fail"
            )
            rows.append(
                {
                    "upload": upload,
                    "line": row.line,
                    "measured_db": row.measured_db,
                    "status": status,
                    "counted": st.source.get(fiber_id) == upload.pk and row.measured_db is not None,
                }
            )
    return {
        "fiber_id": fiber_id,
        "link_id": link_id,
        "expected_db": expected,
        "limit_db": limit_db,
        "test_limit": st.test_limit,
        "rows": rows,
    }


def measurement_results_lines(*, upload: MeasurementUpload) -> Iterator[str]:
    """The per-fiber verdicts as CSV lines (fiber_id, link_id, expected, limit, measured, margin,
    status, above_expected), every fiber of the test sheet; MeasurementUnavailable if they cannot be
    worked out."""
    r, _table, _rows, _errors, comparison = _comparison(upload)
    return r.iter_results_csv(comparison)
