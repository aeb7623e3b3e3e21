#!/usr/bin/env python3
"""Load a design's netbox/ files into a NetBox through its own bulk-import views, then check every link.

Run with the Python of a NetBox checkout (its venv and configuration.py, a migrated database), from its
netbox/ directory; imports NetBox only, never fabricdesign:

    cd /opt/netbox/netbox && /opt/netbox/venv/bin/python /path/to/scripts/netbox_load.py OUT_DIR

OUT_DIR holds netbox/ (the export set) and links.csv (`manage.py plan` writes both). Each file is posted
to its bulk-import page, in docs/deliverables.md's order, as a logged-in superuser would (Django's test
client, CSRF checks off as for any test client); one file is one transaction in NetBox, so a file either
imports whole or not at all. Then every link of links.csv is looked up: the A-end interface's cable path
must be complete and end on the B-end interface. Prints rows, errors and seconds per file and the
links traced; exits non-zero on any error or untraced link.
"""

from __future__ import annotations

import csv
import functools
import os
import sys
import time
from pathlib import Path

print = functools.partial(print, flush=True)  # progress shows while a long file imports

ORDER = (
    ("sites.csv", "dcim:site_bulk_import"),
    ("manufacturers.csv", "dcim:manufacturer_bulk_import"),
    ("device-roles.csv", "dcim:devicerole_bulk_import"),
    ("racks.csv", "dcim:rack_bulk_import"),
    ("device-types.yaml", "dcim:devicetype_bulk_import"),
    ("devices.csv", "dcim:device_bulk_import"),
    ("rear-ports.csv", "dcim:rearport_bulk_import"),
    ("front-ports.csv", "dcim:frontport_bulk_import"),
    ("cables.csv", "dcim:cable_bulk_import"),
)


def rows_of(path: Path) -> int:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".yaml":
        return text.count("\n---") + text.startswith("---")
    return max(0, len(list(csv.reader(text.splitlines()))) - 1)


def main(out_dir: str) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "netbox.settings")
    sys.path.insert(0, os.getcwd())
    import django

    django.setup()
    from dcim.models import Interface
    from django.test import Client
    from django.urls import reverse
    from users.models import User

    out = Path(out_dir)
    user, _ = User.objects.get_or_create(
        username="fabricdesign-import", defaults={"is_superuser": True, "is_active": True}
    )  # NetBox 4 users have no is_staff
    client = Client()
    client.force_login(user)
    failed = False
    total = time.perf_counter()
    for name, url in ORDER:
        path = out / "netbox" / name
        if not path.is_file():
            print(f"{name:20s} absent (no patch panels)")
            continue
        n = rows_of(path)
        t = time.perf_counter()
        resp = client.post(
            reverse(url),
            {
                "data": path.read_text(encoding="utf-8"),
                "import_method": "direct",
                "format": "yaml" if name.endswith(".yaml") else "csv",
                "csv_delimiter": ",",
            },
        )
        dt = time.perf_counter() - t
        if resp.status_code == 302:
            print(f"{name:20s} {n:6d} rows  0 errors  {dt:7.1f} s")
            continue
        failed = True
        errors = []
        ctx = resp.context or {}
        form = ctx.get("form") if hasattr(ctx, "get") else None
        if form is not None:
            errors = [f"{k}: {v}" for k, vs in form.errors.items() for v in vs]
        print(f"{name:20s} {n:6d} rows  FAILED ({resp.status_code}) {dt:7.1f} s")
        for e in errors[:10]:
            print("    " + e)
        break
    print(f"import total {time.perf_counter() - total:.1f} s")
    if failed:
        return 1
    t = time.perf_counter()
    ifaces = {(i.device.name, i.name): i for i in Interface.objects.select_related("device", "_path")}
    traced = broken = 0
    with open(out / "links.csv", newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            a = ifaces.get((row["a_device"], row["a_port"]))
            b = ifaces.get((row["b_device"], row["b_port"]))
            p = a._path if a is not None else None
            if p is not None and p.is_complete and b is not None and list(p.destinations) == [b]:
                traced += 1
            else:
                broken += 1
                if broken <= 10:
                    print(
                        f"    not traced: {row['id']} {row['a_device']} {row['a_port']} -> "
                        f"{row['b_device']} {row['b_port']}"
                    )
    print(f"links traced {traced}, not traced {broken} ({time.perf_counter() - t:.1f} s)")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
