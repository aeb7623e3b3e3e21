"""What the first pass of start_design shares with its retries and its probe (issue 41, engine at 128K <= 5x).

At 128K GPUs and up the first placement's first core rack overflows (test_first_rack.py) and the design is placed
again; engine/physical_stage.py keeps that thrown-away pass small: the links' ends are read into columns once per
wiring (LinkEnds: the OOB links, wired again each pass after placement, are read each time), the tiers and networks
of the media tables are worked out as they are looked up (_OnDemand), and the first rack's probe shares its pass's
policy and device facts and keeps per-link state for its own links only. None of it may change an output: each
design here is computed both ways, on shapes the bench designs do not have (OOB links after the wiring, panels
everywhere over halls, a policy naming a tier the design lacks).
"""

from __future__ import annotations

from unittest import mock

import pytest

from engine import physical_stage
from engine.catalog import load_catalog
from engine.model import Link
from engine.pipeline import start_design
from engine.presets import load_preset
from engine.spec import parse_spec
from tests.engine.conftest import deep_merge
from tests.engine.test_first_rack import ALL_PANELS, HALLS, _draft, _rows

OOB = {"oob": {"enabled": True}}


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(with_media=True)


def _link(i: int, a: int, b: int) -> Link:
    return Link(i + 1, "compute", 0, "leaf-spine", a, "1", "1", b, "1", "1", 400)


def test_link_ends_are_read_once_for_the_wired_links_and_each_time_for_those_after():
    links = [_link(i, i, 100 + i) for i in range(6)]
    ends = physical_stage.LinkEnds(stable=4)
    assert ends.columns(links) == ([0, 1, 2, 3, 4, 5], [100, 101, 102, 103, 104, 105])
    head = ends.head
    del links[4:]  # a retry: the OOB links after the wiring are made again, others this time
    links.append(_link(4, 7, 9))
    assert ends.columns(links) == ([0, 1, 2, 3, 7], [100, 101, 102, 103, 9])
    assert ends.head is head  # the wired links were not read again
    links[3] = _link(3, 50, 60)  # another list at the same length: read whole again
    assert ends.columns(links) == ([0, 1, 2, 50, 7], [100, 101, 102, 60, 9])
    assert ends.columns(links[:2]) == ([0, 1], [100, 101])  # fewer links than the wiring had


@pytest.mark.parametrize("n", [0, 1, 2, 6])  # itemgetter makes no tuple of one index, and none of no index
def test_gathered_link_ends_are_those_of_the_columns_and_kept_for_the_same_columns(n):
    links = [_link(i, i % 3, 3 + i % 2) for i in range(n)]
    ends = physical_stage.LinkEnds(stable=n)
    table = ["d0", "d1", "d2", "d3", "d4"]
    columns = ends.columns(links)
    gather_a, gather_b = ends.gathers(columns)
    assert gather_a(table) == tuple(table[a] for a in columns[0]) == tuple(table[lk.a] for lk in links)
    assert gather_b(table) == tuple(table[lk.b] for lk in links)
    if n:  # the wired links' columns, kept (with none, columns reads the list again)
        assert ends.gathers(ends.columns(links)) == (gather_a, gather_b)
    links.append(_link(n, 2, 0))  # an OOB link after the wiring: other columns, gathered again
    assert ends.gathers(ends.columns(links))[1](table) == (*gather_b(table), "d0")


_LinkEnds = physical_stage.LinkEnds


def _fresh_link_ends(_stable: int) -> physical_stage.LinkEnds:
    return _LinkEnds(0)  # every pass reads every link's ends


SHAPES = [
    # OOB over halls: the OOB links between halls run through panels and their tier is stacked first; its first rack
    # fits, and the core rack overflows when every rack is stacked; the retry places other OOB links
    pytest.param(deep_merge(HALLS, OOB), 2, 0, id="halls + oob"),
    # every tier through panels over halls: the first rack stacked is a spine rack; the retry overflows again
    pytest.param(deep_merge(deep_merge(HALLS, OOB), ALL_PANELS), 2, 1, id="halls + oob, all panels"),
    # one hall, the first tier stacked (leaf-spine) fits its first rack
    pytest.param(deep_merge(load_preset("dgx-h100-superpod-4su"), ALL_PANELS), 2, 0, id="one hall, all panels"),
]


@pytest.mark.parametrize(("design", "overflows", "raised_by_the_check"), SHAPES)
def test_reading_link_ends_once_per_wiring_changes_nothing(catalog, design, overflows, raised_by_the_check):
    spec = parse_spec(design)
    kept, seen, raised = _draft(spec, catalog, check=True)
    with mock.patch.object(physical_stage, "LinkEnds", _fresh_link_ends):
        fresh, seen_fresh, _ = _draft(spec, catalog, check=True)
    every_rack, seen_every_rack, _ = _draft(spec, catalog, check=False)
    assert seen == seen_fresh == seen_every_rack
    assert (len(seen), raised) == (overflows, raised_by_the_check)
    for other in (fresh, every_rack):
        assert _rows(kept) == _rows(other)
        assert kept.warnings == other.warnings
        assert kept.extra_summary == other.extra_summary


def test_a_panels_tier_the_design_lacks_changes_nothing(catalog):
    """The media tables look tiers up as the links name them (_OnDemand), so _panel_flags asks the policy whether
    any tier is cabled through panels: one the design does not have takes the per-tier branch, which must flag no
    link, as the design without that tier's policy does."""
    base = deep_merge(HALLS, OOB)
    spec = parse_spec(base)
    named = parse_spec(deep_merge(base, {"physical": {"tiers": {"spine-core-x": {"cabling": "panels"}}}}))
    plain, with_policy = start_design(spec, catalog), start_design(named, catalog)
    assert _rows(plain) == _rows(with_policy)
    assert plain.warnings == with_policy.warnings
    one_hall = load_preset("hgx-roce-2su")  # two tiers: no spine-core links
    plain = start_design(parse_spec(one_hall), catalog)
    with_policy = start_design(
        parse_spec(deep_merge(one_hall, {"physical": {"tiers": {"spine-core": {"cabling": "panels"}}}})), catalog
    )
    assert _rows(plain) == _rows(with_policy)
    assert not any(row[1] == "trunk" for row in with_policy.physical.cable_rows)


def test_a_floor_plans_racks_are_made_from_its_records(catalog):
    """plan_floor places RackRecords (tuples built in C) and makes Racks of the plan kept only (FloorPlan.racks):
    the hall probe of _place reads the records. Over halls, with rows split, both read the same."""
    from engine import pipeline, placement
    from engine.model import Rack
    from engine.result import no_progress

    spec = parse_spec(deep_merge(HALLS, {"layout": {"racks_per_row": 7}, **OOB}))
    plans: list[placement.FloorPlan] = []

    def kept(**kw):
        plans.append(placement.plan_floor(**kw))
        return plans[-1]

    with mock.patch.object(pipeline, "plan_floor", kept):
        racks, _places, _budgets = pipeline._place(spec, catalog, pipeline._wire(spec, catalog, no_progress))
    assert len(plans) == 2  # the hall probe, then the plan over halls
    for plan in plans:  # (the plan's list of Racks is the one the OOB network's services rack is added to)
        made = plan.racks[: len(plan.records)]
        assert all(type(r) is Rack for r in made)
        assert [tuple(getattr(r, f) for f in placement.RackRecord._fields) for r in made] == plan.records
        assert pipeline._longest_row(plan.records, "server") == pipeline._longest_row(plan.racks, "server")
    assert plans[-1].records[-1].hall > 0
    assert racks is plans[-1].racks  # with the OOB network's services rack after the plan's, a Rack too
    assert len(racks) > len(plans[-1].records)
    assert all(type(r) is Rack for r in racks)
