"""Designs: list, create (from a spec or a preset), read, update, delete, share; compute; jobs."""

from __future__ import annotations

from collections.abc import Mapping

from django.db import transaction
from django.db.models import OuterRef, Subquery
from django.http import Http404
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from apps.designs.models import Access, Design, DesignShare, Revision
from apps.designs.selectors import design_list, design_list_owned, design_list_shared
from apps.designs.services import (
    design_compute_request,
    design_create,
    design_delete,
    design_leave,
    design_share,
    design_unshare,
    design_update,
)
from apps.jobs.models import Job
from apps.jobs.services import JobNotQueued, job_request_cancel, job_sent
from engine.presets import list_presets

from ..errors import ApiError
from ..idempotency import HEADER, IDEMPOTENCY_KEY_SCHEMA, idempotent
from ..idempotency import forget as forget_idempotency_key
from ..output import design_out, job_out, job_poll_headers, revision_out, url
from ..pagination import id_page, page_body
from ..preconditions import IF_MATCH, PRECONDITION_FAILED, check_if_match, design_etag, share_etag, with_etag
from ..serializers import DesignDetailOut, DesignPageOut, JobOut, RevisionOut, StrictSerializer, query
from ..spec_types import spec_json_type_check
from .base import ApiView, design_for
from .tokens import PageQuery

IDEMPOTENCY = OpenApiParameter(
    HEADER,
    IDEMPOTENCY_KEY_SCHEMA,
    OpenApiParameter.HEADER,
    required=False,
    description=(
        "Makes a retry safe: the same key (per user) with the same request gets the first answer again "
        "and creates nothing new; with a different request it is a 422. Keys live 24 hours. 1-255 printable ASCII "
        "characters without spaces: anything else (an empty header too) is a 400 invalid_idempotency_key."
    ),
)
IDEMPOTENCY_ERRORS = {
    409: OpenApiResponse(description="A request with this Idempotency-Key is still being processed."),
    422: OpenApiResponse(description="This Idempotency-Key was used with a different request."),
}

_latest = Subquery(Revision.objects.filter(design=OuterRef("pk")).order_by("-number").values("number")[:1])


def _access(user, design: Design, shares: dict[int, str] | None = None) -> str:
    if design.owner_id == user.pk:
        return "owner"
    if shares is None:
        shares = dict(DesignShare.objects.filter(user=user, design=design).values_list("design_id", "access"))
    return "write" if shares.get(design.pk) == Access.WRITE else "read"


def _detail(request, design: Design) -> dict:
    latest = design.revisions.order_by("-number").values_list("number", flat=True).first()
    out = design_out(request, design, access=_access(request.user, design), latest_revision=latest, spec=True)
    if hasattr(design, "spec_warnings"):  # create and update: what the save's checks warn about, per field
        out["warnings"] = [{"path": w.path, "message": w.message} for w in design.spec_warnings]
    return out


class DesignListApi(ApiView):
    class InputSerializer(StrictSerializer):
        name = serializers.CharField(
            max_length=200, required=False, help_text="Design name; overrides the spec's or the preset's."
        )
        spec = serializers.DictField(required=False, help_text="A spec (JSON Schema: GET /api/v1/spec-schema/).")
        preset = serializers.ChoiceField(
            choices=sorted(list_presets()), required=False, help_text="Start from a preset instead of a spec."
        )

        def validate(self, data):
            if ("spec" in data) == ("preset" in data):
                raise serializers.ValidationError({"spec": ["give either spec or preset, not both or neither"]})
            return data

    class ListQuery(PageQuery):
        section = serializers.ChoiceField(
            choices=["own", "shared"], required=False, help_text="Only your own designs, or only those shared with you."
        )

    @extend_schema(
        operation_id="designs_list",
        parameters=[ListQuery],
        responses={200: DesignPageOut},
        tags=["designs"],
        summary="List the designs you own or that are shared with you (newest first)",
    )
    def get(self, request):
        q = query(self.ListQuery, request)
        lister = {"own": design_list_owned, "shared": design_list_shared}.get(q.get("section") or "", design_list)
        # A list never loads a spec: one shared design's huge spec must not slow anyone's list.
        qs = lister(user=request.user).defer("spec").annotate(latest_revision=_latest)
        rows, nxt = id_page(qs, cursor=q.get("cursor"), limit=q["limit"])
        shares = dict(
            DesignShare.objects.filter(user=request.user, design__in=[d.pk for d in rows]).values_list(
                "design_id", "access"
            )
        )
        results = [
            design_out(request, d, access=_access(request.user, d, shares), latest_revision=d.latest_revision)
            for d in rows
        ]
        return Response(page_body(request, results, nxt, None))

    @extend_schema(
        operation_id="designs_create",
        request=InputSerializer,
        parameters=[IDEMPOTENCY],
        responses={201: DesignDetailOut, **IDEMPOTENCY_ERRORS},
        tags=["designs"],
        summary="Create a design from a spec or a preset",
    )
    def post(self, request):
        return idempotent(request, lambda: self._create(request))

    def _create(self, request):
        s = self.InputSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        data = s.validated_data
        spec = data.get("spec")
        if spec is not None:
            spec_json_type_check(spec)
        if spec is not None and data.get("name"):
            spec = {**spec, "name": data["name"]}
        design = design_create(user=request.user, spec=spec, preset=data.get("preset"), name=data.get("name"))
        return Response(
            _detail(request, design), status=201, headers={"Location": url(request, "design-detail", design.pk)}
        )


class DesignDetailApi(ApiView):
    class InputSerializer(StrictSerializer):
        name = serializers.CharField(max_length=200, required=False, help_text="Rename (sets the spec's name).")
        spec = serializers.DictField(required=False, help_text="Replace the spec (validated as a whole).")

        def validate(self, data):
            if not data:
                raise serializers.ValidationError("give name, spec or both")
            return data

    @extend_schema(
        operation_id="designs_retrieve",
        responses={200: DesignDetailOut},
        tags=["designs"],
        summary="Show a design with its spec",
    )
    def get(self, request, design_id: int):
        design = design_for(request, design_id)
        return with_etag(Response(_detail(request, design)), design_etag(design))

    @extend_schema(
        operation_id="designs_update",
        request=InputSerializer,
        parameters=[IF_MATCH],
        responses={200: DesignDetailOut, 412: PRECONDITION_FAILED},
        tags=["designs"],
        summary="Change a design's spec or name (needs write access)",
    )
    def patch(self, request, design_id: int):
        design = design_for(request, design_id, write=True)
        s = self.InputSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        if "spec" in s.validated_data:
            spec_json_type_check(s.validated_data["spec"])
        with transaction.atomic():
            design = Design.objects.select_for_update().get(pk=design.pk)
            check_if_match(request, design_etag(design))
            spec = s.validated_data.get("spec", design.spec)
            if "name" in s.validated_data:
                spec = {**spec, "name": s.validated_data["name"]}
            design = design_update(design=design, spec=spec)
        return with_etag(Response(_detail(request, design)), design_etag(design))

    @extend_schema(
        operation_id="designs_delete",
        parameters=[IF_MATCH],
        responses={204: None, 412: PRECONDITION_FAILED},
        tags=["designs"],
        summary="Delete a design with its revisions (owner only)",
    )
    def delete(self, request, design_id: int):
        design = design_for(request, design_id, owner=True)
        with transaction.atomic():
            design = Design.objects.select_for_update().get(pk=design.pk)
            check_if_match(request, design_etag(design))
            design_delete(design=design)
        return Response(status=204)


class ShareOut(serializers.Serializer):
    username = serializers.CharField(help_text="The account the design is shared with.")
    access = serializers.ChoiceField(
        choices=Access.choices, help_text="read: see the design and its results; write: also change and compute it."
    )
    url = serializers.URLField(help_text="This share's URL (designs_shares_put, designs_shares_delete).")


def _share_out(request, design_id: int, username: str, access: str) -> dict:
    return {"username": username, "access": access, "url": url(request, "design-share", design_id, username)}


class DesignShareListApi(ApiView):
    class OutputSerializer(serializers.Serializer):
        results = ShareOut(many=True, help_text="Every share of the design.")

    @extend_schema(
        operation_id="designs_shares_list",
        responses={200: OutputSerializer},
        tags=["designs"],
        summary="Who a design is shared with (owner only)",
    )
    def get(self, request, design_id: int):
        design = design_for(request, design_id, owner=True)
        shares = design.shares.order_by("username").values_list("username", "access")
        return Response({"results": [_share_out(request, design.pk, name, access) for name, access in shares]})


class DesignShareApi(ApiView):
    class InputSerializer(StrictSerializer):
        access = serializers.ChoiceField(
            choices=Access.choices,
            default=Access.READ,
            help_text="read (the default): see the design and its results; write: also change and compute it.",
        )

    @staticmethod
    def _check(username: str) -> None:
        if len(username) > 150:
            raise ApiError(
                400,
                "invalid",
                "A username has at most 150 characters.",
                [{"path": "username", "message": "at most 150 characters"}],
            )

    @staticmethod
    def _current(design: Design, username: str) -> str | None:
        """The share's ETag, its row locked for the write (None: no share of that name)."""
        access = (
            DesignShare.objects.select_for_update()
            .filter(design=design, username=username)
            .values_list("access", flat=True)
            .first()
        )
        return share_etag(access)

    @extend_schema(
        operation_id="designs_shares_put",
        request=InputSerializer,
        parameters=[IF_MATCH],
        responses={200: ShareOut, 412: PRECONDITION_FAILED},
        tags=["designs"],
        summary="Share a design with a username, or change its access (owner only)",
    )
    def put(self, request, design_id: int, username: str):
        design = design_for(request, design_id, owner=True)
        s = self.InputSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        self._check(username)
        if username == request.user.get_username():
            raise ApiError(
                400,
                "invalid",
                "The owner already has full access.",
                [{"path": "username", "message": "is the design's owner"}],
            )
        with transaction.atomic():
            check_if_match(request, self._current(design, username))
            share = design_share(design=design, username=username, access=s.validated_data["access"])
        return with_etag(
            Response(_share_out(request, design.pk, share.username, share.access)),
            share_etag(share.access),
        )

    @extend_schema(
        operation_id="designs_shares_delete",
        parameters=[IF_MATCH],
        responses={204: None, 412: PRECONDITION_FAILED},
        tags=["designs"],
        summary="Stop sharing a design with a username (owner), or leave a design shared with you",
    )
    def delete(self, request, design_id: int, username: str):
        self._check(username)
        design = design_for(request, design_id)
        if design.owner_id != request.user.pk and username != request.user.get_username():
            raise Http404("No such design.")  # as design_for(owner=True) answers a recipient
        with transaction.atomic():
            check_if_match(request, self._current(design, username))
            if design.owner_id == request.user.pk:
                design_unshare(design=design, username=username)
            else:
                design_leave(design_id=design.pk, user=request.user)
        return Response(status=204)


class ComputeJobOut(JobOut):
    deduplicated = serializers.BooleanField(
        required=False, help_text="true: a job already computing this exact computation (this one); absent: a new job."
    )


class ComputeRevisionOut(RevisionOut):
    deduplicated = serializers.BooleanField(help_text="Always true: the revision that already has this computation.")


class DesignComputeApi(ApiView):
    class InputSerializer(StrictSerializer):
        force = serializers.BooleanField(
            required=False,
            default=False,
            help_text="Compute even when a revision of this design already has this exact computation "
            "(same spec, engine and catalog versions and custom parts), or a job is computing it.",
        )

    @extend_schema(
        operation_id="designs_compute",
        request=InputSerializer,
        parameters=[IDEMPOTENCY],
        responses={
            202: OpenApiResponse(
                ComputeJobOut,
                description="The job computing it (`deduplicated: true`: one already computing this exact computation).",
            ),
            200: OpenApiResponse(
                ComputeRevisionOut,
                description=(
                    "Nothing to compute: the body is the existing revision with this exact computation "
                    "(`deduplicated: true`); send `force: true` to compute anyway."
                ),
            ),
            429: OpenApiResponse(description="Too many of your jobs are waiting (Retry-After)."),
            503: OpenApiResponse(
                description="The job could not be queued (message broker not answering); `job` is the failed job."
            ),
            **IDEMPOTENCY_ERRORS,
        },
        tags=["designs"],
        summary="Start computing the design's current spec; answers 202 with the job (Location), "
        "or 200 with the revision that already has it",
    )
    def post(self, request, design_id: int):
        response = idempotent(request, lambda: self._compute(request, design_id))
        if response.status_code == 202 and not response.data.get("deduplicated"):
            # Committed and sent by now (or failed at sending): answer with the job as it is.
            try:
                job = job_sent(Job.objects.get(pk=response.data["id"]))
            except JobNotQueued:
                forget_idempotency_key(request)
                raise
            response.data = job_out(request, job)
            for name, value in job_poll_headers(job).items():
                response[name] = value
        return response

    def _compute(self, request, design_id: int):
        # Retries are the IdempotencyRecord's (24 h, replayed answers); the job row keeps no key of its own.
        design = design_for(request, design_id, write=True)
        # No body means {}; an empty JSON array is still not an object (400), so `or {}` would be wrong here.
        body = request.data
        s = self.InputSerializer(data={} if isinstance(body, Mapping) and not body else body)
        s.is_valid(raise_exception=True)
        outcome = design_compute_request(design=design, user=request.user, force=s.validated_data["force"])
        if outcome.revision is not None:
            body = {**revision_out(request, outcome.revision), "deduplicated": True}
            return Response(body, status=200, headers={"Location": body["url"]})
        # A new job's body is the job's, as GET answers it; a job already computing this says so.
        assert outcome.job is not None  # no revision to reuse, so a job was queued or joined
        body = {**job_out(request, outcome.job), **({"deduplicated": True} if outcome.deduplicated else {})}
        return Response(body, status=202, headers={"Location": body["url"]})


def job_for(request, job_id, *, write: bool = False) -> Job:
    """A job the caller may see: one of a design they can see (write: change), or their own."""
    job = Job.objects.filter(pk=job_id).first()
    if job is None:
        raise Http404("No such job.")
    if job.design_id is not None:
        design_for(request, job.design_id, write=write)
    elif job.created_by_id != request.user.pk:
        raise Http404("No such job.")
    return job


class JobDetailApi(ApiView):
    @extend_schema(
        operation_id="jobs_retrieve",
        responses={200: JobOut},
        tags=["jobs"],
        summary="A job's status, stage, percent and error (poll until status is terminal)",
    )
    def get(self, request, job_id):
        job = job_for(request, job_id)
        return Response(job_out(request, job), headers=job_poll_headers(job))


class JobCancelApi(ApiView):
    @extend_schema(
        operation_id="jobs_cancel",
        request=None,
        responses={200: JobOut},
        tags=["jobs"],
        summary="Ask a job to stop: a queued job is cancelled at once, a running one soon",
    )
    def post(self, request, job_id):
        job = job_request_cancel(job=job_for(request, job_id, write=True))
        return Response(job_out(request, job))
