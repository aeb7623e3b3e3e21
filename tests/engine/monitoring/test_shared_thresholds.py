"""The monitoring rules and the counter flags read their error thresholds from one data file
(engine/counters/data/thresholds.yaml): change a value there and both the alert and the flag move with it."""

from __future__ import annotations

import pytest
import yaml

from engine.counters import drift_of_port, flags_of_link, load_thresholds
from engine.counters import thresholds as source
from engine.monitoring.rules import rules_document
from engine.monitoring.settings import MonitoringSettings

from .promtool import needs_promtool
from .test_rules import _alert_labels, _run, roce  # noqa: F401  (roce is a fixture)

WHERE = "CF-SU01-L01 swp1s0 (compute node-leaf, plane 0, rail 1, SU 1)"  # the hgx-8gpu has no netdev map: its links are recorded at the leaf


@pytest.fixture
def edit_source(tmp_path, monkeypatch):
    """Rewrite values in a copy of the data file and make it THE data file (the loaders' caches cleared)."""

    def edit(**values):
        data = yaml.safe_load(source.THRESHOLDS_FILE.read_text())
        for name, value in values.items():
            data[name]["value"] = value
        path = tmp_path / "thresholds.yaml"
        path.write_text(yaml.safe_dump(data))
        monkeypatch.setattr(source, "THRESHOLDS_FILE", path)
        source._data.cache_clear()
        source.load_thresholds.cache_clear()

    yield edit
    source._data.cache_clear()
    source.load_thresholds.cache_clear()


def _alert_exprs(result) -> dict[str, str]:
    # node_exporter's mlx5 counters have no uncorrectable-FEC one; name one so that alert is generated too
    metrics = {"ethernet": {"fec_uncorrectable": "node_ethtool_rx_fec_uncorrectable_blocks"}}
    doc, _ = rules_document(result, MonitoringSettings.from_dict({"metrics": metrics}))
    return {r["alert"]: r["expr"] for g in doc["groups"] for r in g["rules"] if "alert" in r}


def _flags(symbol_errors_in_an_hour: int) -> tuple[str, ...]:
    drift = drift_of_port([(0.0, {"symbol_errors": 0}), (3600.0, {"symbol_errors": symbol_errors_in_an_hour})])
    return flags_of_link(1, [("a", drift)], load_thresholds()).flags


RULE_READS = {
    # data-file name -> (alert, a value no default has, how it shows in the PromQL)
    "symbol_errors_per_hour": ("FabricSymbolErrors", 37, ">= 37"),
    "fec_uncorrectable_increment": ("FabricFecUncorrectable", 7, ">= 7"),
    "link_down_increment": ("FabricLinkDown", 5, ">= 5"),
    "flaps_per_hour": ("FabricLinkFlapping", 9, ">= 9"),
    "fec_corrected_per_hour": ("FabricFecCorrectedRising", 4321, ">= 4321 or"),
    "fec_corrected_min_per_hour": ("FabricFecCorrectedRising", 1234, ">= 1234 and"),
    "fec_corrected_rise_factor": ("FabricFecCorrectedRising", 3.5, ">= 3.5 * avg_over_time"),
}


def test_every_threshold_an_alert_reads_is_declared_in_the_data_file_with_its_rule():
    notes = source.threshold_notes()
    for name, (alert, _, _) in RULE_READS.items():
        assert alert in notes[name]["rule"], name


@pytest.mark.parametrize("name", sorted(RULE_READS))
def test_an_alert_follows_a_value_changed_in_the_data_file(roce, edit_source, name):
    alert, value, shown = RULE_READS[name]
    assert shown not in _alert_exprs(roce)[alert]
    edit_source(**{name: value})
    assert shown in _alert_exprs(roce)[alert]


def test_the_counter_flag_follows_the_same_change(edit_source):
    assert "rising-symbol-errors" in _flags(30)  # default: 1 an hour
    edit_source(symbol_errors_per_hour=50)
    assert "rising-symbol-errors" not in _flags(30)
    assert "rising-symbol-errors" in _flags(50)  # equal fires, as in the rule


@needs_promtool
@pytest.mark.parametrize("per_hour, fires", [(1, True), (50, False), (30, True)])
def test_prometheus_and_the_counter_flag_agree_on_30_symbol_errors_in_an_hour(
    roce,
    tmp_path,
    edit_source,
    per_hour,
    fires,
):
    edit_source(symbol_errors_per_hour=per_hour)
    # 30 symbol errors at minute 10; at minute 20 the last hour's increase is exactly 30 (the series starts at 0)
    inputs = {"node_ethtool_received_symbol_errors_phy": "0x40 30x200"}
    exp = [
        {
            "exp_labels": _alert_labels(roce, {}, "warning"),
            "exp_annotations": {
                "summary": f"{WHERE}: 30 symbol errors FEC could not correct in the last hour",
                "description": "Clean and inspect the connectors first: the cheapest cause to rule out "
                "(GPU-networking seed article).",
            },
        }
    ]
    out = _run(roce, tmp_path, inputs, [("FabricSymbolErrors", exp if fires else [])])
    assert out.returncode == 0, out.stdout + out.stderr
    assert ("rising-symbol-errors" in _flags(30)) is fires
