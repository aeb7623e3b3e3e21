"""Switches and appliances are ordered by part number, never by model name (issue 38).

Specification:
- every switch and appliance line of every preset names an orderable part number, or says in its part number
  that none is published and is marked "verify before ordering" with the reason; a model name (catalog key or
  product name) is never the part number;
- the line names the variant ordered: its airflow (procurement.airflow, P2C by default), and the catalog's words
  for what else the OPN fixes (management, PSUs);
- choosing C2P orders the C2P OPN where one is published;
- a rail kit sold separately is one line per switch (unless procurement.rail_kits is off); a kit in the
  system's package (SN4600C) is named on the switch line and never ordered again;
- a switch line carries the published maximum power, or none at all (never 0 W).
"""

from __future__ import annotations

import pytest

from engine.catalog import load_catalog
from engine.pipeline import compute_design
from engine.presets import list_presets, load_preset
from engine.spec import parse_spec


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


@pytest.fixture(scope="module")
def presets(catalog):
    return {key: compute_design(parse_spec(load_preset(key)), catalog) for key in list_presets()}


def _model_names(catalog) -> set[str]:
    names = set()
    for key, sw in catalog.switches.items():
        names |= {key.upper(), sw.name.upper(), sw.name.split()[-1].upper()}
    for key, ap in catalog.appliances.items():
        names |= {key.upper(), ap.name.upper()}
    return names


def _switch_lines(result):
    return [ln for ln in result.summary["bom"] if ln["category"] in ("switch", "appliance")]


def test_no_switch_or_appliance_line_of_any_preset_uses_a_model_name_as_its_part_number(presets, catalog):
    names = _model_names(catalog)
    for key, result in presets.items():
        lines = _switch_lines(result)
        assert lines, key
        for line in lines:
            assert line["sku"].upper() not in names, (key, line["sku"])
            if line["sku"].endswith("OPN-UNPUBLISHED"):
                assert "no published orderable part number" in line["unconfirmed"], (key, line)
                assert "ask the vendor" in line["description"], (key, line)


def test_every_switch_line_names_its_airflow_variant(presets):
    for key, result in presets.items():
        for line in result.summary["bom"]:
            if line["category"] == "switch" and not line["description"].startswith("Rail kit"):
                assert "P2C" in line["description"], (key, line)


def test_the_superpod_switches_carry_the_reference_architectures_opns(presets):
    skus = {ln["sku"]: ln for ln in presets["dgx-h100-superpod-4su"].summary["bom"]}
    # MQM9700-NS2F: H100-RA (fabrics-qos-traffic.md A.8); 920-9N... from BasePOD RA Table 4.2 [S25]
    assert skus["MQM9700-NS2F"]["quantity"] == 66 and skus["MQM9700-NS2F"]["unconfirmed"] == ""
    assert "920-9B210-00FN-0M0" in skus["MQM9700-NS2F"]["description"]
    assert skus["920-9N302-00F7-0C2"]["quantity"] == 19  # SN4600C, P2C
    assert skus["920-9N110-00F1-0C0"]["quantity"] == 40  # SN2201, P2C
    # the SN4600C's fixed rail kit ships in its package (SN4000 manual, Package Contents): named, not ordered
    assert "rail kit 930-9NRKT-00JN-000 in the package" in skus["920-9N302-00F7-0C2"]["description"]
    assert "930-9NRKT-00JN-000" not in skus
    assert "QM9700" not in skus and "UFM" not in skus


def test_c2p_orders_the_c2p_variant_and_marks_secondary_opns(catalog):
    spec = load_preset("dgx-h100-superpod-4su") | {"procurement": {"airflow": "c2p", "rail_kits": False}}
    bom = {ln["sku"]: ln for ln in compute_design(parse_spec(spec), catalog).summary["bom"]}
    assert bom["MQM9700-NS2R"]["quantity"] == 66
    assert "C2P" in bom["MQM9700-NS2R"]["description"] and bom["MQM9700-NS2R"]["unconfirmed"]
    assert bom["SN4600C-C2P-OPN-UNPUBLISHED"]["quantity"] == 19  # no C2P OPN published for the SN4600C
    assert "MQM9700-NS2F" not in bom


LAB_KIT = {"opn": "LAB-RAIL-KIT", "description": "telescopic rail kit (lab)", "sources": ["test"]}


@pytest.mark.parametrize("rail_kits, lines", [(True, 66), (False, 0)])
def test_a_rail_kit_sold_separately_is_one_line_per_switch(rail_kits, lines):
    import yaml

    from engine.catalog import DATA_DIR

    raw = yaml.safe_load((DATA_DIR / "switches.yaml").read_text())["switches"]["qm9700"] | {"rail_kit": LAB_KIT}
    catalog = load_catalog({"switches": {"qm9700": raw}})
    spec = load_preset("dgx-h100-superpod-4su") | {"procurement": {"rail_kits": rail_kits}}
    bom = {ln["sku"]: ln for ln in compute_design(parse_spec(spec), catalog).summary["bom"]}
    assert bom.get("LAB-RAIL-KIT", {}).get("quantity", 0) == lines
    if lines:
        assert bom["LAB-RAIL-KIT"]["category"] == "switch" and bom["LAB-RAIL-KIT"]["watts"] is None


def test_the_default_airflow_keeps_the_spec_text_and_hash_unchanged():
    base = load_preset("dgx-h100-superpod-4su")
    assert parse_spec(base).normalized == parse_spec(base | {"procurement": {"airflow": "p2c"}}).normalized
    assert parse_spec(base).normalized != parse_spec(base | {"procurement": {"airflow": "c2p"}}).normalized
    assert "procurement" not in parse_spec(base).to_dict()


def test_switch_power_is_the_published_maximum_or_absent_never_zero(presets):
    for key, result in presets.items():
        for line in _switch_lines(result):
            assert line["watts"] is None or line["watts"] > 0, (key, line)
    skus = {ln["sku"]: ln for ln in presets["dgx-h100-superpod-4su"].summary["bom"]}
    assert skus["MQM9700-NS2F"]["watts"] == 66 * 1720  # QM9700: 1.72 kW max with active cables
    assert skus["920-9N302-00F7-0C2"]["watts"] is None  # SN4600C: only a typical figure is published
