"""A utilization snapshot measured against the plan.

The design: 128 DGX H100 in 4 SUs, 2 tiers (tests/engine/conftest.py MINIMAL):

    SU1 .. SU4: 8 leaves each (rail 1 .. 8)      32 leaves x 32 uplinks
          \\   every leaf: 2 links to each of 16 spines   /
                       CF-S01 .. CF-S16

The snapshot: every leaf uplink carries 50 % of 400G, except that every uplink to CF-S05 carries 100 %
(one hot spine) and rail 3's leaves send nothing (one idle rail). By hand, over the 1,024 leaf uplinks:

    rail 3:   0 %                                    (4 leaves x 32 uplinks, all idle)
    any other rail: (30 x 50 % + 2 x 100 %) / 32 = 53.125 %
    CF-S05:   (28 leaves x 2 x 100 % + 4 leaves x 2 x 0 %) / 64 = 87.5 %
    any other spine: (28 x 2 x 50 %) / 64 = 43.75 %
    all:      28 leaves x (15 + 2) port-units / 1,024 = 476 / 1,024 = 46.484375 %
"""

from __future__ import annotations

import pytest

from engine.monitoring.settings import MonitoringSettings
from engine.monitoring.utilization import (
    SnapshotError,
    analyze_utilization,
    parse_counters,
    port_index,
    utilization_report,
)
from tests.engine.conftest import build

INTERVAL_S = 10
BYTES_AT_FULL = 400e9 / 8 * INTERVAL_S  # a 400G port at 100 % for the interval


@pytest.fixture(scope="module")
def design():
    return build()


def _snapshot(design, hot_spine="CF-S05", idle_rail=3):
    devs = design.devices
    before, after = [], []
    for lk in design.links:
        if lk.tier != "leaf-spine":
            continue
        leaf, spine = devs[lk.a], devs[lk.b]
        rail = int(leaf.name.rsplit("-L", 1)[1])
        util = 0.0 if rail == idle_rail else 1.0 if spine.name == hot_spine else 0.5
        before.append({"device": leaf.name, "port": lk.a_port, "tx_bytes": 1e12})
        after.append({"device": leaf.name, "port": lk.a_port, "tx_bytes": 1e12 + util * BYTES_AT_FULL})
    return {"interval_s": INTERVAL_S, "before": before, "after": after}


def _row(report, dim, **match):
    rows = [r for r in report["groups"][dim] if all(r.get(k) == v for k, v in match.items())]
    assert len(rows) == 1, rows
    return rows[0]


def test_a_hot_spine_and_an_idle_rail_are_both_named_with_totals_as_calculated_by_hand(design):
    report = utilization_report(design, _snapshot(design), kind="counters")
    assert report["totals"]["ports"] == 1024
    assert report["totals"]["average"] == pytest.approx(476 / 1024)
    assert report["totals"]["peak"] == pytest.approx(1.0)
    assert _row(report, "rail", rail="3", tier="leaf-spine")["average"] == pytest.approx(0.0)
    assert _row(report, "rail", rail="4", tier="leaf-spine")["average"] == pytest.approx(0.53125)
    assert _row(report, "spine", spine="CF-S05")["average"] == pytest.approx(0.875)
    assert _row(report, "spine", spine="CF-S06")["average"] == pytest.approx(0.4375)
    assert _row(report, "tier", tier="leaf-spine")["average"] == pytest.approx(476 / 1024)
    named = {(i["dimension"], i["name"], i["kind"]) for i in report["imbalance"]}
    assert named == {("rail", "3", "idle"), ("spine", "CF-S05", "hot")}
    spine = next(i for i in report["imbalance"] if i["dimension"] == "spine")
    assert spine["ratio"] == pytest.approx(0.875 / 0.4375)
    assert any("ECMP" in c for c in spine["likely_causes"])
    rail = next(i for i in report["imbalance"] if i["dimension"] == "rail")
    assert any("placement" in c for c in rail["likely_causes"])
    assert any("degraded" in c for c in rail["likely_causes"])


def test_a_balanced_snapshot_names_no_imbalance(design):
    report = utilization_report(design, _snapshot(design, hot_spine="none", idle_rail=0), kind="counters")
    assert report["imbalance"] == []
    assert report["totals"]["average"] == pytest.approx(0.5)
    assert _row(report, "tier", tier="leaf-spine")["average_status"] == "within target"


def test_groups_above_the_targets_say_so(design):
    report = utilization_report(design, _snapshot(design), kind="counters")
    s05 = _row(report, "spine", spine="CF-S05")
    assert s05["average_status"] == "above target" and s05["peak_status"] == "above target"


def test_a_counter_that_went_backwards_is_a_reset_not_a_negative_rate(design):
    snap = _snapshot(design)
    snap["after"][0]["tx_bytes"] = 5.0
    idx = port_index(design)
    series, notes = parse_counters(snap, idx)
    assert len(series) == 1023
    assert any("counter reset" in n and snap["after"][0]["device"] in n for n in notes)


def test_ports_are_found_by_interface_name_too(design):
    """An InfiniBand switch reports port numbers: leaf uplink 17/1 (cage 17, port 1) is IB port 2(17-1)+1 = 33."""
    idx = port_index(design)
    assert idx[("CF-SU01-L01", "33")] is idx[("CF-SU01-L01", "17/1")]
    assert idx[("CF-SU01-L01", "33")].labels["tier"] == "leaf-spine"


def test_an_unusable_snapshot_is_refused_naming_the_bad_entries(design):
    with pytest.raises(SnapshotError) as exc:
        parse_counters(
            {"interval_s": 10, "before": [{"device": "NOPE", "port": "1", "tx_bytes": 1}], "after": []},
            port_index(design),
        )
    assert ("before[0]", "no port '1' on a device 'NOPE' in this design") in exc.value.errors
    with pytest.raises(SnapshotError, match="interval_s"):
        parse_counters({"interval_s": 0, "before": [], "after": []}, {})


def test_a_prometheus_range_query_gives_each_port_its_average_and_peak(design):
    data = {
        "status": "success",
        "data": {
            "resultType": "matrix",
            "result": [
                {
                    "metric": {
                        "__name__": "fabric:port_utilization:ratio_rate1m",
                        "fabric_device": "CF-SU01-L01",
                        "device": "33",
                    },
                    "values": [[0, "0.2"], [60, "0.6"], [120, "1.0"]],
                },
                {
                    "metric": {"network": "compute", "tier": "leaf-spine", "rail": "2", "plane": "0", "su": "1"},
                    "values": [[0, "0.1"], [60, "0.1"], [120, "0.1"]],
                },
            ],
        },
    }
    report = utilization_report(design, data, kind="prometheus")
    tier = _row(report, "tier", tier="leaf-spine")
    assert tier["ports"] == 2
    assert tier["average"] == pytest.approx((0.6 + 0.1) / 2)
    assert tier["peak"] == pytest.approx(1.0)
    assert _row(report, "rail", rail="1")["peak"] == pytest.approx(1.0)


def test_a_failed_query_is_refused(design):
    with pytest.raises(SnapshotError, match="failed"):
        utilization_report(design, {"status": "error", "data": {}}, kind="prometheus")


def test_the_measurement_is_set_against_the_traffic_analysis_prediction(design):
    snap = _snapshot(design, hot_spine="none", idle_rail=0)
    summary = {
        "workloads": {"llama": {"totals": {"link_load": {"nic": 0.3, "leaf_uplinks": 0.4, "spine_uplinks": None}}}}
    }
    idx = port_index(design)
    series, _ = parse_counters(snap, idx)
    report = analyze_utilization(series, settings=MonitoringSettings(), summary=summary)
    row = _row(report, "tier", tier="leaf-spine")
    assert row["predicted"] == {"llama": {"load": 0.4, "difference": pytest.approx(0.1)}}


def test_a_link_that_failed_commissioning_is_named_first_among_the_idle_rails_causes(design):
    devs = design.devices
    bad = next(
        lk for lk in design.links if lk.tier == "leaf-spine" and devs[lk.a].name.endswith("-L03")
    )  # an uplink of a rail-3 leaf
    failing = [
        {
            "link_id": f"L{bad.id:06d}",
            "a_device": devs[bad.a].name,
            "a_port": bad.a_port,
            "b_device": devs[bad.b].name,
            "b_port": bad.b_port,
            "worst_db": 4.2,
            "limit_db": 3.0,
        }
    ]
    report = utilization_report(design, _snapshot(design), kind="counters", failing_links=failing)
    rail = next(i for i in report["imbalance"] if i["dimension"] == "rail")
    assert rail["likely_causes"][0].startswith("commissioning: 1 link(s) here failed their loss test")
    assert rail["degraded_links"] == [
        f"L{bad.id:06d} {devs[bad.a].name} {bad.a_port} - {devs[bad.b].name} {bad.b_port}, worst 4.20 dB against 3.00 dB"
    ]
    spine = next(i for i in report["imbalance"] if i["dimension"] == "spine")
    assert "degraded_links" not in spine or devs[bad.b].name == "CF-S05"
