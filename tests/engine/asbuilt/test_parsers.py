"""The readers of NVUE, EOS and CSV files, and what each refuses (ibnetdiscover and iblinkinfo are read from
ibsim in test_ibsim_asbuilt.py, lldpctl from lldpd in test_lldpd_asbuilt.py: real tool output)."""

from __future__ import annotations

import json

import pytest

from engine.asbuilt.parsers import AsBuiltParseError, parse

# NVIDIA NVUE command reference, Show Commands > LLDP (docs.nvidia.com/networking-ethernet-software/nvue-reference/
# Show-Commands/LLDP/), example of `nv show interface lldp` on a leaf: the rows below are that example's
# (interface, remote host, remote port), written in NVUE's object model as `nv show interface -o json` returns
# it (interface -> lldp -> neighbor -> chassis.system-name / port.name). The page prints the table, not the JSON.
NVUE_EXAMPLE_ROWS = [
    ("eth0", "oob-mgmt-switch", "swp10"),
    ("swp1", "server01", "48:b0:2d:76:ee:8e"),
    ("swp49", "leaf02", "swp49"),
    ("swp50", "leaf02", "swp50"),
    ("swp51", "spine01", "swp1"),
    ("swp54", "spine04", "swp1"),
]

# Arista EOS User Manual, LLDP > show lldp neighbors, in its JSON form (`show lldp neighbors | json`, the eAPI
# answer): the table counters and one object per neighbour with port, neighborDevice, neighborPort and ttl.
EOS_EXAMPLE = {
    "tablesLastChangeTime": 1652231658.94,
    "tablesAgeOuts": 0,
    "tablesInserts": 2,
    "lldpNeighbors": [
        {"ttl": 120, "neighborDevice": "spine2.example.com", "neighborPort": "Ethernet1", "port": "Ethernet1"},
        {"ttl": 120, "neighborDevice": "spine2.example.com", "neighborPort": "Ethernet2", "port": "Ethernet2"},
    ],
    "tablesDeletes": 0,
    "tablesDrops": 0,
}


def nvue_json() -> str:
    out: dict = {}
    for ifname, host, port in NVUE_EXAMPLE_ROWS:
        mac = ":" in port
        out[ifname] = {
            "type": "eth" if ifname == "eth0" else "swp",
            "lldp": {
                "neighbor": {
                    host: {
                        "chassis": {"system-name": host},
                        "port": {
                            "name": port,
                            "type": "mac" if mac else "ifname",
                            "description": "eth1" if mac else port,
                        },
                    }
                }
            },
        }
    return json.dumps(out)


def test_nvue_interfaces_with_their_lldp_neighbours():
    obs = parse("nvue", nvue_json(), device="leaf01")
    got = {(lk.a.port, lk.b.device, lk.b.port) for lk in obs.links}
    assert ("swp51", "spine01", "swp1") in got and ("swp49", "leaf02", "swp49") in got
    # server01 sent its MAC as the port id: the interface name is taken from the port description.
    assert ("swp1", "server01", "eth1") in got
    assert len(got) == len(NVUE_EXAMPLE_ROWS) and obs.devices == {"leaf01"} and obs.technology == "ethernet"
    with pytest.raises(AsBuiltParseError, match="give the device"):
        parse("nvue", nvue_json())


def test_eos_show_lldp_neighbors_json():
    obs = parse("eos", json.dumps(EOS_EXAMPLE), device="leaf1")
    assert {(lk.a.device, lk.a.port, lk.b.device, lk.b.port) for lk in obs.links} == {
        ("leaf1", "Ethernet1", "spine2.example.com", "Ethernet1"),
        ("leaf1", "Ethernet2", "spine2.example.com", "Ethernet2"),
    }
    with pytest.raises(AsBuiltParseError, match="lldpNeighbors"):
        parse("eos", json.dumps({"interfaces": {}}), device="leaf1")


def test_csv_with_optional_width_and_speed():
    text = "device,port,neighbor_device,neighbor_port,width,speed_gbps\nh1,eth0,sw1,swp1,4,400\nsw1,swp1,h1,eth0,,\n"
    obs = parse("csv", text)
    assert len(obs.links) == 1 and obs.links[0].width == 4 and obs.links[0].speed_gbps == 400
    assert obs.devices == {"h1", "sw1"} and obs.technology == ""


@pytest.mark.parametrize(
    "fmt, text, message",
    [
        ("csv", "a,b\n", "the header lacks device"),
        ("csv", "device,port,neighbor_device,neighbor_port\nh1,,sw1,swp1\n", "line 2: port empty"),
        ("csv", "device,port,neighbor_device,neighbor_port,width\nh1,p,sw1,swp1,four\n", "line 2: width"),
        ("lldpctl", "not json", "not JSON"),
        ("lldpctl", "{}", 'no "lldp" object'),
        ("ibnetdiscover", "hello\n", "no Switch or Ca node"),
        ("iblinkinfo", "hello\n", "line 1: cannot read"),
        ("xml", "<a/>", "unknown format"),
        ("csv", "device\x00", "NUL"),
    ],
)
def test_what_cannot_be_read_is_refused_with_the_line_and_why(fmt, text, message):
    with pytest.raises(AsBuiltParseError, match=message):
        parse(fmt, text)
