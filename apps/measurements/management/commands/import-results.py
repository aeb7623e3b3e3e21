"""`manage.py import-results DESIGN CSV`: bring a filled test sheet back in, validated row by row.

Exit status: 0 every row was stored; 3 (EXIT_ROWS_LEFT_OUT) the valid rows were stored but some rows had
errors and were left out (each is printed); 1 nothing was stored (a file with nothing usable in it, or,
with --all-or-nothing, any bad row); 2 a usage error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.common.errors import DomainError
from apps.designs.models import Design
from apps.exports.services import DeliverableUnavailable
from apps.measurements.services import (
    MeasurementUnavailable,
    measurement_standing_refresh,
    measurements_check_revision,
)
from apps.measurements.uploads import (
    MAX_STORED_ERRORS,
    UploadRejected,
    error_field_text,
    error_fields,
    measurement_upload,
)

EXIT_ROWS_LEFT_OUT = 3


class Command(BaseCommand):
    help = (
        "Import measured fiber test results (a filled test-sheet.csv) for a design's revision; "
        "reports unknown ids, bad units and duplicates by line, stores the valid rows and prints "
        "pass/fail per fiber and link. Exit status: 0 all rows stored; "
        f"{EXIT_ROWS_LEFT_OUT} valid rows stored, some rows left out; 1 nothing stored."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("design", type=int, help="design id")
        parser.add_argument("csv", help="the filled test-sheet CSV")
        parser.add_argument("--revision", type=int, help="revision number (default: the latest)")
        parser.add_argument(
            "--all-or-nothing",
            action="store_true",
            help="refuse the whole sheet (store nothing) when any row has an error; by default "
            "the valid rows are stored and the bad ones listed "
            f"(exit status {EXIT_ROWS_LEFT_OUT})",
        )

    def handle(
        self, *args: Any, design: int, csv: str, revision: int | None = None, all_or_nothing: bool = False, **opts: Any
    ) -> None:
        d = Design.objects.filter(pk=design).select_related("owner").first()
        if d is None:
            raise CommandError(f"no design {design}")
        rev = d.revisions.filter(number=revision).first() if revision else d.revisions.order_by("-number").first()
        if rev is None:
            raise CommandError(
                f"design {design} has no revision {revision}"
                if revision
                else f"design {design} has not been computed yet"
            )
        try:
            text = Path(csv).read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"cannot read {csv}: {exc}") from None

        def check(t: str) -> dict | None:
            try:
                return measurements_check_revision(revision=rev, text=t)
            except DeliverableUnavailable:
                return None  # no test-sheet parser in this build: the CSV's shape is checked only
            except MeasurementUnavailable as exc:
                raise CommandError(f"{d.name} r{rev.number}: {exc}") from None

        try:
            upload = measurement_upload(
                revision=rev,
                user=d.owner,
                text=text,
                filename=Path(csv).name,
                check=check,
                keep_valid=not all_or_nothing,
            )
        except UploadRejected as exc:
            lines = [f"  {error_field_text(f)}: {f['message']}" for f in error_fields(exc.errors[:MAX_STORED_ERRORS])]
            if len(exc.errors) > MAX_STORED_ERRORS:
                lines.append(f"  ... and {len(exc.errors) - MAX_STORED_ERRORS:,} more row(s) with errors")
            raise CommandError("\n".join([f"nothing stored: {exc.message}", *lines])) from None
        except DomainError as exc:
            lines = [f"  {error_field_text(f)}: {f['message']}" for f in exc.fields] if exc.fields else []
            raise CommandError("\n".join([f"nothing stored: {exc.message}", *lines])) from None
        standing = measurement_standing_refresh(revision=rev)
        for f in error_fields(upload.errors):
            self.stderr.write(f"{error_field_text(f)}: {f['message']}")
        if upload.error_count > len(upload.errors):
            self.stderr.write(f"... and {upload.error_count - len(upload.errors):,} more row(s) with errors")
        self.stdout.write(
            f"imported {upload.rows} row(s) for {d.name} r{rev.number} as upload {upload.pk}"
            + (f"; {upload.error_count} row(s) with errors left out" if upload.error_count else "")
        )
        self.stdout.write("this upload: " + _counts(upload.counts))
        self.stdout.write(
            f"standing, {standing.uploads} upload(s) together (latest value per fiber): " + _counts(standing.counts)
        )
        if upload.error_count:
            raise CommandError(
                f"{upload.error_count} row(s) had errors and were left out (listed above); "
                f"the {upload.rows} valid row(s) were stored",
                returncode=EXIT_ROWS_LEFT_OUT,
            )


def _counts(counts: dict) -> str:
    """fibers: pass 10, fail 1, not-measured 2; links: pass 4, fail 1, incomplete 1"""
    parts = []
    for what, order in (("fibers", ("pass", "fail", "not-measured")), ("links", ("pass", "fail", "incomplete"))):
        c = counts.get(what) or {}
        keys = [k for k in order if k in c] + sorted(k for k in c if k not in order)
        parts.append(f"{what}: " + (", ".join(f"{k} {c[k]:,}" for k in keys) or "none"))
    return "; ".join(parts)
