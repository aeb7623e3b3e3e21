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
    matcher = PortMatcher(fabric.links, fabric.aliases)
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
    for texts in ([ibnd], [ili], [ibnd, ili]):
        c, fixes = run(fabric, texts)
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
    by_kind = {}
    for f in fixes:
        by_kind.setdefault(f.kind, []).append(f)
    assert sorted(by_kind) == ["degraded", "missing", "miswired", "swapped"]

    l1, l2 = link(fabric, "DGX-SU01-N01", "OSFP1P1"), link(fabric, "DGX-SU01-N01", "OSFP1P2")
    swap = by_kind["swapped"]
    assert {f.cable_id for f in swap} == {l1.cables[0], l2.cables[0]} and len({f.problem for f in swap}) == 1
    loc1 = f"{l1.b_rack}-{l1.b_u:02d}:{l1.b_port}"
    loc2 = f"{l2.b_rack}-{l2.b_u:02d}:{l2.b_port}"
    assert {f.action.split(": ", 1)[1] for f in swap} == {
        f"move {l1.cables[0]} from {loc2} to {loc1}",
        f"move {l2.cables[0]} from {loc1} to {loc2}",
    }

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
