"""JSON Schema (draft 2020-12) of a QoS policy, from the field tables the parser checks with (engine/qos/policy.py).

Two shapes: what a spec's `qos` section (and the API's policy input) may hold, every field optional, and the
effective policy `QosPolicy.to_dict()` writes, every field present. The rules across fields (a DSCP in two
classes, a DWRR class without a weight, an engine upstream OpenSM lacks, what the design's switches support)
are the parser's alone. Each field is described by what it means (engine/qos/field_help.py) and then by what its
rule allows.
"""

from __future__ import annotations

from collections.abc import Mapping

from . import reference as ref
from .field_help import CLASS_HELP, DCQCN_HELP, SECTION_HELP
from .policy import (
    CLASS_FIELDS,
    CLASS_NAMES,
    DCQCN_MASK_RULE,
    DCQCN_VALUE_RULE,
    ECN_FIELDS,
    ETHERNET_OSES,
    HEADROOM_FIELDS,
    HOST_FIELDS,
    INFINIBAND_FIELDS,
    MODES,
    MTU_FIELDS,
    PFC_FIELDS,
    SONIC_FIELDS,
    TECHNOLOGIES,
)

SECTIONS: dict[str, tuple[Mapping[str, tuple], str]] = {
    "ecn": (ECN_FIELDS, "ECN marking on the switches' queues."),
    "pfc": (PFC_FIELDS, "Priority flow control and its watchdog."),
    "mtu": (MTU_FIELDS, "Switch port, host and RoCE path MTUs."),
    "host": (HOST_FIELDS, "What the hosts mark and trust; follows the classes unless set."),
    "headroom": (HEADROOM_FIELDS, "Terms of the PFC headroom formula that do not come from the port."),
    "sonic": (SONIC_FIELDS, "SONiC switches: map names and buffer settings."),
    "infiniband": (INFINIBAND_FIELDS, "InfiniBand: subnet manager, routing, SL-to-VL map, SHARP."),
}


def _int(lo: int, hi: int | None = None) -> dict:
    return {"type": "integer", "minimum": lo, **({"maximum": hi} if hi is not None else {})}


def _rule(rule: tuple, *, effective: bool) -> dict:
    kind, *args = rule
    if kind == "int":
        lo, hi = args
        return {**_int(lo, hi), "description": f"An integer from {lo} to {hi}."}
    if kind == "float":
        lo, hi = args
        return {"type": "number", "minimum": lo, "maximum": hi, "description": f"A number from {lo} to {hi}."}
    if kind == "bool":
        return {"type": "boolean"}
    if kind == "word":
        return {"type": "string", "pattern": r"^\S+$", "description": "One word: no spaces."}
    if kind == "choice":
        return {"enum": list(args[0])}
    if kind == "int_list":
        lo, hi = args
        many = {"type": "array", "items": _int(lo, hi), "uniqueItems": True}
        text = f"Distinct integers from {lo} to {hi}"
        if effective:
            return {**many, "description": text + "."}
        return {"anyOf": [_int(lo, hi), many], "description": text + " (one may be given alone)."}
    if kind == "names":
        return {"type": "array", "items": {"enum": list(args[0])}, "description": "Class names."}
    if kind == "sl2vl":
        return {
            "type": "array",
            "items": _int(0, 14),
            "minItems": 16,
            "maxItems": 16,
            "description": "The VL (0-14) of each SL 0-15.",
        }
    if kind == "weights":
        return {
            "type": "object",
            "minProperties": 1,
            "additionalProperties": _int(0, 255),
            "description": "VL (0-14, as text) -> arbitration weight (0-255).",
        }
    if kind == "speed_table":
        return {
            "type": "object",
            "minProperties": 1,
            "additionalProperties": _int(0),
            "description": "Port speed in Gb/s (as text) -> bit times"
            + ("." if effective else "; merged into the default table."),
        }
    raise AssertionError(f"unknown rule kind {kind}")


def _field(rule: tuple, meaning: str, *, effective: bool) -> dict:
    """A field's schema described by what it means, then by what its rule allows."""
    schema = _rule(rule, effective=effective)
    allowed = schema.get("description")
    schema["description"] = f"{meaning} {allowed}" if allowed else meaning
    return schema


def _section(table: Mapping[str, tuple], meanings: Mapping[str, str], description: str, *, effective: bool) -> dict:
    # meanings[name], not .get: a field added to a table without a meaning stops the schema from being built
    out = {
        "type": "object",
        "additionalProperties": False,
        "properties": {name: _field(rule, meanings[name], effective=effective) for name, rule in table.items()},
        "description": description,
    }
    if effective:
        out["required"] = list(table)
    return out


def _dcqcn(*, effective: bool) -> dict:
    names = ["prio_mask", *dict(ref.DCQCN_RP), *dict(ref.DCQCN_NP)]
    rules = {n: DCQCN_MASK_RULE if n == "prio_mask" else DCQCN_VALUE_RULE for n in names}
    return _section(
        rules,
        DCQCN_HELP,
        "ConnectX DCQCN settings (the sysfs names under /sys/class/net/<if>/ecn/).",
        effective=effective,
    )


def qos_policy_json_schema(*, effective: bool) -> dict:
    """The effective policy (every field, as GET answers it) or a policy as written (any part of it)."""
    properties: dict = {
        "technology": {
            "enum": list(TECHNOLOGIES),
            "description": "The compute fabric's technology"
            + ("." if effective else ": accepted only when it is the design's (change it in the spec)."),
        },
        "mode": {"enum": list(MODES), "description": "Congestion control: dcqcn, pfc-only or lossy (docs/qos.md)."},
        "ethernet_os": {
            "enum": list(ETHERNET_OSES),
            "description": "OS of switches whose catalog entry runs both NVUE and SONiC (NVIDIA Spectrum).",
        },
    }
    for name in CLASS_NAMES:
        properties[name] = _section(CLASS_FIELDS, CLASS_HELP, f"The {name} traffic class.", effective=effective)
    properties["dcqcn"] = _dcqcn(effective=effective)
    for name, (table, description) in SECTIONS.items():
        properties[name] = _section(table, SECTION_HELP[name], description, effective=effective)
    schema: dict = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "fabricdesign QoS policy",
        "type": "object",
        "additionalProperties": False,
        "properties": properties,
    }
    if effective:
        schema["required"] = list(properties)
        schema["description"] = "The effective QoS policy: every default filled in (docs/qos.md)."
    else:
        schema["description"] = (
            "A QoS policy as written: any part of it; what is left out takes the default (docs/qos.md)."
        )
    return schema
