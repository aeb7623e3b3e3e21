"""The fix list's actions, decided by the evidence and not by the order a file prints its ports (CSV inputs
against the 16-server InfiniBand plan of test_matching.IB_16; every cable is one cord, labelled with both ends):

    DGX-SU01-N01 OSFP1P1 --C000001-- 1/1 CF-SU01-L01 1/2 --C000009-- OSFP1P1 DGX-SU01-N02
    DGX-SU01-N01 OSFP1P2 --C000002-- 1/1 CF-SU01-L02
    CF-SU01-L08 30/2 --C000380-- 30/2 CF-S04        CF-SU01-L08 31/1 --C000381-- 31/1 CF-S04

The cabling is modelled as the cord plugged in each port (`Wiring`); a mistake is made by exchanging two
ports' cords, the file is what a tool would see of that wiring, and the fix list's action is applied back to
the same wiring: afterwards every cord must sit where its labels say.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import replace

import pytest

from engine.asbuilt.classify import accumulate, classify
from engine.asbuilt.fixlist import FixItem, device_places, fix_list, iter_fix_csv
from engine.asbuilt.matching import PortMatcher, PortRef
from engine.asbuilt.parsers import parse
from engine.asbuilt.plan import planned_fabric
from engine.asbuilt.records import ObservedEnd
from engine.catalog import load_catalog
from engine.pipeline import compute_design
from engine.spec import parse_spec

from .test_matching import IB_16

HEAD = "device,port,neighbor_device,neighbor_port\n"
N01, N02, L01, L02 = "DGX-SU01-N01", "DGX-SU01-N02", "CF-SU01-L01", "CF-SU01-L02"


@pytest.fixture(scope="module")
def fabric():
    return planned_fabric(compute_design(parse_spec(IB_16), load_catalog()))


class Wiring:
    """port -> the cord plugged in it; starts as the labels say."""

    def __init__(self, fabric):
        self.cables = fabric.cables
        self.at: dict[PortRef, str] = {}
        for c in fabric.cables.values():
            self.at[PortRef(c.a_device, c.a_port)] = c.cable_id
            self.at[PortRef(c.b_device, c.b_port)] = c.cable_id

    def cross(self, p: PortRef, q: PortRef) -> None:
        self.at[p], self.at[q] = self.at[q], self.at[p]

    def links(self, devices) -> list[tuple[PortRef, PortRef]]:
        """What a tool sees: the two ports each cord joins (cords with an end on `devices`)."""
        ends: dict[str, list[PortRef]] = {}
        for port, cid in self.at.items():
            ends.setdefault(cid, []).append(port)
        return [tuple(e) for e in ends.values() if {e[0].device, e[1].device} & set(devices)]  # type: ignore[misc]

    def apply(self, row: FixItem) -> None:
        """Do a swap row's action: the cords at its two ports exchanged."""
        assert row.kind == "swapped"
        self.cross(PortRef(row.a_device, row.a_port), PortRef(row.b_device, row.b_port))

    def mislabelled(self) -> list[str]:
        wrong = []
        for port, cid in self.at.items():
            c = self.cables[cid]
            if port not in (PortRef(c.a_device, c.a_port), PortRef(c.b_device, c.b_port)):
                wrong.append(f"{cid} at {port}")
        return wrong


def csv_of(links, flip: bool, reverse: bool) -> str:
    """One CSV of the seen links: printed from either end, in either order."""
    rows = [(b, a) if flip else (a, b) for a, b in links]
    rows = rows[::-1] if reverse else rows
    return HEAD + "".join(f"{a.device},{a.port},{b.device},{b.port}\n" for a, b in rows)


def fixes_of(fabric, text: str) -> list[FixItem]:
    m = PortMatcher(fabric.links, fabric.aliases, spare=fabric.spare)
    observed, covered = accumulate([parse("csv", text)], m)
    c = classify(fabric.links, observed, m, covered)
    return [f for f in fix_list(c.findings, fabric.cables, device_places(fabric.links)) if f.kind != "missing"]


def every_print_order(fabric, wiring: Wiring, devices) -> list[list[FixItem]]:
    """The problem rows of the same links printed four ways. A file speaks for the devices of its first column,
    so the planned links it does not show are missing, numbered among the rest: those rows are left out."""
    links = wiring.links(devices)
    out = [fixes_of(fabric, csv_of(links, flip, rev)) for flip, rev in itertools.product((False, True), repeat=2)]
    return [[replace(f, problem=0) for f in fixes] for fixes in out]


def test_a_pair_crossed_at_a_server_is_one_swap_at_that_server_whatever_the_print_order(fabric):
    """N01's two rails land on each other's leaf: the two observed links meet only at N01 (the leaves are two
    devices), so the cords were crossed there."""
    w = Wiring(fabric)
    w.cross(PortRef(N01, "OSFP1P1"), PortRef(N01, "OSFP1P2"))
    answers = every_print_order(fabric, w, [N01])
    assert all(a == answers[0] for a in answers)
    (row,) = answers[0]
    assert row.action == (
        "swap the cords at DGX-SU01-N01 OSFP1P1 and OSFP1P2 (DC1.B01-01): C000001 belongs on OSFP1P1, C000002 on OSFP1P2"
    )
    assert (row.rack, row.cable_id, row.link_id) == ("DC1.B01", "C000001 C000002", "L000001 L000002")
    assert row.label_a == fabric.cables["C000001"].label_a  # each cord's label at the server end
    assert row.label_b == fabric.cables["C000002"].label_a
    w.apply(row)
    assert w.mislabelled() == []


def test_a_pair_crossed_at_a_leaf_is_one_swap_at_that_leaf_whatever_the_print_order(fabric):
    """L01 1/1 and 1/2 hold each other's server cord: the observed links meet at L01 (N01 and N02 are two
    devices in two places); sending the technician to the servers would leave both cords mislabelled."""
    w = Wiring(fabric)
    w.cross(PortRef(L01, "1/1"), PortRef(L01, "1/2"))
    answers = every_print_order(fabric, w, [L01])
    assert all(a == answers[0] for a in answers)
    (row,) = answers[0]
    assert (
        row.action == "swap the cords at CF-SU01-L01 1/1 and 1/2 (DC1.B05-01): C000001 belongs on 1/1, C000009 on 1/2"
    )
    assert row.rack == "DC1.B05" and (row.a_device, row.a_port, row.b_device, row.b_port) == (L01, "1/1", L01, "1/2")
    wrong_end = Wiring(fabric)
    wrong_end.cross(PortRef(L01, "1/1"), PortRef(L01, "1/2"))
    wrong_end.cross(PortRef(N01, "OSFP1P1"), PortRef(N02, "OSFP1P1"))  # the servers' cords instead
    assert wrong_end.mislabelled() != []
    w.apply(row)
    assert w.mislabelled() == []


def test_two_parallel_links_crossed_give_both_places_because_the_evidence_cannot_tell(fabric):
    """L08 30/2 and 31/1 to S04 30/2 and 31/1, seen crossed: both ends are one device each, so the cords may
    have been crossed at the leaf or at the spine; the labels on site decide, and the action says so."""
    w = Wiring(fabric)
    w.cross(PortRef("CF-SU01-L08", "30/2"), PortRef("CF-SU01-L08", "31/1"))
    answers = every_print_order(fabric, w, ["CF-SU01-L08"])
    assert all(a == answers[0] for a in answers)
    (row,) = answers[0]
    assert row.action.startswith("crossed at one end, the plan cannot tell which: swap the cords at CF-S04 30/2")
    assert "; or, if those cords already match their labels, swap the cords at CF-SU01-L08 30/2 and 31/1" in row.action
    # Either place restores the links; only the one the labels point to restores the labels.
    spine_first = Wiring(fabric)
    spine_first.cross(PortRef("CF-SU01-L08", "30/2"), PortRef("CF-SU01-L08", "31/1"))
    spine_first.apply(row)
    assert spine_first.mislabelled() != []
    w.cross(PortRef("CF-SU01-L08", "30/2"), PortRef("CF-SU01-L08", "31/1"))
    assert w.mislabelled() == []


def test_an_extra_cable_between_real_fabric_descriptions_is_printed_in_design_ports_with_its_racks(fabric):
    """A cord between two leaves' spare ports, as a running fabric names them (`MF0;<host>:MQM9700/U1`, InfiniBand
    port numbers): QM9700 IB port 25 is cage 13 port 1, 26 is 13/2."""
    text = HEAD + "MF0;CF-SU01-L01:MQM9700/U1,25,MF0;cf-su01-l02.cm.cluster:MQM9700/U1,26\n"
    (row,) = fixes_of(fabric, text)
    assert row.kind == "unexpected"
    assert (row.a_device, row.a_rack, row.a_u, row.a_port) == (L01, "DC1.B05", 1, "13/1")
    assert (row.b_device, row.b_rack, row.b_u, row.b_port) == (L02, "DC1.B05", 2, "13/2")
    assert row.rack == "DC1.B05"
    assert row.action == "remove the cable between DC1.B05-01:13/1 and DC1.B05-02:13/2: not in the plan"
    assert "13/1" in list(iter_fix_csv([row]))[1]


def test_an_unexpected_row_keeps_the_rack_of_the_end_the_plan_knows(fabric):
    """A laptop the plan does not know on L01's spare IB port 30 (cage 15 port 2): the row stands in L01's rack,
    whichever end the file printed first."""
    for text in ("lab-laptop,eth0,MF0;CF-SU01-L01:MQM9700/U1,30\n", "MF0;CF-SU01-L01:MQM9700/U1,30,lab-laptop,eth0\n"):
        (row,) = fixes_of(fabric, HEAD + text)
        assert row.rack == "DC1.B05" and (row.a_device, row.a_port, row.b_device) == (L01, "15/2", "lab-laptop")
        assert row.action == "remove the cable between DC1.B05-01:15/2 and lab-laptop:eth0: not in the plan"


def test_a_moved_hca_named_as_a_running_fabric_names_it_is_moved_back_by_design_ports(fabric):
    """`<host>.cm.cluster mlx5_0` is N03's OSFP4P2 (the catalog's RDMA map); it sits on L08 IB port 20, a spare
    port, which the design calls 10/2."""
    m = PortMatcher(fabric.links, fabric.aliases, spare=fabric.spare)
    assert m.resolve(ObservedEnd("dgx-su01-n03.cm.cluster mlx5_0", "1")) == PortRef("DGX-SU01-N03", "OSFP4P2")
    assert m.resolve(ObservedEnd("MF0;CF-SU01-L08:MQM9700/U1", "20")) == PortRef("CF-SU01-L08", "10/2")
    text = HEAD + "dgx-su01-n03.cm.cluster mlx5_0,1,MF0;CF-SU01-L08:MQM9700/U1,20\n"
    (row,) = [f for f in fixes_of(fabric, text) if f.kind == "miswired"]
    planned = m.link_at(PortRef("DGX-SU01-N03", "OSFP4P2"))
    assert row.action == f"move {planned.cables[-1]} from DC1.B05-08:10/2 to DC1.B05-08:{planned.b_port}"


def test_a_cord_between_two_planned_ports_of_other_devices_gives_both_readings(fabric):
    """N01 OSFP1P1 (planned to L01 1/1) is seen on L02 1/2 (planned to N02 OSFP1P2): either C000001's leaf end is
    on the wrong leaf, or C000010's server end is on the wrong server; neither end is on its planned device, so
    the evidence cannot tell, and the row gives both, whichever end the file printed first."""
    for text in ("DGX-SU01-N01,OSFP1P1,CF-SU01-L02,1/2\n", "CF-SU01-L02,1/2,DGX-SU01-N01,OSFP1P1\n"):
        (row,) = [f for f in fixes_of(fabric, HEAD + text) if f.kind == "miswired"]
        assert row.action == (
            "move C000001 from DC1.B05-02:1/2 to DC1.B05-01:1/1; or, if the cord there is C000010 (by its labels), "
            "move its other end from DC1.B01-01:OSFP1P1 to DC1.B01-09:OSFP1P2"
        )


def test_a_cord_moved_to_another_port_of_its_own_leaf_is_one_reading(fabric):
    (row,) = [f for f in fixes_of(fabric, HEAD + "DGX-SU01-N01,OSFP1P1,CF-SU01-L01,1/2\n") if f.kind == "miswired"]
    assert row.action == "move C000001 from DC1.B05-01:1/2 to DC1.B05-01:1/1"


EOS_2 = {
    "name": "eos 2",
    "servers": {"model": "dgx-h100", "count": 2},
    "compute_fabric": {"technology": "ethernet", "switch": "arista-7060x6-64pe", "scalable_unit": 2},
}


def test_arista_lldp_and_the_hosts_view_give_the_same_swap_at_the_leaf_and_name_a_stray_cable_by_design_ports():
    """Two Arista leaves (EOS names a 2 x 400G cage's ports by first lane: 1/1 is Ethernet1/1, 1/2 Ethernet1/5):

        CF-SU01-L03 Ethernet1/1 -> dgx-su01-n02 OSFP2P1, Ethernet1/5 -> dgx-su01-n01 OSFP2P1   crossed at L03
        CF-SU01-L03 Ethernet13/1 -- CF-SU01-L04 Ethernet13/5                                   extra (13/1, 13/2)

    seen by L03's `show lldp neighbors | json` (neighbours named by FQDN) and by the two hosts (a CSV of what
    their lldpd heard): one swap at L03 either way."""
    fabric = planned_fabric(compute_design(parse_spec(EOS_2), load_catalog()))
    eos = {
        "lldpNeighbors": [
            {
                "ttl": 120,
                "port": "Ethernet1/1",
                "neighborDevice": "dgx-su01-n02.example.com",
                "neighborPort": "OSFP2P1",
            },
            {
                "ttl": 120,
                "port": "Ethernet1/5",
                "neighborDevice": "dgx-su01-n01.example.com",
                "neighborPort": "OSFP2P1",
            },
            {"ttl": 120, "port": "Ethernet2/1", "neighborDevice": "CF-S01.example.com", "neighborPort": "Ethernet3/1"},
            {"ttl": 120, "port": "Ethernet2/5", "neighborDevice": "CF-S01.example.com", "neighborPort": "Ethernet3/5"},
            {
                "ttl": 120,
                "port": "Ethernet13/1",
                "neighborDevice": "CF-SU01-L04.example.com",
                "neighborPort": "Ethernet13/5",
            },
        ]
    }
    hosts = HEAD + ("DGX-SU01-N01,OSFP2P1,CF-SU01-L03,Ethernet1/5\nDGX-SU01-N02,OSFP2P1,CF-SU01-L03,Ethernet1/1\n")
    rows = []
    for obs in (parse("eos", json.dumps(eos), device="CF-SU01-L03"), parse("csv", hosts)):
        m = PortMatcher(fabric.links, fabric.aliases, spare=fabric.spare)
        observed, covered = accumulate([obs], m)
        c = classify(fabric.links, observed, m, covered)
        rows.append(
            [f for f in fix_list(c.findings, fabric.cables, device_places(fabric.links)) if f.kind != "missing"]
        )
    assert sorted(f.kind for f in rows[0]) == ["swapped", "unexpected"] and [f.kind for f in rows[1]] == ["swapped"]
    swaps = [[replace(f, problem=0) for f in r if f.kind == "swapped"] for r in rows]
    assert len(swaps[0]) == 1 and swaps[0] == swaps[1]
    assert swaps[0][0].action.startswith("swap the cords at CF-SU01-L03 1/1 and 1/2 (")
    (extra,) = [f for f in rows[0] if f.kind == "unexpected"]
    assert (extra.a_device, extra.a_port, extra.b_device, extra.b_port) == (
        "CF-SU01-L03",
        "13/1",
        "CF-SU01-L04",
        "13/2",
    )
    assert extra.a_rack and extra.b_rack and extra.rack == extra.a_rack


def test_over_patch_panels_the_swap_names_the_cords_at_the_shared_device_not_the_trunk():
    """Cabled through panels (`DGX --cord-- PP ==trunk== PP --cord-- leaf`), N01's first two rails seen on each
    other's leaf: the cords to exchange are the two server cords, each with its label at the server."""
    from tests.engine.test_panels_and_cabling_invariants import SPEC

    fabric = planned_fabric(compute_design(parse_spec(SPEC), load_catalog()))
    l1, l2 = fabric.links[0], fabric.links[1]
    assert len(l1.cables) == 3 and l1.a_device == l2.a_device  # cord, trunk, cord
    text = HEAD + (
        f"{l1.a_device},{l1.a_port},{l2.b_device},{l2.b_port}\n{l2.a_device},{l2.a_port},{l1.b_device},{l1.b_port}\n"
    )
    (row,) = fixes_of(fabric, text)
    assert row.cable_id == f"{l1.cables[0]} {l2.cables[0]}"
    assert (row.label_a, row.label_b) == (fabric.cables[l1.cables[0]].label_a, fabric.cables[l2.cables[0]].label_a)
    assert row.action.startswith(f"swap the cords at {l1.a_device} {l1.a_port} and {l2.a_port} (")
