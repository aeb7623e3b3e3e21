"""HTML: import a counter file from the revision page (the section itself is templatetags/counters.py)."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from apps.common.requests import SignedInRequest
from apps.designs.selectors import design_can_write, revision_get, revision_number_of
from apps.designs.views import signin_required
from apps.jobs.models import Job
from apps.jobs.services import JobQuotaExceeded, job_sent

from .forms import CounterUploadForm
from .selectors import counter_report
from .services import CounterImportRejected, counter_import
from .templatetags.counters import section_context


@signin_required
@require_POST
def counter_upload(request: SignedInRequest, pk: int, number: int) -> HttpResponse:
    revision = revision_get(user=request.user, design_id=pk, number=number)
    if not design_can_write(user=request.user, design=revision.design):
        raise Http404("No such design.")  # a read-only sharer, as design_get(write=True) answers
    form = CounterUploadForm(request.POST, request.FILES)
    if form.is_valid():
        f = form.cleaned_data["file"]
        try:
            text = f.read().decode("utf-8-sig")
        except UnicodeDecodeError:
            form.add_error("file", "The file is not UTF-8 text.")
        else:
            try:
                snap, job = counter_import(
                    revision=revision,
                    user=request.user,
                    text=text,
                    fmt=form.cleaned_data["format"],
                    taken_at=form.cleaned_data["taken_at"],
                    device=form.cleaned_data["device"],
                    interface=form.cleaned_data["interface"],
                    filename=f.name,
                )
            except CounterImportRejected as exc:
                form.add_error(exc.field if exc.field in form.fields else None, exc.message)
            except JobQuotaExceeded as exc:
                form.add_error(None, str(exc))
            else:
                if job is None:
                    messages.success(
                        request, f"Counters read: {snap.matched} of {snap.ports} ports matched to planned links."
                    )
                else:
                    job = job_sent(job)  # 503 when the broker refused it (the job is failed, never run later)
                    messages.success(request, f"Stored {f.name}: reading it in the background.")
                    # the job page moves on to the revision's counters, even when the worker has finished first (?follow)
                    return redirect(reverse("designs:job", args=[pk, job.pk]) + "?follow=1")
                return redirect(reverse("workspace:section", args=[pk, number, "commissioning"]) + "#counters")
    context = section_context(
        report=counter_report(revision=revision), design=revision.design, revision=revision, can_write=True, form=form
    )
    return render(request, "counters/upload_errors.html", context, status=400)


def counters_result_page(job: Job) -> str | None:
    """Where read counters are judged: the counters panel of the revision's commissioning section."""
    number = revision_number_of(job)
    if number is None:
        return None
    return reverse("workspace:section", args=[job.design_id, number, "commissioning"]) + "#counters"
