"""The shape of a server, switch or appliance entry: every key an entry may hold, with its JSON type.

A user's part with a list inside `sources`, a number for `name` or a key nobody reads used to be stored and
only fail later, on a page that showed it (a 500). Every entry, shipped or a user's, is checked against this
schema first: unknown keys and wrong JSON types are refused here, naming the field; the catalog's one loader
(engine/catalog/loader.py) then reads the entry into its dataclass, with the rules the dataclasses declare
(a switch's `os` naming known OSes and interface namings, rails numbered from 0, known airflows).
tests/engine/test_catalog_schema.py checks every shipped entry passes, so a user's part meets exactly the
rules the shipped ones do. (The media sections have no schema here: their dataclasses refuse unknown keys.)

A schema is a type name ("str", "int", "number", "bool"), a one-element list (a list of that), or a dict of
key -> schema (a mapping; "*" for any key). A key may be missing or null unless REQUIRED lists it; the loaders
apply their defaults and their own rules (rails numbered from 0, known speeds) after this.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import CatalogError

_PORT_GROUP = {
    "speed_gbps": "int",
    "form_factor": "str",
    "ports": ["str"],
    "ports_per_tray": "int",
    "nic": "str",  # the adapter behind the ports (a BlueField-3 takes only QSFP112 modules)
    "accepts": ["str"],
}
# One orderable variant, or a rail kit (engine/catalog OrderInfo; "description" is the rail kit's word for variant)
_ORDER_INFO = {
    "opn": "str",
    "variant": "str",
    "description": "str",
    "nvidia_opn": "str",
    "sources": ["str"],
    "unconfirmed": "str",
    "in_package": "bool",
}
_ORDERABLE = {"p2c": _ORDER_INFO, "c2p": _ORDER_INFO}

SERVER: dict[str, Any] = {
    "name": "str",
    "vendor": "str",
    "gpus": "int",
    "gpu_memory_gb": "number",
    "nvlink_domain_gpus": "int",
    "rack_units": "int",
    "power_kw": "number",
    "default_per_rack": "int",
    "rack_scale": "bool",
    "same_ports_as": "str",
    "compute": {
        "nic_speed_gbps": "int",
        "cages": [{"name": "str", "form_factor": "str", "top": "str", "ports": [{"name": "str", "rail": "int"}]}],
        "tray_ports": {
            "trays": "int",
            "nics_per_tray": "int",
            "first_tray_u": "int",
            "form_factor": "str",
            "top": "str",
        },
    },
    "storage": _PORT_GROUP,
    "inband": _PORT_GROUP,
    "oob": _PORT_GROUP,
    "netdevs": {"*": "str"},
    "rdma_devices": {"*": "str"},
    "rdma_source": "str",
    "sources": ["str"],
}

SWITCH: dict[str, Any] = {
    "name": "str",
    "vendor": "str",
    "os": {"*": "str"},  # OS -> interface naming (engine/catalog SwitchModel.os)
    "technology": ["str"],
    "cages": "int",
    "form_factor": "str",
    "top": "str",
    "speeds": {"*": "int"},
    "lanes_gbps": "int",
    "rack_units": "int",
    "power_kw": "number",
    "buffer_mb": "number",
    "subnet_manager": "bool",
    "sharp": "bool",
    "mgmt_ports": "int",
    "uplinks": {"count": "int", "form_factor": "str", "speed_gbps": "int"},
    "ib_reported_ports": "int",
    "orderable": _ORDERABLE,
    "rail_kit": _ORDER_INFO,
    "sources": ["str"],
}

APPLIANCE: dict[str, Any] = {
    "name": "str",
    "vendor": "str",
    "rack_units": "int",
    "power_kw": "number",
    "orderable": _ORDERABLE,
    "sources": ["str"],
}

REQUIRED = {
    "servers": ("name", "vendor", "rack_units", "gpus"),
    "switches": ("name", "vendor", "os", "rack_units", "cages", "speeds"),
    "appliances": ("name", "vendor"),
}
SECTIONS = {"servers": SERVER, "switches": SWITCH, "appliances": APPLIANCE}
_WORDS = {"str": "text", "int": "a whole number", "number": "a number", "bool": "true or false"}


def _type_ok(kind: str, value: Any) -> bool:
    if kind == "str":
        return isinstance(value, str)
    if kind == "bool":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    return isinstance(value, int) if kind == "int" else isinstance(value, (int, float))


def _check(schema: Any, value: Any, path: str) -> None:
    if value is None:
        return
    if isinstance(schema, str):
        if not _type_ok(schema, value):
            raise CatalogError(f"{path}: must be {_WORDS[schema]}, not {type(value).__name__}")
    elif isinstance(schema, list):
        if not isinstance(value, list):
            raise CatalogError(f"{path}: must be a list, not {type(value).__name__}")
        for i, item in enumerate(value):
            if item is None:
                raise CatalogError(f"{path}[{i}]: must not be empty")
            _check(schema[0], item, f"{path}[{i}]")
    else:
        if not isinstance(value, Mapping):
            raise CatalogError(f"{path}: must be a mapping, not {type(value).__name__}")
        for key, item in value.items():
            sub = schema.get("*", schema.get(key)) if isinstance(key, (str, int)) else None
            if sub is None:
                known = ", ".join(k for k in schema if k != "*")
                raise CatalogError(f"{path}.{key}: is not a known field (known: {known})")
            _check(sub, item, f"{path}.{key}")


def check_entry(section: str, key: str, entry: Any) -> None:
    """CatalogError naming the field when `entry` of `section` (servers | switches | appliances) does not fit."""
    path = f"{section}.{key}"
    if not isinstance(entry, Mapping):
        raise CatalogError(f"{path}: must be a mapping of fields, not {type(entry).__name__}")
    for name in REQUIRED.get(section, ()):
        if entry.get(name) is None:
            raise CatalogError(f"{path}.{name}: is required")
    _check(SECTIONS[section], entry, path)


__all__ = ["APPLIANCE", "SERVER", "SWITCH", "check_entry"]
