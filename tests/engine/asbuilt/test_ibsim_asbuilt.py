"""Done-when of the as-built import on InfiniBand: an ibsim fabric built from a 1-SU plan with four deliberate
mistakes (two crossed cables, one unplugged, one moved to another port, one at reduced width), discovered
through libumad2sim with ibnetdiscover and iblinkinfo, is classified link by link and the fix list names
exactly those four with the right actions; the plan's own file, re-imported, clears them.

    DGX-SU01-N01 mlx5_11 (OSFP1P1) -> L02 and mlx5_6 (OSFP1P2) -> L01   crossed    (planned L01 / L02)
    DGX-SU01-N02 mlx5_4  (OSFP3P1)                                       unplugged
    DGX-SU01-N03 mlx5_0  (OSFP4P2) -> L08 IB port 20 (cage 10/2)         moved      (planned IB port 3)
    DGX-SU01-N04 mlx5_10 (OSFP2P1) at 1X                                 degraded   (planned 4X NDR)

ibsim runs every lane at SDR whatever the file says, so the simulated links are judged by width only
(compare_speed=False); the NDR rate is not something it can show.
"""

from __future__ import annotations

import re

import pytest

from engine.asbuilt.classify import accumulate, classify
from engine.asbuilt.fixlist import device_places, fix_list
from engine.asbuilt.matching import PortMatcher
from engine.asbuilt.parsers import parse_iblinkinfo, parse_ibnetdiscover
from engine.asbuilt.plan import planned_fabric
from engine.catalog import load_catalog
from engine.pipeline import compute_design
from engine.spec import parse_spec

from .ibsim_fabric import Net, discover, need_tools, net_from_plan

pytestmark = pytest.mark.slow

ONE_SU = {
    "name": "1 SU",
    "servers": {"model": "dgx-h100", "count": 16},
    "compute_fabric": {"technology": "infiniband", "switch": "qm9700", "scalable_unit": 32},
}


@pytest.fixture(scope="module")
def plan():
    result = compute_design(parse_spec(ONE_SU), load_catalog())
    return result, planned_fabric(result)


def mistaken(result) -> str:
    net = Net(net_from_plan(result))
    net.cross("DGX-SU01-N01 mlx5_11", "DGX-SU01-N01 mlx5_6")
    net.unplug("DGX-SU01-N02 mlx5_4")
    net.move("DGX-SU01-N03 mlx5_0", 20)
    net.narrow("DGX-SU01-N04 mlx5_10")
    return net.text()


def run(fabric, texts):
    matcher = PortMatcher(fabric.links, fabric.aliases, spare=fabric.spare)
    observations = [
        parse_ibnetdiscover(t) if "caguid" in t or "switchguid" in t else parse_iblinkinfo(t) for t in texts
    ]
    observed, covered = accumulate(observations, matcher)
    c = classify(fabric.links, observed, matcher, covered, compare_speed=False)
    return c, fix_list(c.findings, fabric.cables, device_places(fabric.links))


def link(fabric, device, port):
    return next(lk for lk in fabric.links if (lk.a_device, lk.a_port) == (device, port))


def test_the_four_mistakes_are_found_and_the_fixed_fabric_clears_them(plan, tmp_path):
    need_tools()
    result, fabric = plan
    ibnd, ili = discover(mistaken(result), tmp_path, "mistakes")
    answers = []
    for texts in ([ibnd], [ili], [ibnd, ili]):
        c, fixes = run(fabric, texts)
        answers.append([f.to_dict() for f in fixes])
        assert c.counts == {
            "ok": len(fabric.links) - 5,
            "degraded": 1,
            "swapped": 2,
            "miswired": 1,
            "missing": 1,
            "unexpected": 0,
            "unseen": 0,
        }, texts[0][:40]
        assert sorted({f.problem for f in fixes}) == [1, 2, 3, 4]
    assert answers[0] == answers[1] == answers[2]  # whichever tool, whichever end it prints first
    by_kind = {}
    for f in fixes:
        by_kind.setdefault(f.kind, []).append(f)
    assert sorted(by_kind) == ["degraded", "missing", "miswired", "swapped"]

    l1, l2 = link(fabric, "DGX-SU01-N01", "OSFP1P1"), link(fabric, "DGX-SU01-N01", "OSFP1P2")
    (swap,) = by_kind["swapped"]  # one action, where both cables meet: N01, not the two leaves
    assert swap.cable_id == f"{l1.cables[0]} {l2.cables[0]}"
    assert swap.action == (
        f"swap the cords at DGX-SU01-N01 OSFP1P1 and OSFP1P2 ({l1.a_rack}-{l1.a_u:02d}): "
        f"{l1.cables[0]} belongs on OSFP1P1, {l2.cables[0]} on OSFP1P2"
    )

    moved = link(fabric, "DGX-SU01-N03", "OSFP4P2")
    (mv,) = by_kind["miswired"]
    assert mv.cable_id == moved.cables[0] and mv.label_a and mv.label_b
    assert mv.action == (
        f"move {moved.cables[0]} from {moved.b_rack}-{moved.b_u:02d}:10/2 to {moved.b_rack}-{moved.b_u:02d}:{moved.b_port}"
    )
    (gone,) = by_kind["missing"]
    assert gone.link_id == link(fabric, "DGX-SU01-N02", "OSFP3P1").link_id
    assert "reseat and clean both ends, check polarity" in gone.action
    (slow,) = by_kind["degraded"]
    assert slow.link_id == link(fabric, "DGX-SU01-N04", "OSFP2P1").link_id
    assert slow.action.startswith("up at 1X instead of 4X: reseat and clean both ends, check polarity")
    # Sorted by rack for one walk through the hall.
    racks = [f.rack for f in fixes]
    assert racks == sorted(racks, key=lambda r: [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", r)])

    # The fixed fabric (the plan's own file), imported after the faulty one, clears every problem.
    fixed, _ = discover(net_from_plan(result), tmp_path, "fixed")
    c, fixes = run(fabric, [ibnd, ili, fixed])
    assert fixes == [] and c.counts["ok"] == len(fabric.links) == 384


# A second fabric, described as a running one describes itself (switches `MF0;<host>:MQM9700/U1`, HCAs
# `<host>.cm.cluster mlx5_N`, N02's `<host> mlx5_N`), with three more mistakes:
#
#     DGX-SU01-N02 mlx5_6 (OSFP1P2) and DGX-SU01-N05 mlx5_6 (OSFP1P2)   crossed at CF-SU01-L02 1/2 and 3/1
#     DGX-SU01-N07 mlx5_5 (OSFP4P1) and mlx5_10 (OSFP2P1)               crossed at the server (to L07 / L03)
#     CF-SU01-L03 IB port 25 -- CF-SU01-L04 IB port 26                   an extra cable (cages 13/1, 13/2)
#
# ibnetdiscover prints each link from the CA side first, iblinkinfo from the switch side: the fix list must not
# depend on it.


def crossed_and_extra(result) -> str:
    net = Net(net_from_plan(result))
    net.cross("DGX-SU01-N02 mlx5_6", "DGX-SU01-N05 mlx5_6")
    net.cross("DGX-SU01-N07 mlx5_5", "DGX-SU01-N07 mlx5_10")
    net.join("CF-SU01-L03", 25, "CF-SU01-L04", 26)
    net.describe_as_running(bare=("DGX-SU01-N02",))
    return net.text()


def test_crossed_pairs_are_one_swap_where_both_cables_meet_from_either_tool(plan, tmp_path):
    need_tools()
    result, fabric = plan
    ibnd, ili = discover(crossed_and_extra(result), tmp_path, "crossed")
    assert "MF0;CF-SU01-L02:MQM9700/U1" in ibnd and "dgx-su01-n05.cm.cluster mlx5_6" in ili
    answers = []
    for text in (ibnd, ili):
        c, fixes = run(fabric, [text])
        assert (c.counts["swapped"], c.counts["unexpected"], c.counts["ok"]) == (4, 1, len(fabric.links) - 4)
        answers.append([f.to_dict() for f in fixes])
    assert answers[0] == answers[1]
    rows = {f["class"] + f["a_device"]: f for f in answers[0]}
    assert len(answers[0]) == 3

    a, b = link(fabric, "DGX-SU01-N02", "OSFP1P2"), link(fabric, "DGX-SU01-N05", "OSFP1P2")
    leaf = rows["swappedCF-SU01-L02"]
    assert leaf["action"] == (
        f"swap the cords at CF-SU01-L02 1/2 and 3/1 ({a.b_rack}-{a.b_u:02d}): "
        f"{a.cables[-1]} belongs on 1/2, {b.cables[-1]} on 3/1"
    )
    assert (a.b_port, b.b_port) == ("1/2", "3/1") and leaf["rack"] == a.b_rack
    server = rows["swappedDGX-SU01-N07"]
    assert server["action"].startswith("swap the cords at DGX-SU01-N07 OSFP2P1 and OSFP4P1 (")
    assert server["rack"] == link(fabric, "DGX-SU01-N07", "OSFP2P1").a_rack

    extra = rows["unexpectedCF-SU01-L03"]
    l3, l4 = link_at(fabric, "CF-SU01-L03"), link_at(fabric, "CF-SU01-L04")
    assert (extra["a_port"], extra["b_device"], extra["b_port"]) == ("13/1", "CF-SU01-L04", "13/2")
    assert (extra["a_rack"], extra["b_rack"], extra["rack"]) == (l3.b_rack, l4.b_rack, l3.b_rack)
    assert extra["action"] == (
        f"remove the cable between {l3.b_rack}-{l3.b_u:02d}:13/1 and {l4.b_rack}-{l4.b_u:02d}:13/2: not in the plan"
    )

    # Done on site, each swap leaves every cord where its labels say.
    cord_at = {}
    for cab in fabric.cables.values():
        cord_at[(cab.a_device, cab.a_port)] = cord_at[(cab.b_device, cab.b_port)] = cab.cable_id

    def exchange(p, q):
        cord_at[p], cord_at[q] = cord_at[q], cord_at[p]

    exchange(("CF-SU01-L02", "1/2"), ("CF-SU01-L02", "3/1"))  # as planted: the cords crossed at the leaf
    exchange(("DGX-SU01-N07", "OSFP4P1"), ("DGX-SU01-N07", "OSFP2P1"))  # and at the server
    for row in (leaf, server):
        exchange((row["a_device"], row["a_port"]), (row["b_device"], row["b_port"]))
    for cab in fabric.cables.values():
        assert cord_at[(cab.a_device, cab.a_port)] == cord_at[(cab.b_device, cab.b_port)] == cab.cable_id


def link_at(fabric, switch):
    return next(lk for lk in fabric.links if lk.b_device == switch)
