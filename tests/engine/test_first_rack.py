"""The first rack check of engine/physical_stage.py place_panels (issue 41): before the media of a placement's panel
links are chosen, the rack that PanelUnits stacks first (the least rack name of the first tier, by name, with panel
links) is worked out from its own links, and its PanelOverflow ends the pass there. At 128K GPUs and up that rack
is the first core rack, whose panels overflow, so the placement the retry abandons costs its links (about 1,600 of
400,000) rather than every panel link's media and trunks.

It must change nothing but time: each design here comes out as it does when every rack is stacked (the check
turned off), with the same overflows met on the way. Only the first pass is checked (a retry, at the cap an
overflow implied, is expected to fit); where the overflowing rack is not the first stacked, or a retry overflows,
the stacking of every rack raises, as before::

    pass 1 (auto):  first rack checked -> overflow?  yes: PanelOverflow, retry at the cap it implies
                                                     no:  every rack stacked -> PanelOverflow (retry) or the design
    retry (cap N):  every rack stacked -> PanelOverflow (retry) or the design
"""

from __future__ import annotations

from unittest import mock

import pytest

import engine.pipeline as pipeline
from engine import physical_stage
from engine.catalog import load_catalog
from engine.presets import load_preset
from engine.spec import parse_spec
from tests.engine.conftest import deep_merge

ALL_PANELS = {"physical": {"default_tier": {"cabling": "panels"}}}
# 8,192 GPUs over halls of 200 racks: only the spine-core links between halls run through panels, and the MDA's first
# core rack overflows twice (11 cores, then 6), the shape of the 128K-1M designs of bench/bench_scale.py
HALLS = {
    "name": "halls",
    "servers": {"model": "dgx-b300", "count": 1024},
    "compute_fabric": {"technology": "infiniband", "switch": "q3400", "tiers": 3},
    "site": {"max_racks_per_hall": 200},
}


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(with_media=True)


def _draft(spec, catalog, *, check: bool):
    """start_design's draft, the overflows its retry met, and how many of them the first rack check raised."""
    overflows, checked = [], []
    spread, first_rack = pipeline._spread_network_racks, physical_stage._first_rack_overflow

    def spread_seen(given, tried, exc):
        overflows.append((exc.rack_name, exc.needed, exc.free, exc.rack_kind, exc.devices, exc.device_units))
        return spread(given, tried, exc)

    def first_rack_seen(p, flags):
        try:
            first_rack(p, flags)
        except physical_stage.PanelOverflow:
            checked.append(True)
            raise

    with (
        mock.patch.object(pipeline, "_spread_network_racks", spread_seen),
        mock.patch.object(physical_stage, "_first_rack_overflow", first_rack_seen if check else lambda p, flags: None),
    ):
        draft = pipeline.start_design(spec, catalog)
    return draft, overflows, len(checked)


def _rows(d):
    phys = d.physical
    return (d.devices, d.links, d.lengths_m, d.racks, d.places, phys.cable_rows, phys.choices, phys.statuses)


@pytest.mark.parametrize(
    ("design", "overflows", "raised_by_the_check"),
    [
        pytest.param(HALLS, 2, 1, id="halls: the first core rack"),
        pytest.param(deep_merge(load_preset("hgx-roce-2su"), ALL_PANELS), 3, 1, id="roce all panels: the first"),
        # the first pass's overflow is the first core rack's; at the cap it implies, that rack fits and the eighth
        # (DC1.A08) overflows: found by stacking every rack, as before
        pytest.param(deep_merge(load_preset("dgx-b300-xdr-8su"), ALL_PANELS), 2, 1, id="xdr-8su all panels: first"),
        # leaf-spine, the first tier stacked, fits in its first rack: the core rack's spine-core panels overflow
        pytest.param(deep_merge(load_preset("dgx-h100-superpod-4su"), ALL_PANELS), 2, 0, id="h100 all panels: none"),
    ],
)
def test_the_first_rack_check_changes_nothing_but_where_the_overflow_is_found(
    catalog, design, overflows, raised_by_the_check
):
    spec = parse_spec(design)
    checked, seen, raised = _draft(spec, catalog, check=True)
    every_rack, seen_every_rack, _ = _draft(spec, catalog, check=False)
    assert seen == seen_every_rack
    assert (len(seen), raised) == (overflows, raised_by_the_check)
    assert _rows(checked) == _rows(every_rack)
    assert checked.warnings == every_rack.warnings
    assert checked.extra_summary == every_rack.extra_summary


def test_a_design_whose_panels_fit_is_placed_once_with_its_first_rack_checked(catalog):
    spec = parse_spec({**HALLS, "layout": {"network_rack_devices": 4}})  # the cap the retry finds for HALLS
    calls = []
    first_rack = physical_stage._first_rack_overflow
    with mock.patch.object(physical_stage, "_first_rack_overflow", lambda p, flags: calls.append(first_rack(p, flags))):
        draft, seen, _ = _draft(spec, catalog, check=True)
    assert (len(calls), seen) == (1, [])
    assert any(row[1] == "trunk" for row in draft.physical.cable_rows)  # its spine-core links between halls
