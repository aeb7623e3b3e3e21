"""HTML views of measured fiber test results: upload a filled test sheet, list a revision's uploads,
read one upload's verdicts, download them as CSV.

Access is the selectors', as for every design page: a design the user may not see is a 404, and so
is an upload by a user who may only read it (they still see every result).
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.core.files.uploadedfile import UploadedFile
from django.http import Http404, HttpResponse, HttpResponseBase, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from apps.common.forms import upload_within_limit
from apps.common.requests import SignedInRequest
from apps.designs.selectors import design_can_write, revision_get, revision_number_of
from apps.designs.views import signin_required
from apps.jobs.models import Job
from apps.jobs.services import JobQuotaExceeded, job_sent
from engine.csvcells import neutralize_csv_text

from .services import (
    TEST_LIMITS,
    MeasurementRejected,
    MeasurementUnavailable,
    measurement_fiber_history,
    measurement_get,
    measurement_list,
    measurement_report,
    measurement_results_lines,
    measurement_standing_report,
    measurement_submit,
    measurement_withdraw,
)

LIST_LIMIT = 200


class MeasurementUploadForm(forms.Form):
    file = forms.FileField(
        label="Filled test sheet (CSV)",
        help_text="This revision's test-sheet.csv with measured_loss_db filled in (0.42 or 0.42 dB; empty = not "
        "measured). Only fiber_id and measured_loss_db are required; other columns are kept.",
        widget=forms.FileInput(attrs={"accept": ".csv,text/csv"}),
    )
    test_limit = forms.ChoiceField(label="Pass limit", choices=list(TEST_LIMITS.items()), initial="pmd")
    keep_valid = forms.BooleanField(
        label="Keep the valid rows when some rows have errors",
        required=False,
        initial=True,
        help_text="The rows with errors are listed with the upload. Untick to refuse the whole file instead.",
    )

    def clean_file(self) -> UploadedFile | None:
        return upload_within_limit(self.cleaned_data["file"])


@signin_required
@require_http_methods(["GET", "POST"])
def measurement_list_view(request: SignedInRequest, pk: int, number: int) -> HttpResponse:
    revision = revision_get(user=request.user, design_id=pk, number=number)
    can_write = design_can_write(user=request.user, design=revision.design)
    form, rejected = (MeasurementUploadForm() if can_write else None), None
    if request.method == "POST":
        if not can_write:
            raise Http404("No such design.")  # a read-only sharer, as design_get(write=True) answers
        form = MeasurementUploadForm(request.POST, request.FILES)
        if form.is_valid():
            f = form.cleaned_data["file"]
            try:
                upload, job = measurement_submit(
                    revision=revision,
                    user=request.user,
                    data=f.read(),
                    filename=f.name,
                    test_limit=form.cleaned_data["test_limit"],
                    keep_valid=form.cleaned_data["keep_valid"],
                )
            except MeasurementRejected as exc:
                listed = " They are listed below." if exc.errors else ""
                form.add_error("file", f"Nothing was stored. {exc.message}{listed}")
                rejected = exc
            except JobQuotaExceeded as exc:
                form.add_error(None, str(exc))
            else:
                if job is not None:
                    job = job_sent(job)  # 503 when the broker refused it (the job is failed, never run later)
                    messages.success(request, f"Stored {upload.filename}: judging it in the background.")
                    # the job page moves on to the upload's page, even when the worker has finished first (?follow)
                    return redirect(reverse("designs:job", args=[pk, job.pk]) + "?follow=1")
                note = f", {upload.error_count:,} row(s) with errors left out" if upload.error_count else ""
                messages.success(request, f"Stored {upload.filename}: {upload.rows:,} row(s){note}.")
                return redirect("measurements:measurement", pk=pk, number=number, upload_id=upload.pk)
    uploads = list(measurement_list(revision=revision)[: LIST_LIMIT + 1])
    test_limit = request.GET.get("test_limit")
    standing = (
        measurement_standing_report(revision=revision, test_limit=test_limit if test_limit in TEST_LIMITS else None)
        if uploads
        else None
    )
    if standing and "uploads" in standing:
        supplied = {u["upload"].pk: u["fibers"] for u in standing["uploads"]}
        for m in uploads:
            m.fibers_counted = supplied.get(m.pk, 0)
    return render(
        request,
        "measurements/measurements.html",
        {
            "design": revision.design,
            "revision": revision,
            "can_write": can_write,
            "form": form,
            "rejected": rejected,
            "uploads": uploads[:LIST_LIMIT],
            "more": len(uploads) > LIST_LIMIT,
            "standing": standing,
            "test_limits": TEST_LIMITS,
            "standing_limit": TEST_LIMITS.get((standing or {}).get("test_limit", ""), ""),
        },
        status=400 if form is not None and form.errors else 200,
    )


@signin_required
@require_POST
def measurement_withdraw_view(request: SignedInRequest, pk: int, number: int, upload_id: int) -> HttpResponse:
    """Withdraw an upload (its rows stop counting; it stays listed), or count it again (restore=1)."""
    revision = revision_get(user=request.user, design_id=pk, number=number)
    if not design_can_write(user=request.user, design=revision.design):
        raise Http404("No such design.")
    upload = measurement_get(revision=revision, upload_id=upload_id)
    restore = request.POST.get("restore") == "1"
    measurement_withdraw(upload=upload, user=request.user, withdraw=not restore)
    messages.success(
        request,
        f"{upload.filename} counts again."
        if restore
        else f"Withdrew {upload.filename}: its rows no longer count; it stays listed.",
    )
    return redirect("measurements:measurements", pk=pk, number=number)


@signin_required
@require_safe
def measurement_fiber_view(request: SignedInRequest, pk: int, number: int) -> HttpResponse:
    """Every measurement of one fiber (?fiber=<fiber id>) across the uploads, and which one counts."""
    revision = revision_get(user=request.user, design_id=pk, number=number)
    fiber_id = request.GET.get("fiber", "").strip()
    history, problem = None, None
    if fiber_id:
        try:
            history = measurement_fiber_history(revision=revision, fiber_id=fiber_id)
        except MeasurementUnavailable as exc:
            problem = str(exc)
        except Http404:
            problem = f"No fiber {fiber_id!r} on this revision's test sheet (fiber ids look like L000123:1)."
    return render(
        request,
        "measurements/measurement_fiber.html",
        {
            "design": revision.design,
            "revision": revision,
            "fiber_id": fiber_id,
            "history": history,
            "problem": problem,
            "test_limit": TEST_LIMITS.get(history["test_limit"], "") if history else "",
        },
        status=404 if problem and not history else 200,
    )


@signin_required
@require_safe
def measurement_detail(request: SignedInRequest, pk: int, number: int, upload_id: int) -> HttpResponse:
    revision = revision_get(user=request.user, design_id=pk, number=number)
    upload = measurement_get(revision=revision, upload_id=upload_id)
    return render(
        request,
        "measurements/measurement.html",
        {
            "design": revision.design,
            "revision": revision,
            "upload": upload,
            "report": measurement_report(upload=upload),
            "test_limit": TEST_LIMITS.get(upload.test_limit, upload.test_limit),
        },
    )


@signin_required
@require_safe
def measurement_results_csv(request: SignedInRequest, pk: int, number: int, upload_id: int) -> HttpResponseBase:
    revision = revision_get(user=request.user, design_id=pk, number=number)
    upload = measurement_get(revision=revision, upload_id=upload_id)
    try:
        lines = measurement_results_lines(upload=upload)
    except MeasurementUnavailable as exc:
        return HttpResponse(str(exc), status=409, content_type="text/plain; charset=utf-8")
    response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="design-{pk}-r{number}-measurements-{upload.pk}-results.csv"'
    )
    return response


@signin_required
@require_safe
def measurement_uploaded_csv(request: SignedInRequest, pk: int, number: int, upload_id: int) -> HttpResponse:
    """The file as it was uploaded: exactly, unless a cell would run as a formula in a spreadsheet, which is then
    neutralized like every CSV the app serves (engine/csvcells.py); `?csv=raw` gives the bytes as uploaded."""
    revision = revision_get(user=request.user, design_id=pk, number=number)
    upload = measurement_get(revision=revision, upload_id=upload_id)
    content = upload.content if request.GET.get("csv") == "raw" else neutralize_csv_text(upload.content)
    response = HttpResponse(content, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="design-{pk}-r{number}-measurements-{upload.pk}.csv"'
    return response


def upload_result_page(job: Job) -> str | None:
    """A read upload's own page, its verdicts (the page a finished measurements job moves on to)."""
    number = revision_number_of(job)
    if number is None:
        return None
    return reverse("measurements:measurement", args=[job.design_id, number, job.params["upload_id"]])
