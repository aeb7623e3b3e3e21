"""REST: import a counter file into a revision, read the revision's counter report (docs/api.md, Counters)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import parsers, serializers
from rest_framework.exceptions import ParseError
from rest_framework.response import Response

from apps.api.errors import ApiError
from apps.api.output import job_out, job_poll_headers
from apps.api.parsers import read_limited
from apps.api.serializers import JobOut, StrictSerializer, query
from apps.api.views.base import ApiView, revision_for
from apps.common.requests import ApiRequest
from apps.designs.selectors import design_get
from apps.jobs.services import JobQuotaExceeded, job_sent
from engine.counters import FORMATS

from .models import CounterSnapshot
from .selectors import counter_report
from .services import CounterImportRejected, counter_import


class TextUploadParser(parsers.BaseParser):
    """A raw `text/plain` body (tool output as printed, or its JSON as text) up to API_MAX_UPLOAD_BYTES."""

    media_type = "text/plain"

    # DRF hands the view whatever parse returns; its stub promises a mapping, which a text body is not.
    def parse(  # type: ignore[override]
        self, stream: IO[Any], media_type: str | None = None, parser_context: Mapping[str, Any] | None = None
    ) -> str:
        request = (parser_context or {}).get("request")
        meta = request.META if request is not None else {}
        raw = read_limited(stream, meta, settings.API_MAX_UPLOAD_BYTES, "upload")
        try:
            return raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ParseError("The counter file is not UTF-8 text.") from None


class CounterSnapshotOut(serializers.Serializer):
    id = serializers.IntegerField(help_text="Snapshot id.")
    format = serializers.CharField(help_text="The format it was read as.")
    taken_at = serializers.DateTimeField(help_text="When the counters were read.")
    device = serializers.CharField(help_text="The device given with an Ethernet file; empty for InfiniBand.")
    interface = serializers.CharField(help_text="The interface given with a single-interface file.")
    filename = serializers.CharField(help_text="Name kept with the upload.")
    ports = serializers.IntegerField(help_text="Port readings in the file.")
    matched = serializers.IntegerField(help_text="Readings matched to a planned link's end and stored.")
    unmatched = serializers.ListField(child=serializers.CharField(), help_text="The first ports not in the plan.")
    networks = serializers.ListField(child=serializers.CharField(), help_text="Networks the file covers.")
    notes = serializers.ListField(child=serializers.CharField(), help_text="What the reader noticed.")


class ReportOut(serializers.Serializer):
    snapshots = CounterSnapshotOut(many=True, help_text="Every snapshot of the revision, oldest first.")
    counts = serializers.DictField(child=serializers.IntegerField(), help_text="links_tracked, flagged, with_resets.")
    links = serializers.ListField(
        child=serializers.DictField(),
        help_text="Links with readings, flagged first: ends, flags, resets (end, counter, at) and per end the "
        "baseline, latest values, totals since the baseline and every interval's deltas and rates per hour.",
    )
    groups = serializers.ListField(
        child=serializers.DictField(),
        help_text="Suspects, best first: kind (trunk, panel, loss, part, rack), key, the flagged links through it, "
        "flag counts, population (links through it), share flagged, and the action checklist.",
    )
    ungrouped = serializers.ListField(child=serializers.CharField(), help_text="Flagged links in no group.")


def _snapshot_out(s: CounterSnapshot) -> dict:
    return {
        k: getattr(s, k)
        for k in ("id", "format", "taken_at", "device", "interface", "filename", "ports", "matched", "unmatched")
    } | {"networks": s.networks, "notes": s.notes}


class CounterReportApi(ApiView):
    parser_classes = (TextUploadParser,)

    class QuerySerializer(StrictSerializer):
        format = serializers.ChoiceField(
            choices=list(FORMATS),
            help_text="How to read the body: " + "; ".join(f"{k}: {v}" for k, v in FORMATS.items()),
        )
        device = serializers.CharField(
            required=False, default="", max_length=64, help_text="The device the file was read on (Ethernet formats)."
        )
        interface = serializers.CharField(
            required=False, default="", max_length=64, help_text="The interface, for one interface's output."
        )
        network = serializers.CharField(
            required=False,
            default="",
            max_length=16,
            help_text="The network an ibqueryerrors sweep covered (default: the networks of the ports it lists, "
            "or every InfiniBand network when it lists none).",
        )
        taken_at = serializers.DateTimeField(
            required=False, default=None, help_text="When the counters were read (ISO 8601 with a zone; default now)."
        )
        filename = serializers.RegexField(
            r"^[\w.\- ]{1,200}$", required=False, default="", help_text="Name to keep with the upload."
        )

    @extend_schema(
        operation_id="revisions_counters_report",
        responses={200: ReportOut},
        tags=["counters"],
        summary="A revision's error counters: per link the baseline, deltas per hour, resets and flags, and the "
        "suspect groups",
    )
    def get(self, request: ApiRequest, design_id: int, number: int) -> Response:
        rev = revision_for(request, design_id, number)
        return Response(counter_report(revision=rev))

    @extend_schema(
        operation_id="revisions_counters_import",
        parameters=[QuerySerializer],
        request={"text/plain": OpenApiTypes.STR},
        responses={
            201: CounterSnapshotOut,
            202: OpenApiResponse(
                JobOut,
                description="A file over COUNTERS_READ_IN_REQUEST_BYTES (256 KiB): stored as received and read by a "
                "worker. `Location` is the job; it succeeds once the readings count in the report, or fails saying "
                "why the file was refused (then nothing is kept).",
            ),
            400: OpenApiResponse(description="Nothing stored; `fields` names the parameter or `file`."),
        },
        tags=["counters"],
        summary="Import one counter file (tool output as a text/plain body; needs write access)",
    )
    def post(self, request: ApiRequest, design_id: int, number: int) -> Response:
        q = query(self.QuerySerializer, request)
        design_get(user=request.user, design_id=design_id, write=True)
        rev = revision_for(request, design_id, number)
        text = request.data if isinstance(request.data, str) else ""
        try:
            snap, job = counter_import(
                revision=rev,
                user=request.user,
                text=text,
                fmt=q["format"],
                taken_at=q["taken_at"],
                device=q["device"],
                interface=q["interface"],
                network=q["network"],
                filename=q["filename"],
            )
        except CounterImportRejected as exc:
            raise ApiError(
                400, "invalid", f"{exc.field}: {exc.message}", fields=[{"path": exc.field, "message": exc.message}]
            ) from None
        except JobQuotaExceeded as exc:
            raise ApiError(429, "too_many_jobs", str(exc)) from None
        if job is None:
            return Response(_snapshot_out(snap), status=201)
        job = job_sent(job)  # 503 when the broker refused it
        body = job_out(request, job)
        return Response(body, status=202, headers={"Location": body["url"], **job_poll_headers(job)})
