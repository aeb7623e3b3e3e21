"""Racks within their power, network racks split instead of crowded, and counts that say what they count.

The H100 preset (127 DGX H100, storage and in-band fabrics, OOB) used to stand 16 compute spines, 18 storage
switches and 6 in-band leaves in one rack (about 58 kW for the QM9700s alone, catalog 1.72 kW each). The network
racks' budget defaults to one reference server rack: 4 DGX H100 x 10.2 kW = 40.8 kW (the H100 RA's example SU rack
draws > 40 kW, fabrics-qos-traffic.md A.2), so at most 23 QM9700s (39.56 kW) share a rack.
"""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest

from engine.catalog import load_catalog
from engine.errors import SpecError
from engine.pipeline import compute_design
from engine.presets import load_preset
from engine.spec import parse_spec
from tests.engine.conftest import build, deep_merge


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


@pytest.fixture(scope="module")
def h100(catalog):
    return compute_design(parse_spec(load_preset("dgx-h100-superpod-4su")), catalog)


def rack_load(result) -> dict[str, tuple[float, Counter]]:
    kw: dict = defaultdict(float)
    models: dict = defaultdict(Counter)
    for d, p in zip(result.devices, result.places):
        if p is None:
            continue
        rack = result.racks[p.rack].id
        kw[rack] += d.power_kw or 0
        if d.role not in ("oob", "pdu"):
            models[rack][d.model] += 1
    return {r: (round(kw[r], 2), models[r]) for r in kw}


def test_the_h100_presets_crowded_rack_is_split_within_its_budget(h100):
    power = h100.summary["rack_power"]
    assert power["budget_kw"] == {"server": None, "network": 40.8}
    assert power["network_budget_from"] == "one reference dgx-h100 rack: 4 x 10.2 kW"
    loads = rack_load(h100)
    network = {r: v for r, v in loads.items() if v[1]["qm9700"] or v[1]["sn4600c"]}
    assert max(kw for kw, _ in network.values()) <= 40.8
    assert max(m["qm9700"] for _, m in network.values()) == 23  # 23 x 1.72 = 39.56 kW; a 24th would exceed
    assert power["max_kw"]["network"] == 39.56 and power["over_budget"] == []
    assert not [w for w in h100.warnings if "budget" in w]


def test_a_rack_above_its_budget_warns_by_name():
    """servers_per_rack 4 overrides a 30 kW budget: every 4-DGX rack draws 40.8 kW and says so."""
    r = build(servers={"count": 32}, layout={"servers_per_rack": 4, "rack_power_kw": 30})
    over = r.summary["rack_power"]["over_budget"]
    assert len(over) == 8 and {o["kw"] for o in over} == {40.8}
    assert "rack DC1.B01 (server) draws 40.8 kW, above its 30 kW budget" in r.warnings


def test_many_racks_above_budget_warn_once_each_up_to_twenty():
    r = build(servers={"count": 128}, layout={"servers_per_rack": 4, "rack_power_kw": 30})
    per_rack = [w for w in r.warnings if w.startswith("rack DC1.")]
    assert len(per_rack) == 20
    assert "12 more rack(s) draw more than their budget (summary: rack_power.over_budget)" in r.warnings
    assert len(r.summary["rack_power"]["over_budget"]) == 32


def test_network_racks_hold_at_most_the_devices_asked_for(catalog):
    data = deep_merge(load_preset("dgx-h100-superpod-4su"), {"layout": {"network_rack_devices": 8}})
    r = compute_design(parse_spec(data), catalog)
    counts = [sum(m.values()) for kw, m in rack_load(r).values() if not m["dgx-h100"]]
    assert max(counts) == 8


def test_a_network_budget_of_its_own_overrides_the_default(catalog):
    data = deep_merge(load_preset("dgx-h100-superpod-4su"), {"layout": {"network_rack_power_kw": 20}})
    r = compute_design(parse_spec(data), catalog)
    assert r.summary["rack_power"]["budget_kw"]["network"] == 20
    assert max(m["qm9700"] for _, m in rack_load(r).values()) == 11  # 11 x 1.72 = 18.92 kW


# --- panels that need more room spread the network racks ----------------------------------------------------

ALL_PANELS = {"physical": {"default_tier": {"cabling": "panels"}}}


def test_panels_that_do_not_fit_above_their_switches_spread_the_network_racks(catalog):
    data = deep_merge(load_preset("dgx-h100-superpod-4su"), ALL_PANELS)
    r = compute_design(parse_spec(data), catalog)
    (note,) = [n for n in r.summary["notes"] if n.startswith("network racks hold at most")]
    cap = int(note.split()[5])
    assert r.spec.layout.network_rack_devices is None  # the spec stays as written
    assert max(sum(m.values()) for kw, m in rack_load(r).values() if not m["dgx-h100"]) <= cap
    assert "panels-placed-as-ordered" in r.checks


def test_a_device_cap_the_user_set_too_high_for_the_panels_is_a_spec_error(catalog):
    data = deep_merge(load_preset("dgx-h100-superpod-4su"), {**ALL_PANELS, "layout": {"network_rack_devices": 40}})
    with pytest.raises(
        SpecError,
        match=r"^layout\.network_rack_devices: DC1\.A\d+ needs \d+ rack units of patch "
        r"panels and has \d+ free above its devices",
    ):
        compute_design(parse_spec(data), catalog)


# --- counting conventions -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def b300(catalog):
    return compute_design(parse_spec(load_preset("dgx-b300-spectrum-x-4su")), catalog)


def test_the_b300_summary_shows_links_per_plane_cables_and_the_references_count(b300):
    """B300 Spectrum-X RA Table 3 (parts-beyond-ndr.md section 6): 4 SU, 256 nodes, 2,048 node-leaf and 2,048
    leaf-spine cables, one per 800G port. Each ConnectX-8 port is 2 x 400G, one per plane: 4,096 links,
    2,048 per plane, 4,096 MPO cords (twin-port 2 x DR4), 256 x 8 = 2,048 node cages."""
    node_leaf = b300.summary["counting"]["networks"]["compute"]["tiers"]["node-leaf"]
    assert node_leaf == {"links": 4096, "links_per_plane": 2048, "cables": 4096, "lower_end_cages": 2048}
    leaf_spine = b300.summary["counting"]["networks"]["compute"]["tiers"]["leaf-spine"]
    assert leaf_spine["lower_end_cages"] == 2048  # 64 leaves x 32 uplink cages of 2 x 400G
    (ref,) = b300.summary["counting"]["references"]
    assert ref["name"].startswith("NVIDIA DGX SuperPOD B300 (Spectrum-4")
    assert ref["published"] == {"node-leaf": 2048, "leaf-spine": 2048} and ref["agrees"]
    (note,) = [n for n in b300.summary["notes"] if n.startswith("NVIDIA DGX SuperPOD B300")]
    assert "2,048 node-leaf and 2,048 leaf-spine cables for 256 nodes, one per port cage (800G port)" in note
    assert "node-leaf: 4,096 links (2,048 per plane), 4,096 cables, 2,048 lower-end cages" in note


def test_the_cable_counts_by_tier_are_the_cable_rows_by_tier(catalog):
    """The counting section takes its cables per tier from the BOM's pass over the cable rows (roll_up), or from
    the rows themselves when that has not run: both say what the rows say."""
    from dataclasses import replace

    from engine.counting import counting_section
    from engine.pipeline import finish_design, start_design

    draft = start_design(parse_spec(load_preset("dgx-b300-spectrum-x-4su")), catalog)
    result = finish_design(draft)
    ph = result.physical
    assert ph.cable_kinds == Counter((row[8], row[7], row[1]) for row in ph.cable_rows)
    unrolled = replace(ph, cable_kinds={})
    section, _notes = counting_section(
        spec=draft.spec, plan=draft.plan, server=draft.server, networks=result.summary["networks"], physical=unrolled
    )
    assert section == result.summary["counting"]


def test_the_preset_is_named_as_its_reference_names_it(b300):
    assert b300.spec.name == "DGX SuperPOD B300 (Spectrum-4, DC busbar) 4 SU"


def test_the_h100_preset_matches_its_reference_link_for_link(h100):
    (ref,) = h100.summary["counting"]["references"]
    assert ref["counts"] == "links" and ref["this_design"] == {"node-leaf": 1016, "leaf-spine": 1024} and ref["agrees"]


def test_a_design_of_no_published_shape_is_compared_with_nothing():
    r = build(servers={"count": 100})
    assert r.summary["counting"]["references"] == []
    assert "cables" not in r.summary["counting"]["networks"]["compute"]["tiers"]["node-leaf"]  # no media catalog
