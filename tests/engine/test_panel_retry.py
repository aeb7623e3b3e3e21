"""The panel retry of engine.pipeline.start_design (issue 41, Stop 47): a pass whose patch panels do not fit is
placed again at fewer devices per network rack, on the topology the first pass wired (nothing in the topology
reads spec.layout, and placement only appends to the builder: the OOB network), and the media of the links
cabled directly are chosen only once the panels fit (engine/physical_stage.py: _assign_panel_media first,
_assign_media after, merged into link order).

The design: the 4-SU DGX H100 SuperPOD preset with every tier through patch panels. Its network racks first
hold as many switches as their units and power allow; the panels above them then need more units than are
free, and the retry finds the cap at which they fit::

    pass 1 (auto):  [ L L L L L L L ... | panels overflow ]  -> PanelOverflow(needed, free, devices, units)
    pass 2 (cap N): [ L ... L (N) | panels ]                  -> the design, noted in the summary
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from unittest import mock

import pytest

import engine.pipeline as pipeline
from engine.catalog import load_catalog
from engine.physical_stage import _in_first_order
from engine.pipeline import compute_design
from engine.presets import load_preset
from engine.spec import parse_spec
from tests.engine.conftest import deep_merge

ALL_PANELS = {"physical": {"default_tier": {"cabling": "panels"}}}


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(with_media=True)


def _rows(r):
    phys = r.physical
    return (r.devices, r.links, r.lengths_m, r.racks, r.places, phys.cable_rows, phys.choices, phys.statuses)


def test_the_retry_wires_once_and_equals_the_cap_it_chose_given_up_front(catalog):
    spec = parse_spec(deep_merge(load_preset("dgx-h100-superpod-4su"), ALL_PANELS))
    with mock.patch.object(pipeline, "_wire_compute", wraps=pipeline._wire_compute) as wired:
        auto = compute_design(spec, catalog)
    assert wired.call_count == 1  # the retry placed the same topology again
    (note,) = [n for n in auto.summary["notes"] if n.startswith("network racks hold at most")]
    cap = int(note.split()[5])
    given = compute_design(replace(spec, layout=replace(spec.layout, network_rack_devices=cap)), catalog)
    assert _rows(auto) == _rows(given)
    assert auto.warnings == given.warnings
    assert [n for n in auto.summary["notes"] if n != note] == given.summary["notes"]


def test_the_two_media_passes_merge_into_link_order():
    # {key: value} and {key: first link index} of each pass: keys by first occurrence, values combined earlier first
    first = (
        {"compute/spine-core": "no medium fits", "compute/leaf-spine": "x"},
        {"compute/spine-core": 7, "compute/leaf-spine": 2},
    )
    second = ({"compute/leaf-spine": "y", "compute/node-leaf": "z"}, {"compute/leaf-spine": 1, "compute/node-leaf": 0})
    merged = _in_first_order(first, second, lambda x, _y: x)
    assert list(merged.items()) == [
        ("compute/node-leaf", "z"),
        ("compute/leaf-spine", "y"),
        ("compute/spine-core", "no medium fits"),
    ]
    counts = _in_first_order(
        (Counter({("compute", "a"): 2}), {("compute", "a"): 5}),
        (Counter({("compute", "a"): 3, ("compute", "b"): 1}), {("compute", "a"): 9, ("compute", "b"): 6}),
        lambda x, y: x + y,
    )
    assert list(counts.items()) == [(("compute", "a"), 5), (("compute", "b"), 1)]


def test_missing_media_of_both_passes_come_out_in_link_order(catalog):
    """tests/engine/test_site_halls.py's two-hall design with copper pinned on the switch tiers: the spine-core
    links between halls (first media pass, through panels) and those within a hall and every leaf-spine link
    (second pass) find no medium. One pass in link order (main before Stop 47) gave leaf-spine first, and the
    spine-core message of the first spine-core link, a short one within a hall (the second pass's)."""
    data = {
        "name": "two halls",
        "servers": {"model": "dgx-h100", "count": 256},
        "compute_fabric": {"technology": "infiniband", "switch": "qm9700", "scalable_unit": 32, "tiers": 3},
        "site": {"max_racks_per_hall": 50},
        "physical": {"tiers": {"spine-core": {"medium": "copper"}, "leaf-spine": {"medium": "copper"}}},
    }
    r = compute_design(parse_spec(data), catalog)
    assert list(r.physical.missing.items()) == [(("compute", "leaf-spine"), 2048), (("compute", "spine-core"), 2048)]
    (spine_core,) = [w for w in r.warnings if w.startswith("no medium for compute/spine-core")]
    assert "no medium fits a 9 m run" in spine_core
    assert r.summary["site"]["inter_hall_links"] == 1024


ODD_SU = {  # a leaf's 31 node ports and 31 uplinks meet in one twin-port cage: a direct link shares a panel link's cage
    "name": "odd SU",
    "servers": {"model": "dgx-h100", "count": 124},
    "compute_fabric": {"technology": "infiniband", "switch": "qm9700", "scalable_unit": 31},
    "physical": {"tiers": {"leaf-spine": {"cabling": "panels"}}},
}


def test_the_first_pass_measures_the_links_sharing_a_panel_links_cage(catalog):
    """place_panels measures only the panel links and the links on their cages before the panels are stacked (a
    medium is chosen from the longest run of both cages): the result equals measuring every link up front."""
    from engine import physical_stage

    place_panels, sharers = physical_stage.place_panels, physical_stage._cage_sharers
    measured = []

    def counted(p, t, listed):
        extra = sharers(p, t, listed)
        measured.append(len(extra))
        return extra

    spec = parse_spec(ODD_SU)
    with mock.patch.object(physical_stage, "_cage_sharers", counted):
        partial = compute_design(spec, catalog)
    assert measured[0] > 0  # the node-leaf links on the leaves' mixed cages were measured too
    with mock.patch.object(physical_stage, "place_panels", lambda **kw: place_panels(**{**kw, "partial": False})):
        whole = compute_design(spec, catalog)
    assert _rows(partial) == _rows(whole)
    assert partial.warnings == whole.warnings
    assert partial.summary == whole.summary
