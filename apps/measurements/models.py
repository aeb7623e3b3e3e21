"""Measured fiber test results: the uploads of a revision and its standing across them.

Moved from the api app (migration measurements.0001; the tables keep their names)."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class MeasurementUpload(models.Model):
    """Measured fiber test results uploaded for a revision (the CSV as sent, validated)."""

    revision = models.ForeignKey("designs.Revision", on_delete=models.CASCADE, related_name="measurements")
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    filename = models.CharField(max_length=200)
    size = models.PositiveIntegerField()
    rows = models.PositiveIntegerField()
    counts = models.JSONField(default=dict)  # pass/fail per fiber and per link, against the test sheet
    test_limit = models.CharField(max_length=8, default="pmd")  # the pass limit judged against: pmd | budget
    # Rows that did not fit the test sheet and were left out while the valid rows were stored (the
    # default of the API, the CLI and the browser): [[line, column, message], ...], the first
    # MAX_STORED_ERRORS of error_count.
    errors = models.JSONField(default=list, blank=True)
    error_count = models.PositiveIntegerField(default=0)
    sha256 = models.CharField(max_length=64)
    content = models.TextField()
    # False: stored as received, too large to read in the web request; the "measurements" job reads it (or
    # refuses it, deleting it and failing the job with why). Only read uploads are listed and count.
    read = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # A withdrawn upload (measured on the wrong port, a meter out of calibration) is kept and listed, but its
    # rows no longer count towards the revision's standing results.
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    withdrawn_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        db_table = "api_measurementupload"
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"measurements {self.filename} of revision {self.revision_id}"


class MeasurementStanding(models.Model):
    """A revision's measured results across its uploads: per fiber the latest measured value of any upload not
    withdrawn, judged against the test sheet. Refreshed whenever an upload is stored or withdrawn, so the
    revision page reads one row instead of re-reading every upload."""

    revision = models.OneToOneField("designs.Revision", on_delete=models.CASCADE, related_name="measured_standing")
    test_limit = models.CharField(max_length=8, default="pmd")  # judged against: that of the newest upload counted
    counts = models.JSONField(default=dict)  # as MeasurementUpload.counts, for the uploads counted together
    uploads = models.PositiveIntegerField(default=0)  # uploads counted (not withdrawn)
    measured_fibers = models.PositiveIntegerField(default=0)  # fibers with a measured value in any of them
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "api_measurementstanding"

    def __str__(self) -> str:
        return f"measured standing of revision {self.revision_id}"
