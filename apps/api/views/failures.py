"""A revision's blast radius: per kind of single failure, the GPUs it hits and whether jobs likely abort."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from apps.exports.failures import revision_blast_radius
from engine.errors import SpecError

from ..errors import ApiError
from .base import ApiView, revision_for


class GpuGroupOut(serializers.Serializer):
    gpus = serializers.IntegerField(help_text="GPUs hit alike (one per server compute port).")
    servers = serializers.IntegerField(help_text="Servers those GPUs are in.")
    share_lost = serializers.FloatField(help_text="Share (0 to 1) of the `scope`'s bandwidth each GPU loses.")
    scope = serializers.ChoiceField(
        choices=["all", "beyond-leaf", "beyond-pod"],
        help_text="all: its scale-out bandwidth; beyond-leaf: to GPUs under other leaves; beyond-pod: to other pods.",
    )
    port_lost = serializers.BooleanField(help_text="Every link of the GPU's NIC port is down.")
    isolated = serializers.BooleanField(
        help_text="Cut off: the port is down, or the GPU's leaf lost every uplink (no GPU under another leaf reachable)."
    )
    ports = serializers.ListField(child=serializers.CharField(), help_text="Server ports hit (catalog names).")
    sus = serializers.ListField(child=serializers.IntegerField(), help_text="Scalable units of those servers.")
    text = serializers.CharField(help_text="The group in words.")


class FailureImpactOut(serializers.Serializer):
    kind = serializers.ChoiceField(
        choices=[
            "node-leaf-cable",
            "server-transceiver",
            "leaf-transceiver",
            "leaf",
            "leaf-spine-cable",
            "spine",
            "core",
            "plane",
            "leaf-uplink-transceiver",
            "spine-transceiver",
            "spine-uplink-transceiver",
            "core-transceiver",
            "trunk",
            "patch-panel",
            "rack",
            "rack-power",
        ],
        help_text="The kind of part that fails.",
    )
    title = serializers.CharField(help_text="The kind of failure in words (e.g. A node-leaf cable).")
    parts = serializers.IntegerField(help_text="Parts of this kind in the compute fabric.")
    example = serializers.CharField(help_text="The part shown: of this kind, the one hitting the most GPUs.")
    gpus_affected = serializers.IntegerField(help_text="GPUs the example's failure hits.")
    gpus_losing_port = serializers.IntegerField(help_text="Of those, GPUs whose scale-out port goes down.")
    gpus_isolated = serializers.IntegerField(help_text="Of those, GPUs cut off (port down or leaf without uplinks).")
    gpus_degraded = serializers.IntegerField(help_text="Of those, GPUs that keep a path at less bandwidth.")
    min_gpus = serializers.IntegerField(help_text="Fewest GPUs any part of this kind hits.")
    max_gpus = serializers.IntegerField(help_text="Most GPUs any part of this kind hits.")
    jobs = serializers.ChoiceField(
        choices=["abort", "degraded", "none"],
        help_text="abort: a GPU is isolated (its NIC port or its leaf's every uplink lost), so a job using it "
        "likely aborts; degraded: jobs continue with less bandwidth.",
    )
    verdict = serializers.CharField(help_text="The effect on jobs, in words.")
    groups = GpuGroupOut(many=True, help_text="The GPUs the example failure hits, in groups hit alike.")


class BlastRadiusOut(serializers.Serializer):
    revision = serializers.IntegerField(help_text="The revision's number.")
    gpus = serializers.IntegerField(help_text="GPU ports on the compute fabric.")
    planes = serializers.IntegerField(help_text="Planes of the compute fabric (1: a single plane).")
    tiers = serializers.IntegerField(help_text="Switch tiers of the compute fabric (2: leaf-spine, 3: with a core).")
    failures = FailureImpactOut(many=True, help_text="One entry per kind of single failure the fabric has.")


class RevisionBlastRadiusApi(ApiView):
    @extend_schema(
        operation_id="revisions_blast_radius",
        responses={
            200: BlastRadiusOut,
            409: OpenApiResponse(
                description="The revision has no snapshot to render from (not backfilled yet, or not reproducible)."
            ),
        },
        tags=["revisions"],
        summary="Blast radius: per kind of single failure, which GPUs lose which share of their scale-out "
        "bandwidth, and whether jobs likely abort or continue degraded",
    )
    def get(self, request, design_id: int, number: int):
        rev = revision_for(request, design_id, number)
        try:
            return Response(revision_blast_radius(revision=rev))
        except SpecError as exc:
            raise ApiError(
                409, "revision_not_reproducible", f"The revision cannot be rendered from its snapshot: {exc}"
            ) from None
