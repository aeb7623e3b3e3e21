"""The catalog's sections as the API lists them: shipped entries plus the caller's custom parts (marked).

The parts themselves and the merged catalog are the catalog app's (apps/catalog/services.py).
"""

from __future__ import annotations

from apps.catalog.services import catalog_for
from engine.physical.catalog import _PARSERS as MEDIA_PARSERS

# --- listing -------------------------------------------------------------------------------------


def _server(s) -> dict:
    return {
        "key": s.key,
        "name": s.name,
        "vendor": s.vendor,
        "gpus": s.gpus,
        "gpu_memory_gb": s.gpu_memory_gb,
        "nvlink_domain_gpus": s.nvlink_domain_gpus,
        "rack_units": s.rack_units,
        "power_kw": s.power_kw,
        "default_per_rack": s.default_per_rack,
        "rack_scale": s.rack_scale,
        "nic_speed_gbps": s.nic_speed_gbps,
        "compute_ports": len(s.compute_ports),
        "rails": s.rails,
        "sources": list(s.sources),
    }


def _switch(s) -> dict:
    return {
        "key": s.key,
        "name": s.name,
        "vendor": s.vendor,
        "technology": list(s.technology),
        "cages": s.cages,
        "form_factor": s.form_factor,
        "top": s.top,
        "speeds": [{"speed_gbps": sp, "ports_per_cage": n, "radix": n * s.cages} for sp, n in sorted(s.speeds.items())],
        "lanes_gbps": s.lanes_gbps,
        "rack_units": s.rack_units,
        "power_kw": s.power_kw,
        "buffer_mb": s.buffer_mb,
        "subnet_manager": s.subnet_manager,
        "sharp": s.sharp,
        "sources": list(s.sources),
    }


def catalog_entries(*, user, section: str) -> tuple[str, list[dict]]:
    """(catalog version, entries of one section), the user's own parts marked `custom: true`."""
    catalog, own = catalog_for(user)
    if section == "servers":
        items = [{**_server(s), "custom": ("servers", k) in own} for k, s in sorted(catalog.servers.items())]
    elif section == "switches":
        items = [{**_switch(s), "custom": ("switches", k) in own} for k, s in sorted(catalog.switches.items())]
    else:
        attr = MEDIA_PARSERS[section][1]
        items = [
            {"key": e[attr], "custom": (section, e[attr]) in own, "entry": e}
            for e in catalog.media.raw.get(section, [])
        ]
    return catalog.version, items
