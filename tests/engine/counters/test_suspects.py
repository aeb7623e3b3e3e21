"""Flagged links grouped by what they share, physical first (engine/counters/suspects.py).

leaf-1 ─ PP-B09-U47 ══ T1 ══ PP-A01-U47 ─ spine-1     L1, L2 (T1) and L3 (T2) all run through PP-B09-U47;
                   ══ T2 ══                            L9 elsewhere shares only the transceiver part.
"""

from __future__ import annotations

from engine.counters import CHECKLIST, LinkFacts, load_thresholds, suspects

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
