"""The uplink diversity check and physical.trunk_diversity (engine/physical/diversity.py, structured.py).

GIVEN 12 DGX H100 (96 GPUs) in 2 SUs of 6, 2 spines in one spine rack, leaf-spine links through patch panels:
each leaf has 6 uplinks (3 to each spine), and the default trunk plan takes them leaf by leaf into 18-leg trunks
and 24-port panels, so one trunk carries every uplink of 3 leaves and one panel every uplink of 4.
"""

from __future__ import annotations

from collections import Counter

import pytest

from engine.blast_radius import blast_radius_of
from engine.catalog import load_catalog
from engine.errors import SpecError
from engine.physical.paths import physical_paths
from engine.physical.policy import MediaPolicy
from engine.pipeline import compute_design
from engine.presets import load_preset
from engine.spec import parse_spec


def _design(diversity: bool | None, **layout):
    spec = load_preset("dgx-h100-superpod-4su")
    spec["servers"]["count"] = 12
    spec["compute_fabric"] |= {"scalable_unit": 6, "reserved_node_slots": 0, "fabric_managers": 0}
    spec["storage_fabric"] = {"enabled": False}
    spec["inband"] = {"enabled": False}
    spec["oob"] = {"enabled": False}
    spec["layout"] = layout
    spec["physical"] = {"tiers": {"leaf-spine": {"cabling": "panels"}}}
    if diversity is not None:
        spec["physical"]["trunk_diversity"] = diversity
    return compute_design(parse_spec(spec), load_catalog())


@pytest.fixture(scope="module")
def default():
    return _design(None)


@pytest.fixture(scope="module")
def diverse():
    return _design(True)


def _uplink_warnings(result, what):
    return [w for w in result.warnings if f"every uplink in one {what}" in w]


def test_the_default_trunk_plan_warns_with_the_fix(default):
    (trunk,) = _uplink_warnings(default, "trunk")
    (panel,) = _uplink_warnings(default, "patch panel")
    # SU 1's 8 leaves (3 leaves x 6 uplinks fill an 18-leg trunk exactly) and 5 of SU 2's 8 (its uplinks are
    # planned as two runs of different lengths, so the trunks of 3 of its leaves break mid-leaf)
    assert trunk.startswith("13 leaves have every uplink in one trunk (e.g. CF-SU01-L01: trunk T")
    assert panel.startswith("16 leaves have every uplink in one patch panel")  # 24 ports = 4 leaves' uplinks
    assert "physical.trunk_diversity: true" in trunk and "physical.trunk_diversity: true" in panel
    assert default.spec.physical is not None and "trunk_diversity" not in default.spec.physical  # today's default


def test_the_option_spreads_every_leafs_uplinks_over_two_trunks_and_two_panels_at_each_end(diverse):
    assert _uplink_warnings(diverse, "trunk") == [] and _uplink_warnings(diverse, "patch panel") == []
    paths = physical_paths(diverse).links
    per_leaf: dict[int, list] = {}
    for lk in diverse.links:
        if lk.tier == "leaf-spine":
            per_leaf.setdefault(lk.a, []).append(paths[lk.id])
    assert len(per_leaf) == 16
    for through in per_leaf.values():
        assert len({p.trunk for p in through}) >= 2
        assert len({p.a_panel for p in through}) >= 2 and len({p.b_panel for p in through}) >= 2
    # a trunk or panel failure now isolates no GPU (it was 18 and 24): every leaf keeps the other half's uplinks
    kinds = {f.kind: f for f in blast_radius_of(diverse).failures}
    assert kinds["trunk"].gpus_isolated == 0 and kinds["patch-panel"].gpus_isolated == 0


def test_the_option_keeps_the_cable_counts_and_the_panel_ports(default, diverse):
    """Same links and cords (cord - trunk - cord per link); the panels ordered are the panels placed, no
    port takes two cords, and no panel holds more links than its ports."""
    assert diverse.links == default.links
    kinds = Counter(row[1] for row in diverse.physical.cable_rows)
    assert kinds["cord"] == Counter(row[1] for row in default.physical.cable_rows)["cord"]
    assert kinds["trunk"] == len(diverse.physical.trunks)
    assert {"one-cable-per-port", "panels-placed-as-ordered", "unique-labels"} <= set(diverse.checks)
    paths = physical_paths(diverse)
    for name, links in paths.panel_links().items():
        assert len(links) <= paths.panels[name].ports
    ordered = sum(p.panels for p in diverse.physical.panels)
    assert ordered == len(diverse.physical.panel_places)


def test_a_rack_holding_every_spine_is_warned_and_two_spine_racks_clear_it(default):
    (rack,) = [w for w in default.warnings if "spines in one rack" in w]
    assert "layout.network_rack_devices" in rack
    spread = _design(None, network_rack_devices=1)
    assert not [w for w in spread.warnings if "spines in one rack" in w]


def test_the_option_is_a_checked_boolean():
    assert MediaPolicy.from_dict({"trunk_diversity": True}).trunk_diversity is True
    with pytest.raises(SpecError, match=r"physical.trunk_diversity"):
        MediaPolicy.from_dict({"trunk_diversity": "sometimes"})


def test_in_a_three_tier_fabric_each_leaf_splits_its_own_pods_spines_and_each_spine_its_cores():
    """256 DGX H100 on 3 tiers (3 pods): a leaf reaches only its pod's spines, so the halves are taken per leaf
    (halves of all spines would put a whole pod in one half); every leaf's and spine's uplinks run in at least
    two trunks and on two panels at each end."""
    spec = load_preset("dgx-h100-superpod-4su")
    spec["servers"]["count"] = 256
    spec["compute_fabric"]["tiers"] = 3
    spec["storage_fabric"] = {"enabled": False}
    spec["inband"] = {"enabled": False}
    spec["oob"] = {"enabled": False}
    spec["physical"] = {
        "tiers": {"leaf-spine": {"cabling": "panels"}, "spine-core": {"cabling": "panels"}},
        "trunk_diversity": True,
    }
    result = compute_design(parse_spec(spec), load_catalog())
    assert result.summary["networks"]["compute"]["pods"] == 3
    paths = physical_paths(result).links
    per_switch: dict[tuple[str, int], list] = {}
    for lk in result.links:
        if lk.tier in ("leaf-spine", "spine-core"):
            per_switch.setdefault((lk.tier, lk.a), []).append(paths[lk.id])
    assert {tier for tier, _ in per_switch} == {"leaf-spine", "spine-core"}
    for through in per_switch.values():
        assert len({p.trunk for p in through}) >= 2
        assert len({p.a_panel for p in through}) >= 2 and len({p.b_panel for p in through}) >= 2


def test_the_paths_of_some_links_are_those_of_every_link_kept_for_them(default):
    every = physical_paths(default)
    leaf_spine = {lk.id for lk in default.links if lk.tier == "leaf-spine"}
    some = {lid for lid in leaf_spine if lid % 3 == 0} | {lk.id for lk in default.links if lk.tier == "node-leaf"}
    assert every.links and set(every.links) == leaf_spine  # every leaf-spine link, and only they, runs on a trunk
    chosen = physical_paths(default, some)
    assert list(chosen.links.items()) == [(lid, p) for lid, p in every.links.items() if lid in some]
    assert chosen.trunk_links == every.trunk_links
    assert list(chosen.panels) == list(every.panels) and set(every.panels) >= {p.a_panel for p in every.links.values()}
    assert physical_paths(default, set()).links == {}
