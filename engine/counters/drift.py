"""Baseline, deltas per hour, resets and flags.

A port's first reading is its baseline. Each later reading gives an interval: per counter the increase
since the reading before, and that increase per hour. A counter that went down was reset (cleared by
`ibqueryerrors -k` / `perfquery -R` / `clear counters`, or the device restarted): the interval reports the
reset and counts what accumulated since it (the new value), never a negative delta. Flags are judged on a
port's latest interval (what the link does now); the trends keep every interval.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .thresholds import Thresholds

# Flags, worst first (the order links and groups are ranked by).
FLAGS = ("uncorrectable-fec", "flapping", "link-down", "rising-symbol-errors", "rising-corrected-fec")
FLAG_TEXT = {
    "uncorrectable-fec": "uncorrectable FEC blocks",
    "flapping": "link flapping",
    "link-down": "link went down",
    "rising-symbol-errors": "rising symbol errors",
    "rising-corrected-fec": "rising corrected FEC",
}


@dataclass(frozen=True)
class Interval:
    start: float  # seconds since the epoch of the earlier reading
    end: float
    deltas: Mapping[str, int]
    resets: tuple[str, ...]  # counters that went down (reset) in this interval

    @property
    def hours(self) -> float:
        return max(self.end - self.start, 1.0) / 3600.0  # a second at least: two readings in one second

    def rate(self, counter: str) -> float:
        return self.deltas.get(counter, 0) / self.hours


@dataclass(frozen=True)
class EndDrift:
    """One port's readings over time: its baseline, the intervals after it, its latest values."""

    baseline_at: float
    baseline: Mapping[str, int]
    intervals: tuple[Interval, ...]
    latest: Mapping[str, int]

    def since_baseline(self) -> dict[str, int]:
        total: dict[str, int] = {}
        for iv in self.intervals:
            for k, v in iv.deltas.items():
                total[k] = total.get(k, 0) + v
        return total


@dataclass(frozen=True)
class LinkDrift:
    link_id: int
    ends: tuple[tuple[str, EndDrift], ...]  # (end label "a"/"b", drift)
    flags: tuple[str, ...]
    resets: tuple[tuple[str, str, float], ...]  # (end, counter, time of the reading that showed it)


def drift_of_port(readings: Sequence[tuple[float, Mapping[str, int]]]) -> EndDrift:
    """readings: (time, counters) in time order, at least one."""
    if not readings:
        raise ValueError("a port needs at least one reading")
    t0, base = readings[0]
    intervals = []
    prev_t, prev = t0, dict(base)
    for t, cur in readings[1:]:
        deltas: dict[str, int] = {}
        resets: list[str] = []
        for key, value in cur.items():
            before = prev.get(key)
            if before is None:
                continue  # a counter this reading adds has its baseline now
            if value < before:
                resets.append(key)
                deltas[key] = value
            else:
                deltas[key] = value - before
        intervals.append(Interval(prev_t, t, deltas, tuple(sorted(resets))))
        prev_t, prev = t, {**prev, **cur}
    return EndDrift(t0, dict(base), tuple(intervals), prev)


def _downs(iv: Interval) -> int:
    if "link_downed" in iv.deltas:
        return iv.deltas["link_downed"]
    # carrier transitions count the down and the up: a flap is two
    return math.ceil(iv.deltas.get("carrier_transitions", 0) / 2)


def flags_of_port(drift: EndDrift, t: Thresholds) -> set[str]:
    if not drift.intervals:
        return set()
    iv = drift.intervals[-1]
    flags: set[str] = set()
    d = iv.deltas
    if d.get("fec_uncorrectable", 0) >= t.fec_uncorrectable_increment:
        flags.add("uncorrectable-fec")
    downs = _downs(iv)
    if downs >= t.link_down_increment:
        flags.add("link-down")
    flaps = downs + d.get("link_error_recovery", 0)
    if flaps >= 2 and flaps / iv.hours >= t.flaps_per_hour:
        flags.add("flapping")
    if d.get("symbol_errors", 0) > 0 and iv.rate("symbol_errors") >= t.symbol_errors_per_hour:
        flags.add("rising-symbol-errors")
    if d.get("fec_corrected", 0) > 0:
        rate = iv.rate("fec_corrected")
        rising = rate >= t.fec_corrected_per_hour
        if not rising and len(drift.intervals) > 1:
            before = drift.intervals[-2].rate("fec_corrected")
            rising = rate >= t.fec_corrected_min_per_hour and rate >= t.fec_corrected_rise_factor * before
        if rising:
            flags.add("rising-corrected-fec")
    return flags


def flags_of_link(link_id: int, ends: Iterable[tuple[str, EndDrift]], t: Thresholds) -> LinkDrift:
    """A link's drift from its ends' (either end's flag flags the link; both ends are kept for the trends)."""
    ends = tuple(ends)
    flags: set[str] = set()
    resets: list[tuple[str, str, float]] = []
    for end, drift in ends:
        flags |= flags_of_port(drift, t)
        for iv in drift.intervals:
            resets.extend((end, counter, iv.end) for counter in iv.resets)
    return LinkDrift(link_id, ends, tuple(f for f in FLAGS if f in flags), tuple(resets))
