"""The per-rack and per-SU commissioning progress (planned -> cabled -> verified, engine/asbuilt/progress.py):
the service and its read-only REST view.

It lives in the counters app because it reads all three kinds of stored commissioning evidence: as-built
imports (apps/commissioning), measured loss results (apps/measurements) and error-counter flags (this app), and
an app may import only the layers below it (tests/test_layering.py).
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from apps.api.views.base import ApiView, revision_for
from apps.commissioning.models import AsBuiltUpload
from apps.commissioning.progress import asbuilt_link_classes, revision_link_places
from apps.common.requests import ApiRequest
from apps.designs.models import Revision
from apps.measurements.services import measurement_link_status
from engine.asbuilt.progress import progress
from engine.errors import SpecError

from .models import CounterSnapshot
from .selectors import counter_report

ALL_LINKS = 10**9  # counter_report's list limit: every tracked link, to read their flags


def progress_evidence(*, revision: Revision) -> dict[str, bool]:
    """Which kinds of commissioning evidence the revision has stored (cheap: three existence queries)."""
    return {
        "asbuilt": AsBuiltUpload.objects.filter(revision=revision, read=True).exists(),
        "measurements": revision.measurements.filter(withdrawn_at__isnull=True).exists(),
        "counters": CounterSnapshot.objects.filter(revision=revision).exists(),
    }


def _flagged(revision: Revision) -> set[str]:
    report = counter_report(revision=revision, limit=ALL_LINKS)
    return {link["link"] for link in report["links"] if link["flags"]}


def commissioning_progress(*, revision: Revision) -> dict:
    """Totals, SUs and racks with their links per stage, what holds them back and their state; `error` says why
    nothing could be worked out (a revision without a snapshot), `notes` what was left out."""
    evidence = progress_evidence(revision=revision)
    try:
        places = revision_link_places(revision=revision)
        classes = asbuilt_link_classes(revision=revision) if evidence["asbuilt"] else {}
    except SpecError as exc:
        return {"error": f"The revision cannot be read from its snapshot: {exc}", "notes": [], "evidence": evidence}
    notes = []
    loss = measurement_link_status(revision=revision)
    if loss is None:
        notes.append("Loss verdicts cannot be worked out for this revision: no link counts a loss test.")
        loss = {}
    flagged = _flagged(revision) if evidence["counters"] else set()
    out = progress(places, classes, loss, flagged).to_dict()
    return {**out, "error": "", "notes": notes, "evidence": evidence}


class StageRowOut(serializers.Serializer):
    name = serializers.CharField(help_text='Rack id, SU number ("" = links outside every SU) or "all".')
    planned = serializers.IntegerField(help_text="Planned links with an end here.")
    cabled = serializers.IntegerField(help_text="Seen by an as-built import joining their planned ports.")
    verified = serializers.IntegerField(
        help_text="Cabled at full width and speed, within their loss limit where tested, no counter flag."
    )
    unseen = serializers.IntegerField(help_text="No as-built import covered them yet.")
    wrong = serializers.IntegerField(help_text="Swapped, miswired, missing or degraded.")
    loss_failed = serializers.IntegerField(help_text="A fiber measured over its limit.")
    loss_pending = serializers.IntegerField(help_text="On the test sheet, not every fiber measured yet.")
    flagged = serializers.IntegerField(help_text="Error counters flagged.")
    state = serializers.ChoiceField(choices=["planned", "cabling", "verified"], help_text="The group's state.")


class EvidenceOut(serializers.Serializer):
    asbuilt = serializers.BooleanField(help_text="An as-built file is stored.")
    measurements = serializers.BooleanField(help_text="Measured loss results are stored (not withdrawn).")
    counters = serializers.BooleanField(help_text="A counter snapshot is stored.")


class ProgressOut(serializers.Serializer):
    totals = StageRowOut(required=False, help_text="The whole fabric.")
    sus = StageRowOut(many=True, required=False, help_text="Per scalable unit, in order; then links outside them.")
    racks = StageRowOut(many=True, required=False, help_text="Per rack, in hall order.")
    evidence = EvidenceOut(help_text="Which kinds of commissioning evidence are stored.")
    notes = serializers.ListField(child=serializers.CharField(), help_text="What was left out, and why.")
    error = serializers.CharField(help_text="Why nothing could be worked out (empty when it was).")


class CommissioningProgressApi(ApiView):
    @extend_schema(
        operation_id="revisions_commissioning_progress",
        responses={200: ProgressOut},
        tags=["commissioning"],
        summary="Where the build stands per rack and per SU: planned, cabled and verified links, and what holds "
        "the rest back",
    )
    def get(self, request: ApiRequest, design_id: int, number: int) -> Response:
        rev = revision_for(request, design_id, number)
        return Response(commissioning_progress(revision=rev))
