"""Serializer building blocks and the response shapes shared by several endpoints.

Input serializers live nested in their view (one contract per operation). The Output serializers
here only *document* responses for the OpenAPI schema: views build plain dicts (apps.api.output),
which is 15-25x faster than ModelSerializer(many=True) (performance-notes.md). The schema test
and the fuzzer check that the dicts match these shapes.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from engine.orders.money import MONEY_FORMAT, MONEY_PATTERN


def _json_type_error(field: serializers.Field, value) -> str | None:
    """What is wrong with a JSON value's type for `field`, or None. DRF itself would coerce 1 to "1"
    and "1" to 1; a JSON API should say the type is wrong instead, as its schema does."""
    if value is None:
        return None  # allow_null and required are DRF's to judge
    if isinstance(field, (serializers.CharField, serializers.ChoiceField, serializers.DecimalField)):
        return None if isinstance(value, str) else "must be a string"
    if isinstance(field, serializers.BooleanField):
        return None if isinstance(value, bool) else "must be true or false"
    if isinstance(field, serializers.IntegerField):
        return None if isinstance(value, int) and not isinstance(value, bool) else "must be an integer"
    if isinstance(field, serializers.DictField) and isinstance(value, Mapping) and field.child is not None:
        for key, item in value.items():
            problem = _json_type_error(field.child, item)
            if problem:
                return f"{key}: {problem}"
    return None


class StrictSerializer(serializers.Serializer):
    """Rejects fields it does not declare and (in JSON bodies) values of the wrong JSON type,
    with a 400 naming each field, so a typo never goes unnoticed."""

    def get_fields(self):
        if not self.context.get("query"):
            return super().get_fields()
        # A query's fields are flat (a string, a number, a choice; no mutable default): a shallow copy of each
        # declared field serves as well as DRF's deep copy, which builds every field again from its arguments.
        # Validating a cable page's cursor took 0.23 ms of CPU that way, 0.10 ms so (one process, best of 5).
        return {name: _query_field_copy(field) for name, field in self._declared_fields.items()}

    def to_internal_value(self, data):
        if isinstance(data, Mapping):
            errors = {str(k): ["unknown field"] for k in data if k not in self.fields}
            if not self.context.get("query"):
                for name, field in self.fields.items():
                    if name in data and not field.read_only:
                        problem = _json_type_error(field, data[name])
                        if problem:
                            errors[name] = [problem]
            if errors:
                raise serializers.ValidationError(dict(sorted(errors.items())))
        return super().to_internal_value(data)


def _query_field_copy(field: serializers.Field) -> serializers.Field:
    """A copy of a declared field to bind to one serializer. A field holding others (a list's child, a nested
    serializer) is copied deeply, as DRF does: its children are bound to it, not to the copy."""
    if isinstance(field, (serializers.BaseSerializer, serializers.ListField, serializers.DictField)):
        return copy.deepcopy(field)
    return copy.copy(field)


def query(serializer_class: type[serializers.Serializer], request) -> dict:
    """Validated query parameters (single values), or ValidationError."""
    params = request.query_params
    if not params:
        # No parameters validate to the same defaults every time, and building a serializer costs 0.3-1 ms of CPU
        # (DRF deep-copies its fields): most requests of a client that reads a revision have no query.
        if serializer_class not in _NO_QUERY:
            _NO_QUERY[serializer_class] = _validated(serializer_class, {})
        return copy.deepcopy(_NO_QUERY[serializer_class])
    return _validated(serializer_class, {k: v for k, v in params.items()})


_NO_QUERY: dict[type, dict] = {}


def _validated(serializer_class: type[serializers.Serializer], data: dict) -> dict:
    s = serializer_class(data=data, context={"query": True})
    s.is_valid(raise_exception=True)
    return s.validated_data


# --- shared response shapes ----------------------------------------------------------------------


@extend_schema_field({"type": "string", "format": "decimal", "pattern": MONEY_PATTERN, "description": MONEY_FORMAT})
class MoneyField(serializers.CharField):
    """A price in the one price format everywhere (engine/orders/money.py)."""


class FieldErrorOut(serializers.Serializer):
    path = serializers.CharField(help_text="Dotted path of the field (spec field, body field or query parameter).")
    message = serializers.CharField(help_text="What is wrong there, for a person.")


class PageOut(serializers.Serializer):
    next_cursor = serializers.CharField(allow_null=True, help_text="Pass as ?cursor= for the next page.")
    next = serializers.URLField(
        allow_null=True, help_text="URL of the next page (this query with next_cursor); null on the last page."
    )
    previous_cursor = serializers.CharField(
        allow_null=True, help_text="Pass as ?cursor= for the previous page; null on the first page."
    )
    previous = serializers.URLField(allow_null=True, help_text="URL of the previous page; null on the first page.")


class DesignOut(serializers.Serializer):
    id = serializers.IntegerField(help_text="The design's id, used in every path under /designs/{design_id}/.")
    url = serializers.URLField(help_text="This design's URL.")
    name = serializers.CharField(help_text="The design's name (the spec's name).")
    preset = serializers.CharField(help_text="Preset the design was created from, or empty.")
    owner = serializers.CharField(help_text="Username of the owner.")
    access = serializers.ChoiceField(choices=["owner", "write", "read"], help_text="What the caller may do.")
    latest_revision = serializers.IntegerField(
        allow_null=True, help_text="Number of the newest computed revision; null before the first compute."
    )
    created_at = serializers.DateTimeField(help_text="When the design was created.")
    updated_at = serializers.DateTimeField(help_text="When its name or spec last changed.")


class DesignDetailOut(DesignOut):
    spec = serializers.DictField(help_text="The normalized spec (schema: GET /api/v1/spec-schema/).")
    warnings = FieldErrorOut(
        many=True,
        required=False,
        help_text=(
            "Create and update only: what the save's checks warn about without refusing, each at its spec field "
            "(e.g. a workload step time implying more TFLOP/s per GPU than achievable)."
        ),
    )
    revisions_url = serializers.URLField(help_text="URL of the design's revisions (revisions_list).")
    compute_url = serializers.URLField(help_text="POST here to compute the current spec (designs_compute).")


class DesignPageOut(PageOut):
    results = DesignOut(many=True, help_text="The designs of this page, newest first.")


class JobOut(serializers.Serializer):
    id = serializers.UUIDField(help_text="The job's id (a UUID).")
    url = serializers.URLField(help_text="This job's URL: poll it (jobs_retrieve).")
    kind = serializers.CharField(
        help_text="What the job does: compute (a revision), export (a file), asbuilt (an as-built classification), "
        "counters (reading a large counter file), measurements (judging a large measured-results sheet), "
        "alternatives (computing the candidates of a design-alternatives study)."
    )
    status = serializers.ChoiceField(
        choices=["queued", "running", "succeeded", "failed", "cancelled"],
        help_text="queued or running until it ends as succeeded, failed or cancelled (final).",
    )
    stage = serializers.CharField(help_text="The step it is at, in words (e.g. physical, done, cancelled).")
    percent = serializers.FloatField(help_text="Progress, 0 to 100.")
    error = serializers.CharField(help_text="Why the job failed; empty otherwise.")
    cancel_requested = serializers.BooleanField(
        help_text="True once jobs_cancel was asked; a running job stops at its next progress report."
    )
    design = serializers.IntegerField(allow_null=True, help_text="Id of the job's design; null for a job of no design.")
    design_url = serializers.URLField(allow_null=True, help_text="URL of the job's design, or null.")
    revision = serializers.IntegerField(allow_null=True, help_text="Revision number the job stored, once succeeded.")
    revision_url = serializers.URLField(
        allow_null=True, help_text="URL of the revision the job stored or exports from, or null."
    )
    file_url = serializers.URLField(allow_null=True, help_text="Export jobs: the built file, once succeeded.")
    created_at = serializers.DateTimeField(help_text="When the job was asked for.")
    started_at = serializers.DateTimeField(allow_null=True, help_text="When a worker started it; null while queued.")
    finished_at = serializers.DateTimeField(
        allow_null=True, help_text="When it succeeded, failed or was cancelled; null before."
    )


class JobPageOut(PageOut):
    results = JobOut(many=True, help_text="The jobs of this page, newest first.")


class RevisionOut(serializers.Serializer):
    number = serializers.IntegerField(
        help_text="The revision's number within its design (1, 2, ...), used in paths as {number}."
    )
    url = serializers.URLField(help_text="This revision's URL.")
    design = serializers.IntegerField(help_text="Id of the revision's design.")
    created_at = serializers.DateTimeField(help_text="When the computation was stored.")
    created_by = serializers.CharField(
        allow_null=True, help_text="Username of who computed it; null when that account is gone."
    )
    engine_version = serializers.CharField(help_text="Version of the design engine that computed it.")
    catalog_version = serializers.CharField(
        help_text="Version of the shipped catalog it was computed with, with a digest of the owner's custom parts."
    )
    spec_hash = serializers.CharField(
        help_text="SHA-256 of the normalized spec it was computed from: equal hashes, equal specs."
    )
    link_count = serializers.IntegerField(help_text="Links of the revision, all networks.")
    cable_count = serializers.IntegerField(help_text="Cables of the revision, all networks.")
    compute_seconds = serializers.FloatField(help_text="How long the engine took to compute it, in seconds.")
    gpus = serializers.IntegerField(
        allow_null=True, help_text="GPUs of the design's servers; null for a revision stored without the figure."
    )


class RevisionPageOut(PageOut):
    results = RevisionOut(many=True, help_text="The revisions of this page, newest first.")


__all__ = [
    "StrictSerializer",
    "query",
    "FieldErrorOut",
    "PageOut",
    "DesignOut",
    "DesignDetailOut",
    "DesignPageOut",
    "JobOut",
    "JobPageOut",
    "RevisionOut",
    "RevisionPageOut",
]
