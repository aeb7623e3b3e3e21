"""The typed components of the served schema are the engine's own schemas, not copies that can drift.

GIVEN the published schema (docs/openapi.yaml) and the engine's JSON Schemas (spec, summary.json, QoS policy)
WHEN their OpenAPI components are read back into JSON Schema 2020-12 (nullable -> a null member, a one-value enum
     -> const, the type beside an enum dropped: the only dialect differences)
THEN they are equal, every spec and QoS policy property and the summary answer use them, and the closed sets are the engine's.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
import yaml

from apps.api.results import LINK_MEDIA, LINK_STATUSES
from apps.api.schema_components import add_typed_components
from engine.model import ALL_TIERS, NETWORKS
from engine.physical_stage import BOM_CATEGORIES, CABLE_KINDS
from engine.qos.schema import qos_policy_json_schema
from engine.summary_schema import summary_json_schema
from tests.apps.api.conftest import rev_url

ROOT = Path(__file__).resolve().parents[3]
SCHEMA = yaml.safe_load((ROOT / "docs" / "openapi.yaml").read_text())
COMPONENTS = SCHEMA["components"]["schemas"]
PUBLISHED_SPEC = json.loads((ROOT / "docs" / "spec.schema.json").read_text())
_ANNOTATIONS = ("description", "default")
_TOP_LEVEL = ("$schema", "title", "description")


def as_json_schema(schema):
    """An OpenAPI 3.0 schema written back in JSON Schema 2020-12, the way the engine writes it."""
    if isinstance(schema, list):
        return [as_json_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: as_json_schema(v) for k, v in schema.items() if k != "nullable"}
    if "enum" in out:
        out.pop("type", None)
        values = [v for v in out["enum"] if v is not None]
        out.pop("enum")
        out.update({"const": values[0]} if len(values) == 1 else {"enum": values})
    if schema.get("nullable"):
        notes = {k: out.pop(k) for k in _ANNOTATIONS if k in out}
        out = {"anyOf": [out, {"type": "null"}], **notes}
    return out


def comparable(schema):
    """Without the top-level title and description, without empty `required` lists (OpenAPI 3.0 has none), and
    with "anything or null" said as "anything" (`{}` already accepts null; OpenAPI 3.0 has no other way)."""

    def strip(s):
        if isinstance(s, list):
            return [strip(x) for x in s]
        if not isinstance(s, dict):
            return s
        out = {k: strip(v) for k, v in s.items() if not (k == "required" and v == [])}
        if out.get("anyOf") == [{}, {"type": "null"}]:
            del out["anyOf"]
        return out

    return strip({k: v for k, v in schema.items() if k not in _TOP_LEVEL})


def test_the_design_spec_component_is_the_published_spec_schema():
    assert comparable(as_json_schema(COMPONENTS["DesignSpec"])) == comparable(PUBLISHED_SPEC)


def test_a_spec_sent_in_a_request_may_take_its_name_from_the_body_and_differs_in_nothing_else():
    request, response = COMPONENTS["DesignSpecRequest"], COMPONENTS["DesignSpec"]
    assert "name" in response["required"] and "name" not in request["required"]
    assert request["properties"]["name"]["description"] != response["properties"]["name"]["description"]
    assert _without_name_rules(request) == _without_name_rules(response)


def _without_name_rules(spec: dict) -> dict:
    name = {k: v for k, v in spec["properties"]["name"].items() if k != "description"}
    return {
        **spec,
        "required": sorted(set(spec["required"]) - {"name"}),
        "properties": {**spec["properties"], "name": name},
    }


def test_the_summary_component_is_the_engines_summary_schema():
    assert comparable(as_json_schema(COMPONENTS["RevisionSummary"])) == comparable(summary_json_schema())


@pytest.mark.parametrize(("component", "effective"), [("QosPolicy", True), ("QosPolicyRequest", False)])
def test_the_qos_policy_components_are_the_engines_policy_schemas(component, effective):
    served = comparable(as_json_schema(COMPONENTS[component]))
    assert served == comparable(qos_policy_json_schema(effective=effective))


@pytest.mark.parametrize(
    ("component", "prop", "target"),
    [
        ("DesignDetailOut", "spec", "DesignSpec"),
        ("PresetDetailOutput", "spec", "DesignSpec"),
        ("RevisionDetailOutput", "spec", "DesignSpec"),
        ("DesignListInputRequest", "spec", "DesignSpecRequest"),
        ("PatchedDesignDetailInputRequest", "spec", "DesignSpecRequest"),
        ("QosOut", "policy", "QosPolicy"),
        ("QosOut", "stored", "QosPolicyRequest"),
        ("DesignQosInputRequest", "policy", "QosPolicyRequest"),
    ],
)
def test_every_spec_and_qos_policy_property_is_typed_with_its_description(component, prop, target):
    typed = COMPONENTS[component]["properties"][prop]
    assert typed["allOf"] == [{"$ref": f"#/components/schemas/{target}"}]
    assert typed["description"]


def test_the_summary_answer_is_the_typed_summary():
    op = SCHEMA["paths"]["/api/v1/designs/{design_id}/revisions/{number}/summary/"]["get"]
    assert op["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/RevisionSummary"
    }


def test_the_hook_refuses_to_type_a_property_that_no_longer_exists():
    schema = {"components": {"schemas": {"DesignDetailOut": {"properties": {}}}}, "paths": {}}
    with pytest.raises(LookupError, match=r"DesignDetailOut.spec"):
        add_typed_components(schema)


@pytest.mark.parametrize(
    ("enum", "values"),
    [
        ("BomCategoryEnum", BOM_CATEGORIES),
        ("NetworkEnum", NETWORKS),
        ("TierEnum", ALL_TIERS),
        ("CableKindEnum", CABLE_KINDS),
        ("LinkMediumEnum", LINK_MEDIA),
        ("LinkStatusEnum", LINK_STATUSES),
    ],
)
def test_the_closed_sets_are_the_engines(enum, values):
    assert COMPONENTS[enum]["enum"] == list(values)


@pytest.mark.parametrize(
    ("component", "prop", "enum"),
    [
        ("BomLineOut", "category", "BomCategoryEnum"),
        ("OrderLineOut", "category", "BomCategoryEnum"),
        ("MissingLinksOut", "network", "NetworkEnum"),
        ("MissingLinksOut", "tier", "TierEnum"),
        ("LinkRowOut", "tier", "TierEnum"),
        ("CableRowOut", "kind", "CableKindEnum"),
    ],
)
def test_bom_lines_links_and_cables_name_their_closed_sets(component, prop, enum):
    assert f"#/components/schemas/{enum}" in json.dumps(COMPONENTS[component]["properties"][prop])


@pytest.mark.parametrize("key", ["qm9700", "SN2201/A+", "dgx-h100"])
def test_a_custom_part_key_the_server_takes_fits_the_schema(key):
    pattern = COMPONENTS["PartInputRequest"]["properties"]["key"]["pattern"]
    assert re.search(pattern, key)


@pytest.mark.parametrize("key", ["=SUM(A1)", "-x", "two words", "x" * 65, "   ", " dgx-h100 ", " " * 62 + "00"])
def test_a_custom_part_key_the_server_refuses_the_schema_refuses(key):
    pattern = COMPONENTS["PartInputRequest"]["properties"]["key"]["pattern"]
    assert not re.search(pattern, key)


# --- answers of a computed revision conform to the typed components ---------------------------------


def test_a_revisions_summary_answer_fits_the_summary_component(alice, computed):
    summary = alice.get(rev_url(computed, 1, "summary/")).json()
    validator = jsonschema.Draft202012Validator(as_json_schema(COMPONENTS["RevisionSummary"]))
    assert [e.message for e in validator.iter_errors(summary)] == []


@pytest.mark.parametrize(
    ("given", "answered"),
    [
        ("0", "0"),
        ("2.50", "2.5"),
        ("0.125", "0.125"),
        ("1000", "1000"),
        ("*:5", "5"),
        ("fiber:5.0,transceiver:2,*:1", "fiber:5,transceiver:2,*:1"),
    ],
)
def test_the_boms_spares_percent_is_the_rule_in_the_grammar_its_schema_declares(alice, computed, given, answered):
    declared = COMPONENTS["RevisionBomOutput"]["properties"]["spares_percent"]
    body = alice.get(rev_url(computed, 1, "bom/"), {"spares_percent": given}).json()
    assert body["spares_percent"] == answered
    assert re.search(declared["pattern"], answered)
