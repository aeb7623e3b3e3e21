"""Import a utilization snapshot of a revision and judge it against the plan (the engine does the judging).

The revision's engine result is read through apps.exports.services.revision_result (the one accessor for a
revision's design; the owner's custom parts as at compute time), the traffic analysis's prediction from the
revision's stored summary.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from django.conf import settings
from django.db.models import QuerySet
from django.http import Http404

from apps.designs.models import Revision

if TYPE_CHECKING:
    from django.contrib.auth.models import User
from apps.exports.services import revision_result
from apps.measurements.services import measurement_standing, measurement_standing_report
from engine.errors import SpecError
from engine.inputgate import UPLOAD_MAX_NODES, InputRefused, load_json
from engine.monitoring.settings import MonitoringSettings
from engine.monitoring.utilization import SnapshotError, utilization_report

from .models import UtilizationSnapshot

KINDS = dict(UtilizationSnapshot.Kind.choices)


class UtilizationRejected(Exception):
    """Nothing was stored: a message and, where the file was read, its bad entries as (where, message)."""

    def __init__(self, message: str, errors: Iterable[tuple[str, str]] = (), field: str = "file") -> None:
        super().__init__(message)
        self.message = message
        self.errors: list[tuple[str, str]] = list(errors)[:200]
        self.field = field


def utilization_parse(raw: bytes | str) -> object:
    """The snapshot file as JSON data; UtilizationRejected for a file too big, not UTF-8 or not JSON."""
    if len(raw) > settings.API_MAX_UPLOAD_BYTES:
        raise UtilizationRejected(f"The file is {len(raw):,} bytes; the limit is {settings.API_MAX_UPLOAD_BYTES:,}.")
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise UtilizationRejected("The file is not UTF-8 text.") from None
    try:
        return load_json(raw, max_chars=settings.API_MAX_UPLOAD_BYTES, max_nodes=UPLOAD_MAX_NODES)
    except InputRefused as exc:
        raise UtilizationRejected(f"The file is {exc.describe('not JSON')}") from None


def utilization_import(
    *, revision: Revision, user: User, data: object, kind: str, label: str = ""
) -> UtilizationSnapshot:
    """Judge a parsed snapshot against the revision and store the report; UtilizationRejected when unusable."""
    if kind not in KINDS:
        raise UtilizationRejected(f"Unknown snapshot kind {kind!r}; known: {', '.join(KINDS)}.", field="kind")
    try:
        result = revision_result(revision=revision)
        monitoring = MonitoringSettings.from_dict(getattr(result.spec, "monitoring", None))
    except SpecError as exc:
        raise UtilizationRejected(f"This revision no longer computes: {exc}", field="revision") from None
    try:
        report = utilization_report(
            result, data, kind=kind, summary=revision.summary, settings=monitoring, failing_links=_failing(revision)
        )
    except SnapshotError as exc:
        raise UtilizationRejected(exc.message, exc.errors) from None
    return UtilizationSnapshot.objects.create(
        revision=revision, kind=kind, label=label[:200], report=report, created_by=user
    )


def _failing(revision: Revision) -> list[dict]:
    """Links whose fibers failed their loss test in the revision's standing measured results (commissioning), for
    naming a degraded link behind an imbalance; none before the first upload or when they cannot be worked out."""
    standing = measurement_standing(revision=revision)
    if standing is None or not standing.uploads or not (standing.counts or {}).get("links", {}).get("fail"):
        return []
    report = measurement_standing_report(revision=revision, limit=1000)
    return list(report.get("failing_links") or [])


def utilization_list(*, revision: Revision) -> QuerySet[UtilizationSnapshot]:
    return revision.utilization_snapshots.select_related("created_by").defer("report")


def utilization_get(*, revision: Revision, snapshot_id: int) -> UtilizationSnapshot:
    snap = revision.utilization_snapshots.select_related("created_by").filter(pk=snapshot_id).first()
    if snap is None:
        raise Http404("No such utilization snapshot.")
    return snap
