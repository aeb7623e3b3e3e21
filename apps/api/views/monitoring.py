"""Utilization snapshots of a revision: import one (judged against the plan at once) and read the reports.

The monitoring files themselves (prometheus-rules.yaml, prometheus-targets.json, grafana-dashboard.json) are
deliverables, served by the downloads endpoint."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from apps.monitoring.models import UtilizationSnapshot
from apps.monitoring.services import UtilizationRejected, utilization_get, utilization_import

from ..errors import ApiError
from ..output import iso, url
from ..serializers import StrictSerializer
from .base import ApiView, design_for, revision_for

KIND_HELP = (
    "prometheus: Prometheus query-API JSON (the whole answer of /api/v1/query or /api/v1/query_range) of "
    "fabric:port_utilization:ratio_rate<window>; counters: {interval_s, before: [{device, port, tx_bytes}], "
    "after: [...]} with the design's device names and design or interface port names."
)


class TotalsOut(serializers.Serializer):
    ports = serializers.IntegerField(help_text="Ports in the snapshot placed in the design.")
    average = serializers.FloatField(help_text="Mean of the ports' average utilization (0.5 = 50 % of design speed).")
    peak = serializers.FloatField(help_text="Highest utilization any port showed.")


class ImbalanceOut(serializers.Serializer):
    dimension = serializers.ChoiceField(choices=["rail", "spine", "su", "plane"], help_text="What is imbalanced.")
    name = serializers.CharField(help_text="Which one: the rail number, spine name, SU number or plane.")
    kind = serializers.ChoiceField(choices=["hot", "idle"], help_text="Above or below its peers.")
    scope = serializers.DictField(child=serializers.CharField(), help_text="The peers compared (network, tier, plane).")
    average = serializers.FloatField(help_text="Its average utilization.")
    peers_median = serializers.FloatField(help_text="The median average of its peers.")
    ratio = serializers.FloatField(allow_null=True, help_text="average / peers_median (null when the median is 0).")
    message = serializers.CharField(help_text="The finding in words.")
    likely_causes = serializers.ListField(child=serializers.CharField(), help_text="Placement, layout, degraded links.")
    degraded_links = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="Links in this group that failed their loss test in the revision's measured results (present "
        "only when there are some).",
    )


class UtilizationSnapshotOut(serializers.Serializer):
    id = serializers.IntegerField(help_text="Snapshot id.")
    url = serializers.CharField(help_text="This snapshot's report.")
    kind = serializers.ChoiceField(choices=UtilizationSnapshot.Kind.values, help_text="Format it was imported in.")
    # A declared field (DRF's serializer class moves it out); the stub takes it for the attribute it shadows.
    label = serializers.CharField(help_text="Label given at import.")  # type: ignore[assignment]
    created_at = serializers.CharField(help_text="Import time (ISO 8601).")
    created_by = serializers.CharField(allow_null=True, help_text="Who imported it.")
    totals = TotalsOut(help_text="All ports together.")
    imbalance = ImbalanceOut(many=True, help_text="Rails, spines, SUs or planes far from their peers.")


class UtilizationSnapshotReportOut(UtilizationSnapshotOut):
    report = serializers.JSONField(
        help_text="The whole report: targets, totals, groups per tier / plane / rail / su / spine (each with ports, "
        "average, peak, average_status, peak_status and, for compute tiers with workloads, predicted load per "
        "workload), imbalance, notes (ports left out, resets) and the microburst caveat (docs/monitoring.md)."
    )


def _out(request, rev, snap: UtilizationSnapshot, *, report: bool) -> dict:
    r = snap.report
    out = {
        "id": snap.pk,
        "url": url(request, "revision-utilization", rev.design_id, rev.number, snap.pk),
        "kind": snap.kind,
        "label": snap.label,
        "created_at": iso(snap.created_at),
        "created_by": snap.created_by.get_username() if snap.created_by else None,
        "totals": r["totals"],
        "imbalance": r["imbalance"],
    }
    if report:
        out["report"] = r
    return out


class UtilizationListApi(ApiView):
    class ImportIn(StrictSerializer):
        kind = serializers.ChoiceField(choices=UtilizationSnapshot.Kind.values, help_text=KIND_HELP)
        # A declared field (DRF's serializer class moves it out); the stub takes it for the attribute it shadows.
        label = serializers.CharField(  # type: ignore[assignment]
            required=False, default="", max_length=200, allow_blank=True, help_text="A name for it."
        )
        # An object in both formats (Prometheus' query answer; {"interval_s", "before", "after"}): a DictField,
        # so the schema says object and never null.
        snapshot = serializers.DictField(help_text="The snapshot itself, a JSON object in the format `kind` names.")

    @extend_schema(
        operation_id="revisions_utilization_list",
        responses={200: UtilizationSnapshotOut(many=True)},
        tags=["monitoring"],
        summary="Utilization snapshots imported for a revision, newest first (their totals and imbalance)",
    )
    def get(self, request, design_id: int, number: int):
        rev = revision_for(request, design_id, number)
        snaps = rev.utilization_snapshots.select_related("created_by")[:200]
        return Response([_out(request, rev, s, report=False) for s in snaps])

    @extend_schema(
        operation_id="revisions_utilization_import",
        request=ImportIn,
        responses={
            201: UtilizationSnapshotReportOut,
            400: OpenApiResponse(
                description="Nothing stored: not the named format, no usable port, or the revision no longer "
                "computes; `fields` name the bad entries (`snapshot.before[3]`)."
            ),
        },
        tags=["monitoring"],
        summary="Import a utilization snapshot (needs write access) and judge it against the plan",
    )
    def post(self, request, design_id: int, number: int):
        design_for(request, design_id, write=True)
        rev = revision_for(request, design_id, number)
        s = self.ImportIn(data=request.data if isinstance(request.data, dict) else {})
        s.is_valid(raise_exception=True)
        d = s.validated_data
        try:
            snap = utilization_import(
                revision=rev, user=request.user, data=d["snapshot"], kind=d["kind"], label=d["label"]
            )
        except UtilizationRejected as exc:
            field = "snapshot" if exc.field == "file" else exc.field
            fields = [{"path": f"snapshot.{w}" if field == "snapshot" else field, "message": m} for w, m in exc.errors]
            raise ApiError(
                400, "invalid_snapshot", exc.message, fields or [{"path": field, "message": exc.message}]
            ) from None
        return Response(_out(request, rev, snap, report=True), status=201)


class UtilizationDetailApi(ApiView):
    @extend_schema(
        operation_id="revisions_utilization_retrieve",
        responses={200: UtilizationSnapshotReportOut},
        tags=["monitoring"],
        summary="One utilization snapshot's report",
    )
    def get(self, request, design_id: int, number: int, snapshot_id: int):
        rev = revision_for(request, design_id, number)
        return Response(_out(request, rev, utilization_get(revision=rev, snapshot_id=snapshot_id), report=True))
