"""REST: create a study, poll it (with its candidates), list its candidates, pick one (docs/alternatives.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from apps.api.errors import ApiError, spec_error_fields
from apps.api.output import job_out
from apps.api.serializers import JobOut, StrictSerializer
from apps.api.views.base import ApiView
from apps.common.requests import ApiRequest
from apps.jobs.services import job_sent
from engine.errors import SpecError

from .output import candidate_out, study_out
from .services import candidate_pick, study_create, study_get

STUDY_ID = OpenApiParameter(
    "study_id", int, OpenApiParameter.PATH, description="The study's id (`id` of alternatives_create)."
)
INDEX = OpenApiParameter(
    "index", int, OpenApiParameter.PATH, description="The candidate's number in its study (`index`, from 1)."
)


class RequirementIn(serializers.Serializer):
    server_model = serializers.CharField(help_text="Server model (catalog key, e.g. dgx-h100).")
    servers = serializers.IntegerField(required=False, help_text="How many servers (or give gpus).")
    gpus = serializers.IntegerField(required=False, help_text="How many GPUs, rounded up to whole servers.")
    workloads = serializers.ListField(
        child=serializers.JSONField(), required=False, help_text="Workload presets or profiles, as a spec takes them."
    )
    networks = serializers.ListField(
        child=serializers.ChoiceField(choices=["storage", "inband", "oob"]),
        required=False,
        help_text="Networks besides the compute fabric.",
    )
    technology = serializers.ChoiceField(
        choices=["infiniband", "ethernet"], required=False, help_text="Compute fabric technology (default: either)."
    )
    max_oversubscription = serializers.DictField(
        child=serializers.CharField(), required=False, help_text="Per network the highest ratio, e.g. {compute: 2:1}."
    )
    rack_power_kw = serializers.FloatField(required=False, help_text="Power budget per rack, kW.")
    reach_limits_m = serializers.DictField(
        child=serializers.FloatField(), required=False, help_text="Per medium a reach limit tighter than the catalog."
    )
    # a positive amount with at most two decimals: what parse_requirement accepts, declared so the schema admits no
    # more ("0", "00" and "0.00" are not a budget)
    budget = serializers.RegexField(
        r"^0*[1-9][0-9]{0,11}(\.[0-9]{1,2})?$|^0*\.(0[1-9]|[1-9][0-9]?)$",
        required=False,
        help_text="Most the priced BOM may cost, a positive amount in the price list's currency (needs a price list).",
    )
    objectives = serializers.ListField(
        child=serializers.ChoiceField(choices=["cost", "power", "cables", "blast_radius"]),
        required=False,
        help_text="What the Pareto front minimises (default: all four).",
    )
    max_candidates = serializers.IntegerField(required=False, help_text="Candidates to compute, 1-64 (default 12).")


class StudyIn(StrictSerializer):
    name = serializers.CharField(required=False, max_length=200, help_text="A name (default from the requirement).")
    requirement = RequirementIn(help_text="What the fabric must do; checked field by field.")


class CandidateOut(serializers.Serializer):
    index = serializers.IntegerField(help_text="1-based, in the order computed.")
    # A declared field (DRF's serializer class moves it out); the stub takes it for the attribute it shadows.
    label = serializers.CharField(help_text="The choices in words.")  # type: ignore[assignment]
    choice = serializers.DictField(help_text="switch, ratio, planes, tiers (null: auto), cabling, media.")
    figures = serializers.DictField(
        help_text="cost (priced BOM total, null unless every line is priced), power_kw, rack_units, racks, cables, "
        "fibres, loss_fail, loss_marginal, worst_margin_db, bisection_gbps, traffic {workload: verdict}, "
        "traffic_worst, blast_radius_gpus, blast_radius_kind, switches {network: count}, tiers."
    )
    pareto = serializers.BooleanField(help_text="On the Pareto front of the study's objectives.")
    spec = serializers.DictField(help_text="The candidate's design spec (the one spec schema).")
    picked_design = serializers.IntegerField(allow_null=True, help_text="The design its last pick created.")
    pick_url = serializers.CharField(help_text="POST here to use this candidate (alternatives_pick).")


class StudyOut(serializers.Serializer):
    id = serializers.IntegerField(help_text="The study's id, used in its URLs.")
    name = serializers.CharField(help_text="The name given to the study (it names the designs its picks create).")
    requirement = serializers.DictField(help_text="The requirement as given.")
    url = serializers.CharField(help_text="Poll here (alternatives_retrieve).")
    page_url = serializers.CharField(help_text="The comparison page.")
    job = serializers.CharField(allow_null=True, help_text="The study's job id (cancel it with jobs_cancel).")
    status = serializers.CharField(help_text="The job's status: queued, running, succeeded, failed, cancelled.")
    percent = serializers.FloatField(help_text="Progress, 0 to 100.")
    error = serializers.CharField(help_text="Why the study failed; empty otherwise.")
    currency = serializers.CharField(allow_null=True, help_text="The price list's currency, or null.")
    price_version = serializers.IntegerField(allow_null=True, help_text="The price-list version used, or null.")
    created_at = serializers.DateTimeField(help_text="When the study was stated.")
    rejected = serializers.ListField(
        child=serializers.DictField(), help_text="Choices dropped: label, choice, reason, same_as (a duplicate's twin)."
    )
    candidates = CandidateOut(many=True, required=False, help_text="Computed so far, in order.")


class PickIn(StrictSerializer):
    design = serializers.IntegerField(
        required=False,
        help_text="A design you may change: the candidate becomes its next revision (default: a new design).",
    )


class PickOut(serializers.Serializer):
    design = serializers.IntegerField(help_text="The new design's id.")
    job = JobOut(allow_null=True, help_text="Its compute job (poll it; its revision_url is the computed revision).")


class StudyListApi(ApiView):
    @extend_schema(
        operation_id="alternatives_create",
        request=StudyIn,
        responses={202: StudyOut, 400: OpenApiResponse(description="`fields` names each bad requirement field.")},
        tags=["alternatives"],
        summary="State a requirement; its candidate fabrics are computed in the background",
    )
    def post(self, request: ApiRequest) -> Response:
        body = StudyIn(data=request.data)
        if not body.is_valid():
            raise ApiError(400, "invalid", "The study is not valid.", fields=_fields(body.errors))
        # The requirement is stored as sent (the engine parses it), not as the serializer cleaned it; StudyIn has
        # just checked the body is an object.
        sent = cast("dict[str, Any]", request.data)
        try:
            study = study_create(user=request.user, data=sent["requirement"], name=body.validated_data.get("name", ""))
        except SpecError as exc:
            raise ApiError(
                400, "invalid", "The requirement is not valid.", fields=spec_error_fields(exc, "requirement.")
            ) from None
        if study.job is not None:
            study.job = job_sent(study.job)
        return Response(study_out(study, absolute=request.build_absolute_uri), status=202)


class StudyDetailApi(ApiView):
    @extend_schema(
        operation_id="alternatives_retrieve",
        parameters=[STUDY_ID],
        responses={200: StudyOut},
        tags=["alternatives"],
        summary="A study: its progress, candidates so far and dropped choices",
    )
    def get(self, request: ApiRequest, study_id: int) -> Response:
        study = study_get(user=request.user, study_id=study_id)
        return Response(study_out(study, absolute=request.build_absolute_uri))


class CandidateListApi(ApiView):
    @extend_schema(
        operation_id="alternatives_candidates",
        parameters=[STUDY_ID],
        responses={200: CandidateOut(many=True)},
        tags=["alternatives"],
        summary="A study's computed candidates, in order",
    )
    def get(self, request: ApiRequest, study_id: int) -> Response:
        study = study_get(user=request.user, study_id=study_id)
        return Response([candidate_out(c, study, request.build_absolute_uri) for c in study.candidates.all()])


class CandidatePickApi(ApiView):
    @extend_schema(
        operation_id="alternatives_pick",
        parameters=[STUDY_ID, INDEX],
        request=PickIn,
        responses={201: PickOut},
        tags=["alternatives"],
        summary="Use this candidate: a new design (or a new revision of `design`) with its spec, queued for computing",
    )
    def post(self, request: ApiRequest, study_id: int, index: int) -> Response:
        study = study_get(user=request.user, study_id=study_id)
        body = PickIn(data=request.data or {})
        if not body.is_valid():
            raise ApiError(400, "invalid", "The pick is not valid.", fields=_fields(body.errors))
        cand, outcome = candidate_pick(
            user=request.user, study=study, index=index, design_id=body.validated_data.get("design")
        )
        job = job_sent(outcome.job) if outcome.job is not None else None
        return Response({"design": cand.picked_design_id, "job": job_out(request, job) if job else None}, status=201)


def _fields(errors: Mapping[str, Any], prefix: str = "") -> list[dict]:
    out = []
    for key, val in errors.items():
        path = f"{prefix}{key}"
        if isinstance(val, dict):
            out += _fields(val, f"{path}.")
        else:
            out += [{"path": path, "message": str(m)} for m in val]
    return out
