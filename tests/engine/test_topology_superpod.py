"""The compute fabric reproduces NVIDIA's DGX SuperPOD counts from the sizing rules alone.

Sources of the expected numbers (each marked at its use):
  [REF]     /work/shared/reference: fabrics-qos-traffic.md A.2/A.3 and optics-and-cabling.md (cable counts)
  [TABLE]   H100-RA Table 3 as the team lead recalls it (the reference only notes its columns were rebuilt)
  [DERIVED] worked out here by hand from the A.3 rules (shown in the docstrings)

A.3 rules used throughout: a leaf splits its ports down:up at the ratio; one leaf per rail per SU;
even striping (the spine count divides a leaf's uplinks; smallest count whose spines have ports
for every leaf uplink); a third tier groups SUs into pods when one spine layer cannot take all leaves.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from fractions import Fraction

import pytest

from engine.errors import SpecError
from tests.engine.conftest import DELETE, build, catalog_no_media
from tests.engine.linkcheck import check_links, rail_map


def cf(result) -> dict:
    return result.summary["networks"]["compute"]


def counts(result) -> tuple:
    s = cf(result)
    return (
        s["switches"]["leaf"],
        s["switches"]["spine"],
        s["switches"]["core"],
        s["links"]["node-leaf"],
        s["links"]["ufm-leaf"],
        s["links"]["leaf-spine"],
        s["links"]["spine-core"],
    )


def independent_check(result, ratio: str = "1:1") -> list[str]:
    model = catalog_no_media().servers[result.spec.servers.model]
    down, up = ratio.split(":")
    return check_links(
        result.link_rows(),
        rail_of_port=rail_map(model),
        servers=result.spec.servers.count,
        planes=result.spec.compute.planes,
        leaf_ratio=Fraction(down) / Fraction(up),
    )


def leaf_spine_matrix(result) -> dict[str, Counter]:
    names = [d.name for d in result.devices]
    m: dict[str, Counter] = defaultdict(Counter)
    for link in result.links:
        if link.tier == "leaf-spine":
            m[names[link.a]][names[link.b]] += 1
    return m


def superpod(model: str, nodes: int, **compute):
    """NVIDIA's table setup: 32-node SUs, one node slot held for UFM, 4 UFM cables."""
    return build(
        servers={"model": model, "count": nodes},
        compute_fabric={"scalable_unit": 32, "reserved_node_slots": 1, "fabric_managers": 4, **compute},
    )


# --- 1 to 4 SU, DGX H100 and B200 -------------------------------------------------------------------

# nodes: [REF] A.2 (31 usable nodes per SU in the 1-4 SU table; 127 at 4 SU).
# leaves = 8 rails x SUs: [REF] A.2/A.3 (one leaf per rail per SU).
# spines: 1 SU = 4 [REF] A.3 worked example; 2/3/4 SU = 8/16/16 [TABLE], and [DERIVED] by even striping:
#   2 SU: 16 leaves x 32 up = 512; 4 spines would need 16 x 8 = 128 ports > 64; 8 spines -> 16 x 4 = 64 <= 64.
#   3 SU: 24 leaves; 8 spines -> 24 x 4 = 96 > 64; 16 spines -> 24 x 2 = 48 <= 64 (so 16, not 768/64 = 12).
#   4 SU: 32 leaves; 16 spines -> 32 x 2 = 64 <= 64.
# node-leaf incl. the UFM +4: 1020 at 4 SU = 1,016 [REF optics-and-cabling.md: "1,016 node-leaf + 1,024
#   leaf-spine"] + 4 UFM [REF A.8]; 252/508/764 [TABLE] = 8 x nodes + 4 [DERIVED].
# leaf-spine = leaves x 32 uplinks: 256 [REF A.3] / 512 / 768 [TABLE] / 1024 [REF].
SUPERPOD_TABLE = [
    # SU, nodes, leaves, spines, node-leaf + ufm-leaf, leaf-spine, links per leaf per spine
    (1, 31, 8, 4, 252, 256, 8),
    (2, 63, 16, 8, 508, 512, 4),
    (3, 95, 24, 16, 764, 768, 2),
    (4, 127, 32, 16, 1020, 1024, 2),
]


@pytest.mark.parametrize("model", ["dgx-h100", "dgx-b200"])
@pytest.mark.parametrize(
    "su, nodes, leaves, spines, node_links, leaf_spine, per_pair",
    SUPERPOD_TABLE,
    ids=[f"{row[0]}SU" for row in SUPERPOD_TABLE],
)
def test_it_reproduces_the_superpod_table(model, su, nodes, leaves, spines, node_links, leaf_spine, per_pair):
    r = superpod(model, nodes)
    s = cf(r)
    assert (s["scalable_units"], s["tiers"]) == (su, 2)
    assert counts(r) == (leaves, spines, 0, nodes * 8, 4, leaf_spine, 0)
    assert s["links"]["node-leaf"] + s["links"]["ufm-leaf"] == node_links
    matrix = leaf_spine_matrix(r)
    assert len(matrix) == leaves
    assert {n for row in matrix.values() for n in row.values()} == {per_pair}
    assert all(len(row) == spines for row in matrix.values())
    assert independent_check(r) == []


def test_it_builds_the_one_su_worked_example():
    """[REF] A.3: 32 DGX H100, QM9700: 8 leaves, 4 spines, 256 + 256 links, 8 links per leaf per spine.

           S01          S02          S03          S04          4 spines, 64 ports each, 64 used
            |  \\\\\\\\ 8 links from every leaf to every spine  (8 x 4 = 32 uplinks per leaf)
     L01  L02  L03  L04  L05  L06  L07  L08                     one leaf per rail
      |    |    |    |    |    |    |    |                      leaf i <- port i of every node
    [N01 .. N32: OSFP1P1 OSFP1P2 ... OSFP4P2]                   32 nodes x 8 ports = 256
    """
    r = build(servers={"count": 32})
    assert counts(r) == (8, 4, 0, 256, 0, 256, 0)
    matrix = leaf_spine_matrix(r)
    assert all(row == Counter({f"CF-S0{j}": 8 for j in range(1, 5)}) for row in matrix.values())


def test_it_puts_port_i_of_every_node_of_an_su_on_leaf_i():
    """Rail rule [REF A.2]: GPU/NIC i of every node in an SU lands on leaf i of that SU."""
    r = build(servers={"count": 64})
    model = catalog_no_media().servers["dgx-h100"]
    rail = rail_map(model)
    devs = r.devices
    leaf_of = defaultdict(set)  # (su, rail) -> leaves
    for link in r.links:
        if link.tier == "node-leaf":
            leaf_of[(devs[link.a].su, rail[link.a_port])].add(devs[link.b].name)
    assert len(leaf_of) == 2 * 8
    assert all(len(v) == 1 for v in leaf_of.values())
    assert leaf_of[(2, 7)] == {"CF-SU02-L08"}


def test_it_puts_the_fabric_managers_on_the_reserved_slot_of_the_last_su():
    """[REF] A.3/A.8: UFM appliances take the leaf ports of the held-back node slot (the "+4" cables)."""
    r = superpod("dgx-h100", 127)
    devs = r.devices
    ufm_links = [link for link in r.links if link.tier == "ufm-leaf"]
    assert len(ufm_links) == 4
    assert {devs[link.a].role for link in ufm_links} == {"ufm"}
    assert {devs[link.b].su for link in ufm_links} == {4}
    assert len({link.b for link in ufm_links}) == 4  # four different leaves: one leaf failure loses one UFM link
    server_ports = {(link.b, link.b_port) for link in r.links if link.tier == "node-leaf"}
    assert not server_ports & {(link.b, link.b_port) for link in ufm_links}


def test_b200_full_sus_match_the_reference_cable_counts():
    """[REF] optics-and-cabling.md: DGX B200 SuperPOD, per SU 256 + 256 links; 4 SU 1,024 + 1,024 (full 32-node SUs)."""
    assert counts(build(servers={"model": "dgx-b200", "count": 32}))[3:6:2] == (256, 256)
    assert counts(build(servers={"model": "dgx-b200", "count": 128}))[3:6:2] == (1024, 1024)


# --- larger DGX H100 fabrics -----------------------------------------------------------------------


def test_8_su_still_fits_two_tiers_exactly():
    """[DERIVED] 8 SU = 256 DGX H100 = 2,048 GPU ports: 64 leaves x 32 uplinks = 2,048 = 32 spines x 64 ports.

    A 64-port switch builds a 2-tier fat tree of at most 64 x 32 = 2,048 endpoints, so with `tiers: auto`
    (the fewest that fit) 8 SU stays at 2 tiers: 32 spines, one link from every leaf to every spine.
    (The brief expected 3 tiers from 8 SU; the A.3 rules give 2.)
    """
    r = build(servers={"count": 256})
    assert cf(r)["tiers"] == 2
    assert counts(r) == (64, 32, 0, 2048, 0, 2048, 0)
    assert independent_check(r) == []


def test_8_su_forced_to_three_tiers_uses_pods_of_four_su():
    """[DERIVED] tiers: 3 at 8 SU: pods of 32 // 8 = 4 SU, 32 spines per pod, 2 pods = 64 spines;
    core group j takes spine j of both pods: 2 x 32 = 64 links, one 64-port core -> 32 cores."""
    r = build(servers={"count": 256}, compute_fabric={"tiers": 3})
    assert (cf(r)["tiers"], cf(r)["pods"]) == (3, 2)
    assert counts(r) == (64, 64, 32, 2048, 0, 2048, 2048)


# (SU, leaves, spines, cores, links per tier); [DERIVED] as in the 64-SU docstring below.
THREE_TIER = [
    (16, 128, 128, 64, 4096),  # 4 pods x 32 spines; core groups of 2 (4 pods x 32/2 = 64 ports)
    (32, 256, 256, 128, 8192),  # 8 pods x 32 spines; core groups of 4 (8 x 8 = 64)
    (64, 512, 512, 256, 16384),  # 16 pods x 32 spines; core groups of 8 (16 x 4 = 64)
]


@pytest.mark.parametrize("su, leaves, spines, cores, per_tier", THREE_TIER, ids=[f"{t[0]}SU" for t in THREE_TIER])
def test_it_builds_large_superpods_in_three_tiers_with_pods_of_four_su(su, leaves, spines, cores, per_tier):
    """64 SU of DGX H100 on QM9700 at 1:1, by hand:

    servers   = 64 SU x 32            = 2,048;   GPU ports = 2,048 x 8 = 16,384 node-leaf links
    leaves    = 64 SU x 8 rails       = 512, each 32 down + 32 up -> 512 x 32 = 16,384 leaf-spine links
    2 tiers?  a leaf sends 32/s links to each of s spines (s | 32), so a spine needs 512 x 32/s >= 512 ports
              > 64 for every s: impossible -> 3 tiers.
    pods      = a spine splits 64 ports 32 down / 32 up; 32 leaf ports / 8 leaves per SU = 4 SU per pod
              -> 64 / 4 = 16 pods of 32 leaves
    spines    = per pod: 32 leaves x 32/s <= 32 -> s = 32; 16 pods x 32 = 512 spines
              -> 512 x 32 uplinks = 16,384 spine-core links (1:1 at every tier, [REF] A.3)
    cores     = core group j serves spine j of every pod: 16 spines x 32 uplinks = 512 links per group;
              c | 32 and 16 x 32/c <= 64 -> c = 8 cores per group; 32 groups x 8 = 256 cores
              (each core: 16 pods x 4 links = 64 ports, full)
    """
    r = build(servers={"count": su * 32}, compute_fabric={"scalable_unit": 32})
    s = cf(r)
    assert (s["tiers"], s["pods"], s["scalable_units"]) == (3, su // 4, su)
    assert counts(r) == (leaves, spines, cores, per_tier, 0, per_tier, per_tier)
    pods = Counter(d.pod for d in r.devices if d.role == "leaf")
    assert set(pods.values()) == {32}  # 4 SU x 8 leaves per pod
    assert s["oversubscription"] == {"leaf": "1:1", "spine": "1:1"}
    if su <= 32:  # the 64-SU case is covered by counts; keep the runtime down
        assert independent_check(r) == []


# --- DGX B300 ------------------------------------------------------------------------------------


def test_b300_xdr_fills_72_servers_per_su_on_q3400():
    """[REF] A.3: 72 DGX B300 per SU, Q3400 (144 x 800G) leaves with 72 down / 72 up.

    [DERIVED] 1 SU: 8 leaves x 72 uplinks; 8 x 72/s <= 144 -> s >= 4, and 4 | 72 -> 4 spines, 18 links each.

          S01   S02   S03   S04
           \\\\ 18 links per leaf per spine
        L01 L02 L03 L04 L05 L06 L07 L08
        [72 x DGX B300, OSFP1..OSFP8 at 800G]
    """
    r = build(servers={"model": "dgx-b300", "count": 72}, compute_fabric={"switch": "q3400", "scalable_unit": "auto"})
    s = cf(r)
    assert (s["scalable_unit"], s["port_speed_gbps"], s["tiers"]) == (72, 800, 2)
    assert counts(r) == (8, 4, 0, 576, 0, 576, 0)
    assert {n for row in leaf_spine_matrix(r).values() for n in row.values()} == {18}


@pytest.mark.parametrize(
    "su, tiers, leaves, spines",
    [
        (2, 2, 16, 8),  # 16 x 72/s <= 144 -> s = 8
        (8, 2, 64, 36),  # 64 x 72/s <= 144 -> s >= 32; smallest divisor of 72 is 36
        (18, 2, 144, 72),  # 144 leaves x 1 link: the largest 2-tier XDR fabric
        (19, 3, 152, None),
    ],
)
def test_b300_xdr_stays_two_tier_up_to_18_su(su, tiers, leaves, spines):
    """[DERIVED] 2 tiers hold at most 144 leaves (one link to each of 72 spines of 144 ports) = 18 SU."""
    r = build(
        servers={"model": "dgx-b300", "count": su * 72}, compute_fabric={"switch": "q3400", "scalable_unit": "auto"}
    )
    assert cf(r)["tiers"] == tiers
    assert cf(r)["switches"]["leaf"] == leaves
    if spines is not None:
        assert cf(r)["switches"]["spine"] == spines
    assert independent_check(r) == []


def test_b300_spectrum_x_runs_two_planes_of_64_server_sus():
    """[REF] A.2: 64 DGX B300 per SU on Spectrum-X, 2 planes; each 800G NIC = 2 x 400G, one per plane.
    [REF] optics-and-cabling.md: 512 node-leaf + 512 leaf-spine per SU (per plane).

        plane A:  S01..S04      plane B:  S01..S04     [DERIVED] 8 leaves x 64/s <= 128 -> s = 4
                  L01..L08                L01..L08     SN5600: 128 x 400G, 64 down / 64 up
                    \\ OSFPn/1               // OSFPn/2
                     [64 x DGX B300, OSFP1..8]
    """
    r = build(
        servers={"model": "dgx-b300", "count": 64},
        compute_fabric={"technology": "ethernet", "switch": "sn5600", "planes": 2, "scalable_unit": "auto"},
    )
    s = cf(r)
    assert (s["scalable_unit"], s["planes"], s["port_speed_gbps"]) == (64, 2, 400)
    assert counts(r) == (16, 8, 0, 1024, 0, 1024, 0)
    per_plane = Counter((link.plane, link.tier) for link in r.links)
    assert per_plane[(0, "node-leaf")] == per_plane[(1, "node-leaf")] == 512
    assert per_plane[(0, "leaf-spine")] == per_plane[(1, "leaf-spine")] == 512
    assert independent_check(r) == []


def test_b300_spectrum_x_preset_size_has_4_su():
    r = build(
        servers={"model": "dgx-b300", "count": 256},
        compute_fabric={"technology": "ethernet", "switch": "sn5600", "planes": 2, "scalable_unit": 64},
    )
    # [DERIVED] per plane: 32 leaves; 32 x 64/s <= 128 -> s = 16; x 2 planes.
    assert counts(r) == (64, 32, 0, 4096, 0, 4096, 0)


# --- GB200 NVL72 ---------------------------------------------------------------------------------


def test_gb200_nvl72_su_has_18_leaves_of_32_ports():
    """[REF] A.6 (derived sketch, L): 8 racks x 18 trays x 4 NICs = 576 endpoints; 576 / 32 = 18 leaves.

    Rail = tray: leaf t takes the 4 NICs of tray t from each of the 8 racks = 32 ports down, 32 up.
    [DERIVED] spines: 18 leaves x 32/s <= 64 with s | 32 -> s = 16 (2 links per leaf per spine). A.6's
    sketch says 9 spines (576 / 64), but 9 does not divide 32 uplinks, so it breaks even striping.

        S01 ... S16                    2 links from each leaf to each spine
        L01(tray 1) ... L18(tray 18)   32 down each
        rack1 T01-NIC1..4 -> L01, ..., rack8 T01-NIC1..4 -> L01
    """
    r = build(servers={"model": "gb200-nvl72", "count": 8}, compute_fabric={"scalable_unit": "auto"})
    assert cf(r)["scalable_unit"] == 8
    assert counts(r) == (18, 16, 0, 576, 0, 576, 0)
    down = Counter(link.b for link in r.links if link.tier == "node-leaf")
    assert set(down.values()) == {32}
    trays = defaultdict(set)
    for link in r.links:
        if link.tier == "node-leaf":
            trays[link.b].add(link.a_port.split("-")[0])
    assert all(len(t) == 1 for t in trays.values())  # one tray (rail) per leaf
    assert independent_check(r) == []


# --- the 128K-GPU case -----------------------------------------------------------------------------


def test_16384_dgx_h100_do_not_fit_three_tiers_of_qm9700():
    """[DERIVED] 16,384 x 8 = 131,072 GPU ports. Pods of 4 SU = 1,024 ports; a 64-port core reaches 64 pods,
    so 3 tiers of QM9700 at 1:1 top out at 64 x 1,024 = 65,536 ports per plane."""
    with pytest.raises(SpecError) as exc:
        build(servers={"count": 16384}, compute_fabric={"scalable_unit": DELETE})
    (err,) = exc.value.errors
    assert err.path == "compute_fabric.tiers"
    assert "65,536" in err.message and "131,072" in err.message


def test_16384_dgx_h100_build_in_three_tiers_on_sn5600():
    """[DERIVED] SN5600 at 400G has 128 ports: SU = 64 (64 down / 64 up), 256 SU, 2,048 leaves.
    Spine 64/64 -> pods of 64 / 8 = 8 SU = 64 leaves, 64 spines each (one link per leaf); 32 pods = 2,048 spines.
    Core group j serves spine j of 32 pods: 32 x 64/c <= 128 -> c = 16; 64 groups x 16 = 1,024 cores.
    131,072 links per tier."""
    r = build(
        servers={"count": 16384}, compute_fabric={"technology": "ethernet", "switch": "sn5600", "scalable_unit": DELETE}
    )
    s = cf(r)
    assert (s["tiers"], s["scalable_unit"], s["pods"]) == (3, 64, 32)
    assert counts(r) == (2048, 2048, 1024, 131072, 0, 131072, 131072)
    assert r.summary["gpus"] == 131072


# --- oversubscription ------------------------------------------------------------------------------


def test_it_sizes_an_auto_su_of_48_at_3_to_1():
    """[DERIVED] 64-port leaf at 3:1: 48 down + 16 up. 2 SU = 96 nodes: 16 leaves x 16 uplinks;
    16 x 16/s <= 64 -> s = 4 spines, 4 links per leaf per spine.

            S01  S02  S03  S04
        L01 ... L16         48 down / 16 up each
    """
    r = build(servers={"count": 96}, compute_fabric={"scalable_unit": DELETE, "oversubscription": "3:1"})
    s = cf(r)
    assert s["scalable_unit"] == 48
    assert counts(r) == (16, 4, 0, 768, 0, 256, 0)
    assert set(Counter(link.a for link in r.links if link.tier == "leaf-spine").values()) == {16}
    assert s["oversubscription"]["leaf"] == "3:1"
    assert s["bisection_gbps"] == 96 * 8 * 400 / 2 / 3
    assert independent_check(r, "3:1") == []


def test_it_rejects_su_32_at_3_to_1_naming_the_nearest_valid_sizes():
    """32 downlinks need 32/3 uplinks: not whole. Valid SUs are multiples of 3 with s + s/3 <= 64."""
    with pytest.raises(SpecError) as exc:
        build(compute_fabric={"scalable_unit": 32, "oversubscription": "3:1"})
    (err,) = exc.value.errors
    assert err.path == "compute_fabric.scalable_unit"
    assert "27, 30, 33, 36" in err.message
    assert "48" in err.message


def test_bisection_follows_the_worst_tier_ratio():
    """1:1 4 SU: 1,024 GPUs x 400G / 2 = 204,800 Gb/s; at leaf 1:1 / spine 2:1 the spine halves it."""
    assert cf(build())["bisection_gbps"] == 204800
    r = build(servers={"count": 512}, compute_fabric={"oversubscription": {"leaf": "1:1", "spine": "2:1"}})
    s = cf(r)
    assert (s["tiers"], s["oversubscription"]["spine"]) == (3, "2:1")
    assert s["bisection_gbps"] == 512 * 8 * 400 / 2 / 2


# --- partial scalable units ----------------------------------------------------------------------


def test_a_partial_su_gets_its_full_leaves_and_leaf_spine_cabling():
    """[REF] A.2/A.3: build the full SU's leaves and leaf-spine cables; missing nodes' ports stay empty.

    40 servers, SU 32 -> SU1 full, SU2 holds 8:
        S01 .. S08                       16 leaves x 32 / 8 spines = 4 links per pair, all cabled
        SU1: L01..L08 (32 nodes each)    SU2: L01..L08 (8 nodes each, 24 ports free)
    """
    r = build(servers={"count": 40})
    assert counts(r) == (16, 8, 0, 320, 0, 512, 0)
    devs = r.devices
    down = Counter(devs[link.b].su for link in r.links if link.tier == "node-leaf")
    assert down == {1: 256, 2: 64}
    up = Counter(devs[link.a].name for link in r.links if link.tier == "leaf-spine")
    assert len(up) == 16 and set(up.values()) == {32}
    assert independent_check(r) == []
