"""HTML pages of utilization snapshots: import one (write access), list them, read one report.

Access is the designs app's selectors': a design the user may not see is a 404, and so is an import by a user
who may only read it (they still see every report)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.core.files.uploadedfile import UploadedFile
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_safe

from apps.common.forms import upload_within_limit
from apps.common.requests import SignedInRequest
from apps.designs.selectors import design_can_write, revision_get
from apps.designs.views import signin_required

from .models import UtilizationSnapshot
from .services import UtilizationRejected, utilization_get, utilization_import, utilization_list, utilization_parse

LIST_LIMIT = 100


class UtilizationImportForm(forms.Form):
    file = forms.FileField(
        label="Snapshot (JSON)",
        help_text="Prometheus query-API JSON of fabric:port_utilization:ratio_rate1m (a range query gives average "
        'and peak per port), or {"interval_s": 300, "before": [{"device", "port", "tx_bytes"}], "after": [...]}.',
        widget=forms.FileInput(attrs={"accept": ".json,application/json"}),
    )
    kind = forms.ChoiceField(label="Format", choices=UtilizationSnapshot.Kind.choices, initial="prometheus")
    label = forms.CharField(label="Label", max_length=200, required=False, help_text="e.g. the job and the time range")

    def clean_file(self) -> UploadedFile | None:
        return upload_within_limit(self.cleaned_data["file"])


@signin_required
@require_http_methods(["GET", "POST"])
def utilization_list_view(request: SignedInRequest, pk: int, number: int) -> HttpResponse:
    revision = revision_get(user=request.user, design_id=pk, number=number)
    can_write = design_can_write(user=request.user, design=revision.design)
    form, rejected = (UtilizationImportForm() if can_write else None), None
    if request.method == "POST":
        if not can_write:
            raise Http404("No such design.")  # a read-only sharer, as design_get(write=True) answers
        form = UtilizationImportForm(request.POST, request.FILES)
        if form.is_valid():
            try:
                data = utilization_parse(form.cleaned_data["file"].read())
                snap = utilization_import(
                    revision=revision,
                    user=request.user,
                    data=data,
                    kind=form.cleaned_data["kind"],
                    label=form.cleaned_data["label"] or form.cleaned_data["file"].name,
                )
            except UtilizationRejected as exc:
                rejected = exc
                form.add_error("file" if exc.field not in form.fields else exc.field, exc.message)
            else:
                messages.success(request, f"Snapshot imported: {snap.report['totals']['ports']:,} ports judged.")
                return redirect("monitoring:utilization", pk=pk, number=number, snapshot_id=snap.pk)
    snapshots = list(utilization_list(revision=revision)[:LIST_LIMIT])
    return render(
        request,
        "monitoring/utilization_list.html",
        {
            "design": revision.design,
            "revision": revision,
            "form": form,
            "rejected": rejected,
            "snapshots": snapshots,
        },
        status=400 if rejected is not None or (form is not None and form.errors) else 200,
    )


@signin_required
@require_safe
def utilization_detail_view(request: SignedInRequest, pk: int, number: int, snapshot_id: int) -> HttpResponse:
    revision = revision_get(user=request.user, design_id=pk, number=number)
    snap = utilization_get(revision=revision, snapshot_id=snapshot_id)
    return render(
        request,
        "monitoring/utilization.html",
        {"design": revision.design, "revision": revision, "snapshot": snap, "report": snap.report},
    )
