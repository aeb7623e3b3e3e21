"""HTML views of designs, their jobs and revisions: parse, call one service or selector, respond.

Access is the selectors': a design a user may not see is a 404 (never a 403), and so is a write
(edit, compute, cancel) by a user who may only read. Sharing and deleting are the owner's.
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import OuterRef, Subquery
from django.db.models.fields.json import KT
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase, JsonResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from apps.common import workspace
from apps.common.requests import SignedInRequest
from apps.jobs.models import Job
from apps.jobs.registry import job_result_page
from apps.jobs.services import JobNotQueued, JobQuotaExceeded, job_request_cancel, job_sent
from engine.errors import SpecError
from engine.orders.rule_choice import SPARES_PARAMS

from .compare import CHANGES, TABLES, revision_diff_page
from .forms import (
    ORDERED,
    CompareForm,
    MarkOrderedForm,
    NewDesignForm,
    ShareForm,
    SparesForm,
    SpecForm,
    SpecYamlForm,
    TableFilterForm,
    spec_yaml,
)
from .models import Design, Revision
from .orders import (
    baseline_current,
    baseline_mark,
    order_delta_between,
    order_delta_from_baseline,
    revision_spares_beside,
)
from .pricing import PriceListMissing, revision_reprice
from .selectors import (
    design_can_write,
    design_get,
    design_list_owned,
    design_list_shared,
    revision_get,
    revision_halls,
)
from .services import (
    design_check_spec,
    design_compute_request,
    design_create,
    design_delete,
    design_leave,
    design_share,
    design_unshare,
    design_update,
    revision_compare,
)
from .table_csv import csv_lines, stored_columns
from .tables import (
    CABLE_FIELDS,
    LINK_FIELDS,
    TableError,
    cable_page,
    link_facets,
    link_page,
    table_count,
    table_rows,
)

# The app has its own sign-in page; settings.LOGIN_URL still names the admin's (see the UI issue notes).
signin_required = login_required(login_url="login")


# --- Designs ------------------------------------------------------------------


DESIGNS_PER_PAGE = 50
_latest_number = Subquery(Revision.objects.filter(design=OuterRef("pk")).order_by("-number").values("number")[:1])


def _list_rows(qs):
    # No spec is loaded (one huge shared design must not slow a list): only the two fields the list shows.
    return qs.defer("spec").annotate(
        latest=_latest_number, servers_count=KT("spec__servers__count"), servers_model=KT("spec__servers__model")
    )


@signin_required
@require_safe
def sources_view(request: HttpRequest) -> HttpResponse:
    from .sources import source_list

    return render(request, "designs/sources.html", {"sources": source_list()})


@signin_required
@require_safe
def design_list_view(request: SignedInRequest) -> HttpResponse:
    """Your designs, and apart from them (paged on their own) the designs others shared with you."""
    own = Paginator(_list_rows(design_list_owned(user=request.user)), DESIGNS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    shared = Paginator(_list_rows(design_list_shared(user=request.user)), DESIGNS_PER_PAGE).get_page(
        request.GET.get("shared_page")
    )
    latest = [(d.pk, d.latest) for d in [*own, *shared] if getattr(d, "latest", None)]
    states = {pk: state for (pk, _n), state in workspace.revision_states(latest).items()}
    return render(request, "designs/list.html", {"designs": own, "shared": shared, "states": states})


@signin_required
@require_http_methods(["GET", "POST"])
def design_new(request: HttpRequest) -> HttpResponse:
    form = NewDesignForm(request.POST if request.method == "POST" else None)
    if form.is_valid():
        try:
            design = design_create(
                user=request.user, preset=form.cleaned_data["preset"], name=form.cleaned_data["name"] or None
            )
        except SpecError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"Created “{design.name}” from a preset. Review the spec, then compute.")
            return redirect("designs:edit", pk=design.pk)
    return render(request, "designs/new.html", {"form": form}, status=400 if form.errors else 200)


@signin_required
@require_http_methods(["GET", "POST"])
def design_new_blank(request: HttpRequest) -> HttpResponse:
    form = SpecForm(request.POST if request.method == "POST" else None, owner=request.user)
    if form.is_valid():
        design = design_create(user=request.user, spec=form.cleaned_spec)
        messages.success(request, f"Created “{design.name}”.")
        _warn(request, design)
        return _after_save(request, design)
    return render(
        request,
        "designs/form.html",
        {"form": form, "design": None, "form_notes": workspace.form_notes()},
        status=400 if form.errors else 200,
    )


@signin_required
@require_safe
def design_detail(request: SignedInRequest, pk: int) -> HttpResponse:
    design = design_get(user=request.user, design_id=pk)
    revisions = list(design.revisions.select_related("created_by").defer("summary", "spec"))
    return render(
        request,
        "designs/detail.html",
        {
            "design": design,
            "revisions": revisions,
            "states": {
                number: state
                for (_pk, number), state in workspace.revision_states(
                    [(design.pk, r.number) for r in revisions]
                ).items()
            },
            "can_write": design_can_write(user=request.user, design=design),
            "actions": workspace.design_actions(design),
            # Computations apart from file builds and imports, so builds never push the computes off the list.
            "jobs": design.jobs.select_related("created_by").filter(kind="compute")[:5],
            "other_jobs": design.jobs.select_related("created_by").exclude(kind="compute")[:5],
            "share_form": ShareForm(),
            "shares": design.shares.order_by("username"),
            "compare_form": CompareForm(numbers=[r.number for r in revisions]),
        },
    )


@signin_required
@require_http_methods(["GET", "POST"])
def design_edit(request: SignedInRequest, pk: int) -> HttpResponse:
    design = design_get(user=request.user, design_id=pk)
    if not design_can_write(user=request.user, design=design):
        # Shared read-only: the reader knows the design exists, so say why it cannot be edited (not a 404).
        return render(request, "designs/read_only.html", {"design": design}, status=403)
    post = request.POST if request.method == "POST" else None
    yaml_mode = post is not None and "spec_yaml" in post
    form = SpecForm(None if yaml_mode else post, spec=design.spec, owner=design.owner)
    yaml_form = SpecYamlForm(post if yaml_mode else None, spec=design.spec, owner=design.owner)
    bound = yaml_form if yaml_mode else form
    if post is not None and bound.is_valid():
        assert bound.cleaned_spec is not None  # clean() sets it on every valid form
        design_update(design=design, spec=bound.cleaned_spec)
        messages.success(request, "Saved.")
        _warn(request, design)
        return _after_save(request, design)
    if post is None:  # the stored spec's warnings (and what today's checks refuse in a spec saved before them)
        try:
            form.set_warnings(design_check_spec(design.spec, owner=design.owner)[1])
        except SpecError as exc:
            messages.warning(request, f"This spec would no longer be accepted: {exc}")
    return render(
        request,
        "designs/form.html",
        {"form": form, "yaml_form": yaml_form, "design": design, "form_notes": workspace.form_notes()},
        status=400 if bound.errors else 200,
    )


@signin_required
@require_POST
def design_compute(request: SignedInRequest, pk: int) -> HttpResponse:
    design = design_get(user=request.user, design_id=pk, write=True)
    return compute_response(request, design, force=request.POST.get("force") == "1")


def compute_response(request: HttpRequest, design: Design, *, force: bool = False) -> HttpResponse:
    """Start computing the design and show the job; or say why not (quota, broker, nothing new to compute)."""
    try:
        outcome = design_compute_request(design=design, user=request.user, force=force)
    except JobQuotaExceeded as exc:
        messages.error(request, f"Not started: {exc.message}")
        return redirect("designs:detail", pk=design.pk)
    if outcome.revision is not None:
        messages.info(
            request,
            f"Nothing new to compute: revision {outcome.revision.number} has this exact spec, "
            "engine and catalog. Use Recompute on the design page to compute it again anyway.",
        )
        return redirect("designs:revision", pk=design.pk, number=outcome.revision.number)
    assert outcome.job is not None  # a request that found no revision queued or joined a job
    if outcome.deduplicated:
        messages.info(request, "This exact computation is already queued or running: showing it.")
        return redirect("designs:job", pk=design.pk, job_id=outcome.job.pk)
    try:
        job = job_sent(outcome.job)
    except JobNotQueued as exc:
        messages.error(request, f"Not started: {exc.message}")
        return redirect("designs:detail", pk=design.pk)
    return redirect("designs:job", pk=design.pk, job_id=job.pk)


@signin_required
@require_POST
def design_delete_view(request: SignedInRequest, pk: int) -> HttpResponse:
    design = _owned_design(request, pk)
    design_delete(design=design)
    messages.success(request, f"Deleted “{design.name}”.")
    return redirect("designs:list")


@signin_required
@require_safe
def design_spec_download(request: SignedInRequest, pk: int) -> HttpResponse:
    design = design_get(user=request.user, design_id=pk)
    response = HttpResponse(spec_yaml(design.spec), content_type="application/yaml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="design-{design.pk}.yaml"'
    return response


# --- Sharing --------------------------------------------------------------------


@signin_required
@require_POST
def design_share_view(request: SignedInRequest, pk: int) -> HttpResponse:
    design = _owned_design(request, pk)
    form = ShareForm(request.POST)
    if form.is_valid():
        try:
            design_share(design=design, username=form.cleaned_data["username"], access=form.cleaned_data["access"])
        except SpecError as exc:
            messages.error(request, "; ".join(e.message for e in exc.errors))
        else:
            messages.success(request, f"Shared with {form.cleaned_data['username']} ({form.cleaned_data['access']}).")
    else:
        messages.error(request, " ".join(str(e) for errs in form.errors.values() for e in errs))
    return redirect("designs:detail", pk=design.pk)


@signin_required
@require_POST
def design_unshare_view(request: SignedInRequest, pk: int, share_id: int) -> HttpResponse:
    design = _owned_design(request, pk)
    share = get_object_or_404(design.shares, pk=share_id)
    design_unshare(design=design, username=share.username)
    messages.success(request, f"{share.username} no longer has access.")
    return redirect("designs:detail", pk=design.pk)


@signin_required
@require_POST
def design_leave_view(request: SignedInRequest, pk: int) -> HttpResponse:
    """A recipient gives a shared design back: it leaves their list (the owner can share it again)."""
    design = design_get(user=request.user, design_id=pk)
    if not design_leave(design_id=design.pk, user=request.user):
        raise Http404("No such design.")  # their own design: delete it instead
    messages.success(request, f"You left “{design.name}”; it is no longer shared with you.")
    return redirect("designs:list")


# --- Jobs -------------------------------------------------------------------------


@signin_required
@require_safe
def job_detail(request: SignedInRequest, pk: int, job_id) -> HttpResponse:
    """The job's record and progress. `?follow=1` (set by the upload forms that send the user here) moves on to the
    job's result when it has already succeeded: a quick worker must not leave the user on a finished job's page where
    a slow one would have moved them on (the page's script follows only a job still running when it loads)."""
    design = design_get(user=request.user, design_id=pk)
    job = get_object_or_404(design.jobs, pk=job_id)
    status = _job_status(job)
    if request.GET.get("follow") and job.status == "succeeded" and status["revision_url"]:
        return redirect(status["revision_url"])
    return render(
        request,
        "designs/job.html",
        {
            "design": design,
            "job": job,
            "status": status,
            "export": _export_of(job),
            "can_write": design_can_write(user=request.user, design=design),
        },
    )


@signin_required
@require_safe
@never_cache
def job_status(request: SignedInRequest, pk: int, job_id) -> JsonResponse:
    design = design_get(user=request.user, design_id=pk)
    return JsonResponse(_job_status(get_object_or_404(design.jobs, pk=job_id)))


@signin_required
@require_POST
def job_cancel(request: SignedInRequest, pk: int, job_id) -> HttpResponse:
    design = design_get(user=request.user, design_id=pk, write=True)
    job = job_request_cancel(job=get_object_or_404(design.jobs, pk=job_id))
    messages.info(request, _cancel_message(job))
    return redirect("designs:job", pk=design.pk, job_id=job.pk)


def _cancel_message(job: Job) -> str:
    """What a cancel did: the job may have finished (or failed) before the request reached it."""
    if job.status == "cancelled":
        return "Cancelled."
    if job.is_terminal:
        outcome = {"succeeded": "finished", "failed": "failed"}.get(job.status, job.get_status_display().lower())
        return f"Too late to cancel: the job had already {outcome}."
    return "Cancel requested; the job stops at its next step."


# --- Revisions ---------------------------------------------------------------------


def spares_beside(request: HttpRequest, revision: Revision) -> dict:
    """Both spares rules per BOM line with their inputs; the inputs from the query (defaults when empty)."""
    from engine.orders.failure_rates import DEFAULTS_NOTE, FailureRatePerCategory
    from engine.orders.spares import PercentPerCategory, parse_percents

    # Its own ids: the mark-ordered form on the same page has fields of the same names.
    form = SparesForm(request.GET if any(k in request.GET for k in SPARES_PARAMS) else None, auto_id="beside_%s")
    percent, failure = PercentPerCategory(parse_percents("0")), FailureRatePerCategory.with_defaults()
    if form.is_bound and form.is_valid():
        data = form.cleaned_data
        percent = PercentPerCategory(parse_percents(data.get("spares_percent") or "0"))
        failure = FailureRatePerCategory.from_text(
            afr=data.get("spares_afr_percent", ""),
            hours=data.get("spares_replenish_hours", ""),
            level=data.get("spares_service_level_percent", ""),
        )
    rows = revision_spares_beside(revision=revision, percent=percent, failure=failure)
    return {"form": form, "rows": rows, "note": DEFAULTS_NOTE}


@signin_required
@require_POST
def revision_reprice_view(request: SignedInRequest, pk: int, number: int) -> HttpResponse:
    """Price the revision with the owner's newest price-list version (the visible, recorded reprice action)."""
    design = design_get(user=request.user, design_id=pk, write=True)
    revision = revision_get(user=request.user, design_id=design.pk, number=number)
    try:
        pricing = revision_reprice(revision=revision, user=request.user)
    except PriceListMissing as exc:
        messages.error(request, str(exc))
    else:
        assert pricing.version is not None  # revision_reprice raises PriceListMissing rather than leave none
        messages.success(request, f"r{revision.number} is now priced with price list v{pricing.version.number}.")
    return redirect(reverse("workspace:section", args=[pk, number, "bom"]) + "#bom-title")


@signin_required
@require_safe
def revision_links(request: SignedInRequest, pk: int, number: int) -> HttpResponse:
    return _table(request, pk, number, "links")


@signin_required
@require_safe
def revision_cables(request: SignedInRequest, pk: int, number: int) -> HttpResponse:
    return _table(request, pk, number, "cables")


@signin_required
@require_safe
def revision_table_csv(request: SignedInRequest, pk: int, number: int, table: str) -> HttpResponseBase:
    revision = revision_get(user=request.user, design_id=pk, number=number)
    form = TableFilterForm(request.GET, table=table, facets=link_facets(revision), halls=revision_halls(revision))
    if not form.is_valid():
        return HttpResponse("Bad filter: " + form.errors.as_text(), status=400, content_type="text/plain")
    mode = request.GET.get("csv", "safe")
    if mode not in ("safe", "raw"):  # the one declared CSV option, as in the API and the CLI
        return HttpResponse("Bad option: csv must be safe or raw", status=400, content_type="text/plain")
    response = StreamingHttpResponse(
        _csv_lines(revision, table, form.query(), raw=mode == "raw"), content_type="text/csv"
    )
    response["Content-Disposition"] = f'attachment; filename="design-{pk}-r{number}-{table}.csv"'
    return response


def _compare_form(request: HttpRequest, design: Design):
    """The compare form, and (old revision, new revision, baseline or None) when it is valid. With "ordered"
    as the older side, the links and counts are those of the revision that was ordered."""
    numbers = list(design.revisions.values_list("number", flat=True))
    baseline = baseline_current(design=design)
    form = CompareForm(request.GET, numbers=numbers, baseline_number=baseline.revision.number if baseline else None)
    if not form.is_valid():
        return form, None
    old_number = form.cleaned_data["old"]
    use_baseline = old_number == ORDERED
    # "ordered" is one of the choices only when there is a baseline (CompareForm)
    old = baseline.revision if use_baseline and baseline else design.revisions.get(number=old_number)
    new = design.revisions.get(number=form.cleaned_data["new"])
    return form, (old, new, baseline if use_baseline else None)


def _order_rule(form: CompareForm):
    return form.chosen_rule


@signin_required
@require_safe
def revision_compare_view(request: SignedInRequest, pk: int) -> HttpResponse:
    design = design_get(user=request.user, design_id=pk)
    form, pair = _compare_form(request, design)
    if pair is None:
        return render(request, "designs/compare.html", {"design": design, "form": form}, status=400)
    old, new, baseline = pair
    diff = revision_compare(old=old, new=new)
    rule = _order_rule(form)
    delta = (
        order_delta_from_baseline(baseline=baseline, new=new, rule=rule)
        if baseline
        else order_delta_between(old=old, new=new, rule=rule)
    )
    query = {"old": ORDERED if baseline else old.number, "new": new.number}
    if rule is not None:
        query.update(form.spares_query())
    base = f"/api/v1/designs/{design.pk}/change-order"
    return render(
        request,
        "designs/compare.html",
        {
            "design": design,
            "form": form,
            "diff": diff,
            "old": old,
            "new": new,
            "tables": TABLES,
            "changes": CHANGES,
            "baseline": baseline,
            "order": _order_view(delta),
            "change_order_urls": {fmt: f"{base}.{fmt}?{urlencode(query)}" for fmt in ("csv", "pdf")},
        },
    )


def _order_view(delta) -> dict:
    """The order delta as the compare page shows it: changed lines grouped by category title (in the BOM's
    category order), every figure signed, then the same per network and per SU."""
    from engine.orders.lines import CATEGORY_TITLE, delta_totals, iter_group_deltas
    from engine.orders.money import fmt_money, fmt_signed_money

    def rows(lines):
        out = []
        for d in lines:
            if d.status == "unchanged":
                continue
            o, n = d.old, d.new
            out.append(
                {
                    "part": d.part,
                    "description": d.description,
                    "status": d.status,
                    "category": CATEGORY_TITLE.get(d.category, d.category),
                    "old_quantity": o.quantity if o else 0,
                    "new_quantity": n.quantity if n else 0,
                    "quantity": d.quantity,
                    "spares": d.spares,
                    "old_order": o.order_quantity if o else 0,
                    "new_order": n.order_quantity if n else 0,
                    "order_quantity": d.order_quantity,
                    "money": fmt_signed_money(d.extended_price) if d.extended_price is not None else None,
                    "spares_rule": (n or o).spares_rule,
                }
            )
        return out

    t = delta.totals
    groups = []
    for section, key, title, lines in iter_group_deltas(delta):
        r = rows(lines)
        if r:
            gt = delta_totals(lines)
            groups.append(
                {
                    "section": section,
                    "key": key,
                    "title": title,
                    "rows": r,
                    "order_quantity": gt.order_quantity,
                    "money": fmt_signed_money(gt.extended_price) if gt.extended_price is not None else None,
                }
            )
    return {
        "rows": rows(delta.lines),
        "totals": t,
        "groups": groups,
        "currency": delta.new.currency if delta.money_comparable else None,
        "money": fmt_signed_money(t.extended_price) if t.extended_price is not None else None,
        "money_withheld": delta.money_withheld(),
        "old_money": fmt_money(delta.old.totals.extended_price),
        "new_money": fmt_money(delta.new.totals.extended_price),
        "old": delta.old,
        "new": delta.new,
    }


@signin_required
@require_POST
def revision_mark_ordered_view(request: SignedInRequest, pk: int, number: int) -> HttpResponse:
    """Mark the revision ordered: its order as it is now (prices, spares) becomes the design's baseline."""
    design = design_get(user=request.user, design_id=pk, write=True)
    revision = revision_get(user=request.user, design_id=design.pk, number=number)
    form = MarkOrderedForm(request.POST)
    if not form.is_valid():
        messages.error(
            request,
            "; ".join(
                f"{form.fields[k].label if k in form.fields else 'Spares'}: {' '.join(map(str, v))}"
                for k, v in form.errors.items()
            ),
        )
    else:
        baseline_mark(revision=revision, user=request.user, rule=form.chosen_rule)
        messages.success(request, f"r{revision.number} is marked ordered: later revisions compare with this order.")
    return redirect(reverse("workspace:section", args=[pk, number, "bom"]) + "#ordered-title")


@signin_required
@require_safe
def revision_compare_rows_view(request: SignedInRequest, pk: int, table: str, change: str) -> HttpResponse:
    """One page of the links or cables added, removed or changed between two revisions."""
    if table not in TABLES or change not in CHANGES:
        raise Http404("No such comparison.")
    design = design_get(user=request.user, design_id=pk)
    form, pair = _compare_form(request, design)
    if pair is None:
        return render(request, "designs/compare.html", {"design": design, "form": form}, status=400)
    old, new, _baseline = pair
    try:
        page_number = int(request.GET.get("page", "1"))
    except ValueError:
        page_number = 1
    page = revision_diff_page(old=old, new=new, table=table, change=change, page=page_number)
    prefix = "L" if table == "links" else "C"
    for row in page["rows"]:  # each side's id, linking to its row in that revision's table
        row["ids"] = [
            (
                f"r{rev.number} {prefix}{row[side][page['id_col']]:06d}",
                reverse(f"designs:{table}", args=[pk, rev.number]) + f"?q={prefix}{row[side][page['id_col']]:06d}",
            )
            for side, rev in (("old", old), ("new", new))
            if side in row
        ]
    return render(
        request,
        "designs/compare_rows.html",
        {
            "design": design,
            "old": old,
            "new": new,
            "table": table,
            "change": change,
            "page": page,
            "counts": revision_compare(old=old, new=new)["rows"],
            "tables": TABLES,
            "changes": CHANGES,
        },
    )


# --- Helpers ---------------------------------------------------------------------------


def _owned_design(request: SignedInRequest, pk: int) -> Design:
    """Sharing and deleting are the owner's; anyone else gets the same 404 as for a hidden design."""
    design = design_get(user=request.user, design_id=pk)
    if design.owner_id != request.user.pk:
        raise Http404("No such design.")
    return design


def _warn(request: HttpRequest, design: Design) -> None:
    """The save's warnings (implausible workload step times), each with its field path."""
    for w in getattr(design, "spec_warnings", ()):
        messages.warning(request, f"Warning: {w}")


def _after_save(request: HttpRequest, design: Design) -> HttpResponse:
    """ "Save and compute" queues a computation; plain "Save" returns to the design."""
    if "compute" in request.POST:
        return compute_response(request, design)
    return redirect("designs:detail", pk=design.pk)


def _job_status(job: Job) -> dict:
    revision = (job.result or {}).get("revision") if job.kind == "compute" else None
    export = _export_of(job)
    return {
        "id": str(job.pk),
        "status": job.status,
        "status_label": job.get_status_display(),
        "stage": job.stage,
        "percent": job.percent,
        "terminal": job.is_terminal,
        "error": job.error,
        "revision_url": reverse("designs:revision", args=[job.design_id, revision])
        if revision
        else job_result_page(job),
        "file_url": export["file_url"] if export and job.status == "succeeded" else None,
    }


def _export_of(job: Job) -> dict | None:
    """What an export job builds: the file's kind, its revision's page and the job's file download."""
    if job.kind != "export":
        return None
    number = Revision.objects.filter(pk=job.params.get("revision_id")).values_list("number", flat=True).first()
    return {
        "kind": job.params.get("kind"),
        "number": number,
        "revision_url": reverse("designs:revision", args=[job.design_id, number]) if number else None,
        "file_url": f"/api/v1/jobs/{job.pk}/file",
    }


# A filtered table counts its matching rows up to this, then says "more than": an exact count of a filter matching
# most of a large revision reads all of its rows (bench/bench_tables.py), where its pages read 100.
TABLE_MATCH_COUNT_LIMIT = 10_000


def _table(request: SignedInRequest, pk: int, number: int, table: str) -> HttpResponse:
    # Without its summary (tens of KB of JSON, more at scale): the form's choices read only its networks.
    revision = revision_get(user=request.user, design_id=pk, number=number, defer=("summary",))
    halls = revision_halls(revision)
    form = TableFilterForm(
        TableFilterForm.table_query(request.GET), table=table, facets=link_facets(revision), halls=halls
    )
    page = matched = None
    if form.is_valid():
        fetch = link_page if table == "links" else cable_page
        query = form.query()
        try:
            page = fetch(revision=revision, **query)
            matched = table_count(
                revision=revision, table=table, filters=query["filters"], at_most=TABLE_MATCH_COUNT_LIMIT
            )
        except TableError as exc:
            form.add_error(exc.field if exc.field in form.fields else None, exc.message)
            page = None
    return render(
        request,
        "designs/table.html",
        {
            "design": revision.design,
            "revision": revision,
            "table": table,
            "form": form,
            "page": page,
            "columns": LINK_FIELDS if table == "links" else CABLE_FIELDS,
            "halls": halls,
            "matched": min(matched, TABLE_MATCH_COUNT_LIMIT) if matched is not None else None,
            "matched_more": matched is not None and matched > TABLE_MATCH_COUNT_LIMIT,
            "total": revision.link_count if table == "links" else revision.cable_count,
            "filtered": bool(page is not None and query["filters"]),
        },
        status=200 if page is not None else 400,
    )


def _csv_lines(revision: Revision, table: str, query: dict, *, raw: bool = False) -> Iterator[str]:
    """The filtered table as CSV, in the format of the whole file (links.csv / cables.csv, as the CLI writes); text
    cells beginning with a formula character get a leading ' unless `raw` (engine/csvcells.py)."""
    halls = revision_halls(revision) > 1
    rows = table_rows(
        revision=revision,
        table=table,
        filters=query["filters"],
        order=query["order"],
        columns=stored_columns(table, halls=halls),
    )
    return csv_lines(table, rows, raw=raw, halls=halls)
