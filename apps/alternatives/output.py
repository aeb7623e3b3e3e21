"""Plain-data views of studies and candidates: the one shape the API answers and the page's JSON poll read."""

from __future__ import annotations

from collections.abc import Callable

from django.urls import reverse

from .models import Candidate, Study


def study_state(study: Study) -> dict:
    job = study.job
    return {
        "status": job.status if job else "failed",
        "percent": job.percent if job else 0.0,
        "error": job.error if job else "the study's job is gone",
    }


def _same(url: str) -> str:
    return url


def candidate_out(c: Candidate, study: Study, absolute: Callable[[str], str] = _same) -> dict:
    return {
        "index": c.index,
        "label": c.label,
        "choice": c.choice,
        "figures": c.figures,
        "pareto": c.pareto,
        "spec": c.spec,
        "picked_design": c.picked_design_id,
        "pick_url": absolute(reverse("alternatives-api:candidate-pick", args=[study.pk, c.index])),
    }


def study_out(study: Study, *, candidates: bool = True, absolute: Callable[[str], str] = _same) -> dict:
    """`absolute`: makes a path a full URL (the API passes request.build_absolute_uri, as its other answers do)."""
    out = {
        "id": study.pk,
        "name": study.name,
        "requirement": study.requirement,
        "url": absolute(reverse("alternatives-api:study-detail", args=[study.pk])),
        "page_url": absolute(reverse("alternatives:study", args=[study.pk])),
        "job": str(study.job_id) if study.job_id else None,
        **study_state(study),
        "currency": study.currency or None,
        "price_version": study.price_version,
        "created_at": study.created_at.isoformat().replace("+00:00", "Z"),
        "rejected": study.rejected,
    }
    if candidates:
        out["candidates"] = [candidate_out(c, study, absolute) for c in study.candidates.all()]
    return out
