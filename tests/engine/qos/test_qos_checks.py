"""Every consistency check has a case that trips it; the default policy on the small design trips none
except the unpublished-buffer notice."""

from __future__ import annotations

import pytest
from _qos_fixtures import host, ib_switches, leaf, policy, replace, spine

from engine.qos import HostInfo, QosPolicy, check_consistency
from engine.qos.checks import switch_headroom_bytes


def codes(p, switches=None, hosts=None) -> list[str]:
    switches = switches if switches is not None else [leaf("nvue"), spine("nvue")]
    return [w.code for w in check_consistency(p, switches, hosts if hosts is not None else host())]


def test_defaults_are_consistent():
    warnings = check_consistency(policy(), [leaf("nvue"), spine("nvue"), leaf("eos"), leaf("sonic")], host())
    assert [w.code for w in warnings] == ["buffer-unknown"]
    assert "unpublished" in warnings[0].message and warnings[0].where == "sn5600"


def test_hosts_marking_24_while_switches_map_26():
    w = check_consistency(policy(host={"roce_dscp": 24}), [leaf("nvue")], host())
    hit = [x for x in w if x.code == "host-dscp-not-lossless"]
    assert len(hit) == 1 and "DSCP 24" in hit[0].message and "priority 0" in hit[0].message
    assert hit[0].where == "hosts vs nvue switches"


def test_sonic_stock_map_left_in_place():
    p = policy(sonic={"replace_stock_map": False})
    assert "sonic-stock-map" in codes(p, [leaf("sonic")])
    # with the stock map kept, a host marking DSCP 24 lands in stock TC1 (lossy) on SONiC
    w = check_consistency(policy(sonic={"replace_stock_map": False}, host={"roce_dscp": 24}), [leaf("sonic")], host())
    assert any(x.code == "host-dscp-not-lossless" and "priority 1" in x.message for x in w)


@pytest.mark.parametrize(
    "qos, code",
    [
        ({"host": {"cnp_dscp": 46}}, "host-cnp-dscp"),
        ({"pfc": {"priorities": [3, 4]}}, "pfc-priorities"),
        ({"pfc": {"priorities": [4]}, "host": {"pfc_priorities": [4]}}, "pfc-priorities"),
        ({"host": {"pfc_priorities": [4]}}, "host-pfc-mismatch"),
        ({"control": {"priority": 3}}, "class-on-lossless-priority"),
        ({"pfc": {"watchdog": False}}, "pfc-watchdog-off"),
        ({"cnp": {"scheduling": "dwrr", "weight": 10}, "default": {"weight": 40}}, "cnp-not-strict"),
        ({"roce": {"weight": 60}}, "ets-weights"),
        ({"ecn": {"classes": ["default"]}}, "ecn-not-on-roce"),
        ({"ecn": {"min_bytes": 2_000_000}}, "ecn-order"),
        ({"ecn": {"min_bytes": 10_000}}, "ecn-too-low"),
        ({"ecn": {"min_bytes": 20_000}}, "ecn-too-shallow"),  # 0.4 us at 400G, 0.2 us at 800G
        ({"ecn": {"max_bytes": 20_000_000}}, "ecn-too-deep"),  # 400 us at 400G
        ({"mode": "lossy", "ecn": {"classes": []}}, "lossy-no-cc"),
        ({"mtu": {"host": 1500}}, "roce-mtu"),
    ],
)
def test_each_check_trips(qos, code):
    assert code in codes(policy(**qos))


def test_thresholds_sane_for_the_speed():
    """3 MB max is 240 us at 100G (the Cisco template ceiling) but 60 us at 400G: fine at both."""
    slow = HostInfo("connectx-7", ("eth2",), 100)
    p = policy(ecn={"max_bytes": 3_000_000})
    assert "ecn-too-deep" not in codes(p, [leaf("nvue")], slow)
    assert "ecn-too-deep" in codes(policy(ecn={"max_bytes": 3_100_000}), [], slow)


def test_pfc_only_skips_ecn_checks():
    assert "ecn-too-low" not in codes(policy(mode="pfc-only", ecn={"min_bytes": 10_000}))


def test_mtu_against_eos_cap():
    assert "mtu" in codes(policy(mtu={"host": 9200}), [leaf("eos")])
    assert "mtu" not in codes(policy(mtu={"host": 9196}), [leaf("eos")])


def test_headroom_against_buffer():
    """The leaf's four 400G ports need, per 802.1Qbb (test_qos_headroom):
      3.0 m 134,400 B; 2.5 m (cable 10,000 BT -> 1,073,200 BT) 134,150 B; 30 m 147,900 B;
      42.7 m (cable 170,800 BT -> 1,234,000 BT) 154,250 B; total 570,700 B for one lossless priority.
    A 0.4 MB buffer cannot hold it; half of a 2 MB buffer (1 MB) can."""
    assert switch_headroom_bytes(policy(), leaf("nvue")) == 570_700
    small = leaf("nvue", buffer_mb=0.4)
    w = [x for x in check_consistency(policy(), [small], host()) if x.code == "headroom-exceeds-buffer"]
    assert len(w) == 1 and w[0].where == "CF-SU01-L01" and "1 more than the whole buffer" in w[0].message
    assert "headroom-exceeds-buffer" not in codes(policy(), [leaf("nvue", buffer_mb=2.0)])
    assert "ecn-above-buffer" in codes(policy(), [leaf("nvue", buffer_mb=1.0)])
    assert "buffer-unknown" not in codes(policy(), [leaf("nvue", buffer_mb=64.0)])


def test_infiniband_checks():
    ib = QosPolicy.defaults("infiniband")
    assert check_consistency(ib, ib_switches(), None) == []
    forced = QosPolicy.from_dict({"infiniband": {"sharp": "on"}}, "infiniband")
    assert [w.code for w in check_consistency(forced, ib_switches(sharp=False), None)] == ["sharp-unsupported"]
    minhop = QosPolicy.from_dict({"infiniband": {"routing_engine": "minhop"}}, "infiniband")
    assert "sharp-routing" in [w.code for w in check_consistency(minhop, ib_switches(), None)]
    vls = QosPolicy.from_dict({"infiniband": {"sl2vl": [0, 3] + [0] * 14}}, "infiniband")
    assert "sl2vl-range" in [w.code for w in check_consistency(vls, ib_switches(), None)]
    flat = QosPolicy.from_dict({"infiniband": {"sl2vl": [0] * 16}}, "infiniband")
    assert "sl2vl-not-separated" in [w.code for w in check_consistency(flat, ib_switches(), None)]


def test_aggregated_per_model():
    many = [replace(leaf("nvue"), name=f"CF-L{i:03d}") for i in range(50)]
    assert codes(policy(), many).count("buffer-unknown") == 1


# --- rules a save refuses (engine.qos.checks.policy_save_errors) ----------------------------------------------


def test_dwrr_weights_warn_only_where_they_are_percentages():
    """NVUE and EOS read a DWRR weight as a percent of the port; SONiC's weights are relative, so 60 + 50 is a
    valid SONiC schedule (60:50) and no warning."""
    p = policy(roce={"weight": 60})
    assert "ets-weights" in codes(p, [leaf("eos")])
    assert "ets-weights" not in codes(p, [leaf("sonic")])


def test_a_save_refuses_ecn_min_not_below_max_and_percent_weights_not_adding_up():
    from engine.qos.checks import policy_save_errors

    assert policy_save_errors(policy(), ["nvue"]) == []
    errors = dict(policy_save_errors(policy(ecn={"min_bytes": 2_000_000}), ["sonic"]))
    assert (
        list(errors) == ["qos.ecn.min_bytes"] and "2,000,000 B is not below 1,500,000 B" in errors["qos.ecn.min_bytes"]
    )
    weights = dict(policy_save_errors(policy(roce={"weight": 80}), ["nvue", "eos"]))
    assert set(weights) == {"qos.roce.weight", "qos.default.weight"}
    assert (
        "percentages on EOS and NVUE and must add up to 100; these add up to 130 (roce 80, default 50)"
        in weights["qos.roce.weight"]
    )
    assert policy_save_errors(policy(roce={"weight": 80}), ["sonic"]) == []


def test_a_dscp_clash_names_the_class_whose_dscps_changed():
    from engine.errors import SpecError

    with pytest.raises(SpecError) as roce_edited:
        QosPolicy.from_dict({"roce": {"dscp": [26, 48]}}, "ethernet")
    with pytest.raises(SpecError) as cnp_edited:
        QosPolicy.from_dict({"cnp": {"dscp": [26]}}, "ethernet")
    assert [(e.path, e.message) for e in roce_edited.value.errors] == [
        ("qos.roce.dscp", "DSCP 48 is already in the cnp class")
    ]
    assert [(e.path, e.message) for e in cnp_edited.value.errors] == [
        ("qos.cnp.dscp", "DSCP 26 is already in the roce class")
    ]
