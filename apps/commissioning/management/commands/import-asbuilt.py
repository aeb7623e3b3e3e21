"""`manage.py import-asbuilt DESIGN FILE --format F`: bring what the built fabric is back in (ibnetdiscover,
iblinkinfo, lldpctl -f json, NVUE or EOS LLDP JSON, a CSV), classify it with the revision's earlier imports
against the plan, print the counts per class and the fix list (or write it with --fix-list PATH.csv).

Exit status: 0 no problem left; 3 (EXIT_PROBLEMS) stored, problems listed; 1 refused (nothing stored);
2 usage error.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.commissioning.services import AsBuiltRejected, asbuilt_upload, commissioning_refresh
from apps.designs.models import Design
from engine.asbuilt.fixlist import FIX_COLUMNS
from engine.asbuilt.parsers import FORMATS
from engine.csvcells import write_csv

EXIT_PROBLEMS = 3


class Command(BaseCommand):
    help = (
        "Import an as-built file for a design's revision, classify every planned and observed link and print "
        f"the fix list. Exit status: 0 no problem; {EXIT_PROBLEMS} problems listed; 1 nothing stored."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("design", type=int, help="design id")
        parser.add_argument("file", help="the tool output")
        parser.add_argument("--format", required=True, choices=FORMATS, help="what the file is")
        parser.add_argument("--revision", type=int, help="revision number (default: the latest)")
        parser.add_argument("--device", default="", help="the local system of an LLDP dump that does not name it")
        parser.add_argument("--port", default="", help="the interface of a one-interface NVUE dump")
        parser.add_argument("--user-map", help="CSV device,ident,port: RDMA device, netdev or GUID -> design port")
        parser.add_argument("--fix-list", help="write the fix list as CSV to this path")
        parser.add_argument(
            "--width-only", action="store_true", help="judge links by width only, not speed (ibsim runs lanes at SDR)"
        )

    def handle(
        self,
        *args: Any,
        design: int,
        file: str,
        format: str,
        revision: int | None = None,
        device: str = "",
        port: str = "",
        user_map: str | None = None,
        fix_list: str | None = None,
        **opts: Any,
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
            data = Path(file).read_bytes()
            umap = Path(user_map).read_text(encoding="utf-8") if user_map else ""
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"cannot read: {exc}") from None
        try:
            asbuilt_upload(
                revision=rev,
                user=d.owner,
                fmt=format,
                data=data,
                filename=Path(file).name,
                device=device,
                port=port,
                user_map=umap,
                width_only=opts.get("width_only", False),
            )
        except AsBuiltRejected as exc:
            self.stderr.write(f"refused ({exc.field}): {exc.message}")
            sys.exit(1)
        st = commissioning_refresh(revision=rev)
        if st.error:
            raise CommandError(st.error)
        self.stdout.write(f"{d.name} r{rev.number}: {st.state}")
        self.stdout.write("  " + ", ".join(f"{k} {v}" for k, v in st.counts.items()))
        for f in st.fixes:
            self.stdout.write(f"  #{f['problem']} {f['class']:<10} {f['rack']:<10} {f['action']}")
        if fix_list:
            with open(fix_list, "w", newline="", encoding="utf-8") as fh:
                write_csv(fh, [FIX_COLUMNS, *([f[c] for c in FIX_COLUMNS] for f in st.fixes)])
        if st.fixes:
            sys.exit(EXIT_PROBLEMS)
