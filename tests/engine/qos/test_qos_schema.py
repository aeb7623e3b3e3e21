"""The QoS policy's JSON Schema (engine/qos/schema.py) says what the parser accepts, field by field.

GIVEN the schema of a policy as written and of the effective policy, built from the parser's field tables
WHEN policies are parsed and validated
THEN every effective policy the engine writes fits the effective schema, and for each field rule the schema and
     the parser accept and refuse the same values (the cross-field rules are the parser's alone)
AND  every field is described by what it means, then by what its rule allows.
"""

from __future__ import annotations

import jsonschema
import pytest

from engine.errors import SpecError
from engine.qos import reference as ref
from engine.qos.field_help import CLASS_HELP, DCQCN_HELP, SECTION_HELP
from engine.qos.policy import CLASS_FIELDS, TECHNOLOGIES, QosPolicy
from engine.qos.schema import SECTIONS, qos_policy_json_schema

EFFECTIVE = jsonschema.Draft202012Validator(qos_policy_json_schema(effective=True))
WRITTEN = jsonschema.Draft202012Validator(qos_policy_json_schema(effective=False))


def _parser_accepts(policy: dict) -> bool:
    try:
        QosPolicy.from_dict(policy, "ethernet")
    except SpecError:
        return False
    return True


@pytest.mark.parametrize("effective", [True, False])
def test_both_are_valid_draft_2020_12_schemas(effective):
    jsonschema.Draft202012Validator.check_schema(qos_policy_json_schema(effective=effective))


@pytest.mark.parametrize("technology", TECHNOLOGIES)
@pytest.mark.parametrize(
    "written",
    [None, {"mode": "lossy"}, {"mode": "pfc-only", "roce": {"dscp": [24, 26]}}, {"infiniband": {"lmc": 2}}],
)
def test_every_effective_policy_fits_the_effective_schema_and_reads_back_as_written(technology, written):
    effective = QosPolicy.from_dict(written, technology).to_dict()
    assert list(EFFECTIVE.iter_errors(effective)) == []
    assert list(WRITTEN.iter_errors({k: v for k, v in effective.items() if k != "technology"})) == []


@pytest.mark.parametrize(
    "policy",
    [
        {},
        {"roce": {"dscp": 24}},
        {"roce": {"dscp": [24, 25], "priority": 3, "scheduling": "dwrr", "weight": 60}},
        {"ecn": {"min_bytes": 1, "max_bytes": 10**9, "probability": 0, "classes": ["roce", "cnp"]}},
        {"pfc": {"priorities": 3, "watchdog_action": "alert", "headroom_buffer_share": 1}},
        {"mtu": {"switch": 1500, "roce": 4096}},
        {"host": {"trust": "pcp", "pfc_priorities": [3]}},
        {"dcqcn": {"prio_mask": 255}},
        {"headroom": {"d_intf_bits": {"400": 0}, "propagation_ns_per_m": 0.1}},
        {"sonic": {"map_name": "FABRIC", "xon_bytes": 0}},
        {"infiniband": {"sl2vl": [0] * 16, "vlarb_low": {"0": 255}, "max_operational_vls": 15, "sharp": "off"}},
    ],
)
def test_what_the_schema_accepts_field_by_field_the_parser_accepts(policy):
    assert list(WRITTEN.iter_errors(policy)) == []
    assert _parser_accepts(policy)


@pytest.mark.parametrize(
    "policy",
    [
        {"colour": "blue"},
        {"mode": "lossless"},
        {"roce": {"dscp": 64}},
        {"roce": {"dscp": [24, 24]}},
        {"roce": {"dscp": "24"}},
        {"roce": {"priority": True}},
        {"roce": {"weight": 101}},
        {"roce": {"bandwidth": 1}},
        {"ecn": {"min_bytes": 0}},
        {"ecn": {"classes": ["gold"]}},
        {"pfc": {"priorities": [8]}},
        {"pfc": {"headroom_buffer_share": 1.5}},
        {"pfc": {"watchdog": "yes"}},
        {"mtu": {"roce": 9000}},
        {"mtu": {"switch": 9217}},
        {"host": {"trust": "cos"}},
        {"dcqcn": {"prio_mask": 256}},
        {"dcqcn": {"rate_limit": 1}},
        {"headroom": {"ifg_bytes": 1001}},
        {"headroom": {"d_resp_bits": {}}},
        {"headroom": {"d_resp_bits": {"400": -1}}},
        {"sonic": {"map_name": "TWO WORDS"}},
        {"infiniband": {"sl2vl": [0] * 15}},
        {"infiniband": {"sl2vl": [15] * 16}},
        {"infiniband": {"vlarb_low": {}}},
        {"infiniband": {"vlarb_low": {"0": 256}}},
        {"infiniband": {"lmc": 8}},
    ],
)
def test_what_the_schema_refuses_field_by_field_the_parser_refuses(policy):
    assert list(WRITTEN.iter_errors(policy))
    assert not _parser_accepts(policy)


def test_every_field_of_every_table_has_a_meaning_and_every_meaning_a_field():
    assert set(CLASS_HELP) == set(CLASS_FIELDS)
    assert set(DCQCN_HELP) == {"prio_mask", *dict(ref.DCQCN_RP), *dict(ref.DCQCN_NP)}
    assert {name: set(help_) for name, help_ in SECTION_HELP.items()} == {
        name: set(table) for name, (table, _) in SECTIONS.items()
    }


@pytest.mark.parametrize("effective", [True, False])
def test_a_field_is_described_by_its_meaning_then_by_what_its_rule_allows(effective):
    schema = qos_policy_json_schema(effective=effective)["properties"]
    assert schema["ecn"]["properties"]["min_bytes"]["description"] == (
        "Queue depth where ECN marking starts, bytes. An integer from 1 to 1000000000."
    )
    assert schema["pfc"]["properties"]["watchdog"]["description"] == SECTION_HELP["pfc"]["watchdog"]
    for section in schema.values():
        for name, field in section.get("properties", {}).items():
            assert field["description"], name
