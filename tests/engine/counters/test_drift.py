"""Baseline, deltas per hour, resets and flags (engine/counters/drift.py)."""

from __future__ import annotations

import pytest

from engine.counters import drift_of_port, flags_of_link, load_thresholds
from engine.counters.drift import flags_of_port

H = 3600.0
T = load_thresholds()


def test_the_first_reading_is_the_baseline_and_later_ones_give_deltas_per_hour():
    d = drift_of_port([(0, {"symbol_errors": 5}), (2 * H, {"symbol_errors": 9}), (3 * H, {"symbol_errors": 9})])
    assert d.baseline == {"symbol_errors": 5} and d.baseline_at == 0
    assert [iv.deltas for iv in d.intervals] == [{"symbol_errors": 4}, {"symbol_errors": 0}]
    assert d.intervals[0].rate("symbol_errors") == pytest.approx(2.0)
    assert d.since_baseline() == {"symbol_errors": 4}


def test_a_counter_that_went_down_was_reset_and_is_never_a_negative_delta():
    d = drift_of_port([(0, {"symbol_errors": 900, "link_downed": 2}), (H, {"symbol_errors": 3, "link_downed": 2})])
    [iv] = d.intervals
    assert iv.resets == ("symbol_errors",)
    assert iv.deltas == {"symbol_errors": 3, "link_downed": 0}  # what accumulated since the reset


def test_a_counter_first_seen_later_gets_its_baseline_then():
    d = drift_of_port([(0, {"symbol_errors": 0}), (H, {"symbol_errors": 0, "fec_corrected": 10**9})])
    assert d.intervals[0].deltas == {"symbol_errors": 0}
    assert d.latest == {"symbol_errors": 0, "fec_corrected": 10**9}


def test_a_single_reading_flags_nothing():
    assert flags_of_port(drift_of_port([(0, {"symbol_errors": 10**6})]), T) == set()


@pytest.mark.parametrize(
    "before, after, hours, flags",
    [
        ({"symbol_errors": 0}, {"symbol_errors": 3}, 1, {"rising-symbol-errors"}),
        ({"symbol_errors": 0}, {"symbol_errors": 1}, 10, set()),  # 0.1 an hour: under 1/h
        ({"fec_uncorrectable": 4}, {"fec_uncorrectable": 5}, 24, {"uncorrectable-fec"}),
        ({"link_downed": 1}, {"link_downed": 2}, 24, {"link-down"}),
        ({"link_downed": 1}, {"link_downed": 4}, 1, {"link-down", "flapping"}),
        (
            {"link_downed": 0, "link_error_recovery": 0},
            {"link_downed": 1, "link_error_recovery": 1},
            1,
            {"link-down", "flapping"},
        ),
        ({"carrier_transitions": 4}, {"carrier_transitions": 6}, 24, {"link-down"}),  # down and up again
        ({"fec_corrected": 0}, {"fec_corrected": 2_000_000}, 1, {"rising-corrected-fec"}),
        ({"fec_corrected": 0}, {"fec_corrected": 500_000}, 1, set()),
    ],
)
def test_flags_of_the_latest_interval(before, after, hours, flags):
    assert flags_of_port(drift_of_port([(0, before), (hours * H, after)]), T) == flags


def test_corrected_fec_is_rising_when_its_rate_doubles_over_the_floor():
    seq = [(0, {"fec_corrected": 0}), (H, {"fec_corrected": 4000}), (2 * H, {"fec_corrected": 13000})]
    assert flags_of_port(drift_of_port(seq), T) == {"rising-corrected-fec"}  # 9,000/h after 4,000/h
    steady = [(0, {"fec_corrected": 0}), (H, {"fec_corrected": 4000}), (2 * H, {"fec_corrected": 8500})]
    assert flags_of_port(drift_of_port(steady), T) == set()


def test_a_reset_alone_flags_nothing_and_is_reported_on_the_link():
    a = drift_of_port([(0, {"symbol_errors": 17}), (H, {"symbol_errors": 0})])
    b = drift_of_port([(0, {"symbol_errors": 0}), (H, {"symbol_errors": 0})])
    link = flags_of_link(7, [("a", a), ("b", b)], T)
    assert link.flags == () and link.resets == (("a", "symbol_errors", H),)


def test_either_end_flags_the_link_worst_flag_first():
    a = drift_of_port([(0, {"symbol_errors": 0}), (H, {"symbol_errors": 5})])
    b = drift_of_port([(0, {"fec_uncorrectable": 0}), (H, {"fec_uncorrectable": 1})])
    assert flags_of_link(1, [("a", a), ("b", b)], T).flags == ("uncorrectable-fec", "rising-symbol-errors")


def test_thresholds_are_settings():
    d = drift_of_port([(0, {"symbol_errors": 0}), (H, {"symbol_errors": 3})])
    assert flags_of_port(d, T.with_overrides({"symbol_errors_per_hour": 5})) == set()
