"""Files of a revision: CSV straight from the stored rows and renderer deliverables (measured results: apps.measurements).

links.csv and cables.csv stream from LinkRecord / CableRecord rows in the CLI's format
(apps.designs.table_csv). On PostgreSQL the server writes the CSV itself (COPY (SELECT ...) TO STDOUT
WITH CSV, about 6x the ORM path in performance-notes.md); elsewhere an ORM iterator feeds csv.writer.
Either way the rows go out in ~64 KB chunks and are never all in memory.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.db import connection
from django.http import FileResponse, HttpResponse, HttpResponseBase, HttpResponseRedirect, StreamingHttpResponse
from django.utils.text import slugify
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse

from apps.common.http_cache import cache_headers
from apps.designs.models import CableRecord, LinkRecord, Revision
from apps.designs.selectors import revision_halls
from apps.designs.table_csv import csv_lines, sql_select_list, stored_columns
from apps.exports.artifacts import artifact_chunks, artifact_open, artifact_storage, artifact_touch
from apps.exports.models import Artifact
from deliverables.registry import STORED_FILES

CHUNK = 64 * 1024

# kind -> content type of the files that come from the database (the registry's stored files).
DB_FILES = {k: f.content_type for k, f in STORED_FILES.items()}


def download_filename(revision: Revision, kind: str) -> str:
    name = slugify(revision.design.name)[:60] or f"design-{revision.design_id}"
    return f"{name}-r{revision.number}-{kind}"


# A conditional read's revalidation header and answer, as the schema declares them (every view that answers 304:
# a file download and the revision reads built on apps.common.http_cache.conditional); the 200's ETag header is
# added to every operation taking If-None-Match (apps/api/schema.py).
IF_NONE_MATCH = OpenApiParameter(
    "If-None-Match",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=False,
    description="The ETag of a copy you hold (from this URL's ETag header): 304 with no body when it is still current.",
)
NOT_MODIFIED = OpenApiResponse(description="If-None-Match names the current ETag: use your copy (no body).")

FILE_BLOCK = 256 * 1024  # bytes per write while streaming a stored file


def artifact_etag(artifact: Artifact) -> str:
    return f'"{artifact.sha256}"'


def artifact_response(artifact: Artifact, filename: str, *, immutable: bool = True) -> HttpResponseBase:
    """A stored deliverable as a download, streamed from the artifact store a block at a time (the process
    never holds the file), or handed to nginx with X-Accel-Redirect when settings.ARTIFACT_ACCEL_REDIRECT
    names the internal location of the files store, or redirected to a presigned URL of the s3 store
    (settings.ARTIFACT_S3_REDIRECT)."""
    artifact_touch(artifact)
    if settings.ARTIFACT_S3_REDIRECT and settings.ARTIFACT_STORE == "s3":
        # The object store sends the bytes: a presigned URL valid for 5 minutes, so this answer is not kept.
        # S3ArtifactStorage (django-storages ships no types): its url() also takes the presigned URL's parameters.
        s3: Any = artifact_storage()
        location = s3.url(
            artifact.name,
            parameters={
                "ResponseContentDisposition": f'attachment; filename="{filename}"',
                "ResponseContentType": artifact.content_type,
            },
        )
        redirect = HttpResponseRedirect(location)
        redirect["Cache-Control"] = "private, no-store"
        return redirect
    response: HttpResponseBase
    if settings.ARTIFACT_ACCEL_REDIRECT and settings.ARTIFACT_STORE == "files":
        response = HttpResponse(content_type=artifact.content_type)
        response["X-Accel-Redirect"] = settings.ARTIFACT_ACCEL_REDIRECT.rstrip("/") + "/" + artifact.name
    elif hasattr(artifact_storage(), "iter_chunks"):
        # the database store: its chunks as the driver returns them (apps.exports.storage.DatabaseStorage)
        response = StreamingHttpResponse(artifact_chunks(artifact), content_type=artifact.content_type)
        response["Content-Length"] = str(artifact.size)
    else:
        file_response = FileResponse(artifact_open(artifact), content_type=artifact.content_type)
        file_response.block_size = FILE_BLOCK
        response = file_response
        response["Content-Length"] = str(artifact.size)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return cache_headers(response, artifact_etag(artifact), immutable=immutable)


def iter_table_csv(revision: Revision, kind: str, *, raw: bool = False) -> Iterator[bytes]:
    """links.csv / cables.csv of a revision as the CLI writes them (apps.designs.table_csv), as byte chunks; text
    cells beginning with a formula character get a leading ' unless `raw` (engine/csvcells.py)."""
    table = "links" if kind == "links.csv" else "cables"
    model, order = (LinkRecord, "link_id") if table == "links" else (CableRecord, "cable_id")
    halls = revision_halls(revision) > 1
    if connection.vendor == "postgresql":
        yield from _copy_csv(model, table, order, revision.pk, raw=raw, halls=halls)
        return
    rows = (
        model.objects.filter(revision_id=revision.pk).order_by(order).values_list(*stored_columns(table, halls=halls))
    )
    parts: list[str] = []
    size = 0
    for line in csv_lines(table, rows.iterator(chunk_size=5000), raw=raw, halls=halls):
        parts.append(line)
        size += len(line)
        if size >= CHUNK:
            yield "".join(parts).encode()
            parts, size = [], 0
    yield "".join(parts).encode()


def _copy_csv(
    model, table: str, order: str, revision_id: int, *, raw: bool = False, halls: bool = False
) -> Iterator[bytes]:
    qn = connection.ops.quote_name
    text = {f.column for f in model._meta.fields if f.get_internal_type() == "CharField"}
    sql = (
        f"COPY (SELECT {sql_select_list(table, qn, text, raw=raw, halls=halls)} FROM {qn(model._meta.db_table)} "
        f"WHERE revision_id = {int(revision_id)} ORDER BY {qn(order)}) TO STDOUT WITH (FORMAT CSV, HEADER)"
    )
    parts: list[bytes] = []
    size = 0
    with connection.cursor() as cur, cur.cursor.copy(sql) as copy:
        for data in copy:
            parts.append(bytes(data))
            size += len(data)
            if size >= CHUNK:
                yield b"".join(parts)
                parts, size = [], 0
    yield b"".join(parts)
