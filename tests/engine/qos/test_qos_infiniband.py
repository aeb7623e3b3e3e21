from __future__ import annotations

from _qos_fixtures import golden, ib_switches

from engine.qos import QosPolicy, ib_fabric_facts, plan_qos, render_subnet_manager


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
    assert conf["qos"] == "TRUE" and conf["qos_sl2vl"] == "0,1" + ",0" * 14 and conf["max_operational_vls"] == "2"
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
        "qos/subnet-manager/compute-plane1.opensm.conf", "qos/subnet-manager/compute-plane2.opensm.conf"]
    assert not any(n.startswith(("qos/switches/", "qos/hosts/")) for n in names)
    assert plan.summary()["switches_by_os"] == {"ib": 24} and plan.warnings == ()
