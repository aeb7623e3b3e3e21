"""The interface-name map: one set of rules for every platform, used by the configs and the topology files."""

from __future__ import annotations

import re

import pytest

from engine.catalog import load_catalog
from engine.ifnames import (
    build_interface_map,
    design_port_name,
    ib_port_number,
    lanes_per_cage,
    switch_port_name,
)
from engine.pipeline import compute_design
from engine.presets import load_preset
from engine.qos_stage import build_qos
from engine.spec import parse_spec


@pytest.mark.parametrize(
    "port, split, nvue, sonic, eos",
    [
        ("17", 1, "swp17", "Ethernet128", "Ethernet17/1"),
        ("17/1", 2, "swp17s0", "Ethernet128", "Ethernet17/1"),
        # Arista names a split port by its first lane: the second 400G port of an 8-lane OSFP is /5, not /2.
        ("17/2", 2, "swp17s1", "Ethernet132", "Ethernet17/5"),
        ("17/4", 4, "swp17s3", "Ethernet134", "Ethernet17/7"),
        ("17/8", 8, "swp17s7", "Ethernet135", "Ethernet17/8"),
    ],
)
def test_split_ports_on_an_8_lane_cage(port, split, nvue, sonic, eos):
    assert switch_port_name(port, "swp", lanes=8, split=split) == nvue
    assert switch_port_name(port, "ethernet-lane", lanes=8, split=split) == sonic
    assert switch_port_name(port, "ethernet-cage-lane", lanes=8, split=split) == eos


def test_lanes_come_from_the_catalog():
    cat = load_catalog()
    assert lanes_per_cage(cat.switches["sn5600"]) == 8  # 800G at 100G lanes
    assert lanes_per_cage(cat.switches["sn4600c"]) == 4  # 100G at 25G lanes
    assert lanes_per_cage(cat.switches["sn2201"]) == 1
    assert switch_port_name("up2", "swp", lanes=1, cages=48) == "swp50"  # SN2201 uplinks after 48 RJ45 ports
    assert switch_port_name("mgmt0", "swp") == "eth0"
    assert switch_port_name("mgmt0", "ethernet-cage-lane") == "Management1"
    assert ib_port_number("3/2") == 6 and ib_port_number("3") == 3 and ib_port_number("mgmt0") is None


def test_ethernet_design_configs_use_the_map_and_break_out_split_cages():
    result = compute_design(parse_spec(load_preset("hgx-roce-2su")), load_catalog())
    files = dict(build_qos(result, load_catalog()).files)
    leaf = next(t for n, t in files.items() if n.endswith(".nvue.txt") and "-L" in n)
    lines = leaf.splitlines()
    breakouts = [ln for ln in lines if " link breakout " in ln]
    assert breakouts and all(ln.endswith(" link breakout 2x400G") for ln in breakouts)
    assert lines.index(breakouts[-1]) < min(i for i, ln in enumerate(lines) if "s0 link mtu" in ln)
    cages = {ln.split()[3] for ln in breakouts}
    split_ports = {m.group(1) for ln in lines if (m := re.match(r"nv set interface swp(\d+)s\d+ ", ln))}
    assert split_ports and cages == {f"swp{c}" for c in split_ports}  # every split port's cage, and only those


def test_sonic_and_eos_names_follow_the_lane_map():
    spec = load_preset("hgx-roce-2su")
    spec["qos"] = {"ethernet_os": "sonic"}
    result = compute_design(parse_spec(spec), load_catalog())
    m = build_interface_map(result, load_catalog())
    lk = next(lk for lk in result.links if lk.network == "compute" and lk.a_port.endswith("/2"))
    cage = int(lk.a_port.split("/")[0])
    assert m.platform(lk.a) == "sonic" and m.name(lk.a, lk.a_port, lk.speed_gbps) == f"Ethernet{(cage - 1) * 8 + 4}"


def test_host_netdevs_are_a_setting_per_server_model():
    extra = {
        "servers": {
            "dgx-h100": {**_raw_server("dgx-h100"), "netdevs": {"OSFP1P1": "ibp24s0", "slot1-p2": "enp170s0f1np1"}}
        }
    }
    cat = load_catalog(extra)
    result = compute_design(parse_spec(load_preset("dgx-h100-superpod-4su")), cat)
    m = build_interface_map(result, cat)
    lk = next(lk for lk in result.links if result.devices[lk.a].role == "server" and lk.a_port == "slot1-p2")
    assert m.name(lk.a, lk.a_port) == "enp170s0f1np1"
    assert m.name(lk.a, "OSFP2P1") == "OSFP2P1"  # no setting: the design's name
    with pytest.raises(Exception, match="netdevs"):
        load_catalog({"servers": {"dgx-h100": {**_raw_server("dgx-h100"), "netdevs": ["eth0"]}}})


def _raw_server(key):
    import yaml

    from engine.catalog import DATA_DIR

    return yaml.safe_load((DATA_DIR / "servers.yaml").read_text())["servers"][key]


def test_arista_configs_name_split_ports_by_their_first_lane():
    spec = load_preset("hgx-roce-2su")
    spec["compute_fabric"]["switch"] = "arista-7060x6-64pe"
    result = compute_design(parse_spec(spec), load_catalog())
    files = dict(build_qos(result, load_catalog()).files)
    eos = "".join(t for n, t in files.items() if n.endswith(".eos.cfg"))
    interfaces = set(re.findall(r"^interface (\S+)$", eos, re.M))
    assert interfaces and all(re.fullmatch(r"Ethernet\d+/[15]", i) for i in interfaces)  # 2 x 400G per OSFP
    assert any(i.endswith("/5") for i in interfaces) and not any(i.endswith("/2") for i in interfaces)


@pytest.mark.parametrize("platform", ["swp", "ethernet-lane", "ethernet-cage-lane", "ib-port"])
@pytest.mark.parametrize("split", [1, 2, 4, 8])
def test_a_printed_name_reads_back_as_the_design_port_on_every_platform(platform, split):
    """The as-built fix list names a stray cable's ports as the design does (engine.asbuilt.matching.SpareNames):
    design_port_name inverts switch_port_name, uplinks and the management port included."""
    ports = [f"{c}/{s}" for c in (1, 17, 64) for s in range(1, split + 1)] if split > 1 else ["1", "17", "64"]
    if platform == "ib-port":  # Quantum-2: two ports per cage, every port "<cage>/<n>"
        ports = ["1/1", "1/2", "17/2", "32/1"]
    for port in [*ports, "up1", "up2", "mgmt0"]:
        if platform == "ib-port" and port.startswith("up"):
            continue
        name = switch_port_name(port, platform, lanes=8, split=split, cages=64)
        slashed = split > 1 or platform == "ib-port"
        assert design_port_name(name, platform, lanes=8, split=split, cages=64, slashed=slashed) == port, name
    assert design_port_name("bond0", platform) is None
