"""Fiber counts: active, installed, dark, spare."""

from engine.physical import FiberCount, TrunkDemand, fiber_totals, link_fibers, plan_trunks, select_media
from tests.engine.physical.builders import CX7_OSFP_200, DGX_CAGE, QM9700_CAGE, policy, req


def test_a_direct_dr4_link_lights_all_8_fibers_of_its_cord(catalog):
    pol = policy()
    c = select_media(req(QM9700_CAGE, QM9700_CAGE, 80), pol, catalog)
    assert link_fibers(c, False) == FiberCount(active=8, installed=8, dark=0, spare=0)


def test_a_splitter_leg_carries_4_fibers(catalog):
    c = select_media(req(QM9700_CAGE, CX7_OSFP_200, 20, tier="node-leaf"), policy(), catalog)
    assert link_fibers(c, False) == FiberCount(4, 4, 0, 0)


def test_an_fr4_link_uses_a_fiber_pair(catalog):
    c = select_media(req(QM9700_CAGE, QM9700_CAGE, 900), policy(), catalog)
    assert link_fibers(c, False) == FiberCount(2, 2, 0, 0)


def test_totals_roll_up_per_network_tier_rack_and_total(catalog):
    pol = policy(leaf_spine={"cabling": "panels", "trunk_base": 12}, node_leaf={"cabling": "direct"})
    nl = select_media(req(DGX_CAGE, QM9700_CAGE, 20, tier="node-leaf"), pol, catalog)
    ls = select_media(req(QM9700_CAGE, QM9700_CAGE, 100), pol, catalog)
    plan = plan_trunks("leaf-spine", [TrunkDemand("L1", "S1", 5, 100, ls)], pol)
    totals = fiber_totals(
        [("compute", "node-leaf", "N1", "L1", link_fibers(nl, False), 32)],
        [("compute", t) for t in plan.trunks],
    )
    assert totals.total == FiberCount(active=32 * 8 + 5 * 8, installed=32 * 8 + 72, dark=5 * 4, spare=12)
    t = totals.total
    assert t.installed == t.active + t.dark + t.spare
    per_rack = dict(totals.per_rack)
    assert per_rack["L1"] == totals.total  # every path ends in the leaf rack
    assert dict(totals.per_tier)["leaf-spine"].installed == 72


def test_trunks_of_equal_figures_sum_as_trunk_by_trunk(catalog):
    """The trunks are counted per (key, four figures), the figures numbered by their first trunk: trunks of equal
    figures (other objects), of other figures, in two networks and tiers, and one within a rack (counted once at
    it) sum as a FiberCount per trunk would."""
    from dataclasses import replace

    from engine.physical import rollup, trunk_fibers

    pol = policy(leaf_spine={"cabling": "panels", "trunk_base": 12})
    ls = select_media(req(QM9700_CAGE, QM9700_CAGE, 100), pol, catalog)
    t = plan_trunks("leaf-spine", [TrunkDemand("L1", "S1", 5, 100, ls)], pol).trunks[0]
    dark = replace(t, active_fibers=t.active_fibers - 4, dark_fibers=t.dark_fibers + 4)
    trunks = [
        ("compute", t),
        ("compute", replace(t, rack_a="L2")),  # equal figures, another object
        ("storage", replace(dark, tier="spine-core")),
        ("compute", replace(dark, rack_b="L1")),  # within one rack
        ("storage", replace(t, rack_a="L2", rack_b="S2")),
    ]
    totals = fiber_totals([], trunks)
    assert dict(totals.per_network) == rollup((net, trunk_fibers(r), 1) for net, r in trunks)
    assert dict(totals.per_tier) == rollup((r.tier, trunk_fibers(r), 1) for _net, r in trunks)
    ends = [(r.rack_a, trunk_fibers(r), 1) for _net, r in trunks]
    ends += [(r.rack_b, trunk_fibers(r), 1) for _net, r in trunks if r.rack_b != r.rack_a]
    assert dict(totals.per_rack) == rollup(ends)
    assert dict(totals.per_rack)["L1"] == trunk_fibers(t) + trunk_fibers(dark) + trunk_fibers(dark)  # L1-L1 once
