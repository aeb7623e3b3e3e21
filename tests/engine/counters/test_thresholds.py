"""The thresholds file (engine/counters/data/thresholds.yaml): every value has a source or is a documented gap."""

from __future__ import annotations

from dataclasses import fields

import pytest

from engine.counters import CounterParseError, Thresholds, load_thresholds
from engine.counters.thresholds import threshold_notes


def test_every_threshold_has_a_value_a_unit_and_a_source_or_gap_note():
    notes = threshold_notes()
    assert set(notes) == {f.name for f in fields(Thresholds)}
    for name, entry in notes.items():
        assert {"value", "unit", "source", "note"} <= set(entry), name
        assert entry["source"] == "gap" or entry["source"], name


def test_overrides_are_checked_by_name_and_value():
    t = load_thresholds()
    assert t.with_overrides({"flaps_per_hour": "5"}).flaps_per_hour == 5.0
    assert t.with_overrides({"min_group_links": 3.0}).min_group_links == 3
    with pytest.raises(CounterParseError, match=r"thresholds.nope: unknown"):
        t.with_overrides({"nope": 1})
    with pytest.raises(CounterParseError, match="must be a number"):
        t.with_overrides({"flaps_per_hour": -1})
    with pytest.raises(CounterParseError, match="whole number"):
        t.with_overrides({"min_group_links": 1.5})
