"""The spec's `monitoring` section: targets, thresholds, windows and metric names, each bad value named by path."""

from __future__ import annotations

import pytest

from engine.counters.thresholds import load_thresholds
from engine.errors import SpecError
from engine.monitoring.metrics import DEFAULT_METRICS
from engine.monitoring.settings import MonitoringSettings
from engine.spec import parse_spec
from tests.engine.conftest import spec


def paths(exc: SpecError) -> list[str]:
    return [e.path for e in exc.errors]


def test_the_defaults_are_the_articles_targets_and_node_exporters_names():
    s = MonitoringSettings()
    assert (s.utilization_average, s.utilization_peak, s.packet_loss_ratio) == (0.80, 0.95, 0.0001)
    assert s.metrics["infiniband"]["tx_bytes"] == "node_infiniband_port_data_transmitted_bytes_total"
    assert s.metrics["ethernet"]["symbol_errors"] == "node_ethtool_received_symbol_errors_phy"
    assert s.thresholds == load_thresholds()  # the counter flags' data file, not a copy


def test_a_spec_sets_targets_thresholds_windows_and_names():
    s = MonitoringSettings.from_dict(
        {
            "targets": {"utilization_average": 0.7, "imbalance_hot_factor": 2},
            "thresholds": {"link_down_increment": 3},
            "rate_window": "2m",
            "metrics": {"ethernet": {"ecn_marked": None, "tx_bytes": "gnmi_out_octets"}},
        }
    )
    assert s.utilization_average == 0.7 and s.imbalance_hot_factor == 2
    assert s.thresholds.link_down_increment == 3
    assert s.thresholds.symbol_errors_per_hour == load_thresholds().symbol_errors_per_hour
    assert s.metrics["ethernet"]["ecn_marked"] is None and s.metrics["ethernet"]["tx_bytes"] == "gnmi_out_octets"
    assert s.metrics["infiniband"] == DEFAULT_METRICS["infiniband"]


def test_every_bad_value_is_named_by_its_spec_path():
    with pytest.raises(SpecError) as exc:
        parse_spec(
            spec(
                monitoring={
                    "targets": {"utilization_peak": 1.5, "nope": 1},
                    "thresholds": {"symbol_errors_per_hour": -1, "flaps": 2},
                    "rate_window": "one minute",
                    "metrics": {"ethernet": {"tx_bytes": "9bad name"}, "fddi": {}},
                    "exporter_port": 0,
                    "colour": "red",
                }
            )
        )
    assert sorted(paths(exc.value)) == sorted(
        [
            "monitoring.colour",
            "monitoring.targets.utilization_peak",
            "monitoring.targets.nope",
            "monitoring.thresholds.symbol_errors_per_hour",
            "monitoring.thresholds.flaps",
            "monitoring.rate_window",
            "monitoring.metrics.ethernet.tx_bytes",
            "monitoring.metrics.fddi",
            "monitoring.exporter_port",
        ]
    )


def test_a_rate_window_shorter_than_two_scrapes_is_refused():
    with pytest.raises(SpecError) as exc:
        MonitoringSettings.from_dict({"scrape_interval": "30s", "rate_window": "45s"})
    assert paths(exc.value) == ["monitoring.rate_window"]


def test_a_spec_without_the_section_parses_as_before():
    assert parse_spec(spec()).monitoring is None


def test_a_threshold_override_is_checked_like_the_counter_files_and_named_by_its_spec_path():
    t = MonitoringSettings.from_dict({"thresholds": {"fec_corrected_rise_factor": 4}}).thresholds
    assert t.fec_corrected_rise_factor == 4.0
    with pytest.raises(SpecError) as exc:
        MonitoringSettings.from_dict(
            {"thresholds": {"fec_corrected_rise_factor": 0.5, "link_down_per_hour": 1, "min_group_links": 1.5}}
        )
    assert sorted(paths(exc.value)) == [
        "monitoring.thresholds.fec_corrected_rise_factor",
        "monitoring.thresholds.link_down_per_hour",  # the old name of link_down_increment: refused, not ignored
        "monitoring.thresholds.min_group_links",
    ]
    assert "replaced by link_down_increment" in str(exc.value)


def test_the_spec_overrides_the_app_wide_thresholds_which_override_the_data_file():
    app_wide = load_thresholds().with_overrides({"flaps_per_hour": 6, "symbol_errors_per_hour": 5})
    s = MonitoringSettings.from_dict({"thresholds": {"symbol_errors_per_hour": 9}}, base=app_wide)
    assert (s.thresholds.flaps_per_hour, s.thresholds.symbol_errors_per_hour) == (6, 9)
    assert MonitoringSettings.from_dict(None, base=app_wide).thresholds == app_wide
