"""Blast radius (engine/blast_radius.py): which GPUs one failed part takes down or slows, from the links alone."""

from __future__ import annotations

from fractions import Fraction

import pytest

from engine.blast_radius import ABORT, DEGRADED, blast_radius, blast_radius_of
from engine.presets import load_preset
from tests.engine.conftest import build


def _by_kind(result):
    return {f.kind: f for f in blast_radius(result.devices, result.links).failures}


@pytest.fixture(scope="module")
def h100():
    return _by_kind(build(servers={"count": 128}, compute_fabric={"reserved_node_slots": 0}))


@pytest.fixture(scope="module")
def b300_twin_plane():
    return _by_kind(build(load_preset("dgx-b300-spectrum-x-4su")))


def test_a_leaf_failure_takes_one_rail_of_one_su_off_the_fabric(h100):
    """GIVEN 128 DGX H100 in 4 SUs of 32, no reserved slot, rail-optimized (H100-RA):

        SU1:  N01 ... N32        each server: 8 GPUs, port OSFP1P1 .. OSFP4P2 = rails 1 .. 8
               |  \\   ...  |
              L01  L02 ... L08   leaf r of the SU takes port r of all 32 servers of that SU

    WHEN leaf L01 of SU 1 fails
    THEN by hand: the leaf's 32 downlinks are port OSFP1P1 (rail 1) of N01..N32 of SU 1, so 32 GPUs, one per
    server, each on its only scale-out link: all 32 lose their port (100 %), and jobs using them likely abort.
    Every leaf is alike: 32 leaves, each 32 GPUs.
    """
    leaf = h100["leaf"]
    assert (leaf.parts, leaf.example, leaf.min_gpus, leaf.max_gpus) == (32, "CF-SU01-L01", 32, 32)
    (group,) = leaf.groups
    assert (group.gpus, group.servers, group.ports, group.sus) == (32, 32, ("OSFP1P1",), (1,))
    assert group.port_lost and group.share_lost == 1
    assert leaf.gpus_losing_port == 32 and leaf.jobs == ABORT


def test_a_node_cable_loses_one_port_and_a_twin_port_transceiver_two(h100):
    """One cable carries one GPU's only link; a server's OSFP cage holds a twin-port module for two GPUs
    (OSFP1 = OSFP1P1 + OSFP1P2, both of one server); a leaf cage holds ports n/1 and n/2, two servers' rail-1
    GPUs."""
    cable, server_end, leaf_end = h100["node-leaf-cable"], h100["server-transceiver"], h100["leaf-transceiver"]
    assert (cable.parts, cable.gpus_losing_port, cable.jobs) == (1024, 1, ABORT)
    (g,) = server_end.groups
    assert (server_end.parts, g.gpus, g.servers, g.ports) == (512, 2, 1, ("OSFP1P1", "OSFP1P2"))
    (g,) = leaf_end.groups
    assert (leaf_end.parts, g.gpus, g.servers, g.ports) == (512, 2, 2, ("OSFP1P1",))


def test_a_spine_failure_costs_every_gpu_a_sixteenth_beyond_its_leaf(h100):
    """16 spines; each leaf sends 32 uplinks, 2 to each spine: losing a spine costs every leaf 2/32 = 1/16 of
    its uplinks, so all 1,024 GPUs lose 6.25 % of their bandwidth to other leaves, and keep their ports."""
    spine = h100["spine"]
    (g,) = spine.groups
    assert (spine.parts, g.gpus, g.share_lost, g.scope, g.port_lost) == (
        16,
        1024,
        Fraction(1, 16),
        "beyond-leaf",
        False,
    )
    assert spine.jobs == DEGRADED and "6.25 %" in g.describe()
    assert "core" not in h100 and "plane" not in h100  # 2 tiers, 1 plane


def test_a_twin_plane_leaf_failure_halves_bandwidth_without_losing_a_port(b300_twin_plane):
    """GIVEN DGX B300 on two Spectrum-X planes (4 SUs of 64): each GPU's 800G port is split into 2 x 400G,
    sub-port /1 to the plane-A leaf of its rail and /2 to the plane-B leaf.
    WHEN plane A's leaf of rail 1 in SU 1 fails
    THEN its 64 GPUs (OSFP1 of the 64 servers of SU 1, one per server) lose 400 of 800 Gb/s = half, keep
    their port through plane B, and jobs continue at half bandwidth."""
    leaf = b300_twin_plane["leaf"]
    (g,) = leaf.groups
    assert (leaf.example, g.gpus, g.servers, g.ports, g.sus) == ("CF-A-SU01-L01", 64, 64, ("OSFP1",), (1,))
    assert g.share_lost == Fraction(1, 2) and not g.port_lost
    assert leaf.jobs == DEGRADED and leaf.gpus_losing_port == 0
    assert "half bandwidth" in leaf.verdict()


def test_a_whole_plane_halves_every_gpu_but_a_server_transceiver_takes_both_halves(b300_twin_plane):
    plane = b300_twin_plane["plane"]
    (g,) = plane.groups
    assert (plane.parts, g.gpus, g.share_lost, g.port_lost, plane.jobs) == (2, 2048, Fraction(1, 2), False, DEGRADED)
    # one 800G module carries both planes' sub-ports of a GPU: losing it loses the port
    (g,) = b300_twin_plane["server-transceiver"].groups
    assert (g.gpus, g.port_lost) == (1, True)


def test_a_core_failure_costs_traffic_between_pods_only():
    """2,048 DGX H100 (16,384 GPUs) need 3 tiers: a core failure leaves every port up and costs only traffic
    leaving a pod, the share one core carries of the spines' uplinks."""
    kinds = _by_kind(build(servers={"count": 2048}))
    core = kinds["core"]
    (g,) = core.groups
    assert (g.gpus, g.scope, g.port_lost, core.jobs) == (16384, "beyond-pod", False, DEGRADED)
    assert g.share_lost == Fraction(1, core.parts)


def _panel_design(**compute):
    """12 DGX H100 (96 GPUs) in 2 SUs of 6, 2 spines, leaf-spine links through patch panels and trunks."""
    from engine.catalog import load_catalog
    from engine.pipeline import compute_design
    from engine.spec import parse_spec

    spec = load_preset("dgx-h100-superpod-4su")
    spec["servers"]["count"] = 12
    spec["compute_fabric"] |= {"scalable_unit": 6, "reserved_node_slots": 0, "fabric_managers": 0, **compute}
    spec["storage_fabric"] = {"enabled": False}
    spec["inband"] = {"enabled": False}
    spec["oob"] = {"enabled": True}
    spec["physical"] = {"tiers": {"leaf-spine": {"cabling": "panels"}}}
    return compute_design(parse_spec(spec), load_catalog())


@pytest.fixture(scope="module")
def panel_design():
    return _panel_design()


def test_the_worst_trunk_and_panel_isolate_whole_leaves_worse_than_a_spine(panel_design):
    """GIVEN 12 DGX H100 (96 GPUs) in 2 SUs of 6 servers: each SU has 8 rail leaves, each leaf 6 downlinks (one
    per server, its rail's GPU) and 6 uplinks, 3 to each of the 2 spines. The leaves of an SU stand in one
    network rack, the spines in another; the uplinks run cord - panel - trunk - panel - cord, taken leaf by leaf:

        SU 1 leaf rack B03                          spine rack A01
        L01 x6 L02 x6 L03 x6 | L04 x6 L05 x6 L06 x6 | L07 x6 L08 x6     trunks of 18 legs (one link a leg)
        PP-A01-U48: ports 1-24 = every uplink of L01..L04 | PP-A01-U47: L05..L08      24-port panels

    WHEN the worst trunk fails
    THEN by hand: an 18-leg trunk carries every uplink of 3 leaves; each of those leaves keeps its 6 downlinks
    but reaches no spine: 3 x 6 = 18 GPUs (one per server of the SU, on 3 rails) are cut off beyond their leaf
    (isolated), and no other GPU is hit.
    WHEN the worst patch panel fails: it holds every uplink of 4 leaves: 4 x 6 = 24 GPUs isolated.
    A spine, by contrast, takes 3 of every leaf's 6 uplinks: all 96 GPUs lose half their bandwidth beyond
    their leaf and none is isolated. The rack of the spines isolates all 96.
    """
    kinds = {f.kind: f for f in blast_radius_of(panel_design).failures}
    trunk, panel, spine = kinds["trunk"], kinds["patch-panel"], kinds["spine"]
    assert (trunk.gpus_isolated, trunk.gpus_degraded, trunk.jobs) == (18, 0, ABORT)
    (g,) = trunk.groups
    assert (g.gpus, g.servers, g.scope, g.share_lost, g.port_lost) == (18, 6, "beyond-leaf", 1, False)
    assert "no GPU under another leaf" in trunk.verdict()
    assert (panel.gpus_isolated, panel.gpus_degraded, panel.jobs) == (24, 0, ABORT)
    assert (spine.gpus_isolated, spine.gpus_degraded) == (0, 96)
    assert spine.groups[0].share_lost == Fraction(1, 2)
    # the example trunk's links: all 18 uplinks of exactly 3 leaves (by the design's own links)
    from engine.physical.paths import physical_paths

    paths = physical_paths(panel_design)
    carried = paths.trunk_links[int(trunk.example[1:])]
    leaves = {panel_design.links[i - 1].a for i in carried}
    uplinks = [ln for ln in panel_design.links if ln.tier == "leaf-spine" and ln.a in leaves]
    assert len(leaves) == 3 and sorted(ln.id for ln in uplinks) == sorted(carried)
    assert kinds["rack"].gpus_isolated == 96 and kinds["rack-power"].gpus_isolated == 96


def test_every_shared_part_has_a_blast_radius(panel_design):
    """Trunks, panels, each transceiver position, leaves, spines, racks and (OOB on: PDUs) rack power feeds."""
    kinds = {f.kind: f for f in blast_radius_of(panel_design).failures}
    assert set(kinds) >= {
        "node-leaf-cable",
        "server-transceiver",
        "leaf-transceiver",
        "leaf",
        "leaf-spine-cable",
        "leaf-uplink-transceiver",
        "spine-transceiver",
        "spine",
        "trunk",
        "patch-panel",
        "rack",
        "rack-power",
    }
    up = kinds["leaf-uplink-transceiver"]
    # a leaf's uplink cage holds two of its 6 uplinks: 6 GPUs lose 2/6 beyond the leaf
    assert (up.gpus_isolated, up.gpus_degraded, up.groups[0].share_lost) == (0, 6, Fraction(1, 3))
    for f in kinds.values():
        assert f.gpus_isolated + f.gpus_degraded == f.gpus


@pytest.mark.parametrize("which", ["panels", "twin-plane"])
def test_the_quick_count_of_every_part_agrees_with_its_full_groups(panel_design, which):
    """Every trunk, panel, rack and uplink transceiver is ranked by a count in whole Gb/s (no fractions); for
    each of them it gives the isolated and hit GPUs that the full groups of its failure give (a twin-plane GPU
    whose plane-A leaf is cut off keeps plane B: hit, not isolated)."""
    from engine.blast_radius import _Fabric, _physical_parts

    design = panel_design if which == "panels" else build(load_preset("dgx-b300-spectrum-x-4su"))
    f = _Fabric(design.devices, design.links)
    parts = _physical_parts(f, design.devices, design if design.physical else None, design.places, design.racks)
    cages: dict = {}
    for ln in f.up_links:
        cages.setdefault((ln.a, ln.a_cage), []).append(ln)
        cages.setdefault((ln.b, ln.b_cage), []).append(ln)
    sets = [links for _, _, named in parts for links in named.values()] + list(cages.values())
    assert len(sets) > 40
    for lost in sets:
        groups = f.lose_groups(lost)
        assert f.tally(lost) == (sum(g.gpus for g in groups if g.isolated), sum(g.gpus for g in groups))
