"""Files of a revision: CSV straight from the stored rows, renderer deliverables, measured results.

links.csv and cables.csv stream from LinkRecord / CableRecord rows in the CLI's format
(apps.designs.table_csv). On PostgreSQL the server writes the CSV itself (COPY (SELECT ...) TO STDOUT
WITH CSV, about 6x the ORM path in performance-notes.md); elsewhere an ORM iterator feeds csv.writer.
Either way the rows go out in ~64 KB chunks and are never all in memory.
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Iterator

from django.conf import settings
from django.db import connection
from django.http import FileResponse, HttpResponse, HttpResponseRedirect
from django.utils.text import slugify

from apps.common.http_cache import cache_headers
from apps.designs.models import CableRecord, LinkRecord, Revision
from apps.designs.table_csv import csv_lines, sql_select_list, stored_columns
from apps.exports.artifacts import artifact_open, artifact_storage, artifact_touch
from apps.exports.models import Artifact

from .errors import ApiError
from .models import MeasurementUpload

CHUNK = 64 * 1024

# kind -> (content type, produced from) for the files that come from the database.
DB_FILES = {
    "links.csv": "text/csv; charset=utf-8",
    "cables.csv": "text/csv; charset=utf-8",
    "summary.json": "application/json",
    "spec.json": "application/json",
}


def download_filename(revision: Revision, kind: str) -> str:
    name = slugify(revision.design.name)[:60] or f"design-{revision.design_id}"
    return f"{name}-r{revision.number}-{kind}"


FILE_BLOCK = 256 * 1024  # bytes per write while streaming a stored file


def artifact_etag(artifact: Artifact) -> str:
    return f'"{artifact.sha256}"'


def artifact_response(artifact: Artifact, filename: str, *, immutable: bool = True) -> HttpResponse:
    """A stored deliverable as a download, streamed from the artifact store a block at a time (the process
    never holds the file), or handed to nginx with X-Accel-Redirect when settings.ARTIFACT_ACCEL_REDIRECT
    names the internal location of the files store, or redirected to a presigned URL of the s3 store
    (settings.ARTIFACT_S3_REDIRECT)."""
    artifact_touch(artifact)
    if settings.ARTIFACT_S3_REDIRECT and settings.ARTIFACT_STORE == "s3":
        # The object store sends the bytes: a presigned URL valid for 5 minutes, so this answer is not kept.
        location = artifact_storage().url(
            artifact.name,
            parameters={
                "ResponseContentDisposition": f'attachment; filename="{filename}"',
                "ResponseContentType": artifact.content_type,
            },
        )
        response = HttpResponseRedirect(location)
        response["Cache-Control"] = "private, no-store"
        return response
    if settings.ARTIFACT_ACCEL_REDIRECT and settings.ARTIFACT_STORE == "files":
        response = HttpResponse(content_type=artifact.content_type)
        response["X-Accel-Redirect"] = settings.ARTIFACT_ACCEL_REDIRECT.rstrip("/") + "/" + artifact.name
    else:
        response = FileResponse(artifact_open(artifact), content_type=artifact.content_type)
        response.block_size = FILE_BLOCK
        response["Content-Length"] = str(artifact.size)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return cache_headers(response, artifact_etag(artifact), immutable=immutable)


def iter_table_csv(revision: Revision, kind: str, *, raw: bool = False) -> Iterator[bytes]:
    """links.csv / cables.csv of a revision as the CLI writes them (apps.designs.table_csv), as byte chunks; text
    cells beginning with a formula character get a leading ' unless `raw` (engine/csvcells.py)."""
    table = "links" if kind == "links.csv" else "cables"
    model, order = (LinkRecord, "link_id") if table == "links" else (CableRecord, "cable_id")
    if connection.vendor == "postgresql":
        yield from _copy_csv(model, table, order, revision.pk, raw=raw)
        return
    rows = model.objects.filter(revision_id=revision.pk).order_by(order).values_list(*stored_columns(table))
    parts: list[str] = []
    size = 0
    for line in csv_lines(table, rows.iterator(chunk_size=5000), raw=raw):
        parts.append(line)
        size += len(line)
        if size >= CHUNK:
            yield "".join(parts).encode()
            parts, size = [], 0
    yield "".join(parts).encode()


def _copy_csv(model, table: str, order: str, revision_id: int, *, raw: bool = False) -> Iterator[bytes]:
    qn = connection.ops.quote_name
    text = {f.column for f in model._meta.fields if f.get_internal_type() == "CharField"}
    sql = (
        f"COPY (SELECT {sql_select_list(table, qn, text, raw=raw)} FROM {qn(model._meta.db_table)} "
        f"WHERE revision_id = {int(revision_id)} ORDER BY {qn(order)}) TO STDOUT WITH (FORMAT CSV, HEADER)"
    )
    parts: list[bytes] = []
    size = 0
    with connection.cursor() as cur:
        with cur.cursor.copy(sql) as copy:
            for data in copy:
                parts.append(bytes(data))
                size += len(data)
                if size >= CHUNK:
                    yield b"".join(parts)
                    parts, size = [], 0
    yield b"".join(parts)


# --- measured test results -----------------------------------------------------------------------

MAX_ROWS = 2_000_000
MAX_STORED_ERRORS = 1000  # rows with errors kept with an upload (the first of error_count)
MAX_ERROR_FIELDS = 100  # rows with errors named in a refusal's `fields`


class UploadRejected(ApiError):
    """A 400 `invalid_upload`: nothing was stored. `errors` lists every row that does not fit as
    (line, column, message); the error's `fields` name the first MAX_ERROR_FIELDS of them."""

    def __init__(self, message: str, errors=()):
        self.errors = [tuple(e) for e in errors]
        super().__init__(400, "invalid_upload", message, error_fields(self.errors[:MAX_ERROR_FIELDS]))


def error_fields(errors) -> list[dict]:
    """(line, column, message) rows as the API's error fields: {path: the CSV column's name ("" for the whole row),
    line: the CSV line (the header is line 1), message} (docs/api.md, Errors)."""
    return [{"path": column or "", "line": line, "message": message} for line, column, message in errors]


def error_field_text(field: dict) -> str:
    """A field error as a person reads it: `line 3.measured_loss_db`, `line 4`."""
    where = f"line {field['line']}" if "line" in field else ""
    if field.get("path"):
        where = f"{where}.{field['path']}" if where else field["path"]
    return where


def _basic_check(text: str) -> int:
    """Rows of a CSV with a header, every row as wide as the header; ApiError(400) otherwise."""
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader, None)
        if not header or not any(h.strip() for h in header):
            raise ApiError(
                400,
                "invalid_upload",
                "The CSV has no header row.",
                [{"path": "", "line": 1, "message": "a header row is required"}],
            )
        rows = 0
        for row in reader:
            if not row:
                continue
            rows += 1
            if len(row) != len(header):
                line = reader.line_num
                raise ApiError(
                    400,
                    "invalid_upload",
                    f"Line {line} has {len(row)} columns; the header has {len(header)}.",
                    [{"path": "", "line": line, "message": "column count differs"}],
                )
            if rows > MAX_ROWS:
                raise ApiError(413, "payload_too_large", f"More than {MAX_ROWS} rows.")
    except csv.Error as exc:
        raise ApiError(400, "invalid_upload", f"Not a valid CSV file: {exc}") from None
    if rows == 0:
        raise ApiError(400, "invalid_upload", "The CSV has a header but no rows.")
    return rows


def measurement_upload(
    *, revision: Revision, user, text: str, filename: str, check=None, test_limit: str = "pmd", keep_valid: bool = True
) -> MeasurementUpload:
    """Validate and store a measured test-results CSV: one policy for the API, `manage.py import-results`
    and the browser.

    `check(text)` is the renderers' validation against the revision's test sheet: it returns
    {"rows", "errors": [(line, column, message)], "counts"}, or None when this build has none, in
    which case the CSV is only checked for shape (any bad row refuses it).

    Refused (UploadRejected / ApiError, nothing stored) when nothing usable is in the file: empty, NUL
    characters, a wrong header (no fiber_id / measured_loss_db), no valid row; and, when `keep_valid` is
    False (all-or-nothing), when any row has an error. Otherwise (the default) the valid rows are judged
    and stored, and the rows with errors are kept with the upload (`errors`, the first MAX_STORED_ERRORS
    of `error_count`). `test_limit` (pmd | budget) is recorded with it.
    """
    if not text.strip():
        raise ApiError(400, "invalid_upload", "The upload is empty; send the CSV as a text/csv body.")
    if "\x00" in text:
        raise ApiError(400, "invalid_upload", "The upload contains NUL characters; it is not a CSV text file.")
    checked = check(text) if check is not None else None
    if checked is None:
        rows, counts, errors = _basic_check(text), {}, []
    else:
        rows, counts, errors = checked["rows"], checked["counts"], [tuple(e) for e in checked["errors"]]
        header = [e for e in errors if e[0] == 1]
        if header:
            raise UploadRejected(f"Wrong header: {header[0][2]}.", errors)
        if not rows:
            raise UploadRejected(
                f"None of the rows fits this revision's test sheet ({len(errors):,} with errors)."
                if errors
                else "The CSV has a header but no rows.",
                errors,
            )
        if errors and not keep_valid:
            raise UploadRejected(f"{len(errors):,} row(s) do not fit this revision's test sheet.", errors)
    raw = text.encode()
    return MeasurementUpload.objects.create(
        revision=revision,
        uploaded_by=user,
        filename=filename[:200],
        size=len(raw),
        rows=rows,
        counts=counts,
        test_limit=test_limit,
        errors=[list(e) for e in errors[:MAX_STORED_ERRORS]],
        error_count=len(errors),
        sha256=hashlib.sha256(raw).hexdigest(),
        content=text,
    )
