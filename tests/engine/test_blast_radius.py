"""Blast radius (engine/blast_radius.py): which GPUs one failed part takes down or slows, from the links alone."""

from __future__ import annotations

from fractions import Fraction

import pytest

from engine.blast_radius import ABORT, DEGRADED, blast_radius
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
