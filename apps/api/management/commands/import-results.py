"""`manage.py import-results DESIGN CSV`: bring a filled test sheet back in, validated row by row."""
from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.api.catalog import custom_catalog_for
from apps.api.downloads import measurement_upload
from apps.api.errors import ApiError
from apps.designs.models import Design
from apps.exports.services import measurements_check, revision_result


class Command(BaseCommand):
    help = ("Import measured fiber test results (a filled test-sheet.csv) for a design's revision; "
            "reports unknown ids, bad units and duplicates by line, and pass/fail per fiber and link.")

    def add_arguments(self, parser):
        parser.add_argument("design", type=int, help="design id")
        parser.add_argument("csv", help="the filled test-sheet CSV")
        parser.add_argument("--revision", type=int, help="revision number (default: the latest)")

    def handle(self, *args, design: int, csv: str, revision: int | None = None, **opts):
        d = Design.objects.filter(pk=design).select_related("owner").first()
        if d is None:
            raise CommandError(f"no design {design}")
        rev = d.revisions.filter(number=revision).first() if revision else d.revisions.order_by("-number").first()
        if rev is None:
            raise CommandError(f"design {design} has no revision {revision}" if revision else
                               f"design {design} has not been computed yet")
        try:
            text = Path(csv).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"cannot read {csv}: {exc}") from None
        result = revision_result(revision=rev, extra_catalog=custom_catalog_for(d.owner))
        try:
            upload = measurement_upload(revision=rev, user=d.owner, text=text, filename=Path(csv).name,
                                        check=lambda t: measurements_check(text=t, result=result))
        except ApiError as exc:
            lines = [f"  {f['path']}: {f['message']}" for f in exc.fields] if exc.fields else []
            raise CommandError("\n".join([exc.message] + lines)) from None
        self.stdout.write(f"imported {upload.rows} row(s) for {d.name} r{rev.number}: {upload.counts}")
