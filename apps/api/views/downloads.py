"""Downloads of every deliverable of a revision, and uploads of measured test results."""

from __future__ import annotations

import json

from django.conf import settings
from django.http import Http404, HttpResponse, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from apps.common.http_cache import cache_headers, if_none_match, not_modified, revision_etag
from apps.designs.selectors import design_get, revision_head
from apps.exports.artifacts import PRICED_KINDS, artifact_build, artifact_lookup, inline_render_allowed
from apps.exports.models import Artifact
from apps.exports.registry import OPTIONS as REGISTRY_OPTIONS
from apps.exports.registry import kinds_taking
from apps.exports.services import (
    ARCHIVES,
    DELIVERABLES,
    DeliverableUnavailable,
    deliverable_applies,
    deliverable_available,
    deliverable_missing_reason,
    export_enqueue,
    export_options,
)
from apps.jobs.services import JobQuotaExceeded, job_sent
from apps.measurements.models import MeasurementUpload
from apps.measurements.services import (
    MeasurementUnavailable,
    measurement_get,
    measurement_import_unread,
    measurement_standing,
    measurement_standing_refresh,
    measurement_withdraw,
    measurements_check_revision,
)
from apps.measurements.uploads import MAX_STORED_ERRORS, measurement_upload
from engine.errors import SpecError
from engine.orders.rule_choice import FAILURE_RATE, PERCENT
from engine.orders.spares import PercentPerCategory

from ..downloads import (
    DB_FILES,
    IF_NONE_MATCH,
    NOT_MODIFIED,
    artifact_etag,
    artifact_response,
    download_filename,
    iter_table_csv,
)
from ..errors import ApiError
from ..export_options import ExportOptionsIn, export_options_resolve, scope_check
from ..output import iso, job_out, job_poll_headers, url
from ..parsers import CSVUploadParser
from ..serializers import JobOut, StrictSerializer, query
from ..spares_params import RULE_HELP, SparesQuery, spares_percent_field, spares_rule_of
from .base import ApiView, revision_for
from .designs import job_for

KINDS = list(DB_FILES) + list(DELIVERABLES)
CONTENT_TYPES = {**DB_FILES, **{k: d.content_type for k, d in DELIVERABLES.items()}}
_MEDIA_ORDER = ("text/csv", "application/pdf", "application/json", "text/vnd.graphviz", "text/plain")


def file_media_types(content_types) -> dict:
    """The 200 answers of a file download: one entry per media type it can be served as, JSON as an object and the
    rest as bytes. A generated client reads every answer as the first media type it understands: openapi-python-client
    needs `content_type_overrides` mapping these types to application/octet-stream (docs/api.md, "Files")."""
    return {
        (200, media): OpenApiTypes.OBJECT if media == "application/json" else OpenApiTypes.BINARY
        for media in sorted(
            {ct.split(";")[0].strip() for ct in content_types},
            # the order the schema always had, new types after
            key=lambda m: (_MEDIA_ORDER.index(m) if m in _MEDIA_ORDER else len(_MEDIA_ORDER), m),
        )
    }


# every media type a file kind is served as (CONTENT_TYPES), so a new kind cannot go undeclared
_FILE_MEDIA_TYPES = file_media_types(CONTENT_TYPES.values())
# an export job's file: any deliverable or archive
_JOB_FILE_MEDIA_TYPES = file_media_types(
    [d.content_type for d in DELIVERABLES.values()] + [ct for ct, _ in ARCHIVES.values()]
)


# The kinds each option applies to (the deliverable registry, apps/exports/registry.py); an option sent for another
# kind is a 400, not silently ignored (bom.csv?rack=). `csv` is accepted by every kind (a generated client sends its
# default with every download): it only changes CSVs.
OPTION_KINDS = {option: kinds_taking(option) for option in REGISTRY_OPTIONS}


def _refuse_options_of_other_kinds(request, kind: str) -> None:
    bad = sorted(k for k, kinds in OPTION_KINDS.items() if k in request.query_params and kind not in kinds)
    if bad:
        raise ApiError(
            400,
            "invalid_query",
            f"{kind} takes no {', '.join(bad)}.",
            [{"path": k, "message": f"only for {', '.join(sorted(OPTION_KINDS[k]))}, not {kind}"} for k in bad],
        )


def _attachment(response, revision, kind: str):
    response["Content-Disposition"] = f'attachment; filename="{download_filename(revision, kind)}"'
    return response


class DownloadListApi(ApiView):
    class OutputSerializer(serializers.Serializer):
        class Item(serializers.Serializer):
            kind = serializers.CharField(
                help_text="The file's kind, the {kind} of revisions_download (e.g. bom.csv, cabling-plan.pdf)."
            )
            content_type = serializers.CharField(help_text="The media type the file is served as.")
            filename = serializers.CharField(help_text="The name Content-Disposition gives it: <design>-r<n>-<kind>.")
            url = serializers.URLField(help_text="Its download URL (revisions_download).")
            available = serializers.BooleanField(help_text="False: this build has no renderer for it (501).")

        revision = serializers.IntegerField(help_text="The revision's number.")
        results = Item(many=True, help_text="One entry per file of the revision.")

    @extend_schema(
        operation_id="revisions_downloads_list",
        responses={200: OutputSerializer},
        tags=["downloads"],
        summary="Every file of a revision, with its URL and content type",
    )
    def get(self, request, design_id: int, number: int):
        rev = revision_for(request, design_id, number)
        items = [
            {
                "kind": k,
                "content_type": CONTENT_TYPES[k],
                "filename": download_filename(rev, k),
                "url": url(request, "revision-download", design_id, number, k),
                "available": k in DB_FILES or deliverable_available(k),
            }
            for k in KINDS
            if deliverable_applies(k, rev.spec)
        ]
        return Response({"revision": rev.number, "results": items})


class DownloadApi(ApiView):
    class QuerySerializer(SparesQuery):
        # BOM files only (another kind: 400). No schema default for spares_rule: a generated client sends declared
        # defaults with every download, and these options belong to the BOM files only.
        spares_rule = serializers.ChoiceField(
            choices=[PERCENT, FAILURE_RATE], required=False, help_text="BOM files only. " + RULE_HELP
        )
        spares_percent = spares_percent_field(" BOM files only (another kind: 400).")
        page_size = serializers.ChoiceField(
            choices=["a4", "letter"], required=False, help_text="PDFs only (another kind: 400): page size."
        )
        row = serializers.CharField(
            max_length=32,
            required=False,
            help_text="Cabling plan, cable schedule, labels and test sheet only (another kind: 400): one row.",
        )
        rack = serializers.CharField(
            max_length=32,
            required=False,
            help_text="Cabling plan, cable schedule, labels and test sheet only (another kind: 400): one rack.",
        )
        test_limit = serializers.ChoiceField(
            choices=["pmd", "budget"],
            required=False,
            help_text=("Test sheet: pass limit from the PMD's maximum channel loss, or the design's worst case."),
        )
        csv = serializers.ChoiceField(
            choices=["safe", "raw"],
            required=False,
            default="safe",
            help_text=(
                "CSV files: safe (default) writes a text cell beginning with = + - @ tab or CR with a leading ' so "
                "spreadsheets never run it as a formula; raw writes every cell unchanged. NetBox files are always raw."
            ),
        )

    @extend_schema(
        operation_id="revisions_download",
        tags=["downloads"],
        parameters=[
            OpenApiParameter("kind", OpenApiTypes.STR, OpenApiParameter.PATH, enum=KINDS),
            QuerySerializer,
            IF_NONE_MATCH,
        ],
        responses={
            **_FILE_MEDIA_TYPES,
            202: OpenApiResponse(
                JobOut,
                description=(
                    "Too large to render in the request and not stored yet: a worker builds it. `Location` is the "
                    "job; poll it until `status` is succeeded, then GET this URL again (or the job's file_url)."
                ),
            ),
            304: NOT_MODIFIED,
            409: OpenApiResponse(
                description="The revision has no snapshot to render from (not backfilled yet, or not reproducible)."
            ),
            501: OpenApiResponse(description="This build has no renderer for this kind of file."),
        },
        summary="Download one file of a revision: 200 with the file when it is stored or cheap to render, "
        "else 202 with the build job in Location",
    )
    def get(self, request, design_id: int, number: int, kind: str):
        if kind not in CONTENT_TYPES:
            raise Http404(f"No such file; known: {', '.join(KINDS)}.")
        q = query(self.QuerySerializer, request)
        _refuse_options_of_other_kinds(request, kind)
        # One hand-written query (access, identity, snapshot digest): stored files are fetched again and again.
        rev = revision_head(user=request.user, design_id=design_id, number=number)
        if not deliverable_applies(kind, rev.spec):
            raise Http404(f"This design has no {kind}: {deliverable_missing_reason(kind)}.")
        if kind in DB_FILES:
            etag = revision_etag(rev, kind, q["csv"])
            if if_none_match(request, etag):
                return not_modified(etag)
            if kind in ("links.csv", "cables.csv"):
                response = StreamingHttpResponse(
                    iter_table_csv(rev, kind, raw=q["csv"] == "raw"), content_type=CONTENT_TYPES[kind]
                )
            else:
                data = rev.summary if kind == "summary.json" else rev.spec
                response = HttpResponse(json.dumps(data, indent=2) + "\n", content_type=CONTENT_TYPES[kind])
            return cache_headers(_attachment(response, rev, kind), etag)
        return self._deliverable(request, rev, kind, q)

    def _deliverable(self, request, rev, kind: str, q: dict, retried: bool = False):
        if not deliverable_available(kind):
            raise ApiError(
                501, "not_implemented", f"{kind} is not available in this build: its renderer is not installed yet."
            )
        scope_check(revision=rev, row=q.get("row"), rack=q.get("rack"))  # before a job is queued for them
        options: dict = {k: q[k] for k in ("page_size", "row", "rack", "test_limit") if k in q}
        if q["csv"] == "raw":
            options["raw_csv"] = True
        rule = spares_rule_of(q)  # the grammar and meaning of bom/ and order/ (apps/api/spares_params.py)
        if isinstance(rule, PercentPerCategory):
            options["spares_percent"] = dict(rule.percents)
        elif rule is not None:
            options["spares_failure_rate"] = rule.to_dict()
        try:
            export_options(options)
            _key, _full, artifact = artifact_lookup(revision=rev, kind=kind, options=options)
            if artifact is None and not inline_render_allowed(rev):
                job = export_enqueue(revision=rev, kind=kind, user=request.user, options=options)
                job = job_sent(job)  # 503 when the broker refused it
                body = job_out(request, job)
                return Response(body, status=202, headers={"Location": body["url"], **job_poll_headers(job)})
            if artifact is None:
                artifact = artifact_build(revision=rev, kind=kind, options=options)
        except SpecError as exc:
            raise ApiError(
                409, "revision_not_reproducible", f"The revision cannot be rendered from its snapshot: {exc}"
            ) from None
        except ValueError as exc:
            # The renderers' contract: a ValueError means options they cannot use ("rack 'X' is not in
            # this design"); its first word names the option.
            word = str(exc).split(" ", 1)[0].split(":")[0].rsplit(".", 1)[-1]
            raise ApiError(
                400, "invalid", str(exc), [{"path": word if word in q else "options", "message": str(exc)}]
            ) from None
        etag = artifact_etag(artifact)
        immutable = kind not in PRICED_KINDS  # a reprice changes the BOM files at the same URL
        if if_none_match(request, etag):
            return not_modified(etag, immutable=immutable)
        try:
            return artifact_response(artifact, download_filename(rev, kind), immutable=immutable)
        except FileNotFoundError:
            if retried:
                raise
            return self._deliverable(request, rev, kind, q, retried=True)  # its row is gone: build it again


class MeasurementRowError(serializers.Serializer):
    line = serializers.IntegerField(help_text="Line of the CSV (the header is line 1).")
    column = serializers.CharField(allow_blank=True, help_text="The column at fault; empty when the whole row is.")
    message = serializers.CharField(help_text="What is wrong with the row or cell.")


class MeasurementOut(serializers.Serializer):
    id = serializers.IntegerField(help_text="The upload's id, used in its withdraw URL.")
    revision = serializers.IntegerField(help_text="The revision's number.")
    filename = serializers.CharField(help_text="The name given with ?filename= at upload.")
    size = serializers.IntegerField(help_text="Size of the uploaded file, in bytes.")
    rows = serializers.IntegerField(help_text="Valid rows stored and judged.")
    counts = serializers.DictField(
        child=serializers.DictField(child=serializers.IntegerField()),
        help_text=("Against the test sheet: fibers {pass, fail, not-measured} and links {pass, fail, incomplete}."),
    )
    error_count = serializers.IntegerField(help_text="Rows left out because they do not fit the test sheet.")
    sha256 = serializers.CharField(help_text="SHA-256 of the uploaded bytes (hex).")
    uploaded_by = serializers.CharField(
        allow_null=True, help_text="Username of the uploader; null when that account is gone."
    )
    created_at = serializers.DateTimeField(help_text="When it was uploaded.")
    withdrawn_at = serializers.DateTimeField(
        allow_null=True,
        help_text=(
            "When the upload was withdrawn (its rows no longer count towards `standing`); null while it counts."
        ),
    )
    withdrawn_by = serializers.CharField(
        allow_null=True, help_text="Username of who withdrew it; null while it counts."
    )


class MeasurementStandingOut(serializers.Serializer):
    test_limit = serializers.CharField(help_text="The pass limit judged against: that of the newest upload counted.")
    uploads = serializers.IntegerField(help_text="Uploads counted (not withdrawn).")
    measured_fibers = serializers.IntegerField(help_text="Fibers with a measured value in any counted upload.")
    counts = serializers.DictField(
        child=serializers.DictField(child=serializers.IntegerField()),
        help_text=(
            "Per fiber its latest measured value across the counted uploads, judged against the test sheet: fibers "
            "{pass, fail, not-measured} and links {pass, fail, incomplete}."
        ),
    )


class MeasurementUploadOut(MeasurementOut):
    errors = MeasurementRowError(
        many=True,
        help_text=(
            f"The rows left out (unknown fiber ids, values that are not a loss in dB, mismatched link ids, "
            f"duplicates), the first {MAX_STORED_ERRORS} of error_count."
        ),
    )


def _measurement_out(m: MeasurementUpload, number: int, errors: bool = False) -> dict:
    out = {
        "id": m.pk,
        "revision": number,
        "filename": m.filename,
        "size": m.size,
        "rows": m.rows,
        "counts": m.counts,
        "error_count": m.error_count,
        "sha256": m.sha256,
        "uploaded_by": m.uploaded_by.get_username() if m.uploaded_by_id else None,
        "created_at": iso(m.created_at),
        "withdrawn_at": iso(m.withdrawn_at) if m.withdrawn_at else None,
        "withdrawn_by": m.withdrawn_by.get_username() if m.withdrawn_by_id else None,
    }
    if errors:
        out["errors"] = [
            {"line": line, "column": column or "", "message": message} for line, column, message in m.errors
        ]
    return out


class MeasurementListApi(ApiView):
    parser_classes = (CSVUploadParser,)

    class QuerySerializer(StrictSerializer):
        filename = serializers.RegexField(
            r"^[\w.\- ]{1,200}$", required=False, default="test-results.csv", help_text="Name to keep with the upload."
        )
        test_limit = serializers.ChoiceField(
            choices=["pmd", "budget"],
            required=False,
            default="pmd",
            help_text="Pass limit per fiber, as on the test sheet.",
        )
        reject_on_error = serializers.BooleanField(
            required=False,
            default=False,
            help_text=(
                "All or nothing: refuse the whole sheet (400, nothing stored) when any row has an error. By default "
                "the valid rows are stored and judged and the rows with errors are listed in the answer."
            ),
        )

    class OutputSerializer(serializers.Serializer):
        standing = MeasurementStandingOut(
            allow_null=True, help_text=("Every counted upload together (null before the first upload).")
        )
        results = MeasurementOut(many=True, help_text="Every upload of the revision, withdrawn ones included.")

    @extend_schema(
        operation_id="revisions_measurements_list",
        responses={200: OutputSerializer},
        tags=["downloads"],
        summary="Measured test results uploaded for a revision",
    )
    def get(self, request, design_id: int, number: int):
        rev = revision_for(request, design_id, number)
        rows = (
            rev.measurements.filter(read=True)
            .select_related("uploaded_by", "withdrawn_by")
            .defer("content", "errors")[:1000]
        )
        return Response(
            {
                "standing": _standing_out(measurement_standing(revision=rev)),
                "results": [_measurement_out(m, rev.number) for m in rows],
            }
        )

    @extend_schema(
        operation_id="revisions_measurements_upload",
        parameters=[QuerySerializer],
        # binary: the sheet is sent as the bytes of a UTF-8 file, as a client uploads a file it holds
        request={"text/csv": OpenApiTypes.BINARY},
        responses={
            201: MeasurementUploadOut,
            202: OpenApiResponse(
                JobOut,
                description=(
                    "A sheet over MEASUREMENTS_READ_IN_REQUEST_BYTES (256 KiB): stored as received and judged by a "
                    "worker. `Location` is the job; it succeeds once the upload is listed and counts, or fails saying "
                    "why the sheet was refused (then nothing is kept)."
                ),
            ),
            400: OpenApiResponse(
                description=(
                    "Nothing stored: empty, not UTF-8, a wrong header, no valid row, or (reject_on_error) "
                    "any bad row; `fields` name the rows (`line 3.measured_loss_db`)."
                )
            ),
        },
        tags=["downloads"],
        summary="Upload measured fiber test results (a text/csv body; needs write access); the valid "
        "rows are kept and the bad ones listed",
    )
    def post(self, request, design_id: int, number: int):
        q = query(self.QuerySerializer, request)
        design_get(user=request.user, design_id=design_id, write=True)
        rev = revision_for(request, design_id, number)
        text = request.data if isinstance(request.data, str) else ""
        if len(text.encode()) > settings.MEASUREMENTS_READ_IN_REQUEST_BYTES:
            # Never parsed in the web process: stored as received, judged by its job.
            try:
                _upload, job = measurement_import_unread(
                    revision=rev,
                    user=request.user,
                    text=text,
                    filename=q["filename"],
                    test_limit=q["test_limit"],
                    keep_valid=not q["reject_on_error"],
                )
            except JobQuotaExceeded as exc:
                raise ApiError(429, "too_many_jobs", str(exc)) from None
            job = job_sent(job)  # 503 when the broker refused it
            body = job_out(request, job)
            return Response(body, status=202, headers={"Location": body["url"], **job_poll_headers(job)})

        def check(text: str):
            try:
                return measurements_check_revision(revision=rev, text=text, test_limit=q["test_limit"])
            except DeliverableUnavailable:
                return None
            except MeasurementUnavailable as exc:
                raise ApiError(409, "revision_not_reproducible", str(exc)) from None

        m = measurement_upload(
            revision=rev,
            user=request.user,
            text=text,
            filename=q["filename"],
            check=check,
            test_limit=q["test_limit"],
            keep_valid=not q["reject_on_error"],
        )
        measurement_standing_refresh(revision=rev)
        return Response(_measurement_out(m, rev.number, errors=True), status=201)


def _standing_out(st) -> dict | None:
    if st is None:
        return None
    return {
        "test_limit": st.test_limit,
        "uploads": st.uploads,
        "measured_fibers": st.measured_fibers,
        "counts": st.counts,
    }


class MeasurementWithdrawApi(ApiView):
    class InputSerializer(StrictSerializer):
        withdrawn = serializers.BooleanField(help_text="true withdraws the upload; false counts it again.")

    @extend_schema(
        operation_id="revisions_measurements_withdraw",
        request=InputSerializer,
        responses={200: MeasurementOut},
        tags=["downloads"],
        summary="Withdraw a measured-results upload (its rows stop counting; it stays listed) or "
        "count it again; needs write access",
    )
    def post(self, request, design_id: int, number: int, upload_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        design_get(user=request.user, design_id=design_id, write=True)
        rev = revision_for(request, design_id, number)
        upload = measurement_withdraw(
            upload=measurement_get(revision=rev, upload_id=upload_id),
            user=request.user,
            withdraw=data.validated_data["withdrawn"],
        )
        return Response(_measurement_out(upload, rev.number))


class ExportCreateApi(ApiView):
    """Big deliverables (a 400,000-cable plan renders for tens of seconds) and archives are built by a worker."""

    class InputSerializer(StrictSerializer):
        kind = serializers.ChoiceField(
            choices=sorted(list(DELIVERABLES) + list(ARCHIVES)), help_text="The file to build (as downloads name it)."
        )
        options = ExportOptionsIn(
            required=False,
            help_text="Renderer options; each applies to some kinds only (another kind: 400). configs.zip takes none.",
        )

    @extend_schema(
        operation_id="revisions_exports_create",
        request=InputSerializer,
        responses={202: JobOut},
        tags=["downloads"],
        summary="Build one deliverable (or configs.zip) in the background; "
        "answers 202 with the job, whose file_url serves it when done",
    )
    def post(self, request, design_id: int, number: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        rev = revision_for(request, design_id, number)
        kind = data.validated_data["kind"]
        options = data.validated_data.get("options")
        if options:
            if kind in ARCHIVES:
                raise ApiError(
                    400,
                    "invalid_option",
                    f"options: {kind} takes no options",
                    [{"path": "options", "message": f"{kind} takes no options"}],
                )
            options = export_options_resolve(revision=rev, kind=kind, options=options)
        try:
            job = export_enqueue(revision=rev, kind=kind, user=request.user, options=options)
        except ValueError as exc:
            # "kind: …", "options: …" or the renderers' "options.page_size: …" / "page_size: …"
            field, _, message = str(exc).partition(": ")
            path = field if field == "kind" or field.split(".", 1)[0] == "options" else f"options.{field}"
            raise ApiError(400, "invalid_option", str(exc), [{"path": path, "message": message or str(exc)}]) from None
        job = job_sent(job)  # committed and sent by now: 503 when the broker refused it
        body = job_out(request, job)
        return Response(body, status=202, headers={"Location": body["url"], **job_poll_headers(job)})


class JobFileApi(ApiView):
    @extend_schema(
        operation_id="jobs_file",
        parameters=[IF_NONE_MATCH],
        responses={
            **_JOB_FILE_MEDIA_TYPES,
            304: NOT_MODIFIED,
            409: OpenApiResponse(description="Not built (yet)."),
            410: OpenApiResponse(description="Built, then removed by the store's retention: ask for the file again."),
        },
        tags=["jobs"],
        summary="The file an export job built (409 until it has succeeded)",
    )
    def get(self, request, job_id):
        job = job_for(request, job_id)
        if job.kind != "export":
            raise Http404("This job builds no file.")
        if job.status != "succeeded":
            raise ApiError(409, "not_ready", f"The export job is {job.status}; poll the job until it has succeeded.")
        artifact = (
            Artifact.objects.select_related("revision__design").filter(pk=(job.result or {}).get("artifact_id")).first()
        )
        if artifact is None:
            raise ApiError(
                410,
                "gone",
                "The file was removed from the store by its retention; download it again "
                "(or POST the export again) to rebuild it.",
            )
        etag = artifact_etag(artifact)
        immutable = artifact.kind not in PRICED_KINDS
        if if_none_match(request, etag):
            return not_modified(etag, immutable=immutable)
        try:
            return artifact_response(artifact, download_filename(artifact.revision, artifact.kind), immutable=immutable)
        except FileNotFoundError:
            raise ApiError(
                410, "gone", "The file is missing from the store; download it again to rebuild it."
            ) from None
