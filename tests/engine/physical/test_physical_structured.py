"""Trunks, panels and ports for panel-mode tiers."""

import pytest

from engine.physical import TrunkDemand, plan_panels, plan_trunks, select_media
from engine.physical.structured import trunk_sizes
from tests.engine.physical.builders import CX7_OSFP_200, QM9700_CAGE, policy, req


def choice_for(catalog, pol, run=100, b=QM9700_CAGE):
    return select_media(req(QM9700_CAGE, b, run), pol, catalog)


def test_base8_and_base12_trunk_sizes():
    assert trunk_sizes(12, 144) == (12, 24, 48, 72, 96, 144)
    assert trunk_sizes(8, 48) == (8, 16, 24, 32, 40, 48)
    assert trunk_sizes(16, 64) == (16, 32, 48, 64)


def test_base8_trunks_fill_dr4_links_with_no_dark_fibers(catalog):
    """
    rack R01 |panel|=144F=|panel| rack R10   18 links per 144-fiber Base-8 trunk
    """
    pol = policy(leaf_spine={"cabling": "panels", "trunk_base": 8})
    plan = plan_trunks("leaf-spine", [TrunkDemand("R01", "R10", 20, 62.3, choice_for(catalog, pol))], pol)
    assert [t.fibers for t in plan.trunks] == [144, 16]
    assert [t.links for t in plan.trunks] == [18, 2]
    assert all(t.dark_fibers == 0 and t.spare_fibers == 0 for t in plan.trunks)
    assert plan.trunks[0].length_m == 63 and plan.trunks[0].sku.endswith("-MM-144F-63M")
    slot = plan.slots[0][18]
    assert (slot.trunk_id, slot.leg, slot.fiber_first, slot.fiber_last) == ("T-leaf-spine-R01-R10-2", 1, 1, 8)


def test_base12_legs_leave_four_dark_fibers_per_dr4_link(catalog):
    pol = policy(leaf_spine={"cabling": "panels", "trunk_base": 12})
    plan = plan_trunks("leaf-spine", [TrunkDemand("R01", "R10", 4, 40, choice_for(catalog, pol))], pol)
    (t,) = plan.trunks
    assert (t.fibers, t.active_fibers, t.dark_fibers, t.spare_fibers) == (48, 32, 16, 0)


def test_spare_capacity_is_user_set(catalog):
    pol = policy(leaf_spine={"cabling": "panels"})
    pol = type(pol).from_dict({**pol.to_dict(), "trunk_spare_fraction": 0.5})
    plan = plan_trunks("leaf-spine", [TrunkDemand("R01", "R10", 4, 40, choice_for(catalog, pol))], pol)
    (t,) = plan.trunks
    assert (t.fibers, t.links, t.link_capacity, t.spare_fibers) == (48, 4, 6, 16)


def test_ports_are_assigned_per_rack_and_panels_counted(catalog):
    pol = policy(leaf_spine={"cabling": "panels"})
    ch = choice_for(catalog, pol)
    plan = plan_trunks("leaf-spine", [TrunkDemand("L1", "S1", 30, 50, ch), TrunkDemand("L2", "S1", 30, 50, ch)], pol)
    s1_ports = [(s.panel_b, s.port_b) for slots in plan.slots for s in slots]
    assert len(set(s1_ports)) == 60  # no port used twice in the spine rack
    assert s1_ports[0] == (0, 1) and s1_ports[30] == (1, 7)
    panels = {(r.rack, r.panel_kind): r for r in plan_panels(plan)}
    assert panels[("S1", "mpo")].panels == 3 and panels[("S1", "mpo")].rack_units == 3
    assert panels[("S1", "mpo")].inserts == (("GEN-ADP-MPO12-A", 60),)
    assert panels[("L1", "mpo")].panels == 2


def test_splitter_pairs_share_one_trunk_leg(catalog):
    pol = policy(leaf_spine={"cabling": "panels"})
    ch = choice_for(catalog, pol, run=20, b=CX7_OSFP_200)
    plan = plan_trunks("leaf-spine", [TrunkDemand("L1", "R1", 4, 20, ch)], pol)
    legs = [(s.leg, s.sub) for s in plan.slots[0]]
    assert legs == [(1, 1), (1, 2), (2, 1), (2, 2)]
    assert plan.trunks[0].fibers == 16 and plan.trunks[0].active_fibers == 16


def test_duplex_links_take_mirrored_cassette_ports(catalog):
    pol = policy(leaf_spine={"cabling": "panels", "trunk_base": 12})
    ch = choice_for(catalog, pol, run=900)
    assert ch.structured.cassette is not None
    plan = plan_trunks("leaf-spine", [TrunkDemand("R1", "R2", 7, 900, ch)], pol)
    ports = [(s.port_a, s.port_b) for s in plan.slots[0]]
    assert ports[:6] == [(1, 6), (2, 5), (3, 4), (4, 3), (5, 2), (6, 1)]
    assert ports[6] == (7, 12)
    assert plan.trunks[0].sku.split("-")[-2] == "24F" and "-FF-" in plan.trunks[0].sku
    (r1,) = [r for r in plan_panels(plan) if r.rack == "R1"]
    assert r1.inserts == (("GEN-CAS-MPO12-6LC-SM-U1", 2),) and r1.panels == 1


def test_trunk_planning_places_every_link_of_a_big_tier(catalog):
    """100,000 links into trunks, each in one slot (its speed is bench material, not a test's)."""
    pol = policy(leaf_spine={"cabling": "panels"})
    ch = choice_for(catalog, pol)
    demands = [TrunkDemand(f"L{i}", f"S{i % 16}", 400, 60, ch) for i in range(250)]  # 100k links
    plan = plan_trunks("leaf-spine", demands, pol)
    assert sum(len(s) for s in plan.slots) == 100_000


def test_small_demands_run_on_through_a_racks_panels(catalog):
    """Demands of one trunk each (one MPO link a leg) take the positions after the rack's last, across panels of
    24; a demand of no links gets no slot and no trunk, and the usage counts every demand's legs."""
    pol = policy(leaf_spine={"cabling": "panels"})
    ch = choice_for(catalog, pol)
    demands = [TrunkDemand(f"L{i}", "S1", 10, 50 + i, ch) for i in range(3)]
    plan = plan_trunks("leaf-spine", [*demands[:2], TrunkDemand("L9", "S1", 0, 50, ch), demands[2]], pol)
    assert [len(s) for s in plan.slots] == [10, 10, 0, 10]
    s1 = [(s.panel_b, s.port_b) for slots in plan.slots for s in slots]
    assert s1 == [(p // 24, p % 24 + 1) for p in range(30)]
    assert [(s.leg, s.fiber_first, s.fiber_last, s.panel_a, s.port_a) for s in plan.slots[1][:2]] == [
        (1, 1, 8, 0, 1),
        (2, 9, 16, 0, 2),
    ]
    assert [t.id for t in plan.trunks] == ["T-leaf-spine-L0-S1-1", "T-leaf-spine-L1-S1-1", "T-leaf-spine-L2-S1-1"]
    assert [(t.fibers, t.links, t.length_m) for t in plan.trunks] == [(80, 10, 50), (80, 10, 51), (80, 10, 52)]
    (s1_use,) = [u for u in plan.usage if u.rack == "S1"]
    assert (s1_use.positions, s1_use.skipped) == (30, 0)


@pytest.mark.parametrize("n", [1, 23, 24, 25, 40, 47])
def test_the_slots_of_several_trunks_one_link_a_leg_are_those_the_general_walk_gives(n):
    """plan_trunks gives a demand of several trunks with one MPO link a leg its slots trunk by trunk through
    _leg_slots (_one_a_leg_slots), not through _link_slots' walk of every leg: the same slots, whether the links
    end inside a trunk, fill it, run on to the next across a panel's last position, or leave a trunk empty."""
    from engine.physical.structured import _link_slots, _one_a_leg_slots

    t_meta = [("T-1", 96, 12, 20, 7), ("T-2", 96, 12, 32, 19), ("T-3", 192, 24, 44, 31)]
    assert _one_a_leg_slots(n, t_meta, 24, 8) == _link_slots(n, t_meta, 1, 8, 24, 1)
    assert len(_one_a_leg_slots(n, t_meta, 24, 8)) == n


def test_a_demand_of_one_trunk_one_mpo_link_a_leg_keeps_its_slots_as_a_leg_run(catalog):
    """plan_trunks keeps the slots of a demand that fills one trunk, one MPO link a leg (nearly every spine-core
    demand between halls at 512K GPUs), as a LegRun: its link count, trunk and first positions at both ends, not a
    LinkSlot a link. TrunkPlan.slots gives the LinkSlots of the general walk (_link_slots) all the same, across a
    panel's last position too; a demand of several trunks keeps a LegRun per trunk (LegRuns), which stand for the
    LinkSlots of the general walk as well."""
    from engine.physical import LegRun, LegRuns
    from engine.physical.structured import _link_slots

    pol = policy(leaf_spine={"cabling": "panels"})
    ch = choice_for(catalog, pol)
    demands = [TrunkDemand(f"L{i}", "S1", 10, 50, ch) for i in range(3)] + [TrunkDemand("L9", "S1", 20, 50, ch)]
    plan = plan_trunks("leaf-spine", demands, pol)
    assert [type(s) for s in plan.slot_runs] == [LegRun, LegRun, LegRun, LegRuns]
    assert plan.slot_runs[2] == LegRun(10, "T-leaf-spine-L2-S1-1", 0, 20, 24, 8)
    t_meta = [("T-leaf-spine-L2-S1-1", 80, 10, 0, 20)]
    assert plan.slots[2] == _link_slots(10, t_meta, 1, 8, 24, 1)
    assert [s.port_b for s in plan.slots[2]] == [21, 22, 23, 24, 1, 2, 3, 4, 5, 6]
    runs = plan.slot_runs[3]
    assert [run.trunk_id for run in runs] == ["T-leaf-spine-L9-S1-1", "T-leaf-spine-L9-S1-2"]
    assert sum(run.links for run in runs) == 20 == len(plan.slots[3])
    t_meta = [(t.id, t.fibers, t.legs, run.pos_a, run.pos_b) for t, run in zip(plan.trunks[3:], runs, strict=True)]
    assert plan.slots[3] == _link_slots(20, t_meta, 1, 8, 24, 1)
    assert len({s.trunk_id for s in plan.slots[3]}) == 2


def test_a_trunk_run_made_without_its_init_is_the_dataclass_of_the_same_fields():
    """plan_trunks makes each TrunkRun by setting its slots one by one (_trunk_run), not through the frozen
    dataclass __init__: every field lands in its own slot, in TrunkRun's field order."""
    from dataclasses import astuple, fields

    from engine.physical import TrunkRun
    from engine.physical.structured import _trunk_run

    values = [f"{f.name}-value" for f in fields(TrunkRun)]
    made = _trunk_run(*values)
    assert type(made) is TrunkRun and made == TrunkRun(*values) and astuple(made) == tuple(values)
