"""Floor plan (servers per rack, rack ids, rows) and the run-length model, checked by hand.

Run-length model (engine/runlength.py docstring, optics-and-cabling.md F, heuristic):
    between racks: (top - h_a) + (top - h_b) + 2 x tray_drop + |dx| + |dy| + 2 x slack
    in one rack:   |h_a - h_b| + in_rack_allowance + 2 x slack
with h = port height = (U - 1 + height_in_U / 2) x 44.45 mm and top = rack_units x 44.45 mm.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

import pytest

from engine.errors import SpecError
from engine.placement import row_name, servers_per_rack
from engine.runlength import device_geometry, measure_runs
from engine.spec import parse_spec
from tests.engine.conftest import build, catalog_no_media, spec

U = 0.04445  # one rack unit in metres: EIA-310, 1.75 in (written out here, not imported from the engine)


def per_rack(reserved_u: int = 0, model: str = "dgx-h100", **layout) -> int:
    s = parse_spec(spec(layout=layout, servers={"model": model}))
    return servers_per_rack(s.layout, catalog_no_media().servers[model], reserved_u)


# --- servers per rack ----------------------------------------------------------------------------


def test_it_uses_the_models_default_per_rack():
    assert per_rack() == 4  # DGX H100: "racks hold 1, 2 or 4 DGX" (A.2); catalog default 4
    assert len([r for r in build().racks if r.kind == "server"]) == 128 // 4


def test_it_limits_servers_per_rack_by_space():
    assert per_rack(rack_units=30) == 3  # 30 // 8U
    assert per_rack(rack_units=32) == 4
    assert per_rack(reserved_u=1, rack_units=32) == 3  # the OOB switch takes the top unit: 31 // 8


def test_it_reserves_the_top_unit_for_oob_when_oob_is_built():
    with_oob = build(layout={"rack_units": 32}, oob={"enabled": True})
    without = build(layout={"rack_units": 32})
    count = lambda r: Counter(r.places[d.idx].rack for d in r.devices if d.role == "server")  # noqa: E731
    assert set(count(without).values()) == {4}
    assert max(count(with_oob).values()) == 3


def test_it_limits_servers_per_rack_by_power():
    assert per_rack(rack_power_kw=25) == 2  # floor(25 / 10.2 kW)
    assert per_rack(rack_power_kw=40.8) == 4  # exactly 4 x 10.2
    assert per_rack(rack_power_kw=100) == 4  # never above the model default


def test_it_takes_an_explicit_servers_per_rack_that_fits():
    assert per_rack(servers_per_rack=2) == 2
    assert per_rack(servers_per_rack=6) == 6  # 6 x 8U = 48U


@pytest.mark.parametrize(
    "model, reserved_u, layout, path",
    [
        ("dgx-h100", 0, {"servers_per_rack": 7}, "layout.servers_per_rack"),  # 7 x 8U = 56U > 48U
        ("dgx-h100", 0, {"rack_power_kw": 5}, "layout.rack_power_kw"),  # not one 10.2 kW DGX
        ("dgx-b200", 1, {"rack_units": 10}, "layout.rack_units"),  # 10U DGX, 9U left under the OOB switch
    ],
)
def test_it_names_the_layout_field_when_no_server_fits(model, reserved_u, layout, path):
    with pytest.raises(SpecError) as exc:
        per_rack(reserved_u, model, **layout)
    assert [e.path for e in exc.value.errors] == [path]


def test_a_rack_scale_system_is_one_per_rack():
    assert per_rack(model="gb200-nvl72") == 1
    assert per_rack(model="gb200-nvl72", rack_power_kw=10) == 1


def test_a_power_budget_of_exactly_n_servers_fits_n():
    assert per_rack(model="dgx-b200", rack_power_kw=42.9) == 3


# --- rack ids and rows ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "i, name",
    [(0, "A"), (1, "B"), (25, "Z"), (26, "AA"), (27, "AB"), (51, "AZ"), (52, "BA"), (701, "ZZ"), (702, "AAA")],
)
def test_row_names_count_like_spreadsheet_columns(i, name):
    assert row_name(i) == name


def test_rack_ids_name_site_row_and_position():
    r = build(layout={"site": "HALL2"})
    ids = [rk.id for rk in r.racks]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"HALL2\.[A-Z]+\d{2}", i) for i in ids)
    by_row = defaultdict(list)
    for rk in r.racks:
        assert rk.id == f"HALL2.{rk.row_name}{rk.position:02d}"
        assert rk.row_name == row_name(rk.row)
        by_row[rk.row].append(rk.position)
    assert all(p == list(range(1, len(p) + 1)) for p in by_row.values())
    # Row A holds the spines and services of a 2-tier fabric; then one row per SU: 8 server racks + 1 network.
    assert [rk.kind for rk in r.racks if rk.row_name == "B"] == ["server"] * 8 + ["network"]


def test_racks_per_row_wraps_rows():
    r = build(layout={"racks_per_row": 5})
    assert max(rk.position for rk in r.racks) == 5
    for rk in r.racks:
        assert rk.x_m == pytest.approx((rk.position - 0.5) * 0.6)  # default 600 mm racks
        assert rk.y_m == pytest.approx(rk.row * 2.4)  # 1200 mm deep + 1200 mm aisle


# --- run lengths, by hand ----------------------------------------------------------------------------

TINY = dict(
    servers={"count": 8},
    compute_fabric={"scalable_unit": 8},
    layout={
        "servers_per_rack": 4,
        "rack_units": 42,
        "tray_drop_m": 0.3,
        "slack_per_end_m": 0.4,
        "in_rack_allowance_m": 0.7,
    },
    oob={"enabled": True},
)


@pytest.fixture(scope="module")
def tiny():
    """8 DGX H100 in one 8-server SU: 8 leaves (8 down / 8 up), 1 spine. 600 mm racks, 1200 mm deep + aisle.

    row A  (y = 0)     [A01: CF-S01 @U1]
    row B  (y = 2.4 m) [B01: N01-N04 @U1,9,17,25] [B02: N05-N08] [B03: L01-L08 @U1..8]
                        x = 0.3 m                  x = 0.9 m      x = 1.5 m
    every rack: OOB switch at U42 (top), 2 PDUs (0U)
    """
    r = build(**TINY)
    rows = list(r.link_rows())
    return r, rows


def _row(rows, a, a_port=None, tier=None):
    return next(x for x in rows if x[5] == a and (a_port is None or x[6] == a_port) and (tier is None or x[3] == tier))


def test_node_to_leaf_across_racks_in_a_row(tiny):
    _, rows = tiny
    row = _row(rows, "DGX-SU01-N01", "OSFP1P1")
    assert (row[7], row[8], row[9], row[11], row[12]) == ("DC1.B01", 1, "CF-SU01-L01", "DC1.B03", 1)
    top = 42 * U
    h_server = (1 - 1 + 8 / 2) * U  # 8U server at U1: ports at mid-height
    h_leaf = (1 - 1 + 1 / 2) * U  # 1U leaf at U1
    expected = (top - h_server) + (top - h_leaf) + 2 * 0.3 + abs(0.3 - 1.5) + 0 + 2 * 0.4
    assert expected == pytest.approx(6.133775)
    assert row[13] == round(expected, 2) == 6.13


def test_leaf_to_spine_across_rows(tiny):
    _, rows = tiny
    row = _row(rows, "CF-SU01-L01", tier="leaf-spine")
    assert (row[7], row[11]) == ("DC1.B03", "DC1.A01")
    top, h = 42 * U, U / 2
    expected = 2 * (top - h) + 2 * 0.3 + abs(1.5 - 0.3) + abs(2.4 - 0.0) + 2 * 0.4
    assert row[13] == round(expected, 2) == 8.69


def test_inside_one_rack_it_is_the_vertical_gap_plus_allowance_and_slack(tiny):
    _, rows = tiny
    row = _row(rows, "DGX-SU01-N01", "bmc", "device-oob")
    assert row[7] == row[11] == "DC1.B01" and row[12] == 42
    h_server, h_oob = 4 * U, (42 - 1 + 0.5) * U
    expected = abs(h_oob - h_server) + 0.7 + 2 * 0.4
    assert row[13] == round(expected, 2) == 3.17


def test_servers_higher_in_the_rack_have_shorter_runs_to_the_tray(tiny):
    _, rows = tiny
    lengths = [_row(rows, f"DGX-SU01-N0{n}", "OSFP1P1")[13] for n in (1, 2, 3, 4)]
    assert lengths == sorted(lengths, reverse=True)
    assert lengths[0] - lengths[1] == pytest.approx(8 * U, abs=0.011)  # one 8U server higher


def test_a_zero_u_pdu_port_sits_at_floor_level(tiny):
    _, rows = tiny
    row = _row(rows, "PDU-B01-1", "net", "device-oob")
    assert row[7] == row[11]
    expected = abs((42 - 1 + 0.5) * U - 0.0) + 0.7 + 2 * 0.4
    assert row[13] == round(expected, 2)


# --- network rack position -----------------------------------------------------------------------


def _row_b(result):
    return [rk for rk in result.racks if rk.row_name == "B"]


def test_end_of_row_puts_the_network_rack_last():
    kinds = [rk.kind for rk in _row_b(build())]
    assert kinds == ["server"] * 8 + ["network"]


def test_middle_of_row_puts_the_network_rack_in_the_middle():
    kinds = [rk.kind for rk in _row_b(build(layout={"network_racks": "middle-of-row"}))]
    assert kinds == ["server"] * 4 + ["network"] + ["server"] * 4


def test_middle_of_row_shortens_the_longest_node_leaf_run():
    def longest(result):
        return max(length for link, length in zip(result.links, result.lengths_m) if link.tier == "node-leaf")

    end, middle = build(), build(layout={"network_racks": "middle-of-row"})
    # The farthest server rack moves from 8 racks away to 4: 4 x 0.6 m shorter.
    assert longest(end) - longest(middle) == pytest.approx(4 * 0.6, abs=0.011)


# --- every device sits inside a rack without overlap ------------------------------------------------


def _collisions(result, rack_units: int) -> list:
    occupied = defaultdict(list)
    bad = []
    for d, p in zip(result.devices, result.places):
        if p is None:
            bad.append(("unplaced", d.name))
            continue
        if d.rack_units == 0:  # 0U PDUs mount at the rear
            continue
        lo, hi = p.u, p.u + d.rack_units - 1
        if lo < 1 or hi > rack_units:
            bad.append(("outside the rack", d.name, lo, hi))
        bad += [("overlap", d.name, other) for a, b, other in occupied[p.rack] if not (hi < a or lo > b)]
        occupied[p.rack].append((lo, hi, d.name))
    return bad


@pytest.mark.parametrize(
    "overrides",
    [
        {},
        {
            "oob": {"enabled": True},
            "storage_fabric": {"enabled": True, "appliances": 8},
            "inband": {"enabled": True, "management_servers": 4},
        },
        {
            "servers": {"count": 600},
            "compute_fabric": {"scalable_unit": "auto"},
            "oob": {"enabled": True},
            "layout": {"rack_units": 42, "network_racks": "middle-of-row"},
        },
    ],
    ids=["minimal", "all-networks", "3-tier-42U"],
)
def test_every_device_fits_its_rack_without_overlap(overrides):
    result = build(**overrides)
    assert _collisions(result, result.spec.layout.rack_units) == []


def test_a_rack_scale_system_leaves_room_for_the_oob_switch():
    result = build(
        servers={"model": "gb200-nvl72", "count": 8}, compute_fabric={"scalable_unit": "auto"}, oob={"enabled": True}
    )
    assert _collisions(result, 48) == []


def test_a_rack_scale_system_taller_than_the_rack_is_rejected():
    with pytest.raises(SpecError) as exc:
        build(
            servers={"model": "gb200-nvl72", "count": 8},
            compute_fabric={"scalable_unit": "auto"},
            layout={"rack_units": 42},
        )
    assert [e.path for e in exc.value.errors] == ["layout.rack_units"]


def test_it_caps_pdus_per_rack_so_one_oob_switch_serves_a_full_server_rack():
    """44 PDUs would need a second OOB switch where servers stand; the spec caps PDUs at 8."""
    with pytest.raises(SpecError) as exc:
        build(
            servers={"count": 10},
            compute_fabric={"scalable_unit": "auto"},
            layout={"rack_units": 41, "servers_per_rack": 5},
            oob={"enabled": True, "pdus_per_rack": 44},
        )
    assert [e.path for e in exc.value.errors] == ["oob.pdus_per_rack"]


def test_eight_pdus_and_five_servers_share_one_oob_switch_without_collisions():
    result = build(
        servers={"count": 10},
        compute_fabric={"scalable_unit": "auto"},
        layout={"rack_units": 41, "servers_per_rack": 5},
        oob={"enabled": True, "pdus_per_rack": 8},
    )
    assert _collisions(result, 41) == []


def test_every_link_measured_from_gathered_geometry_gets_the_same_lengths(tiny):
    """measure_runs over every link through the A and B devices' gathered geometry (the physical stage's link
    columns) gives the same floats as its loop over the links, in one rack and between racks."""
    r, _ = tiny
    links, layout = list(r.links), r.spec.layout
    geometry = device_geometry(list(r.devices), list(r.places), list(r.racks), layout)
    gathers = (lambda t: tuple(t[lk.a] for lk in links), lambda t: tuple(t[lk.b] for lk in links))
    looped: list[float] = []
    gathered: list[float] = [1.0]
    measure_runs(links, geometry, layout, None, list(r.racks), None, looped)
    measure_runs(links, geometry, layout, None, list(r.racks), None, gathered, gathers)
    assert gathered == looped == list(r.lengths_m)
    assert [x.hex() for x in gathered] == [x.hex() for x in looped]
