"""Plain-dict representations of designs, jobs and revisions (documented in apps.api.serializers)."""

from __future__ import annotations

from datetime import datetime

from django.urls import reverse

from apps.designs.models import Design, Revision
from apps.jobs.models import Job


def iso(dt: datetime | None) -> str | None:
    if dt is None:
        return None
    return dt.isoformat().replace("+00:00", "Z")


def url(request, name: str, *args) -> str:
    return request.build_absolute_uri(reverse(f"api:{name}", args=args))


def design_out(request, design: Design, *, access: str, latest_revision: int | None, spec: bool = False) -> dict:
    out = {
        "id": design.pk,
        "url": url(request, "design-detail", design.pk),
        "name": design.name,
        "preset": design.preset,
        "owner": design.owner.get_username(),
        "access": access,
        "latest_revision": latest_revision,
        "created_at": iso(design.created_at),
        "updated_at": iso(design.updated_at),
    }
    if spec:
        out["spec"] = design.spec
        out["revisions_url"] = url(request, "revision-list", design.pk)
        out["compute_url"] = url(request, "design-compute", design.pk)
    return out


def job_out(request, job: Job) -> dict:
    revision = (job.result or {}).get("revision") if job.kind == "compute" else None
    return {
        "id": str(job.pk),
        "url": url(request, "job-detail", job.pk),
        "kind": job.kind,
        "status": job.status,
        "stage": job.stage,
        "percent": job.percent,
        "error": job.error,
        "cancel_requested": job.cancel_requested,
        "design": job.design_id,
        "design_url": url(request, "design-detail", job.design_id) if job.design_id else None,
        "revision": revision,
        "revision_url": (
            url(request, "revision-detail", job.design_id, revision) if revision and job.design_id else None
        ),
        "file_url": (url(request, "job-file", job.pk) if job.kind == "export" and job.status == "succeeded" else None),
        "created_at": iso(job.created_at),
        "started_at": iso(job.started_at),
        "finished_at": iso(job.finished_at),
    }


def revision_out(request, rev: Revision) -> dict:
    return {
        "number": rev.number,
        "url": url(request, "revision-detail", rev.design_id, rev.number),
        "design": rev.design_id,
        "created_at": iso(rev.created_at),
        "created_by": rev.created_by.get_username() if rev.created_by else None,
        "engine_version": rev.engine_version,
        "catalog_version": rev.catalog_version,
        "spec_hash": rev.spec_hash,
        "link_count": rev.link_count,
        "cable_count": rev.cable_count,
        "compute_seconds": rev.compute_seconds,
        "gpus": (rev.summary or {}).get("gpus"),
    }


# How long a client should wait before polling a job that is not finished again: computes and exports of the
# designs this app sees take seconds to minutes (docs/api.md, "Jobs").
JOB_POLL_AFTER_S = 2


def job_poll_headers(job: Job) -> dict[str, str]:
    """`Retry-After` while the job is queued or running; nothing once it is finished."""
    return {} if job.is_terminal else {"Retry-After": str(JOB_POLL_AFTER_S)}
