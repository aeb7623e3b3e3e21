"""Prometheus rules generated from a design: promtool accepts them, and its rule unit tests fire the utilization,
loss and PFC alerts on synthetic counters and stay silent below the thresholds."""

from __future__ import annotations

import pytest
import yaml

from engine.monitoring.dashboard import dashboard, dashboard_expressions
from engine.monitoring.ports import port_groups, targets
from engine.monitoring.rules import iter_rules_yaml, rules_document
from engine.monitoring.settings import MonitoringSettings
from tests.engine.conftest import DELETE, build

from .promtool import check_expressions, needs_promtool, promtool

ROCE = {
    "servers": {"model": "hgx-8gpu", "count": 32},
    "compute_fabric": {"technology": "ethernet", "switch": "sn5600", "scalable_unit": DELETE},
    # a 10-minute average window, so a 20-minute synthetic series has a steady average to judge
    "monitoring": {"average_window": "10m"},
}


@pytest.fixture(scope="module")
def roce():
    return build(**ROCE)


@pytest.fixture(scope="module")
def superpod():
    return build()


def _write(result, tmp_path, name="rules.yaml"):
    path = tmp_path / name
    path.write_text("".join(iter_rules_yaml(result)))
    return path


@needs_promtool
@pytest.mark.parametrize(
    "overrides",
    [
        {},  # InfiniBand DGX H100, 4 SU, 2 tiers
        ROCE,
        {"servers": {"count": 1024}, "compute_fabric": {"tiers": 3, "scalable_unit": 32}},
        {"storage_fabric": {"enabled": True}, "inband": {"enabled": True}},
    ],
    ids=["ib-2-tier", "roce", "ib-3-tier", "storage-inband"],
)
def test_promtool_accepts_the_generated_rules(overrides, tmp_path):
    path = _write(build(**overrides), tmp_path)
    out = promtool("check", "rules", str(path))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "SUCCESS" in out.stdout


def test_every_port_rule_names_its_tier_and_direction(superpod):
    doc, _ = rules_document(superpod)
    ports = doc["groups"][0]["rules"]
    assert ports and all("tier" in r["labels"] for r in ports)
    util = [r for r in ports if r["record"].startswith("fabric:port_utilization:")]
    assert util and all("direction" in r["labels"] for r in util)
    tiers = {r["labels"].get("tier") for r in ports}
    assert {"node-leaf", "leaf-spine"} <= tiers


def test_a_leaf_uplink_rule_names_its_spine_and_each_link_is_recorded_at_one_end(superpod):
    groups, _ = port_groups(superpod)
    leaf_up = [g for g in groups if dict(g.selector)["fabric_role"] == "leaf" and ("tier", "leaf-spine") in g.labels]
    assert leaf_up and all(g.lower and "spine" in dict(g.labels) for g in leaf_up)
    # the rail x spine view needs every (rail, spine) pair: the leaf's target gives the rail, the rule the spine
    spines = {dict(g.labels)["spine"] for g in leaf_up}
    assert len(spines) == sum(1 for d in superpod.devices if d.role == "spine")
    # a leaf-spine link is recorded at its leaf (the lower end), a server-leaf link at its server: no rule
    # selects a spine port in a 2-tier design, nor a leaf's server-facing ports
    assert not [g for g in groups if dict(g.selector)["fabric_role"] == "spine"]
    assert not [g for g in groups if dict(g.selector)["fabric_role"] == "leaf" and ("tier", "node-leaf") in g.labels]


def test_the_targets_give_leaves_their_rail_and_su(superpod):
    t = {g["labels"]["fabric_device"]: g["labels"] for g in targets(superpod, 9100)}
    assert t["CF-SU02-L03"]["rail"] == "3" and t["CF-SU02-L03"]["su"] == "2"
    assert t["DGX-SU01-N01"] == {
        "fabric_device": "DGX-SU01-N01",
        "fabric_role": "server",
        "fabric_model": "dgx-h100",
        "su": "1",
    }


def test_an_infiniband_design_has_no_pfc_alert_and_says_which_checks_it_lacks(superpod):
    doc, notes = rules_document(superpod)
    alerts = {a["alert"] for a in doc["groups"][2]["rules"]}
    assert "FabricPfcPause" not in alerts and "FabricPacketLoss" in alerts and "FabricSymbolErrors" in alerts
    assert any("infiniband: pfc_pause_us" in n for n in notes)


def test_the_rules_file_says_that_microbursts_are_invisible(superpod):
    head = "".join(iter_rules_yaml(superpod)).split("groups:")[0]
    assert "microbursts are invisible" in head


def test_a_metric_mapping_renames_the_exporter_metrics(superpod):
    s = MonitoringSettings.from_dict({"metrics": {"infiniband": {"tx_bytes": "gnmi_out_octets"}}, "port_label": "name"})
    text = "".join(iter_rules_yaml(superpod, s))
    assert "rate(gnmi_out_octets{" in text and "node_infiniband_port_data_transmitted_bytes_total" not in text
    assert "name=~`" in text


# --- promtool test rules: alerts on synthetic series -------------------------------------------------------

SPEED_BYTES = 400e9 / 8  # the RoCE design's 400G ports
STEP_S = 15


def _server_port(result):
    """Labels of the scraped port of one RoCE server-leaf link (as Prometheus sees them) and its rule labels. The
    hgx-8gpu has no netdev map in the catalog, so its links are recorded at the leaf: swp1s0 of rail 1's leaf."""
    groups, notes = port_groups(result)
    assert any(n.startswith("hgx-8gpu compute ports NIC1") for n in notes)
    target = next(t["labels"] for t in targets(result, 9100) if t["labels"]["fabric_device"] == "CF-SU01-L01")
    g = next(
        g
        for g in groups
        if set(g.selector) <= set(target.items()) and ("tier", "node-leaf") in g.labels and "swp1s0" in g.ports
    )
    series = {**target, "device": "swp1s0", "instance": "CF-SU01-L01:9100", "job": "node"}
    return series, dict(g.labels)


def _sel(labels: dict) -> str:
    return "{" + ", ".join(f'{k}="{v}"' for k, v in sorted(labels.items())) + "}"


def _counter(per_second: float, steps: int = 240) -> str:
    return f"0+{per_second * STEP_S:.6g}x{steps}"


def _unit_test(rules_path, series: dict, inputs: dict[str, str], alerts: list[tuple[str, list[dict]]]):
    return {
        "rule_files": [rules_path.name],
        "evaluation_interval": f"{STEP_S}s",
        "tests": [
            {
                "interval": f"{STEP_S}s",
                "input_series": [{"series": f"{name}{_sel(series)}", "values": v} for name, v in inputs.items()],
                "alert_rule_test": [{"eval_time": "20m", "alertname": name, "exp_alerts": exp} for name, exp in alerts],
            }
        ],
    }


def _run(roce, tmp_path, inputs, alerts):
    rules = _write(roce, tmp_path)
    series, _ = _server_port(roce)
    test = tmp_path / "test.yaml"
    test.write_text(yaml.safe_dump(_unit_test(rules, series, inputs, alerts), sort_keys=False))
    return promtool("test", "rules", test.name, cwd=tmp_path)


def _alert_labels(roce, extra: dict, severity: str) -> dict:
    series, rule_labels = _server_port(roce)
    return {**series, **rule_labels, **extra, "severity": severity}


@needs_promtool
def test_utilization_loss_and_pfc_alerts_fire_above_their_thresholds(roce, tmp_path):
    pkts = 1e6  # packets per second each way
    inputs = {
        "node_ethtool_transmitted_bytes_phy": _counter(0.97 * SPEED_BYTES),  # peak target 95 %
        "node_ethtool_received_bytes_phy": _counter(0.10 * SPEED_BYTES),
        "node_ethtool_transmitted_packets_phy": _counter(pkts),
        "node_ethtool_received_packets_phy": _counter(pkts),
        "node_ethtool_transmitted_discards_phy": _counter(0),
        "node_ethtool_received_discards_phy": _counter(2 * pkts * 3e-4),  # 0.03 % loss, target 0.01 %
        "node_ethtool_received_prio3_pause_duration": _counter(0.20e6),  # paused 20 % of the time (us/s)
        "node_ethtool_transmitted_pause_storm_error_events": "0x40 1x200",  # one storm event after 10 min
    }
    link = _alert_labels(roce, {}, "warning")  # one alert per link: no counter, no direction
    port = _alert_labels(roce, {}, "warning")
    where = "CF-SU01-L01 swp1s0 (compute node-leaf, plane 0, rail 1, SU 1)"

    def exp(labels, summary, description):
        return [
            {"exp_labels": labels, "exp_annotations": {"summary": f"{where}: {summary}", "description": description}}
        ]

    alerts = [
        (
            "FabricLinkUtilizationPeak",
            exp(
                link,
                "97% of the design speed, above the 95% peak target",
                "Peaks should stay under the target to absorb bursts (bandwidth seed article). "
                "A 1m rate cannot show sub-millisecond microbursts.",
            ),
        ),
        (
            "FabricLinkUtilizationAverage",
            exp(
                link,
                "10m average 97%, above the 80% average target",
                "A link busy above the average target for long needs capacity or a better placement.",
            ),
        ),
        (
            "FabricPacketLoss",
            exp(
                {**port, "severity": "critical"},
                "0.03% of packets dropped or errored, above 0.01%",
                "0.01 % loss can cost about 10 % of effective bandwidth through retransmissions "
                "(bandwidth seed article).",
            ),
        ),
        (
            "FabricPfcPause",
            exp(
                {**port, "priority": "3"},
                "paused by PFC 20% of the time on priority 3",
                "Sustained PFC pauses spread congestion upstream (head-of-line blocking); check ECN thresholds "
                "and DCQCN.",
            ),
        ),
        (
            "FabricPfcStorm",
            exp(
                {**port, "severity": "critical"},
                "PFC storm watchdog fired 1 time(s) in the last hour",
                "A port that keeps sending pauses (a stuck receiver) can stall the lossless class fabric-wide; "
                "the NIC watchdog stopped its pauses.",
            ),
        ),
    ]
    out = _run(roce, tmp_path, inputs, alerts)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "SUCCESS" in out.stdout


@needs_promtool
def test_the_same_alerts_stay_silent_below_their_thresholds(roce, tmp_path):
    pkts = 1e6
    inputs = {
        "node_ethtool_transmitted_bytes_phy": _counter(0.75 * SPEED_BYTES),  # under both 80 % and 95 %
        "node_ethtool_received_bytes_phy": _counter(0.10 * SPEED_BYTES),
        "node_ethtool_transmitted_packets_phy": _counter(pkts),
        "node_ethtool_received_packets_phy": _counter(pkts),
        "node_ethtool_transmitted_discards_phy": _counter(0),
        "node_ethtool_received_discards_phy": _counter(2 * pkts * 0.5e-4),  # 0.005 %
        "node_ethtool_received_prio3_pause_duration": _counter(0.01e6),  # 1 % of the time
        "node_ethtool_transmitted_pause_storm_error_events": "0x240",
    }
    names = [
        "FabricLinkUtilizationPeak",
        "FabricLinkUtilizationAverage",
        "FabricTierUtilizationPeak",
        "FabricPacketLoss",
        "FabricPfcPause",
        "FabricPfcStorm",
    ]
    out = _run(roce, tmp_path, inputs, [(n, []) for n in names])
    assert out.returncode == 0, out.stdout + out.stderr


@needs_promtool
def test_the_unit_test_harness_can_fail(roce, tmp_path):
    """The silent case above would pass vacuously if promtool ignored the expectations: give it a firing alert."""
    inputs = {"node_ethtool_transmitted_bytes_phy": _counter(0.97 * SPEED_BYTES)}
    out = _run(roce, tmp_path, inputs, [("FabricLinkUtilizationPeak", [])])
    assert out.returncode != 0


# --- the dashboard ------------------------------------------------------------------------------------------


@needs_promtool
@pytest.mark.parametrize("which", ["superpod", "roce"])
def test_every_dashboard_expression_parses_as_promql(which, request, tmp_path):
    doc = dashboard(request.getfixturevalue(which))
    exprs = dashboard_expressions(doc)
    assert len(exprs) >= 12
    out = check_expressions(exprs, tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_dashboard_reads_only_recorded_series_and_has_the_rail_spine_and_su_views(superpod):
    doc = dashboard(superpod)
    exprs = dashboard_expressions(doc)
    assert all("fabric:" in e for e in exprs)
    titles = " | ".join(p["title"] for p in doc["panels"])
    assert "Rail x spine" in titles and "Per SU" in titles
    matrix = next(p for p in doc["panels"] if p["title"].startswith("Rail x spine"))
    assert matrix["transformations"][0]["options"] == {
        "columnField": "spine",
        "rowField": "rail",
        "valueField": "Value",
    }


def test_the_hand_written_yaml_reads_back_as_the_rules_document():
    result = build(name='Rob\'s "lab" fabric: 4 SU')
    text = "".join(iter_rules_yaml(result))
    doc, _ = rules_document(result)
    assert yaml.safe_load(text) == doc
    assert doc["groups"][0]["name"] == 'Rob\'s "lab" fabric: 4 SU: ports'


PROMETHEUS_YML = """\
global: {scrape_interval: 15s, evaluation_interval: 15s}
rule_files: [prometheus-rules.yaml]
scrape_configs:
  - job_name: fabric
    file_sd_configs:
      - files: [prometheus-targets.json]
"""


@needs_promtool
@pytest.mark.parametrize("which", ["superpod", "roce"])
def test_promtool_accepts_a_prometheus_config_loading_the_rules_and_the_targets(which, request, tmp_path):
    """The scrape config docs/monitoring.md shows: promtool checks the rules and every file_sd target label."""
    from engine.monitoring.rules import iter_targets_json

    result = request.getfixturevalue(which)
    _write(result, tmp_path, "prometheus-rules.yaml")
    (tmp_path / "prometheus-targets.json").write_text("".join(iter_targets_json(result)))
    (tmp_path / "prometheus.yml").write_text(PROMETHEUS_YML)
    out = promtool("check", "config", "prometheus.yml", cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "prometheus-targets.json" not in out.stdout + out.stderr  # no complaint about a target file
