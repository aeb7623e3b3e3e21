"""Vendor outputs on a small RoCE design: reference values in every format, plus golden files."""

from __future__ import annotations

import json
import re

import pytest
from _qos_fixtures import golden, host, leaf, policy, spine

from engine.qos import QosPolicy, render_hosts, render_switch


def test_nvue_reference_values():
    name, text = render_switch(policy(), leaf("nvue"))
    assert name == "qos/switches/CF-SU01-L01.nvue.txt"
    lines = text.splitlines()
    assert all(re.match(r"^nv (set|config) \S", ln) for ln in lines)  # a valid command list
    assert all("<" not in ln and "  " not in ln and not ln.endswith(" ") for ln in lines)  # no blank placeholders
    assert "nv set qos mapping default-global trust l3" in lines
    assert "nv set qos mapping default-global dscp 26 switch-priority 3" in lines
    assert "nv set qos mapping default-global dscp 48 switch-priority 6" in lines
    assert "nv set qos egress-scheduler default-global traffic-class 6 mode strict" in lines
    assert "nv set qos egress-scheduler default-global traffic-class 3 bw-percent 50" in lines
    assert "nv set qos congestion-control default-global traffic-class 3 min-threshold 150000" in lines
    assert "nv set qos congestion-control default-global traffic-class 3 max-threshold 1500000" in lines
    assert "nv set qos congestion-control default-global traffic-class 3 ecn enable" in lines
    pfc = [ln for ln in lines if " switch-priority " in ln and ln.startswith("nv set qos pfc ")]
    assert pfc and all(ln.endswith("switch-priority 3") for ln in pfc)  # PFC on priority 3 only
    # each port gets the PFC profile of its own cable length (42.7 m rounds up to 43 m)
    assert "nv set interface swp2 qos pfc profile roce-pfc-3m" in lines
    assert "nv set interface swp34 qos pfc profile roce-pfc-43m" in lines
    assert "nv set qos pfc roce-pfc-43m cable-length 43" in lines
    assert "nv set interface swp1 link mtu 9216" in lines
    assert lines[-1] == "nv config apply -y"
    golden("CF-SU01-L01.nvue.txt", text)


def test_nvue_pfc_only_and_lossy():
    text = render_switch(policy(mode="pfc-only"), leaf("nvue"))[1]
    assert "traffic-class 3 ecn disable" in text and "min-threshold" not in text and "qos pfc roce-pfc" in text
    text = render_switch(policy(mode="lossy"), leaf("nvue"))[1]
    assert "qos pfc" not in text and "pfc-watchdog" not in text and "traffic-class 3 ecn enable" in text


def test_sonic_tables():
    name, text = render_switch(policy(), leaf("sonic"))
    assert name.endswith(".config_db.json")
    db = json.loads(text)
    for table in (
        "DSCP_TO_TC_MAP",
        "TC_TO_PRIORITY_GROUP_MAP",
        "PORT_QOS_MAP",
        "WRED_PROFILE",
        "SCHEDULER",
        "QUEUE",
        "BUFFER_PG",
        "BUFFER_PROFILE",
        "TC_TO_QUEUE_MAP",
        "PFC_WD",
        "CABLE_LENGTH",
    ):
        assert table in db, table
    dscp = db["DSCP_TO_TC_MAP"]["AZURE"]
    assert len(dscp) == 64 and dscp["26"] == "3" and dscp["48"] == "6" and dscp["3"] == "0"  # stock 26->1 replaced
    assert db["TC_TO_PRIORITY_GROUP_MAP"]["AZURE"]["3"] == "3"
    assert {v["pfc_enable"] for v in db["PORT_QOS_MAP"].values()} == {"3"}
    wred = db["WRED_PROFILE"]["ROCE_ECN"]
    assert (wred["green_min_threshold"], wred["green_max_threshold"], wred["ecn"]) == ("150000", "1500000", "ecn_all")
    assert db["SCHEDULER"][db["QUEUE"]["Ethernet0|6"]["scheduler"]] == {"type": "STRICT"}
    assert db["QUEUE"]["Ethernet0|3"]["wred_profile"] == "ROCE_ECN"
    # headroom of each port's own cable: 3 m -> 134,400 B at 400G (test_qos_headroom), 30 m -> 147,900 B
    pg = db["BUFFER_PG"]
    assert db["BUFFER_PROFILE"][pg["Ethernet0|3-4"]["profile"]]["xoff"] == "134400"
    assert db["BUFFER_PROFILE"][pg["Ethernet256|3-4"]["profile"]]["xoff"] == "147900"
    # The stock lossless PG key "3-4" (buffers_config.j2) is reused, so nothing overlaps it after `config load`.
    assert {k.split("|")[1] for k in pg} == {"3-4"}
    golden("CF-SU01-L01.config_db.json", text)


def test_eos():
    name, text = render_switch(policy(), leaf("eos", model="arista-7060x6-64pe"))
    assert name.endswith(".eos.cfg")
    assert "qos map dscp 26 to traffic-class 3" in text and "qos map dscp 48 to traffic-class 6" in text
    assert text.count("priority-flow-control priority 3 no-drop") == 4 and "priority 4 no-drop" not in text
    assert (
        "random-detect ecn minimum-threshold 150000 bytes maximum-threshold 1500000 bytes "
        "max-mark-probability 100 weight 0"
    ) in text
    assert "   mtu 9214" in text and "qos trust dscp" in text
    assert "ECN at 400G: min 150000 B = 3 us, max 1500000 B = 30 us" in text
    golden("CF-SU01-L01.eos.cfg", text)


def test_spine_file_has_its_own_ports():
    text = render_switch(policy(), spine("eos"))[1]
    assert "interface Ethernet1/1" in text and "Ethernet33/1" not in text and "ECN at 800G" in text


def test_hosts():
    name, text = render_hosts(policy(), host())
    assert name == "qos/hosts/roce-qos-connectx-7.sh"
    assert "--trust dscp" in text and "--pfc 0,0,0,1,0,0,0,0" in text
    assert "--dscp2prio set,26,3" in text and "--dscp2prio set,48,6" in text
    assert 'cma_roce_tos -d "$DEV" -t 106' in text and "NCCL_IB_TC=106" in text
    assert "echo 48 > /sys/class/net/$IF/ecn/roce_np/cnp_dscp" in text
    assert "echo 300 > /sys/class/net/$IF/ecn/roce_rp/rpg_time_reset" in text
    assert "echo 11 > /sys/class/net/$IF/ecn/roce_rp/rpg_gd" in text
    golden("roce-qos-connectx-7.sh", text)
    off = render_hosts(policy(mode="pfc-only"), host())[1]
    assert "rpg_time_reset" not in off and "echo 0 > /sys/class/net/$IF/ecn/roce_rp/enable/$P" in off
    lossy = render_hosts(policy(mode="lossy"), host())[1]
    assert "--pfc 0,0,0,0,0,0,0,0" in lossy


def test_edited_policy_reaches_every_vendor():
    p = policy(roce={"dscp": 24, "priority": 4}, ecn={"min_bytes": 200_000, "max_bytes": 2_000_000})
    assert "dscp 24 switch-priority 4" in render_switch(p, leaf("nvue"))[1]
    db = json.loads(render_switch(p, leaf("sonic"))[1])
    assert db["DSCP_TO_TC_MAP"]["AZURE"]["24"] == "4" and db["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] == "4"
    eos = render_switch(p, leaf("eos"))[1]
    assert "qos map dscp 24 to traffic-class 4" in eos and "minimum-threshold 200000 bytes" in eos
    assert "--dscp2prio set,24,4" in render_hosts(p, host())[1]


def _merged_over_stock(fragment: dict, ports) -> dict:
    """`config load` semantics: field-wise merge of the fragment over SONiC's stock tables for these ports
    (qos_config.j2 PORT_QOS_MAP pfc_enable "3,4"; buffers_config.j2 BUFFER_PG "|0" lossy and "|3-4" lossless)."""
    stock = {
        "PORT_QOS_MAP": {p: {"pfc_enable": "3,4", "pfcwd_sw_enable": "3,4"} for p in ports},
        "BUFFER_PG": {
            **{f"{p}|0": {"profile": "ingress_lossy_profile"} for p in ports},
            **{f"{p}|3-4": {"profile": "pg_lossless_400000_5m_profile"} for p in ports},
        },
    }
    for table, rows in fragment.items():
        for key, fields in rows.items():
            stock.setdefault(table, {}).setdefault(key, {}).update(fields)
    return stock


def _pgs(key: str) -> set[int]:
    lo, _, hi = key.partition("-")
    return set(range(int(lo), int(hi or lo) + 1))


@pytest.mark.parametrize("mode", ["dcqcn", "pfc-only", "lossy"])
def test_sonic_fragment_merges_over_the_stock_config(mode):
    sw = leaf("sonic")
    db = json.loads(render_switch(QosPolicy.from_dict({"mode": mode}, "ethernet"), sw)[1])
    ports = [p.port for p in sw.ports]
    merged = _merged_over_stock(db, ports)
    want = "" if mode == "lossy" else "3"
    assert {v["pfc_enable"] for v in merged["PORT_QOS_MAP"].values()} == {want}  # the stock "3,4" is gone
    for port in ports:
        keys = [k.split("|")[1] for k in merged["BUFFER_PG"] if k.startswith(port + "|")]
        pgs = [_pgs(k) for k in keys]
        assert sum(len(s) for s in pgs) == len(set().union(*pgs)), keys  # no PG in two keys
        lossless = [
            merged["BUFFER_PG"][f"{port}|{k}"]["profile"]
            for k in keys
            if merged["BUFFER_PG"][f"{port}|{k}"]["profile"] != "ingress_lossy_profile"
        ]
        if mode == "lossy":
            assert lossless == []  # no lossless PG inherited from the stock config
        else:
            assert lossless and all(name in db["BUFFER_PROFILE"] for name in lossless)


def test_sonic_pfc_outside_the_stock_range_gets_its_own_key():
    sw = leaf("sonic")
    p = QosPolicy.from_dict({"roce": {"priority": 2}, "pfc": {"priorities": [2]}}, "ethernet")
    pg = json.loads(render_switch(p, sw)[1])["BUFFER_PG"]
    port = sw.ports[0].port
    assert pg[f"{port}|3-4"] == {"profile": "ingress_lossy_profile"} and pg[f"{port}|2"]["profile"].startswith("pg_")


def test_nvue_watchdog_and_breakout_in_their_explicit_forms():
    from dataclasses import replace

    sw = replace(leaf("nvue"), breakouts=(("swp17", "2x400G"),))
    text = render_switch(policy(), sw)[1]
    lines = text.splitlines()
    assert lines[0] == "nv set interface swp17 link breakout 2x400G"  # before the swp17s0/s1 lines
    wd = [ln for ln in lines if "pfc-watchdog" in ln and ln.startswith("nv set interface")]
    assert wd and all(ln.endswith(" qos pfc-watchdog state enable") for ln in wd)
