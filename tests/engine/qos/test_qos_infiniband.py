from __future__ import annotations

import pytest
from _qos_fixtures import golden, ib_switches

from engine.errors import SpecError
from engine.qos import QosPolicy, ib_fabric_facts, plan_qos, render_root_nodes, render_subnet_manager


def kv(text: str) -> dict[str, str]:
    """opensm.conf style: `key value` lines, `#` comments."""
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, value = line.split(" ", 1)
            assert key not in out, key
            out[key] = value
    return out


def test_fat_tree_defaults():
    facts = ib_fabric_facts(ib_switches(), "compute")
    assert (facts.tiers, facts.switches, facts.sharp_capable) == (2, 12, True)
    assert facts.root_switches == ("CF-S01", "CF-S02", "CF-S03", "CF-S04")
    name, text = render_subnet_manager(QosPolicy.defaults("infiniband"), facts)
    assert name == "qos/subnet-manager/compute.opensm.conf"
    conf = kv(text)
    assert conf["routing_engine"] == "ar_ftree,ar_updn"  # adaptive routing, ftree with updn fallback
    assert conf["qos"] == "TRUE" and conf["qos_sl2vl"] == "0,1" + ",0" * 14 and conf["max_op_vls"] == "2"
    assert conf["qos_vlarb_low"] == "0:64,1:64" and conf["sharp_enabled"] == "2" and conf["lmc"] == "0"
    assert "CF-S01 CF-S02 CF-S03 CF-S04" in text
    golden("compute.opensm.conf", text)


def test_static_routing_and_no_sharp():
    p = QosPolicy.from_dict({"infiniband": {"adaptive_routing": False}}, "infiniband")
    conf = kv(render_subnet_manager(p, ib_fabric_facts(ib_switches(sharp=False), "compute"))[1])
    assert conf["routing_engine"] == "ftree,updn" and conf["sharp_enabled"] == "0"
    p = QosPolicy.from_dict({"infiniband": {"routing_engine": "updn", "qos": False}}, "infiniband")
    conf = kv(render_subnet_manager(p, ib_fabric_facts(ib_switches(), "compute"))[1])
    assert conf["routing_engine"] == "updn" and conf["qos"] == "FALSE" and "qos_sl2vl" not in conf


def test_plan_for_infiniband_design():
    """IB switches get no per-switch QoS file; one SM file per fabric/plane; no RoCE host script."""
    from _qos_fixtures import host, replace

    switches = [replace(s, plane=p, name=f"{s.name}-P{p}") for p in (1, 2) for s in ib_switches()]
    plan = plan_qos(None, switches, host(), "infiniband")
    names = [f for f, _ in plan.files]
    assert [n for n in names if n.startswith("qos/subnet-manager/")] == [
        "qos/subnet-manager/compute-plane1.opensm.conf",
        "qos/subnet-manager/compute-plane1.root_guids.conf",
        "qos/subnet-manager/compute-plane2.opensm.conf",
        "qos/subnet-manager/compute-plane2.root_guids.conf",
    ]
    # Each plane's conf points at its own root-node file (two subnets, two sets of roots).
    files = dict(plan.files)
    roots = {kv(files[f"qos/subnet-manager/compute-plane{p}.opensm.conf"])["root_guid_file"] for p in (1, 2)}
    assert roots == {"/etc/opensm/compute-plane1.root_guids.conf", "/etc/opensm/compute-plane2.root_guids.conf"}
    assert "#node CF-S01-P2" in files["qos/subnet-manager/compute-plane2.root_guids.conf"]
    assert "CF-S01-P1" not in files["qos/subnet-manager/compute-plane2.root_guids.conf"]
    assert not any(n.startswith(("qos/switches/", "qos/hosts/")) for n in names)
    assert plan.summary()["switches_by_os"] == {"ib": 24} and plan.warnings == ()


# Option names and routing engines upstream OpenSM 3.3.23 knows (`opensm -c` of Debian's opensm): the conf for
# the `opensm` flavour may use nothing else.
UPSTREAM_OPTIONS = {
    "routing_engine",
    "root_guid_file",
    "lmc",
    "max_op_vls",
    "qos",
    "qos_max_vls",
    "qos_sl2vl",
    "qos_vlarb_low",
    "qos_vlarb_high",
    "qos_high_limit",
}
UPSTREAM_ENGINES = {"minhop", "updn", "dnup", "file", "ftree", "lash", "dor", "torus-2QoS", "nue", "dfsssp", "sssp"}


def test_upstream_opensm_flavour_uses_only_upstream_names():
    p = QosPolicy.from_dict({"infiniband": {"subnet_manager": "opensm"}}, "infiniband")
    conf = kv(render_subnet_manager(p, ib_fabric_facts(ib_switches(), "compute"))[1])
    assert set(conf) <= UPSTREAM_OPTIONS
    assert set(conf["routing_engine"].split(",")) <= UPSTREAM_ENGINES and conf["routing_engine"] == "ftree,updn"
    assert conf["max_op_vls"] == "2" and "sharp_enabled" not in conf


def test_ufm_flavour_keeps_adaptive_routing_and_sharp():
    conf = kv(render_subnet_manager(QosPolicy.defaults("infiniband"), ib_fabric_facts(ib_switches(), "compute"))[1])
    assert conf["routing_engine"] == "ar_ftree,ar_updn" and conf["sharp_enabled"] == "2"
    assert "max_operational_vls" not in conf  # not an option of either flavour


def test_adaptive_engine_with_upstream_opensm_is_a_field_error():
    with pytest.raises(SpecError) as e:
        QosPolicy.from_dict({"infiniband": {"subnet_manager": "opensm", "routing_engine": "ar_ftree"}}, "infiniband")
    assert e.value.errors[0].path == "qos.infiniband.routing_engine"


def test_root_node_file_from_descriptions_then_from_discovered_guids():
    facts = ib_fabric_facts(ib_switches(), "compute")
    name, text = render_root_nodes(facts)
    assert name == "qos/subnet-manager/compute.root_guids.conf"
    assert [ln for ln in text.splitlines() if not ln.startswith("#")] == []  # nothing OpenSM would misread
    assert [ln for ln in text.splitlines() if ln.startswith("#node ")] == [f"#node CF-S0{i}" for i in range(1, 5)]
    _, text = render_root_nodes(facts, {"CF-S01": "0x0002c90000000001", "CF-S02": "0x0002c90000000002"})
    assert [ln for ln in text.splitlines() if not ln.startswith("#")] == [
        "0x0002c90000000001 # CF-S01",
        "0x0002c90000000002 # CF-S02",
    ]
    assert "#node CF-S03" in text and "#node CF-S01" not in text
