"""Pages: the studies list and new-study form, a study's comparison page, and 'use this one'."""

from __future__ import annotations

import re

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from apps.common.requests import SignedInRequest
from apps.jobs.services import JobNotQueued, JobQuotaExceeded, job_request_cancel, job_sent
from engine.errors import SpecError

from .forms import RequirementForm
from .models import Study
from .output import study_state
from .plot import scatter
from .services import candidate_pick, study_create, study_get


@login_required
def study_list(request: SignedInRequest) -> HttpResponse:
    form = RequirementForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            study = study_create(user=request.user, data=form.requirement(), name=form.cleaned_data["name"])
            if study.job is not None:
                job_sent(study.job)
            return redirect("alternatives:study", study.pk)
        except SpecError as exc:
            for e in exc.errors:
                field = re.split(r"[.\[]", e.path)[0]
                form.add_error(field if field in form.fields else None, e.message)
        except (JobQuotaExceeded, JobNotQueued) as exc:
            form.add_error(None, str(exc))
    studies = Study.objects.filter(owner=request.user).select_related("job")[:50]
    return render(request, "alternatives/list.html", {"form": form, "studies": studies})


@login_required
def study_detail(request: SignedInRequest, pk: int) -> HttpResponse:
    study = study_get(user=request.user, study_id=pk)
    candidates = list(study.candidates.all())
    workloads = sorted({w for c in candidates for w in (c.figures.get("traffic") or {})})
    return render(
        request,
        "alternatives/study.html",
        {
            "study": study,
            "state": study_state(study),
            "candidates": candidates,
            "workloads": workloads,
            "plot": scatter(candidates),
        },
    )


@login_required
@require_POST
def candidate_pick_view(request: SignedInRequest, pk: int, index: int) -> HttpResponse:
    study = study_get(user=request.user, study_id=pk)
    cand, outcome = candidate_pick(user=request.user, study=study, index=index)
    if outcome.job is not None:
        job = job_sent(outcome.job)
        return redirect("designs:job", cand.picked_design_id, job.pk)
    if outcome.revision is not None:
        return redirect("designs:revision", cand.picked_design_id, outcome.revision.number)
    return redirect("designs:detail", cand.picked_design_id)


@login_required
@require_POST
def study_cancel(request: SignedInRequest, pk: int) -> HttpResponse:
    """Stop the study's job: a queued one at once, a running one at its next candidate (the candidates
    computed so far stay)."""
    study = study_get(user=request.user, study_id=pk)
    if study.job is not None:
        job_request_cancel(job=study.job)
    return redirect("alternatives:study", study.pk)
