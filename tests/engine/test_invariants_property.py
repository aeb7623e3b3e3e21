"""Property tests: any valid spec either fails with a SpecError naming a field, or yields a design whose
invariants hold when re-checked from the links.csv rows alone (tests/engine/linkcheck.py, which shares no
code with engine/verify.py). Also: the engine is deterministic.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from engine.errors import SpecError
from engine.spec import parse_spec
from tests.engine.conftest import build, catalog_no_media, spec
from tests.engine.linkcheck import Row, check_links, rail_map

CATALOG = catalog_no_media()
RATIOS = ("1:1", "2:1", "3:1", "5:3")


def fraction(text: str) -> Fraction:
    a, b = text.split(":")
    return Fraction(a) / Fraction(b)


@st.composite
def valid_specs(draw) -> dict:
    model = draw(st.sampled_from(sorted(CATALOG.servers)))
    server = CATALOG.servers[model]
    technology = draw(st.sampled_from(("infiniband", "ethernet")))
    by_tech = sorted(k for k, sw in CATALOG.switches.items() if technology in sw.technology)
    # Two planes only where the NIC splits into a speed some switch of this technology offers.
    planes_ok = [
        p
        for p in (1, 2)
        if server.nic_speed_gbps % p == 0
        and any(CATALOG.switches[k].radix(server.nic_speed_gbps // p) for k in by_tech)
    ]
    planes = draw(st.sampled_from(planes_ok or [1]))
    speed = server.nic_speed_gbps // planes
    fitting = [k for k in by_tech if CATALOG.switches[k].radix(speed)]
    # Mostly switches that offer the speed; now and then any switch of the technology (must be a SpecError).
    switch = draw(st.sampled_from(fitting) if fitting and draw(st.integers(0, 9)) else st.sampled_from(by_tech))
    reserved = draw(st.integers(0, 2))
    managers = draw(st.integers(0, reserved * len(server.compute_ports)))
    ratio = draw(st.sampled_from(RATIOS))
    oversubscription = ratio if draw(st.booleans()) else {"leaf": ratio, "spine": draw(st.sampled_from(RATIOS))}
    data = {
        "name": "property",
        # A rack-scale "server" is a whole NVL72 rack (72 GPUs): cap it at 72 racks to bound the runtime.
        "servers": {"model": model, "count": draw(st.integers(1, 72 if server.rack_scale else 600))},
        "compute_fabric": {
            "technology": technology,
            "switch": switch,
            "oversubscription": oversubscription,
            "tiers": draw(st.sampled_from(("auto", "auto", "auto", 3))),
            "planes": planes,
            "reserved_node_slots": reserved,
            "fabric_managers": managers,
        },
    }
    if draw(st.integers(0, 3)) == 0:
        data["storage_fabric"] = {"enabled": True, "appliances": draw(st.integers(0, 12))}
    if draw(st.integers(0, 3)) == 0:
        data["inband"] = {"enabled": True, "management_servers": draw(st.integers(0, 6))}
    if draw(st.integers(0, 3)) == 0:
        data["oob"] = {"enabled": True}
    return data


def leaf_ratio_of(data: dict) -> Fraction:
    ov = data["compute_fabric"]["oversubscription"]
    return fraction(ov if isinstance(ov, str) else ov["leaf"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_specs())
def test_a_valid_spec_builds_a_sound_fabric_or_names_the_field_to_change(data):
    note(repr(data))
    model = CATALOG.servers[data["servers"]["model"]]
    planes = data["compute_fabric"]["planes"]
    lacks_speed = CATALOG.switches[data["compute_fabric"]["switch"]].radix(model.nic_speed_gbps // planes) is None
    try:
        result = build(data)
    except SpecError as exc:
        assert exc.errors
        assert all(e.path and e.message for e in exc.errors), exc.errors
        if lacks_speed:
            assert [e.path for e in exc.errors] == ["compute_fabric.switch"]
        return
    assert not lacks_speed, "a leaf without ports at the NIC speed must be a SpecError"
    rows = [Row(*r) for r in result.link_rows()]
    radix = {
        d.name: CATALOG.switches[d.model].radix(result.summary["networks"]["compute"]["port_speed_gbps"])
        for d in result.devices
        if d.network == "compute" and d.role in ("leaf", "spine", "core")
    }
    problems = check_links(
        rows,
        rail_of_port=rail_map(model),
        servers=data["servers"]["count"],
        planes=planes,
        leaf_ratio=leaf_ratio_of(data),
        speed_gbps=model.nic_speed_gbps // planes,
        radix_by_device=radix,
    )
    assert problems == []
    # The summary agrees with the rows.
    tiers = Counter((r.network, r.tier) for r in rows)
    for net, s in result.summary["networks"].items():
        assert s["links"] == {t: tiers[(net, t)] for t in s["links"]}
    assert result.summary["links_total"] == len(rows)
    assert result.summary["gpus"] == data["servers"]["count"] * model.gpus
    assert "no-port-used-twice" in result.checks


# --- the checker itself catches broken designs ----------------------------------------------------


@pytest.fixture(scope="module")
def small():
    """2 SU of DGX H100: 16 leaves, 8 spines, 4 links per pair."""
    r = build(servers={"count": 64})
    return [Row(*x) for x in r.link_rows()], rail_map(CATALOG.servers["dgx-h100"])


def _check(rows, rails, servers=64):
    return check_links(rows, rail_of_port=rails, servers=servers, leaf_ratio=Fraction(1))


def test_the_checker_passes_a_sound_design(small):
    rows, rails = small
    assert _check(rows, rails) == []


def test_the_checker_catches_a_port_used_twice(small):
    rows, rails = list(small[0]), small[1]
    a, b = rows[0], rows[1]  # two node-leaf links on the same leaf
    rows[1] = Row(**{**b.__dict__, "b_device": a.b_device, "b_port": a.b_port})
    assert any("used by 2 links" in p for p in _check(rows, rails))


def test_the_checker_catches_a_leaf_carrying_two_rails(small):
    rows, rails = list(small[0]), small[1]
    i = next(i for i, r in enumerate(rows) if r.tier == "node-leaf" and r.a_port == "OSFP1P2")
    leaf_rail0 = next(r.b_device for r in rows if r.tier == "node-leaf" and r.a_port == "OSFP1P1")
    rows[i] = Row(**{**rows[i].__dict__, "b_device": leaf_rail0, "b_port": "99/9"})
    assert any("carries rails" in p for p in _check(rows, rails))


def test_the_checker_catches_uneven_striping(small):
    rows, rails = small
    i = next(i for i, r in enumerate(rows) if r.tier == "leaf-spine")
    broken = rows[:i] + rows[i + 1 :]
    problems = _check(broken, rails)
    assert any("unevenly" in p for p in problems)
    assert any("uplink counts differ" in p for p in problems)


def test_the_checker_catches_a_missing_server_port(small):
    rows, rails = small
    i = next(i for i, r in enumerate(rows) if r.tier == "node-leaf")
    assert any("node-leaf links, expected" in p for p in _check(rows[:i] + rows[i + 1 :], rails))


def test_the_checker_catches_a_server_wired_into_another_su_on_one_rail(small):
    rows, rails = list(small[0]), small[1]
    srv = next(r.a_device for r in rows if r.tier == "node-leaf")
    other_leaf = {r.a_port: r.b_device for r in rows if r.tier == "node-leaf" and r.a_device != srv}
    # Move this server's rail-0 port to the rail-0 leaf of the other SU.
    i = next(i for i, r in enumerate(rows) if r.a_device == srv and r.a_port == "OSFP1P1")
    target = next(
        r.b_device for r in rows if r.tier == "node-leaf" and r.a_port == "OSFP1P1" and r.b_device != rows[i].b_device
    )
    assert target != rows[i].b_device and other_leaf
    rows[i] = Row(**{**rows[i].__dict__, "b_device": target, "b_port": "99/9"})
    assert any("group the servers differently" in p for p in _check(rows, rails))


def test_the_checker_catches_an_su_whose_leaves_reach_different_spines():
    """3 tiers, 2 pods of 4 SU (tiers: 3 at 8 SU): move one leaf's uplinks to the other pod's spines."""
    r = build(servers={"count": 256}, compute_fabric={"tiers": 3})
    rows = [Row(*x) for x in r.link_rows()]
    rails = rail_map(CATALOG.servers["dgx-h100"])
    assert _check(rows, rails, servers=256) == []
    names = {d.name: d for d in r.devices}
    leaf = "CF-SU01-L01"
    pod2 = sorted(n for n, d in names.items() if d.role == "spine" and d.pod == 2)
    moved = [
        Row(**{**x.__dict__, "b_device": pod2[i % len(pod2)], "b_port": f"x{i}"})
        if x.tier == "leaf-spine" and x.a_device == leaf
        else x
        for i, x in enumerate(rows)
    ]
    assert any("different spine sets" in p for p in _check(moved, rails, servers=256))


def test_the_checker_catches_an_oversubscribed_leaf(small):
    rows, rails = small
    assert _check(rows, rails) == []
    problems = check_links(rows, rail_of_port=rails, servers=64, leaf_ratio=Fraction(1, 2))
    assert any("exceeds" in p for p in problems)


# --- determinism ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        {
            "servers": {"count": 127},
            "compute_fabric": {"reserved_node_slots": 1, "fabric_managers": 4},
            "storage_fabric": {"enabled": True, "appliances": 8},
            "inband": {"enabled": True, "management_servers": 4},
            "oob": {"enabled": True},
            "layout": {"network_racks": "middle-of-row", "racks_per_row": 6},
        },
        {"servers": {"count": 600}, "compute_fabric": {"scalable_unit": "auto", "oversubscription": "5:3"}},
        {
            "servers": {"model": "dgx-b300", "count": 130},
            "compute_fabric": {"technology": "ethernet", "switch": "sn5600", "planes": 2, "scalable_unit": "auto"},
        },
    ],
    ids=["4su-all-networks", "600-5to3", "b300-2-planes"],
)
def test_the_same_spec_gives_the_same_design_twice(data):
    first, second = build(spec(**data)), build(spec(**data))
    assert list(first.link_rows()) == list(second.link_rows())
    assert first.summary == second.summary
    assert first.devices == second.devices and first.racks == second.racks and first.places == second.places


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_specs())
def test_the_normalized_spec_gives_the_same_design_as_the_original(data):
    """Parsing is idempotent end to end: the stored (normalized) spec rebuilds the identical design."""
    try:
        first = build(data)
    except SpecError:
        return
    again = build(parse_spec(data).to_dict())
    assert list(first.link_rows()) == list(again.link_rows())
    assert first.summary == again.summary
