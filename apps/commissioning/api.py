"""REST operations of the as-built import: upload a file (classified by a background job), read the revision's
standing classification, download the fix list (CSV or PDF)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import parsers, serializers
from rest_framework.response import Response

from apps.api.errors import ApiError
from apps.api.output import job_out
from apps.api.parsers import read_limited
from apps.api.serializers import StrictSerializer, query
from apps.api.views.base import ApiView, revision_for
from apps.common.requests import ApiRequest
from apps.designs.selectors import design_get
from apps.jobs.services import JobQuotaExceeded, job_sent
from engine.asbuilt.fixlist import FIX_COLUMNS
from engine.asbuilt.parsers import FORMATS

from .fixlist_pdf import fix_list_csv, fix_list_pdf
from .models import CommissioningStanding
from .services import AsBuiltRejected, asbuilt_import, commissioning_standing


class _RawUpload(parsers.BaseParser):
    """The file as sent, up to API_MAX_UPLOAD_BYTES (413 over it); the services decode and parse it."""

    # DRF hands the view whatever parse returns; its stub promises a mapping, which the raw bytes are not.
    def parse(  # type: ignore[override]
        self, stream: IO[Any], media_type: str | None = None, parser_context: Mapping[str, Any] | None = None
    ) -> bytes:
        request = (parser_context or {}).get("request")
        meta = request.META if request is not None else {}
        return read_limited(stream, meta, settings.API_MAX_UPLOAD_BYTES, "upload")


# The API negotiates parsers by exact media type (apps.api.views.base.JSONOnlyNegotiation): one per kind of file.
UPLOAD_PARSERS: list[type[parsers.BaseParser]] = [
    type(f"RawUpload_{mt.replace('/', '_').replace('-', '_')}", (_RawUpload,), {"media_type": mt})
    for mt in ("text/plain", "text/csv", "application/json", "application/octet-stream")
]


class StandingOut(serializers.Serializer):
    state = serializers.ChoiceField(choices=["planned", "cabling", "verified"], help_text="The revision's state.")
    uploads = serializers.IntegerField(help_text="As-built files imported so far.")
    counts = serializers.DictField(child=serializers.IntegerField(), help_text="Links per class (and `unseen`).")
    per_rack = serializers.DictField(
        child=serializers.DictField(child=serializers.IntegerField()), help_text="Rack -> class -> planned links."
    )
    problems = serializers.IntegerField(help_text="Rows of the fix list.")
    error = serializers.CharField(help_text="Why the classification could not be worked out (empty when it was).")


def standing_out(st: CommissioningStanding | None) -> dict:
    if st is None:
        return {"state": "planned", "uploads": 0, "counts": {}, "per_rack": {}, "problems": 0, "error": ""}
    return {
        "state": st.state,
        "uploads": st.uploads,
        "counts": st.counts,
        "per_rack": st.per_rack,
        "problems": len(st.fixes),
        "error": st.error,
    }


class AsBuiltApi(ApiView):
    parser_classes = UPLOAD_PARSERS

    class QuerySerializer(StrictSerializer):
        format = serializers.ChoiceField(choices=list(FORMATS), help_text="What the file is.")
        filename = serializers.RegexField(
            r"^[\w.\- ]{1,200}$", required=False, default="as-built", help_text="Name to keep with the upload."
        )
        device = serializers.CharField(
            required=False,
            default="",
            max_length=64,
            help_text="The local system of an LLDP dump that does not name it.",
        )
        port = serializers.CharField(
            required=False, default="", max_length=64, help_text="The interface of a one-interface NVUE dump."
        )
        user_map = serializers.CharField(
            required=False,
            default="",
            max_length=20000,
            help_text="CSV lines device,ident,port: an RDMA device, netdev or port GUID -> the design's port.",
        )
        width_only = serializers.BooleanField(
            required=False,
            default=False,
            help_text="Judge the file's links by width only, not speed (a simulator such as ibsim runs every lane at SDR).",
        )

    @extend_schema(
        operation_id="revisions_asbuilt_results",
        responses={200: StandingOut},
        tags=["commissioning"],
        summary="The revision's as-built classification (counts per class, per rack) and its state",
    )
    def get(self, request: ApiRequest, design_id: int, number: int) -> HttpResponse | Response:
        rev = revision_for(request, design_id, number)
        return Response(standing_out(commissioning_standing(revision=rev)))

    @extend_schema(
        operation_id="revisions_asbuilt_upload",
        parameters=[QuerySerializer],
        request={"text/plain": OpenApiTypes.STR},
        responses={
            202: OpenApiResponse(description="Stored; `job` classifies it with the earlier imports."),
            400: OpenApiResponse(description="Nothing stored; `fields` names the query parameter or `file`."),
        },
        tags=["commissioning"],
        summary="Upload an as-built file (needs write access)",
    )
    def post(self, request: ApiRequest, design_id: int, number: int) -> Response:
        q = query(self.QuerySerializer, request)
        design_get(user=request.user, design_id=design_id, write=True)
        rev = revision_for(request, design_id, number)
        data = request.data if isinstance(request.data, bytes) else b""
        try:
            upload, job = asbuilt_import(
                revision=rev,
                user=request.user,
                fmt=q["format"],
                data=data,
                filename=q["filename"],
                device=q["device"],
                port=q["port"],
                user_map=q["user_map"],
                width_only=q["width_only"],
            )
        except AsBuiltRejected as exc:
            raise ApiError(400, "invalid", exc.message, [{"path": exc.field, "message": exc.message}]) from None
        except JobQuotaExceeded as exc:
            raise ApiError(429, "too_many_jobs", str(exc)) from None
        job = job_sent(job)
        return Response(
            {
                # links: null while a large file waits for the job to read it
                "upload": {"id": upload.pk, "format": upload.format, "links": upload.links if upload.read else None},
                "job": job_out(request, job),
            },
            status=202,
        )


class FixListOut(serializers.Serializer):
    fixes = serializers.ListField(
        child=serializers.DictField(),
        help_text=f"One object per row, keys {', '.join(FIX_COLUMNS)}; sorted by rack.",
    )


class AsBuiltFixListApi(ApiView):
    class QuerySerializer(StrictSerializer):
        format = serializers.ChoiceField(
            choices=["csv", "pdf", "json"], required=False, default="json", help_text="csv, pdf or json."
        )

    @extend_schema(
        operation_id="revisions_asbuilt_fixlist",
        parameters=[QuerySerializer],
        responses={
            (200, "application/json"): FixListOut,
            (200, "text/csv"): OpenApiTypes.BINARY,
            (200, "application/pdf"): OpenApiTypes.BINARY,
        },
        tags=["commissioning"],
        summary="The fix list: per problem the cable, both labels, each end's rack, U and port, and the action",
    )
    def get(self, request: ApiRequest, design_id: int, number: int) -> HttpResponse | Response:
        q = query(self.QuerySerializer, request)
        rev = revision_for(request, design_id, number)
        st = commissioning_standing(revision=rev)
        fixes = st.fixes if st is not None else []
        name = f"fix-list-r{rev.number}"
        if q["format"] == "csv":
            resp = HttpResponse(fix_list_csv(fixes), content_type="text/csv; charset=utf-8")
            resp["Content-Disposition"] = f'attachment; filename="{name}.csv"'
            return resp
        if q["format"] == "pdf":
            resp = HttpResponse(
                fix_list_pdf(fixes, title=f"{rev.design.name} r{rev.number}: fix list"), content_type="application/pdf"
            )
            resp["Content-Disposition"] = f'attachment; filename="{name}.pdf"'
            return resp
        return Response({"fixes": fixes})
