"""The exports app's browser pages and its part of the revision workspace: the files section (every deliverable,
built inline or in the background), the blast radius (failure section) and the workload charts (traffic
section). Registered from ExportsConfig.ready() (apps/common/workspace.py)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_safe

from apps.common.requests import SignedInRequest
from apps.common.workspace import register_card, register_panel, register_section
from apps.designs.models import Revision
from apps.designs.selectors import revision_get
from apps.designs.views import signin_required
from apps.jobs.services import JobNotQueued, JobQuotaExceeded, job_sent
from deliverables.registry import STORED_FILES
from deliverables.workloads import chart_svgs
from engine.errors import SpecError

from .artifacts import artifact_lookup, inline_render_allowed, stored_kinds
from .failures import revision_blast_radius
from .services import DELIVERABLES, deliverable_applies, deliverable_available, export_enqueue


def register() -> None:
    register_section("files", "Files", order=90, blurb="Every deliverable of this revision")
    register_panel("files", "exports/_downloads.html", context=downloads_panel, order=10)
    register_panel("failure", "exports/_blast_radius.html", context=blast_panel, order=10)
    register_panel("traffic", "exports/_workloads.html", context=workloads_panel, order=10)
    register_card(files_card, order=90)


def _files_section(revision: Revision) -> str:
    return reverse("workspace:section", args=[revision.design_id, revision.number, "files"])


def downloads_panel(request: HttpRequest, revision: Revision) -> dict:
    return {"design": revision.design, "revision": revision, "downloads": downloads(revision)}


def blast_panel(request: HttpRequest, revision: Revision) -> dict:
    return {"design": revision.design, "revision": revision, "blast": blast(revision, inline=None)}


def workloads_panel(request: HttpRequest, revision: Revision) -> dict:
    summary = revision.summary or {}
    charts = {
        name: chart_svgs(analysis)
        for name, analysis in (summary.get("workloads") or {}).items()
        if analysis.get("charts")
    }
    return {"design": revision.design, "revision": revision, "s": summary, "workload_charts": charts}


def files_card(request: HttpRequest, revision: Revision) -> list[dict]:
    count = len(STORED_FILES) + len(_rendered(revision))
    return [{"label": "Files", "value": count, "unit": "deliverables", "section": "files"}]


def _rendered(revision: Revision) -> list[str]:
    return [
        k
        for k in DELIVERABLES
        if (k != "workloads.pdf" or (revision.summary or {}).get("workloads")) and deliverable_applies(k, revision.spec)
    ]


def blast(revision: Revision, *, inline: bool | None) -> dict:
    """The revision's blast radius: computed in the request when the design is small enough to render inline (or
    `inline` says so), else a link to its own page."""
    if not (inline if inline is not None else inline_render_allowed(revision)):
        return {"deferred": True}
    try:
        return {"data": revision_blast_radius(revision=revision)}
    except SpecError as exc:
        return {"error": f"The blast radius cannot be worked out: the revision no longer computes ({exc})."}


def downloads(revision: Revision) -> list[dict]:
    """Every deliverable. The files from the database are served by the API's download endpoint (it accepts
    the browser's session); the rendered ones go through revision_file, which shows a background build's
    progress when the file is large and not stored yet."""
    base = f"/api/v1/designs/{revision.design_id}/revisions/{revision.number}/downloads/"
    rendered = _rendered(revision)
    background = not inline_render_allowed(revision)
    stored = stored_kinds(revision=revision, kinds=rendered) if background else set()
    out: list[dict[str, Any]] = [{"kind": k, "url": base + k, "download": True} for k in STORED_FILES] + [
        {
            "kind": k,
            "url": reverse("exports:revision_file", args=[revision.design_id, revision.number, k])
            if background
            else base + k,
            "download": not background or k in stored,
            "background": background and k not in stored,
        }
        for k in rendered
    ]
    # CSV files also as raw (every cell unchanged, no ' before formula-like text): the declared csv=raw option.
    for d in out:
        d["raw_url"] = (
            d["url"] + "?csv=raw" if d["kind"].endswith(".csv") and not d["kind"].startswith("netbox") else None
        )
    return out


@signin_required
@require_safe
def revision_blast_radius_view(request: SignedInRequest, pk: int, number: int) -> HttpResponse:
    revision = revision_get(user=request.user, design_id=pk, number=number)
    return render(
        request,
        "exports/revision_blast_radius.html",
        {"design": revision.design, "revision": revision, "blast": blast(revision, inline=True)},
    )


@signin_required
@require_safe
def revision_file(request: SignedInRequest, pk: int, number: int, kind: str) -> HttpResponse:
    """A rendered deliverable for the browser: the API's download when it is stored or cheap to render; else
    its background build (started, or the one already running) on the job page, which downloads it when done."""
    revision = revision_get(user=request.user, design_id=pk, number=number)
    if kind not in DELIVERABLES or not deliverable_applies(kind, revision.spec):
        raise Http404("No such file.")
    raw = request.GET.get("csv") == "raw" and kind.endswith(".csv")
    options = {"raw_csv": True} if raw else {}
    api_url = f"/api/v1/designs/{pk}/revisions/{number}/downloads/{kind}" + ("?csv=raw" if raw else "")
    if not deliverable_available(kind) or inline_render_allowed(revision):
        return redirect(api_url)
    back = _files_section(revision)
    try:
        _key, _options, artifact = artifact_lookup(revision=revision, kind=kind, options=options)
    except SpecError as exc:
        messages.error(request, f"{kind} cannot be built: the revision no longer computes ({exc}).")
        return redirect(back)
    if artifact is not None:
        return redirect(api_url)
    try:
        job = job_sent(export_enqueue(revision=revision, kind=kind, user=request.user, options=options))
    except (JobQuotaExceeded, JobNotQueued) as exc:
        messages.error(request, f"{kind} not started: {exc.message}")
        return redirect(back)
    except ValueError as exc:  # "options.row: …": what to ask for instead (a whole-design sheet too large)
        messages.error(request, f"{kind} not started: {str(exc).partition(': ')[2] or exc}")
        return redirect(back)
    return redirect("designs:job", pk=pk, job_id=job.pk)
