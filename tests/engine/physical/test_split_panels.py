"""1:2 splitter channels through patch panels (a twin-port switch module's port split over two single-port NICs,
every tier on panels). The two links of a trunk leg share its MPO port at both panels, so each panel port holds
one cord carrying both links:

    NIC 1 ──┐                                                     ┌── switch port k/1  (one module connector)
            ├─ splitter ── [panel A port n] ══ trunk leg ══ [panel B port n] ── straight cord ─┤
    NIC 2 ──┘                                                     └── switch port k/2

The straight cord stands at the end whose module port the splitter divides (choice.split_end), the splitter at
the other. Three presets failed their own cabling check this way ("patch panel ... port 1 carries 2 cords")."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.catalog import load_catalog
from engine.physical_stage import _connector_of
from engine.pipeline import compute_design
from engine.presets import load_preset
from engine.spec import parse_spec
from tests.engine.conftest import deep_merge

ALL_PANELS = {"physical": {"default_tier": {"cabling": "panels"}}}
SPLIT_PRESETS = ("dgx-b200-superpod-4su", "dgx-b300-spectrum-x-4su", "dgx-b300-xdr-8su")


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(with_media=True)


def _split_links(result) -> list[int]:
    ph = result.physical
    return [
        i
        for i, c in enumerate(ph.choices)
        if c is not None and c.breakout == "split-1:2" and c.structured is not None and len(ph.cables[i]) == 3
    ]


@pytest.mark.parametrize("preset", SPLIT_PRESETS)
def test_a_splitter_channel_through_panels_has_one_cord_per_panel_port(preset, catalog):
    result = compute_design(parse_spec(deep_merge(load_preset(preset), ALL_PANELS)), catalog)  # its checks pass
    ph = result.physical
    split = _split_links(result)
    assert split, "the preset has 1:2 splitter links through panels"
    rows = {row[0]: row for row in ph.cable_rows}
    ends = Counter(end for row in ph.cable_rows if row[1] != "trunk" for end in (row[4], row[5]))
    assert max(ends.values()) == 1
    shared = 0
    for i in split:
        link, choice = result.links[i], ph.choices[i]
        a_cord, _trunk, b_cord = (rows[cid] for cid in ph.cables[i])
        # one cord at each end, shared by the leg's links: two of one module connector (or one, when the other
        # port of its connector runs to another rack: an empty splitter leg)
        assert a_cord[6] == b_cord[6] and link.id in a_cord[6] and len(a_cord[6]) in (1, 2)
        shared += len(a_cord[6]) == 2
        for other in (result.links[x - 1] for x in a_cord[6]):
            assert other.id in (link.id, *a_cord[6])
            if choice.split_end == "b":  # the switch at b: both links leave one of its module connectors
                assert (other.b, other.b_cage, _connector_of(other.b_port)) == (
                    link.b,
                    link.b_cage,
                    _connector_of(link.b_port),
                )
            else:
                assert (other.a, other.a_cage, _connector_of(other.a_port)) == (
                    link.a,
                    link.a_cage,
                    _connector_of(link.a_port),
                )
        straight, splitter = (b_cord, a_cord) if choice.split_end == "b" else (a_cord, b_cord)
        assert (straight[2], splitter[2]) == (choice.structured.cord_a_sku, choice.structured.cord_b_sku)
    assert shared > len(split) / 2  # most legs carry two links
    assert not [p for _lid, p in ph.issues if "another module connector" in p]


@pytest.mark.parametrize("preset", SPLIT_PRESETS)
def test_the_bom_orders_one_cord_per_panel_port_not_one_per_link(preset, catalog):
    result = compute_design(parse_spec(deep_merge(load_preset(preset), ALL_PANELS)), catalog)
    ph = result.physical
    split = _split_links(result)
    ordered = Counter()
    for line in ph.bom:
        ordered[line["sku"]] += line["quantity"]
    cords = Counter(row[2] for row in ph.cable_rows if row[1] == "cord")
    # every cord part is ordered as often as it has rows, and a splitter leg's two links share their two cords
    assert all(ordered[sku] >= n for sku, n in cords.items())
    legs = {ph.cables[i][0] for i in split}
    assert len(legs) < len(split)
    splitters = Counter(ph.choices[i].structured.cord_b_sku for i in split)
    assert sum(cords[sku] for sku in splitters) < sum(splitters.values())


def test_pairing_a_demands_links_twice_pairs_them_the_same():
    """Two links of one module connector, then one of the next: a leg each pair, the lone link on a leg of its own
    (-1: the splitter's empty leg); pairing the paired list again changes nothing."""
    from engine.model import Link
    from engine.physical_stage import _pair_split_legs

    def link(i, port):
        return Link(i + 1, "compute", 0, "node-leaf", 10 + i, "p1", "p1", 5, port, "7", 200)

    links = [link(0, "7/3"), link(1, "7/1"), link(2, "7/2")]
    idxs = [0, 1, 2]
    _pair_split_legs(links, "b", idxs)
    assert idxs == [0, -1, 1, 2]
    _pair_split_legs(links, "b", idxs)
    assert idxs == [0, -1, 1, 2]
