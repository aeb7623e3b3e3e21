"""summary.json's JSON Schema (engine/summary_schema.py) describes the summaries the engine writes.

GIVEN designs of every shape the summary has (with and without the physical layer, storage, in-band and OOB
      networks, 3 tiers, workloads)
WHEN the engine computes them
THEN each summary validates against the schema, the schema's closed sets are the engine's, and every property,
     nested ones included, says what it is.
"""

from __future__ import annotations

import jsonschema
import pytest

from engine.catalog import load_catalog
from engine.model import ALL_TIERS, NETWORKS, TIERS
from engine.pipeline import compute_design
from engine.presets import load_preset
from engine.spec import parse_spec
from engine.summary_schema import NETWORK_HELP, TIER_HELP, summary_json_schema
from tests.engine.conftest import build

VALIDATOR = jsonschema.Draft202012Validator(summary_json_schema(), format_checker=jsonschema.FormatChecker())


def _problems(summary: dict) -> list[str]:
    return [f"{'.'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in VALIDATOR.iter_errors(summary)]


def test_it_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(summary_json_schema())


@pytest.mark.parametrize("preset", ["hgx-roce-2su", "dgx-b200-superpod-4su"])
def test_a_preset_with_the_physical_layer_has_a_summary_the_schema_accepts(preset):
    summary = compute_design(parse_spec(load_preset(preset)), load_catalog()).summary
    assert "bom" in summary and "completeness" in summary  # the physical sections are checked too
    assert _problems(summary) == []


def test_a_three_tier_fabric_without_media_has_a_summary_the_schema_accepts():
    summary = build(servers={"count": 1024}, compute_fabric={"tiers": 3}).summary
    assert summary["networks"]["compute"]["tiers"] == 3 and "bom" not in summary
    assert _problems(summary) == []


def test_a_design_with_workloads_has_a_summary_the_schema_accepts():
    summary = build(workloads=["llama-70b-dp512"]).summary
    assert list(summary["workloads"]) == ["llama-70b-dp512"]
    assert _problems(summary) == []
    assert _problems({**summary, "workloads": {"llama-70b-dp512": "fits"}})


def test_the_schema_refuses_a_summary_with_a_wrong_type_or_an_unknown_category():
    summary = build().summary
    assert _problems({**summary, "gpus": "1024"}) == ["gpus: '1024' is not of type 'integer'"]
    line = {"sku": "X1", "description": "x", "category": "gadget", "quantity": 1, "watts": None, "unconfirmed": ""}
    assert [p.split(":")[0] for p in _problems({**summary, "bom": [line]})] == ["bom.0.category"]


def test_its_tiers_and_networks_are_the_engines():
    assert set(ALL_TIERS) == {t for tiers in TIERS.values() for t in tiers}
    networks = summary_json_schema()["properties"]["networks"]["properties"]
    assert tuple(networks) == NETWORKS


def test_every_tier_and_network_has_a_meaning_and_every_meaning_is_the_engines():
    assert set(TIER_HELP) == set(ALL_TIERS)
    assert set(NETWORK_HELP) == set(NETWORKS)


def _undescribed(node, where: str):
    if isinstance(node, dict):
        for name, prop in (node.get("properties") or {}).items():
            if not prop.get("description"):
                yield f"{where}.{name}"
        for key, value in node.items():
            if isinstance(value, (dict, list)):
                yield from _undescribed(value, where if key == "properties" else f"{where}/{key}")
    elif isinstance(node, list):
        for value in node:
            yield from _undescribed(value, where)


def test_every_property_nested_ones_included_is_described():
    assert list(_undescribed(summary_json_schema(), "summary")) == []
