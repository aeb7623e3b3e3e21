from __future__ import annotations

import csv
import io
import json

from _qos_fixtures import host, leaf, policy, replace, spine

from engine.qos import PortInfo, QosPolicy, SwitchPorts, plan_qos


def test_small_roce_plan():
    switches = [leaf("nvue"), replace(leaf("sonic"), name="CF-SU01-L02"), spine("eos")]
    plan = plan_qos(policy(), switches, host(), "ethernet")
    names = [f for f, _ in plan.files]
    assert names == [
        "qos/switches/CF-SU01-L01.nvue.txt",
        "qos/switches/CF-SU01-L02.config_db.json",
        "qos/switches/CF-S01.eos.cfg",
        "qos/hosts/roce-qos-connectx-7.sh",
        "qos/policy.json",
        "qos/headroom.csv",
        "qos/summary.json",
    ]
    rows = list(csv.DictReader(io.StringIO(dict(plan.files)["qos/headroom.csv"])))
    assert len(rows) == len(plan.headroom_table) == 9
    assert rows[3] == {
        "switch": "CF-SU01-L01",
        "port": "swp34",
        "peer": "CF-S02:p1",
        "speed_gbps": "400",
        "cable_m": "42.7",
        "headroom_bytes_per_priority": "154250",
    }
    s = plan.summary()
    assert json.loads(json.dumps(s)) == s
    # the file written says the same as the plan: every file counted, summary.json itself included
    assert json.loads(dict(plan.files)["qos/summary.json"]) == s and s["files"] == 7
    assert s["ecn"]["by_speed"] == {"400": {"min_us": 3.0, "max_us": 30.0}, "800": {"min_us": 1.5, "max_us": 15.0}}
    assert s["pfc_priorities"] == [3] and s["switches_by_os"] == {"eos": 1, "nvue": 1, "sonic": 1}
    assert (
        s["headroom"]["per_priority_bytes_by_speed"]["800"]["max_bytes"] == 282_260
    )  # 800G 30 m: 108,320 + 240,000 + 983,040 + 926,720 BT = 2,258,080 BT
    assert [w["code"] for w in s["warnings"]] == ["buffer-unknown", "buffer-unknown"]  # sn5600, arista
    assert json.loads(dict(plan.files)["qos/policy.json"])["roce"]["dscp"] == [26]


def test_deterministic():
    a = plan_qos(policy(), [leaf("nvue"), leaf("sonic")], host(), "ethernet")
    edited = {k: v for k, v in policy().to_dict().items() if k != "technology"}
    b = plan_qos(QosPolicy.from_dict(edited, "ethernet"), [leaf("nvue"), leaf("sonic")], host(), "ethernet")
    assert a.files == b.files


def test_lossy_plan_has_no_headroom():
    plan = plan_qos(policy(mode="lossy"), [leaf("nvue")], host(), "ethernet")
    assert plan.headroom_table == () and "qos/headroom.csv" not in dict(plan.files)


def test_it_plans_every_port_of_a_big_fabric():
    """2,000 switches x 64 ports (128,000 ports): a headroom row per port and a file per switch."""
    switches = [
        SwitchPorts(
            f"CF-{i:05d}",
            "sn5600",
            "nvue",
            None,
            False,
            tuple(PortInfo(f"swp{j + 1}", 400, 2.0 + (i + j) % 50, "X:p1") for j in range(64)),
        )
        for i in range(2000)
    ]
    plan = plan_qos(policy(), switches, host(), "ethernet")
    assert len(plan.headroom_table) == 128_000 and len(plan.files) == 2004
