"""The job list: find a job whose id was lost (a crashed client, a 202 whose answer never arrived)."""

from __future__ import annotations

import base64
import binascii
import json
import uuid
from datetime import datetime

from django.db.models import Q
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from apps.designs.models import Design
from apps.jobs.models import Job, JobStatus
from engine.inputgate import load_json

from ..errors import ApiError
from ..output import job_out
from ..pagination import page_body
from ..serializers import JobPageOut, query
from .base import ApiView, design_for
from .tokens import PageQuery


def _cursor(job: Job) -> str:
    raw = json.dumps({"t": job.created_at.isoformat(), "j": str(job.pk)}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _after(cursor: str) -> tuple[datetime, uuid.UUID]:
    """The (created_at, id) a cursor of _cursor() names; 400 for anything else."""
    try:
        if len(cursor) > 200:
            raise ValueError
        data = load_json(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)), max_chars=200, max_depth=4)
        when = datetime.fromisoformat(data["t"])
        if when.tzinfo is None:
            raise ValueError
        return when, uuid.UUID(data["j"])
    except (ValueError, TypeError, KeyError, binascii.Error, UnicodeDecodeError):
        raise ApiError(
            400,
            "invalid_query",
            "Not a cursor of this list; start again from the first page.",
            [{"path": "cursor", "message": "not a cursor of this list"}],
        ) from None


class JobListApi(ApiView):
    class ListQuery(PageQuery):
        design = serializers.IntegerField(
            required=False, min_value=0, max_value=999999999999999999, help_text="Only the jobs of this design."
        )
        status = serializers.ChoiceField(
            choices=JobStatus.values, required=False, help_text="Only the jobs in this status."
        )

    @extend_schema(
        operation_id="jobs_list",
        parameters=[ListQuery],
        responses={200: JobPageOut, 404: OpenApiResponse(description="`design` names no design you can see.")},
        tags=["jobs"],
        summary="List your jobs, newest first, by design and status",
        examples=[
            OpenApiExample(
                "Running computes of design 7",
                description="GET /api/v1/jobs/?design=7&status=running",
                value={
                    "results": [
                        {
                            "id": "5a0a3c1e-8c1b-4a5e-9a43-0d6c0f7d2b11",
                            "url": "https://fabric.example/api/v1/jobs/5a0a3c1e-8c1b-4a5e-9a43-0d6c0f7d2b11/",
                            "kind": "compute",
                            "status": "running",
                            "stage": "cabling",
                            "percent": 40.0,
                            "error": "",
                            "cancel_requested": False,
                            "design": 7,
                            "design_url": "https://fabric.example/api/v1/designs/7/",
                            "revision": None,
                            "revision_url": None,
                            "file_url": None,
                            "created_at": "2026-12-03T18:00:00Z",
                            "started_at": "2026-12-03T18:00:01Z",
                            "finished_at": None,
                        }
                    ],
                    "next_cursor": None,
                    "next": None,
                    "previous_cursor": None,
                    "previous": None,
                },
                response_only=True,
            )
        ],
    )
    def get(self, request):
        q = query(self.ListQuery, request)
        if "design" in q:
            qs = Job.objects.filter(design=design_for(request, q["design"]))
        else:
            qs = Job.objects.filter(
                Q(design__in=Design.objects.filter(Q(owner=request.user) | Q(shares__user=request.user)).values("pk"))
                | Q(design__isnull=True, created_by=request.user)
            )
        if "status" in q:
            qs = qs.filter(status=q["status"])
        if q.get("cursor"):
            when, job_id = _after(q["cursor"])
            qs = qs.filter(Q(created_at__lt=when) | Q(created_at=when, id__lt=job_id))
        rows = list(qs.order_by("-created_at", "-id")[: q["limit"] + 1])
        more = len(rows) > q["limit"]
        rows = rows[: q["limit"]]
        return Response(
            page_body(request, [job_out(request, j) for j in rows], _cursor(rows[-1]) if more else None, None)
        )
