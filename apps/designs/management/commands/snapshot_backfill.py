"""Give revisions stored before snapshots their snapshot now (the periodic task does it in the background)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from apps.designs.snapshots import revisions_without_snapshot, snapshot_backfill_all


class Command(BaseCommand):
    help = (
        "Recompute the snapshot of every revision stored before snapshots, once. A revision whose recomputed "
        "links or cables differ from its stored rows is marked 'not reproducible with catalog X' and shows its "
        "stored rows only."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--limit", type=int, default=None, help="backfill at most this many revisions")

    def handle(self, *args: Any, limit: int | None = None, **options: Any) -> None:
        if limit is not None and limit < 1:
            self.stderr.write("--limit: must be at least 1")
            raise SystemExit(2)
        waiting = revisions_without_snapshot().count()
        counts = snapshot_backfill_all(limit=limit)
        self.stdout.write(
            f"{waiting} revision(s) without a snapshot; backfilled {counts['complete']} complete, "
            f"{counts['rows-only']} rows only (not reproducible)"
        )
