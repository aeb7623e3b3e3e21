#!/usr/bin/env python3
"""Read NetBox's own bulk-import forms and print the fields each export file is checked against.

Run it with the Python of a NetBox checkout (its venv and configuration.py; the forms read custom fields, so
its database must be migrated; nothing is written), once per NetBox release, and merge the output into
deliverables/data/netbox_import_fields.json under the release's series ("4.6"):

    cd /opt/netbox/netbox && /opt/netbox/venv/bin/python /path/to/fabricdesign/scripts/netbox_import_fields.py

Per file: the form (module.Class), its columns in NetBox's order (Meta.fields), the required ones (a
bound form's field.required, as the import view sees them) and the choices of every choice column. For
device-types.yaml also the component-template forms the device-type import view reads (its
related_object_forms). This script imports NetBox only, never fabricdesign.
"""

from __future__ import annotations

import json
import os
import sys

# export file -> NetBox import form (dcim.forms)
FILES = {
    "sites.csv": "SiteImportForm",
    "locations.csv": "LocationImportForm",
    "manufacturers.csv": "ManufacturerImportForm",
    "device-roles.csv": "DeviceRoleImportForm",
    "racks.csv": "RackImportForm",
    "device-types.yaml": "DeviceTypeImportForm",
    "devices.csv": "DeviceImportForm",
    "interfaces.csv": "InterfaceImportForm",
    "rear-ports.csv": "RearPortImportForm",
    "front-ports.csv": "FrontPortImportForm",
    "cables.csv": "CableImportForm",
}
# device-type YAML sections we write -> template import form
TEMPLATE_SECTIONS = ("interfaces", "rear-ports", "front-ports")


def describe(form_cls) -> dict:
    from django import forms as djforms

    form = form_cls()
    cols = list(form_cls._meta.fields)
    out = {
        "form": f"{form_cls.__module__}.{form_cls.__name__}",
        "fields": cols,
        "required": [c for c in cols if c in form.fields and form.fields[c].required],
        "choices": {},
    }
    for c in cols:
        f = form.fields.get(c)
        if isinstance(f, djforms.ChoiceField) and not isinstance(f, djforms.ModelChoiceField):
            vals = []
            for k, v in f.choices:
                if isinstance(v, (list, tuple)):
                    vals += [str(kk) for kk, _ in v]
                elif k not in ("", None):
                    vals.append(str(k))
            out["choices"][c] = vals
    return out


def main() -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "netbox.settings")
    sys.path.insert(0, os.getcwd())
    import django

    django.setup()
    from dcim import forms, views
    from django.conf import settings

    files = {name: describe(getattr(forms, cls)) for name, cls in FILES.items()}
    related = views.DeviceTypeImportView.related_object_forms
    files["device-types.yaml"]["sections"] = {s: describe(related[s]) for s in TEMPLATE_SECTIONS if s in related}
    version = str(settings.RELEASE.version)
    series = ".".join(version.split(".")[:2])
    json.dump({series: {"netbox_release": version, "files": files}}, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
