"""A design's QoS policy (read, replace) and a revision's configuration files (list, one by name)."""

from __future__ import annotations

from django.db import transaction
from django.http import Http404, HttpResponse, HttpResponseBase
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from apps.common.http_cache import cache_headers, if_none_match, not_modified
from apps.designs.models import Design
from apps.exports.models import Artifact
from apps.jobs.models import Job
from apps.qos.selectors import (
    ARCHIVE,
    QosPlanError,
    archive_filename,
    config_file_etag,
    config_file_names,
    design_qos,
    qos_archive_request,
    revision_config_download,
    revision_qos_request,
)
from apps.qos.services import design_qos_update
from engine.errors import SpecError

from ..downloads import IF_NONE_MATCH, NOT_MODIFIED, artifact_etag, artifact_response
from ..errors import ApiError, spec_error_fields
from ..output import job_out, job_poll_headers, url
from ..preconditions import IF_MATCH, PRECONDITION_FAILED, check_if_match, qos_etag, with_etag
from ..serializers import FieldErrorOut, JobOut, StrictSerializer
from .base import ApiView, design_for, revision_for

NOT_BUILDABLE = OpenApiResponse(
    description="The revision's configuration cannot be built: it has no snapshot to render from (not "
    "backfilled yet, or not reproducible), or its stored QoS policy is not valid."
)


class QosOut(serializers.Serializer):
    design = serializers.IntegerField(help_text="The design's id.")
    url = serializers.URLField(help_text="This policy's URL.")
    technology = serializers.ChoiceField(
        choices=["ethernet", "infiniband"], help_text="The compute fabric's; the defaults are this technology's."
    )
    policy = serializers.DictField(
        allow_null=True,
        help_text=(
            "The effective policy, every default filled in (docs/qos.md); null when the stored one is not valid."
        ),
    )
    stored = serializers.DictField(
        allow_null=True, help_text=("The spec's `qos` value: only what differs from the defaults (null: all defaults).")
    )
    # A declared field (DRF's serializer class moves it out); the stub takes it for the attribute it shadows.
    errors = FieldErrorOut(many=True, help_text="Why the stored policy is not valid (empty when it is).")  # type: ignore[assignment]


def _qos_out(request, design) -> dict:
    state = design_qos(design=design)
    return {
        "design": design.pk,
        "url": url(request, "design-qos", design.pk),
        "technology": state.technology,
        "policy": state.policy.to_dict() if state.policy else None,
        "stored": state.stored,
        "errors": [{"path": e.path, "message": e.message} for e in state.errors],
    }


class DesignQosApi(ApiView):
    class InputSerializer(StrictSerializer):
        policy = serializers.DictField(
            allow_null=True,
            help_text=(
                "The new policy, in the shape GET answers (or any part of it: what is left out takes the default; "
                "leave out pfc.priorities and host.* to let them follow the classes). null resets to the defaults."
            ),
        )

    @extend_schema(
        operation_id="designs_qos_retrieve",
        responses={200: QosOut},
        tags=["designs"],
        summary="A design's QoS policy: the effective one (defaults filled) and what the spec stores",
    )
    def get(self, request, design_id: int):
        design = design_for(request, design_id)
        return with_etag(Response(_qos_out(request, design)), qos_etag(design))

    @extend_schema(
        operation_id="designs_qos_update",
        request=InputSerializer,
        parameters=[IF_MATCH],
        responses={200: QosOut, 412: PRECONDITION_FAILED},
        tags=["designs"],
        summary="Replace a design's QoS policy (needs write access); a bad field is a 400 naming it (qos.roce.dscp)",
    )
    def put(self, request, design_id: int):
        design = design_for(request, design_id, write=True)
        s = self.InputSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        try:
            with transaction.atomic():
                design = Design.objects.select_for_update().get(pk=design.pk)
                check_if_match(request, qos_etag(design))
                design = design_qos_update(design=design, policy=s.validated_data["policy"])
        except SpecError as exc:
            fields = spec_error_fields(exc)
            message = "; ".join(f"{f['path']}: {f['message']}" for f in fields[:5])
            raise ApiError(400, "invalid_qos", f"The QoS policy is not valid: {message}", fields) from None
        return with_etag(Response(_qos_out(request, design)), qos_etag(design))


def _plan_error(exc: QosPlanError) -> ApiError:
    return ApiError(409, exc.code, exc.message, [{"path": e.path, "message": e.message} for e in exc.errors])


BUILDING = OpenApiResponse(
    JobOut,
    description=(
        "A large revision whose configuration set is not stored yet: a worker builds configs.zip. `Location` is the "
        "job; poll it until `status` is succeeded, then GET this URL again."
    ),
)


def _report_or_building(request, rev) -> tuple[dict | None, Response | None]:
    """The revision's report, or the 202 answer naming the worker's build of its configuration set."""
    try:
        state = revision_qos_request(revision=rev, user=request.user)
    except QosPlanError as exc:
        raise _plan_error(exc) from None
    if state.report is not None:
        return state.report, None
    assert state.job is not None  # no report yet: revision_qos_request found or queued the build
    return None, _building(request, state.job)


def _building(request, job: Job) -> Response:
    body = job_out(request, job)
    return Response(body, status=202, headers={"Location": body["url"], **job_poll_headers(job)})


class RevisionConfigListApi(ApiView):
    class OutputSerializer(serializers.Serializer):
        class Item(serializers.Serializer):
            name = serializers.CharField(help_text="The file's name: GET configs/{name} answers it.")
            path = serializers.CharField(help_text="Where it goes under configs/ (configs.zip, manage.py plan).")
            kind = serializers.CharField(help_text="switch, hosts, subnet-manager, policy, headroom or summary.")
            switch = serializers.CharField(allow_null=True, help_text="The switch a switch file configures.")
            format = serializers.CharField(help_text="nvue, sonic (config_db.json), eos, opensm, shell, json or csv.")
            content_type = serializers.CharField(help_text="The media type the file is served as.")
            size = serializers.IntegerField(help_text="Bytes.")
            url = serializers.URLField(help_text="The file's URL (revisions_config_file).")

        revision = serializers.IntegerField(help_text="The revision's number.")
        mode = serializers.CharField(help_text="The policy's congestion-control mode.")
        warnings = serializers.IntegerField(help_text="Consistency warnings (the summary file lists them).")
        archive_url = serializers.URLField(help_text="configs.zip: every file under configs/.")
        results = Item(many=True, help_text="One entry per configuration file.")

    @extend_schema(
        operation_id="revisions_configs_list",
        responses={200: OutputSerializer, 202: BUILDING, 409: NOT_BUILDABLE},
        tags=["downloads"],
        summary="The revision's QoS configuration files: one per switch, hosts, "
        "subnet manager, policy, headroom and summary (202 while a worker builds them)",
    )
    def get(self, request, design_id: int, number: int):
        rev = revision_for(request, design_id, number)
        report, building = _report_or_building(request, rev)
        if building is not None:
            return building
        assert report is not None  # one of the two is always given
        items = [{**f, "url": url(request, "revision-config", design_id, number, f["name"])} for f in report["files"]]
        return Response(
            {
                "revision": rev.number,
                "mode": report["mode"],
                "warnings": len(report["warnings"]),
                "archive_url": url(request, "revision-config", design_id, number, ARCHIVE),
                "results": items,
            }
        )


class RevisionConfigApi(ApiView):
    @extend_schema(
        operation_id="revisions_config_file",
        tags=["downloads"],
        parameters=[IF_NONE_MATCH],
        responses={
            (200, "text/plain"): OpenApiTypes.BINARY,
            (200, "application/json"): OpenApiTypes.OBJECT,
            (200, "text/csv"): OpenApiTypes.BINARY,
            (200, "application/zip"): OpenApiTypes.BINARY,
            202: BUILDING,
            304: NOT_MODIFIED,
            409: NOT_BUILDABLE,
        },
        summary="One QoS configuration file of a revision by name (configs.zip: all of them); "
        "202 while a worker builds the set",
    )
    def get(self, request, design_id: int, number: int, name: str):
        rev = revision_for(request, design_id, number)
        try:
            built = qos_archive_request(revision=rev, user=request.user)
        except QosPlanError as exc:
            raise _plan_error(exc) from None
        if isinstance(built, Job):
            return _building(request, built)
        try:
            return _config_file_response(request, rev, built, name)
        except FileNotFoundError:
            # its file is gone from the store (its row went with it, artifact_open): build it again, once
            built = qos_archive_request(revision=rev, user=request.user)
            if isinstance(built, Job):
                return _building(request, built)
            return _config_file_response(request, rev, built, name)


def _config_file_response(request, revision, artifact: Artifact, name: str) -> HttpResponseBase:
    """One file of the stored configuration set, or configs.zip itself streamed from the artifact store, with a
    strong ETag: a revision's configuration never changes, so it is cached as immutable and revalidated (304)."""
    if name == ARCHIVE:
        etag = artifact_etag(artifact)
        if if_none_match(request, etag):
            return not_modified(etag)
        return artifact_response(artifact, archive_filename(revision))
    if name not in config_file_names(artifact):  # before If-None-Match: "*" matches any file, not a missing one
        raise Http404("No such configuration file; GET configs/ lists them.")
    etag = config_file_etag(artifact, name)
    if if_none_match(request, etag):
        return not_modified(etag)
    found = revision_config_download(artifact=artifact, name=name)
    if found is None:
        raise Http404("No such configuration file; GET configs/ lists them.")
    f, content = found
    response = HttpResponse(content, content_type=f.content_type)
    response["Content-Disposition"] = f'attachment; filename="{f.name}"'
    return cache_headers(response, etag)
