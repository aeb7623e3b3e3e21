"""Storage, in-band and OOB networks of a 4-SU DGX H100 SuperPOD, counted from the per-node ports.

Ports per DGX H100 (catalog, from fabrics-qos-traffic.md A.1 / BasePOD):
    storage  slot1-p1, slot2-p1   (port 1 of slots 1 and 2, 400G)  -> two storage leaves
    in-band  slot1-p2, slot2-p2   (port 2 of slots 1 and 2, 100G)  -> two in-band leaves (bond)
    OOB      bmc                   (1G copper)                      -> the OOB switch in its own rack

           storage side A  side B        in-band side A  side B
              SF-L01..04  SF-L05..08        IB-L01..04  IB-L05..08
                  \\\\     ////                 \\\\     ////
              slot1-p1   slot2-p1          slot1-p2   slot2-p2
                        [ DGX H100 ] --bmc--> OOB-<rack> --up1/up2--> OOB-AGG01/02
"""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest

from engine.columns import LINK_COLUMNS
from engine.model import TIERS
from tests.engine.conftest import build, catalog_no_media

NODES = 127


@pytest.fixture(scope="module")
def pod():
    """4 SU, as NVIDIA's table: 127 nodes + 4 UFM on the reserved slot, 8 storage appliances, 4 management servers."""
    return build(
        servers={"count": NODES},
        compute_fabric={"reserved_node_slots": 1, "fabric_managers": 4},
        storage_fabric={"enabled": True, "appliances": 8},
        inband={"enabled": True, "management_servers": 4},
        oob={"enabled": True},
    )


@pytest.fixture(scope="module")
def rows(pod):
    return [dict(zip(LINK_COLUMNS, r)) for r in pod.link_rows()]


def by_network(rows, network, tier=None):
    return [r for r in rows if r["network"] == network and (tier is None or r["tier"] == tier)]


def roles(pod) -> dict[str, str]:
    return {d.name: d.role for d in pod.devices}


def test_the_summary_lists_every_network_with_counts_that_match_the_devices_and_links(pod):
    nets = pod.summary["networks"]
    assert list(nets) == ["compute", "storage", "inband", "oob"]
    devs = Counter((d.network, d.role) for d in pod.devices)
    links = Counter((link.network, link.tier) for link in pod.links)
    for net in ("compute", "storage", "inband"):
        assert nets[net]["switches"] == {r: devs[(net, r)] for r in ("leaf", "spine", "core")}
    for net in ("compute", "storage", "inband", "oob"):
        assert nets[net]["links"] == {t: links[(net, t)] for t in TIERS[net]}
    assert nets["oob"]["switches"]["leaf"] == devs[("oob", "oob")]
    assert nets["oob"]["switches"]["spine"] == devs[("oob", "oob-agg")]


# --- storage -------------------------------------------------------------------------------------


def test_storage_takes_port_1_of_slots_1_and_2_of_every_server(pod, rows):
    node = by_network(rows, "storage", "node-leaf")
    assert len(node) == NODES * 2
    ports = defaultdict(list)
    for r in node:
        ports[r["a_device"]].append(r["a_port"])
    assert len(ports) == NODES
    assert all(sorted(p) == ["slot1-p1", "slot2-p1"] for p in ports.values())
    assert {r["speed_gbps"] for r in node} == {400}


def test_storage_dual_homes_every_server_on_two_different_leaves(rows):
    leaves = defaultdict(set)
    for r in by_network(rows, "storage", "node-leaf"):
        leaves[r["a_device"]].add(r["b_device"])
    assert all(len(v) == 2 for v in leaves.values())


def test_storage_counts_follow_the_4_to_3_ratio(pod, rows):
    """[DERIVED] QM9700 at 400G, 64 ports, 4:3 -> 36 down + 27 up. 127 servers -> ceil(127/36) = 4 leaves per
    side, 2 sides = 8 server leaves; 8 appliances x 2 ports = 16 -> one 1:1 appliance leaf (32 down).
    Spines: s | 27, each spine takes 8 x 27/s server-leaf links + 32 // s appliance-leaf links <= 64 ports:
    s = 3 gives 72 + 10 = 82 > 64; s = 9 gives 24 + 3 = 27 -> 9 spines.
    Leaf-spine: 8 x 27 + 1 x 27 (32 uplinks trimmed to a multiple of 9) = 243."""
    s = pod.summary["networks"]["storage"]
    assert s["switches"] == {"leaf": 9, "spine": 9, "core": 0}
    assert s["links"] == {"node-leaf": 254, "ufm-leaf": 4, "appliance-leaf": 16, "leaf-spine": 243}
    assert s["oversubscription"]["leaf"] == "4:3"
    app = Counter(r["a_device"] for r in by_network(rows, "storage", "appliance-leaf"))
    assert len(app) == 8 and set(app.values()) == {2}


def test_ufm_manages_the_storage_fabric_too_from_reserved_ports_on_the_server_leaves(pod, rows):
    """[REF] A.8: UFM Enterprise manages the compute and the storage IB fabric, on leaf ports (the "+4" cables of
    H100-RA Tables 1 and 7). Each UFM's second port (ib1) takes a storage server leaf's port after the servers',
    alternating sides, so each side's leaves hold 127 + 2 ports (within 4 x 36: no extra leaf)."""
    ufm = by_network(rows, "storage", "ufm-leaf")
    assert len(ufm) == 4
    assert {r["a_device"]: r["a_port"] for r in ufm} == {f"UFM-{i:02d}": "ib1" for i in range(1, 5)}
    assert {r["b_device"] for r in ufm} == {"SF-L04", "SF-L08"}  # the last leaf of each side
    assert [r["b_device"] for r in ufm[:2]] == ["SF-L04", "SF-L08"]  # consecutive UFMs on different leaves
    taken = {(r["b_device"], r["b_port"]) for r in by_network(rows, "storage", "node-leaf")}
    assert not taken & {(r["b_device"], r["b_port"]) for r in ufm}
    assert {r["speed_gbps"] for r in ufm} == {400}
    compute = {r["a_device"]: r["a_port"] for r in by_network(rows, "compute", "ufm-leaf")}
    assert set(compute.values()) == {"ib0"} and set(compute) == {r["a_device"] for r in ufm}


def test_storage_ufm_ports_grow_the_server_leaves_when_the_servers_fill_them():
    """[DERIVED] 144 servers fill 4 x 36 ports per side: the 4 UFM ports (2 per side) need a fifth leaf per side."""
    full = dict(
        servers={"count": 144},
        compute_fabric={"reserved_node_slots": 1, "fabric_managers": 4},
        storage_fabric={"enabled": True, "appliances": 8},
    )
    with_ufm = build(**full).summary["networks"]["storage"]
    assert with_ufm["links"]["ufm-leaf"] == 4
    assert with_ufm["switches"]["leaf"] == 2 * 5 + 1
    without = build(**full | {"compute_fabric": {"reserved_node_slots": 1, "fabric_managers": 0}})
    assert without.summary["networks"]["storage"]["switches"]["leaf"] == 2 * 4 + 1


def test_an_ethernet_storage_fabric_takes_no_ufm_link():
    r = build(
        servers={"count": 127},
        compute_fabric={"reserved_node_slots": 1, "fabric_managers": 4},
        storage_fabric={"enabled": True, "technology": "ethernet", "switch": "sn5600", "appliances": 8},
    )
    assert r.summary["networks"]["storage"]["links"]["ufm-leaf"] == 0


# --- in-band -------------------------------------------------------------------------------------


def test_inband_dual_homes_port_2_of_slots_1_and_2(rows):
    node = by_network(rows, "inband", "node-leaf")
    assert len(node) == NODES * 2
    ports, leaves = defaultdict(list), defaultdict(set)
    for r in node:
        ports[r["a_device"]].append(r["a_port"])
        leaves[r["a_device"]].add(r["b_device"])
    assert all(sorted(p) == ["slot1-p2", "slot2-p2"] for p in ports.values())
    assert all(len(v) == 2 for v in leaves.values())
    assert {r["speed_gbps"] for r in node} == {100}


def test_inband_counts(pod, rows):
    """[DERIVED] SN4600C 64 x 100G at 1:1 -> 32 + 32; 2 x ceil(127/32) = 8 server leaves, 4 mgmt x 2 = 8 ports ->
    1 mgmt leaf; s | 32: s = 8 -> 8 x 4 + 4 = 36 <= 64 (s = 4 gives 72). Leaf-spine 9 x 32 = 288."""
    s = pod.summary["networks"]["inband"]
    assert s["switches"] == {"leaf": 9, "spine": 8, "core": 0}
    assert s["links"] == {"node-leaf": 254, "mgmt-leaf": 8, "leaf-spine": 288}
    mgmt = Counter(r["a_device"] for r in by_network(rows, "inband", "mgmt-leaf"))
    assert len(mgmt) == 4 and set(mgmt.values()) == {2}


@pytest.mark.parametrize("network", ["storage", "inband"])
def test_access_leaves_stripe_evenly_over_every_spine(rows, network):
    pairs = defaultdict(Counter)
    for r in by_network(rows, network, "leaf-spine"):
        pairs[r["a_device"]][r["b_device"]] += 1
    spines = {s for row in pairs.values() for s in row}
    for leaf, row in pairs.items():
        assert set(row) == spines, leaf
        assert len(set(row.values())) == 1, leaf


# --- OOB -----------------------------------------------------------------------------------------


def test_every_managed_device_has_exactly_one_oob_link_to_a_switch_in_its_own_rack(pod, rows):
    role = roles(pod)
    oob = by_network(rows, "oob", "device-oob")
    per_device = Counter(r["a_device"] for r in oob)
    managed = [
        d
        for d in pod.devices
        if d.role in ("server", "pdu", "ufm", "storage-appliance", "mgmt-server")
        or (d.role in ("leaf", "spine", "core") and d.network in ("compute", "storage", "inband"))
    ]
    assert {d.role for d in managed} >= {"server", "pdu", "ufm", "storage-appliance", "mgmt-server", "leaf", "spine"}
    missing = [d.name for d in managed if per_device[d.name] != 1]
    assert missing == []
    for r in oob:
        assert role[r["b_device"]] == "oob"
        assert r["a_rack"] and r["a_rack"] == r["b_rack"], r
    managed_names = {d.name for d in managed}
    expected_port = {
        "server": "bmc",
        "pdu": "net",
        "ufm": "bmc",
        "storage-appliance": "bmc",
        "mgmt-server": "bmc",
        "leaf": "mgmt0",
        "spine": "mgmt0",
    }
    assert all(r["a_port"] == expected_port[role[r["a_device"]]] for r in oob if r["a_device"] in managed_names)
    assert {r["speed_gbps"] for r in oob} == {1}


def test_every_oob_switch_has_two_uplinks_to_different_aggregation_switches(pod, rows):
    role = roles(pod)
    ups = defaultdict(list)
    for r in by_network(rows, "oob", "oob-uplink"):
        ups[r["a_device"]].append(r["b_device"])
    oob_switches = [d.name for d in pod.devices if d.role == "oob"]
    assert sorted(ups) == sorted(oob_switches)
    for sw, aggs in ups.items():
        assert len(aggs) == 2 and len(set(aggs)) == 2, sw
        assert {role[a] for a in aggs} == {"oob-agg"}


def test_oob_switches_never_run_out_of_ports(pod, rows):
    used = Counter(r["b_device"] for r in by_network(rows, "oob", "device-oob"))
    assert max(used.values()) <= 48  # SN2201: 48 x 1G


def test_each_rack_with_servers_or_switches_has_its_pdus(pod):
    pdus = Counter(pod.places[d.idx].rack for d in pod.devices if d.role == "pdu")
    for rack in pod.racks:
        if rack.kind != "services":
            assert pdus[rack.idx] == 2, rack.id


def test_the_oob_aggregation_switches_are_managed_too(pod):
    per_device = Counter(pod.devices[link.a].name for link in pod.links if link.tier == "device-oob")
    aggs = [d.name for d in pod.devices if d.role == "oob-agg"]
    assert aggs
    assert [a for a in aggs if per_device[a] != 1] == []


def test_every_rack_gets_its_pdus_and_an_oob_switch(pod):
    pdus = Counter(pod.places[d.idx].rack for d in pod.devices if d.role == "pdu")
    oobs = Counter(pod.places[d.idx].rack for d in pod.devices if d.role == "oob")
    assert [r.id for r in pod.racks if pdus[r.idx] != 2 or oobs[r.idx] < 1] == []


@pytest.mark.parametrize(("count", "switch"), [(65, "qm9790"), (72, "qm9700"), (72, "sn5400")])
def test_rack_scale_bmcs_hosted_by_one_network_rack_get_enough_aggregation_pairs(count, switch):
    """GB200 NVL72 racks send their BMCs to the OOB switch of a network rack in their row (oob.build_oob's
    host_rack). One network rack can host more BMCs and PDUs than an SN2201 has ports, so it gets several OOB
    switches, and the aggregation pairs must be sized for all of them (this raised "too few OOB aggregation
    switches" when they were sized as one OOB switch per rack):

        NVL72 ... NVL72 --bmc/pdu--> OOB-<net rack>-1, -2, ... --up1/up2--> OOB-AGG01..04
    """
    technology = "ethernet" if switch.startswith("sn") else "infiniband"
    result = build(
        {
            "name": "rack-scale oob",
            "servers": {"model": "gb200-nvl72", "count": count},
            "compute_fabric": {"technology": technology, "switch": switch},
            "oob": {"enabled": True},
        }
    )
    oob = [d.name for d in result.devices if d.role == "oob"]
    aggs = {d.name for d in result.devices if d.role == "oob-agg"}
    ups = defaultdict(list)
    for link in result.links:
        if link.tier == "oob-uplink":
            ups[result.devices[link.a].name].append(result.devices[link.b].name)
    per_rack = Counter(result.places[d.idx].rack for d in result.devices if d.role == "oob")
    assert max(per_rack.values()) > 1  # the case drawn above: a rack with several OOB switches
    assert sorted(ups) == sorted(oob)
    assert all(len(set(up)) == 2 and set(up) <= aggs for up in ups.values())
    per_agg_port = Counter(
        (result.devices[link.b].name, link.b_port) for link in result.links if link.tier == "oob-uplink"
    )
    assert max(per_agg_port.values()) == 1
    agg_model = next(d.model for d in result.devices if d.role == "oob-agg")
    up_speed = next(lk.speed_gbps for lk in result.links if lk.tier == "oob-uplink")
    radix = catalog_no_media().switches[agg_model].radix(up_speed)
    assert radix
    assert len(aggs) == 2 * -(-len(oob) // radix)  # no more pairs than the OOB switches need
