"""`manage.py import-counters DESIGN FILE --format F`: import a counter file into a revision and print the
revision's flagged links and suspect groups; `--report` prints them without importing.

Exit status: 0 imported (or reported) and nothing flagged; 4 (EXIT_FLAGGED) links are flagged; 1 nothing
stored (a file that cannot be read, a bad option); 2 a usage error.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.counters.selectors import counter_report, counter_thresholds
from apps.counters.services import CounterImportRejected, counter_snapshot_create
from apps.designs.models import Design
from engine.counters import FORMATS, CounterParseError
from engine.counters.drift import FLAG_TEXT
from engine.counters.suspects import KIND_TEXT

EXIT_FLAGGED = 4


class Command(BaseCommand):
    help = (
        "Import port error counters (ibqueryerrors, perfquery, ethtool -S, NVUE/EOS/SONiC JSON) into a design's "
        "revision and print its flagged links and suspect groups. Exit status: 0 nothing flagged; "
        f"{EXIT_FLAGGED} links flagged; 1 nothing stored."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("design", type=int, help="design id")
        parser.add_argument("file", nargs="?", help="the counter file (omit with --report)")
        parser.add_argument("--revision", type=int, help="revision number (default: the latest)")
        parser.add_argument("--format", choices=list(FORMATS), help="how to read the file")
        parser.add_argument("--device", default="", help="the device the file was read on (Ethernet formats)")
        parser.add_argument("--interface", default="", help="the interface, for one interface's output")
        parser.add_argument("--network", default="", help="the network an ibqueryerrors sweep covered")
        parser.add_argument("--taken-at", help="when the counters were read, ISO 8601 with a zone (default: now)")
        parser.add_argument(
            "--threshold",
            action="append",
            default=[],
            metavar="NAME=VALUE",
            help="override a threshold for this report (engine/counters/data/thresholds.yaml names them)",
        )
        parser.add_argument("--report", action="store_true", help="print the report only; import nothing")

    def handle(self, *args: Any, design: int, file: str | None, revision: int | None, **o: Any) -> None:
        d = Design.objects.filter(pk=design).select_related("owner").first()
        if d is None:
            raise CommandError(f"no design {design}")
        rev = d.revisions.filter(number=revision).first() if revision else d.revisions.order_by("-number").first()
        if rev is None:
            raise CommandError(f"design {design} has no revision {revision or '(not computed yet)'}")
        overrides = {}
        for item in o["threshold"]:
            name, sep, value = item.partition("=")
            if not sep:
                raise CommandError(f"--threshold {item!r}: expected NAME=VALUE")
            overrides[name.strip()] = value.strip()
        try:
            thresholds = counter_thresholds(overrides)
        except CounterParseError as exc:
            raise CommandError(f"--threshold: {exc}") from None
        if not o["report"]:
            if not file or not o["format"]:
                raise CommandError("give the counter file and --format (or --report)")
            taken = None
            if o["taken_at"]:
                try:
                    taken = datetime.fromisoformat(o["taken_at"].replace("Z", "+00:00"))
                except ValueError:
                    raise CommandError(f"--taken-at {o['taken_at']!r}: not an ISO 8601 time") from None
            try:
                text = Path(file).read_text(encoding="utf-8-sig")
            except (OSError, UnicodeDecodeError) as exc:
                raise CommandError(f"cannot read {file}: {exc}") from None
            try:
                snap = counter_snapshot_create(
                    revision=rev,
                    user=d.owner,
                    text=text,
                    fmt=o["format"],
                    taken_at=taken,
                    device=o["device"],
                    interface=o["interface"],
                    network=o["network"],
                    filename=Path(file).name,
                )
            except CounterImportRejected as exc:
                raise CommandError(f"nothing stored: {exc}") from None
            self.stdout.write(
                f"{d.name} r{rev.number}: snapshot {snap.pk} ({snap.format}, {snap.taken_at:%Y-%m-%d %H:%M:%S %Z}): "
                f"{snap.matched} of {snap.ports} ports matched to planned links"
            )
            for note in snap.notes:
                self.stdout.write(f"  note: {note}")
        report = counter_report(revision=rev, thresholds=thresholds)
        self._print(report)
        if report["counts"]["flagged"]:
            raise SystemExit(EXIT_FLAGGED)

    def _print(self, report: dict) -> None:
        c = report["counts"]
        self.stdout.write(
            f"{len(report['snapshots'])} snapshots; {c['links_tracked']} links with readings, {c['flagged']} flagged, "
            f"{c['with_resets']} with a counter reset"
        )
        for link in report["links"]:
            if not link["flags"] and not link["resets"]:
                continue
            flags = ", ".join(FLAG_TEXT[f] for f in link["flags"]) or "no flag"
            self.stdout.write(f"  {link['link']} {link['ends']['a']} - {link['ends']['b']}: {flags}")
            for r in link["resets"]:
                at = datetime.fromtimestamp(r["at"]).astimezone().strftime("%Y-%m-%d %H:%M:%S")
                self.stdout.write(f"    reset: end {r['end']} {r['counter']} (reading of {at})")
        for g in report["groups"]:
            self.stdout.write(
                f"Suspect {KIND_TEXT[g['kind']]} {g['key']}: {len(g['links'])} of its {g['population']} links "
                f"flagged ({', '.join(g['links'])})"
            )
            for step in g["action"]:
                self.stdout.write(f"  - {step}")
        if report["ungrouped"]:
            self.stdout.write(f"Flagged, sharing nothing: {', '.join(report['ungrouped'])}")
