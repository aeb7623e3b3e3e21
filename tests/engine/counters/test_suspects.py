"""Flagged links grouped by what they share, physical first (engine/counters/suspects.py).

leaf-1 ─ PP-B09-U47 ══ T1 ══ PP-A01-U47 ─ spine-1     L1, L2 (T1) and L3 (T2) all run through PP-B09-U47;
                   ══ T2 ══                            L9 elsewhere shares only the transceiver part.
"""

from __future__ import annotations

from engine.counters import CHECKLIST, LinkFacts, load_thresholds, suspects
from engine.physical.paths import physical_paths

T = load_thresholds()
PART = "MMA4Z00-NS"


def facts(i, trunk, panel, rack="DC1.B09"):
    return LinkFacts(i, trunks=(trunk,), panels=(panel, "PP-A01-U47"), parts=(PART,), racks=(rack, "DC1.A01"))


FACTS = {
    1: facts(1, "T1", "PP-B09-U47"),
    2: facts(2, "T1", "PP-B09-U47"),
    3: facts(3, "T2", "PP-B09-U47"),
    9: LinkFacts(9, parts=(PART,), racks=("DC1.C01",)),
}
POPULATION = {
    ("trunk", "T1"): 18,
    ("trunk", "T2"): 18,
    ("panel", "PP-B09-U47"): 36,
    ("panel", "PP-A01-U47"): 36,
    ("part", PART): 2000,
    ("rack", "DC1.B09"): 300,
    ("rack", "DC1.A01"): 600,
}


def test_the_shared_panel_comes_first_and_its_action_is_the_checklist():
    flagged = {1: ("rising-symbol-errors",), 2: ("rising-symbol-errors",), 3: ("link-down",), 9: ("link-down",)}
    groups, ungrouped = suspects(flagged, FACTS, POPULATION, T)
    top = groups[0]
    assert (top.kind, top.keys, top.links) == ("panel", ("PP-A01-U47", "PP-B09-U47"), (1, 2, 3))
    assert top.flags == {"rising-symbol-errors": 2, "link-down": 1} and top.population == 36
    assert top.action[1:] == CHECKLIST and "PP-B09-U47" in top.action[0]
    assert [(g.kind, g.links) for g in groups[1:3]] == [("trunk", (1, 2)), ("rack", (1, 2, 3))]
    part = next(g for g in groups if g.kind == "part")
    assert part.links == (1, 2, 3, 9) and part.score < top.score  # 4 of 2,000 is weaker than 3 of 36
    assert ungrouped == []


def test_a_link_sharing_nothing_is_left_on_its_own():
    groups, ungrouped = suspects({1: ("link-down",), 9: ("link-down",)}, FACTS, POPULATION, T)
    assert [g.kind for g in groups] == ["part"]
    groups, ungrouped = suspects(
        {1: ("link-down",), 9: ("link-down",)}, FACTS, POPULATION, T.with_overrides({"min_group_links": 3})
    )
    assert groups == [] and ungrouped == [1, 9]


def test_high_measured_loss_is_a_component_too():
    lossy = {i: LinkFacts(i, margin_db=0.2) for i in (4, 5)}
    groups, _ = suspects({4: ("rising-symbol-errors",), 5: ("rising-symbol-errors",)}, lossy, {}, T)
    assert [(g.kind, g.links) for g in groups] == [("loss", (4, 5))]


def test_links_on_one_panel_whose_trunks_are_split_over_two_panels_name_that_panel_with_its_ports():
    """GIVEN a 1-SU DGX H100 whose 256 leaf-spine links run leaf rack B09 -> spine rack A01 through 24-port MPO
    panels and 18-leg trunks. Trunks fill the panels in order, so they straddle panel boundaries:

        PP-B09-U48  ports  1-18: trunk 1 (legs 1-18)      ports 19-24: trunk 2 (legs 1-6)
        PP-B09-U47  ports  1-12: trunk 2 (legs 7-18)      ports 13-24: trunk 3 (legs 1-12)

    Trunk 2's row records its first leg's panels (U48); trunk 3's records U47.
    WHEN trunk 2's legs 7-8 and trunk 3's legs 1-2 flag (four links whose cords all land on U47 at both ends)
    THEN the first suspect is exactly the panel pair PP-A01-U47 / PP-B09-U47, with its 24 links and 24 front
    ports (by hand: 24 ports, one link each), its ports 1, 2, 13, 14 named; not U48 (a recorded trunk end),
    and not a half-group per trunk. The rack, holding the same four links, ranks after the panel.
    """
    paths = physical_paths(_one_su_through_panels())
    by_trunk: dict[int, list] = {}
    for p in sorted(paths.links.values(), key=lambda p: p.link_id):
        by_trunk.setdefault(p.trunk, []).append(p)
    _t1, t2, t3 = sorted(by_trunk)[:3]
    assert [p.a_panel for p in by_trunk[t2]] == ["PP-B09-U48"] * 6 + ["PP-B09-U47"] * 12  # the straddling trunk
    chosen = by_trunk[t2][6:8] + by_trunk[t3][:2]
    flagged = {p.link_id: ("rising-symbol-errors",) for p in chosen}
    facts = {
        p.link_id: LinkFacts(
            p.link_id,
            trunks=(f"C{p.trunk:06d}",),
            panels=(p.a_panel, p.b_panel),
            parts=(PART,),
            racks=("DC1.B09", "DC1.A01"),
            panel_ports=((p.a_panel, p.a_port), (p.b_panel, p.b_port)),
        )
        for p in chosen
    }
    population = {("panel", k): len(v) for k, v in paths.panel_links().items()}
    population |= {("trunk", f"C{k:06d}"): len(v) for k, v in paths.trunk_links.items()}
    population |= {("part", PART): 512, ("rack", "DC1.B09"): 512, ("rack", "DC1.A01"): 256}
    ports = {k: p.ports for k, p in paths.panels.items()}
    groups, ungrouped = suspects(flagged, facts, population, T, ports)
    top = groups[0]
    assert (top.kind, top.keys, top.population, top.ports) == ("panel", ("PP-A01-U47", "PP-B09-U47"), 24, 24)
    assert top.links == tuple(sorted(flagged)) and ungrouped == []
    assert dict(top.front_ports) == {"PP-A01-U47": ("1", "2", "13", "14"), "PP-B09-U47": ("1", "2", "13", "14")}
    assert "front ports 1, 2, 13, 14 of its 24" in top.action[0]
    assert not [g for g in groups if g.kind == "panel" and "PP-B09-U48" in g.keys]
    assert all(g.population <= (g.ports or 0) for g in groups if g.kind == "panel")
    kinds = [g.kind for g in groups]
    assert kinds.index("panel") < kinds.index("rack") < kinds.index("part")


def _one_su_through_panels():
    from engine.catalog import load_catalog
    from engine.pipeline import compute_design
    from engine.presets import load_preset
    from engine.spec import parse_spec

    spec = load_preset("dgx-h100-superpod-4su")
    spec["servers"]["count"] = 31
    spec["storage_fabric"] = {"enabled": False}
    spec["inband"] = {"enabled": False}
    spec["oob"] = {"enabled": False}
    spec["physical"] = {"tiers": {"leaf-spine": {"cabling": "panels"}}}
    return compute_design(parse_spec(spec), load_catalog())
