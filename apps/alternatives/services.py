"""Studies: create one (validated requirement + a background job), run it (the job's handler), pick a
candidate (a new design with its spec, computed like any other)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction
from django.http import Http404

from apps.catalog.services import catalog_for, price_version_latest
from apps.designs.selectors import design_get
from apps.designs.services import (
    ComputeRequest,
    design_compute_request,
    design_create,
    design_limits,
    design_update,
)
from apps.jobs.models import Job
from apps.jobs.progress import DbProgress
from apps.jobs.services import job_create
from engine.alternatives.requirement import parse_requirement
from engine.alternatives.study import Row, mark_front, run_study
from engine.catalog import load_catalog

from .models import Candidate, Study

if TYPE_CHECKING:
    from django.contrib.auth.models import User

JOB_KIND = "alternatives"


def _gpus_per_server(owner: User | None) -> dict[str, int]:
    catalog = catalog_for(owner)[0] if owner is not None else load_catalog()
    return {k: s.gpus for k, s in catalog.servers.items()}


def study_create(*, user: User, data: dict, name: str = "") -> Study:
    """Validate the requirement (SpecError naming every bad field) and queue its study. Call job_sent(study.job)
    after the commit (JobQuotaExceeded past the user's queued-job quota: nothing is created)."""
    parse_requirement(data, gpus_per_server=_gpus_per_server(user))
    version = price_version_latest(owner=user)
    with transaction.atomic():
        study = Study.objects.create(
            owner=user,
            name=(name or "").strip()[:200] or _default_name(data),
            requirement=data,
            price_version=version.number if version else None,
            currency=version.currency if version else "",
        )
        study.job = job_create(kind=JOB_KIND, user=user, params={"study": study.pk})
        study.save(update_fields=["job"])
    return study


def _default_name(data: dict) -> str:
    size = f"{data['gpus']} GPUs" if data.get("gpus") else f"{data.get('servers')} servers"
    return f"{data.get('server_model')}, {size}"


def study_get(*, user: User, study_id: int) -> Study:
    """The study if the user owns it; otherwise Http404 (never 403: a stranger learns nothing)."""
    study = Study.objects.select_related("job").filter(pk=study_id, owner=user).first()
    if study is None:
        raise Http404("No such study.")
    return study


def study_run_job(*, job: Job, progress: DbProgress) -> dict:
    """The job's handler: compute every candidate, storing each as soon as it is judged (a poll shows them),
    then the Pareto front and the dropped choices with their reasons."""
    study = Study.objects.select_related("owner").get(pk=job.params["study"])
    catalog = catalog_for(study.owner)[0]
    version = price_version_latest(owner=study.owner)
    req = parse_requirement(
        study.requirement,
        gpus_per_server={k: s.gpus for k, s in catalog.servers.items()},
        prices=version.prices if version else None,
        currency=version.currency if version else None,
    )
    study.candidates.all().delete()  # a second attempt starts over
    stored: list[Candidate] = []

    def keep(row: Row) -> None:
        stored.append(
            Candidate.objects.create(
                study=study,
                index=len(stored) + 1,
                label=row.label,
                choice=row.choice,
                spec=row.spec,
                figures=row.figures,
                fabric=row.fabric,
            )
        )

    rows, rejected = run_study(
        req,
        catalog,
        limits=design_limits(),
        progress=lambda done, total: progress("candidates", done, max(total, 1)),
        on_candidate=keep,
    )
    mark_front(rows, req.objectives)
    for cand, row in zip(stored, rows, strict=True):
        if cand.pareto != row.pareto:
            Candidate.objects.filter(pk=cand.pk).update(pareto=row.pareto)
    study.rejected = [
        {"label": r.choice.label, "choice": r.choice.to_dict(), "reason": r.reason, "same_as": r.same_as}
        for r in rejected
    ]
    study.price_version = version.number if version else None
    study.currency = version.currency if version else ""
    study.save(update_fields=["rejected", "price_version", "currency"])
    return {"candidates": len(rows), "rejected": len(rejected), "pareto": sum(r.pareto for r in rows)}


def candidate_get(*, study: Study, index: int) -> Candidate:
    cand = study.candidates.filter(index=index).first()
    if cand is None:
        raise Http404("No such candidate.")
    return cand


def candidate_pick(
    *, user: User, study: Study, index: int, design_id: int | None = None
) -> tuple[Candidate, ComputeRequest]:
    """'Use this one': a new design with the candidate's spec, or with `design_id` a new revision of that design
    (the user needs write access to it; else Http404), queued for computing. Call job_sent on the request's job
    after the commit."""
    cand = candidate_get(study=study, index=index)
    with transaction.atomic():
        if design_id is None:
            design = design_create(user=user, spec={**cand.spec, "name": f"{study.name}: {cand.label}"[:200]})
        else:
            design = design_get(user=user, design_id=design_id, write=True)
            design = design_update(design=design, spec={**cand.spec, "name": design.name})
        request = design_compute_request(design=design, user=user)
        Candidate.objects.filter(pk=cand.pk).update(picked_design=design)
    cand.picked_design = design
    return cand, request
