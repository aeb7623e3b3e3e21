"""HTML views of a design's QoS policy and of a revision's QoS configuration: parse, call, respond.

Access is the selectors' (as in apps.designs.views): a design a user may not see is a 404, and so is a
save by a user who may only read; readers see the form disabled.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from apps.common.errors import StorageFull
from apps.common.requests import SignedInRequest
from apps.designs.models import Design
from apps.designs.selectors import design_can_write, design_get, revision_get
from apps.designs.sources import cite
from apps.designs.views import compute_response, signin_required
from apps.jobs.services import JobNotQueued, JobQuotaExceeded
from engine.errors import SpecError

from .forms import MODE_HELP, QosPolicyForm
from .selectors import (
    ARCHIVE,
    DesignQos,
    QosPlanError,
    QosState,
    design_port_speeds,
    design_qos,
    ecn_microseconds,
    headroom_term_bits,
    inline_render_allowed,
    qos_archive_stored,
    qos_precheck,
    revision_qos_request,
)
from .services import design_qos_update, qos_save_errors


def _technologies(design: Design) -> tuple[str, ...]:
    """The technologies of the design's RDMA fabrics, each once (compute, then storage when it differs)."""
    spec = design.spec
    techs = [(spec.get("compute_fabric") or {}).get("technology")]
    storage = spec.get("storage_fabric") or {}
    if storage.get("enabled"):
        techs.append(storage.get("technology"))
    return tuple(dict.fromkeys(t for t in techs if t))


@signin_required
@require_http_methods(["GET", "POST"])
def design_qos_view(request: SignedInRequest, pk: int) -> HttpResponse:
    post = request.POST if request.method == "POST" else None
    design = design_get(user=request.user, design_id=pk, write=post is not None)
    can_write = post is not None or design_can_write(user=request.user, design=design)
    state = design_qos(design=design)
    common: dict[str, Any] = {
        "technology": state.technology,
        "technologies": _technologies(design),
        "disabled": not can_write,
    }
    if post is not None:
        form = QosPolicyForm(post, stored=state.stored, policy=state.policy, **common)
        if form.is_valid():
            try:
                design_qos_update(design=design, policy=form.cleaned_qos)
            except SpecError as exc:  # the rest of the spec no longer validates (e.g. a catalog change)
                form.add_spec_errors(exc)
            else:
                messages.success(request, "Saved the QoS policy.")
                if "compute" in post:
                    return compute_response(request, design)
                return redirect("qos:policy", pk=design.pk)
    elif state.policy is None:
        form = QosPolicyForm.from_stored(state.stored, **common)
    else:
        form = QosPolicyForm(stored=state.stored, policy=state.policy, **common)
    # a policy stored before a rule existed still opens; what it breaks is listed until a save fixes it
    stored_problems = qos_save_errors(design, state.policy) if post is None and state.policy is not None else []
    return render(
        request,
        "qos/qos.html",
        {
            "design": design,
            "form": form,
            "can_write": can_write,
            "state": state,
            "mode_help": {mode: cite(text) for mode, text in MODE_HELP.items()},
            "technologies": common["technologies"],
            "stored_problems": stored_problems,
            "facts": _facts(design, form, state),
            "stored_invalid": state.policy is None,
        },
        status=400 if post is not None and form.errors else 200,
    )


def _facts(design: Design, form: QosPolicyForm, state: DesignQos) -> dict:
    """Figures shown beside the fields: ECN thresholds in µs and the per-speed headroom terms."""
    policy = form.cleaned_policy or state.policy
    if policy is None:
        return {}
    speeds = design_port_speeds(design=design)
    return {
        "speeds": speeds,
        "ecn_min_us": ecn_microseconds(policy.ecn.min_bytes, speeds),
        "ecn_max_us": ecn_microseconds(policy.ecn.max_bytes, speeds),
        "terms": headroom_term_bits(policy, speeds),
    }


@signin_required
@require_POST
def design_qos_reset(request: SignedInRequest, pk: int) -> HttpResponse:
    design = design_get(user=request.user, design_id=pk, write=True)
    design_qos_update(design=design, policy=None)
    messages.success(request, f"Reset the QoS policy to the {design.spec['compute_fabric']['technology']} defaults.")
    return redirect("qos:policy", pk=design.pk)


@signin_required
@require_safe
def revision_qos_view(request: SignedInRequest, pk: int, number: int) -> HttpResponse:
    """The revision's QoS report: a page of its own, or (?fragment=1) the section the revision page loads.

    A large revision's configuration set is built by a worker: the answer is then 202 with the build's
    progress, which reloads (the page) or is fetched again (the fragment, static/js/qos_report.js) when the job
    ends. A failed build is shown with a retry link (?retry=1) instead of being queued again by that reload."""
    revision = revision_get(user=request.user, design_id=pk, number=number)
    state, error = QosState(), None
    try:
        state = revision_qos_request(revision=revision, user=request.user, retry=request.GET.get("retry") == "1")
    except QosPlanError as exc:
        error = exc
    except (JobQuotaExceeded, JobNotQueued) as exc:
        error = QosPlanError(
            exc.extra.get("code", "not_queued"),
            f"The configuration set could not be queued for building: {exc.message}",
        )
    except StorageFull as exc:
        error = QosPlanError(exc.code, exc.message)
    fragment = request.GET.get("fragment") == "1"
    if request.GET.get("retry") == "1" and not fragment and error is None:
        # the page reloads itself when the build ends: without ?retry=1, so a failure is shown, not queued again
        return redirect("qos:revision", pk=pk, number=number)
    return render(
        request,
        "qos/_qos_report.html" if fragment else "qos/revision_qos.html",
        {
            "design": revision.design,
            "revision": revision,
            "report": state.report,
            "job": state.job,
            "error": error,
            "export": {"kind": ARCHIVE, "number": revision.number} if state.job is not None else None,
            "can_write": False,  # the build is shared by every reader of the revision: nobody cancels it here
        },
        status=(507 if error.code == StorageFull.default_code else 409) if error else (202 if state.building else 200),
    )


@signin_required
@require_safe
def revision_config_file(request: SignedInRequest, pk: int, number: int, name: str) -> HttpResponse:
    """One file of the revision's configuration set by name (configs.zip: all of them). The API's download serves
    it (it accepts the browser's session: one serving path, with its ETag and caching) once the set is stored or
    cheap to build; a large revision's set not built yet sends the browser to the QoS page, which builds it and
    shows the build's progress."""
    revision = revision_get(user=request.user, design_id=pk, number=number)
    api_url = f"/api/v1/designs/{pk}/revisions/{number}/configs/{quote(name)}"
    if qos_archive_stored(revision=revision) is not None:
        return redirect(api_url)
    try:
        qos_precheck(revision=revision)
    except QosPlanError as exc:
        return HttpResponse(exc.message + "\n", status=409, content_type="text/plain; charset=utf-8")
    if inline_render_allowed(revision):
        return redirect(api_url)
    messages.info(
        request, f"The configuration set of r{number} is being built; {name} can be downloaded when it is ready."
    )
    return redirect("qos:revision", pk=pk, number=number)
