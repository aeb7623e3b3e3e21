"""The Commissioning section's actions in the browser: upload an as-built file, download the fix list."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe

from apps.common.requests import SignedInRequest
from apps.designs.selectors import design_can_write, revision_get, revision_number_of
from apps.designs.views import signin_required
from apps.jobs.models import Job
from apps.jobs.services import JobQuotaExceeded, job_sent

from .fixlist_pdf import fix_list_csv, fix_list_pdf
from .forms import AsBuiltUploadForm
from .services import AsBuiltRejected, asbuilt_import, commissioning_standing


@signin_required
@require_POST
def asbuilt_upload_view(request: SignedInRequest, pk: int, number: int) -> HttpResponse:
    revision = revision_get(user=request.user, design_id=pk, number=number)
    if not design_can_write(user=request.user, design=revision.design):
        raise Http404("No such design.")
    form = AsBuiltUploadForm(request.POST, request.FILES)
    if form.is_valid():
        f, umap = form.cleaned_data["file"], form.cleaned_data["user_map"]
        try:
            upload, job = asbuilt_import(
                revision=revision,
                user=request.user,
                fmt=form.cleaned_data["format"],
                data=f.read(),
                filename=f.name,
                device=form.cleaned_data["device"],
                user_map=umap.read().decode("utf-8", "replace") if umap else "",
                width_only=form.cleaned_data["width_only"],
            )
        except AsBuiltRejected as exc:
            form.add_error(exc.field if exc.field in form.fields else "file", f"Nothing was stored. {exc.message}")
        except JobQuotaExceeded as exc:
            form.add_error(None, str(exc))
        else:
            job = job_sent(job)
            note = "" if job.status != "failed" else f" Classifying it failed: {job.error}"
            seen = f"{upload.links:,} observed link(s)" if upload.read else "reading it in the background"
            messages.success(request, f"Stored {upload.filename}: {seen}; classifying.{note}")
            return redirect(f"/designs/{pk}/revisions/{number}/commissioning/#commissioning")
    return render(
        request,
        "commissioning/upload_rejected.html",
        {"design": revision.design, "revision": revision, "form": form},
        status=400,
    )


@signin_required
@require_safe
def fix_list_download(request: SignedInRequest, pk: int, number: int, fmt: str) -> HttpResponse:
    revision = revision_get(user=request.user, design_id=pk, number=number)
    st = commissioning_standing(revision=revision)
    fixes = st.fixes if st is not None else []
    name = f"fix-list-r{revision.number}.{fmt}"
    if fmt == "csv":
        resp = HttpResponse(fix_list_csv(fixes), content_type="text/csv; charset=utf-8")
    else:
        resp = HttpResponse(
            fix_list_pdf(fixes, title=f"{revision.design.name} r{revision.number}: fix list"),
            content_type="application/pdf",
        )
    resp["Content-Disposition"] = f'attachment; filename="{name}"'
    return resp


def asbuilt_result_page(job: Job) -> str | None:
    """Where a read as-built import counts: the commissioning section of its revision's workspace."""
    number = revision_number_of(job)
    if number is None:
        return None
    return reverse("workspace:section", args=[job.design_id, number, "commissioning"]) + "#commissioning"
