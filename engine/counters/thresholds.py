"""The error-counter thresholds: the one source both the counter flags (drift.py, suspects.py) and the
monitoring rules (engine/monitoring/rules.py) read. Values, units and their source or gap note live in
data/thresholds.yaml; this module loads them once and applies overrides (COUNTER_THRESHOLDS_FILE, the CLI's
--threshold, the API's `thresholds`, the spec's `monitoring.thresholds`), all checked the same way."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from .errors import CounterParseError

THRESHOLDS_FILE = Path(__file__).resolve().parent / "data" / "thresholds.yaml"


@dataclass(frozen=True)
class Thresholds:
    symbol_errors_per_hour: float
    fec_corrected_per_hour: float
    fec_corrected_rise_factor: float
    fec_corrected_min_per_hour: float
    fec_uncorrectable_increment: int
    link_down_increment: int
    flaps_per_hour: float
    min_group_links: int
    low_margin_db: float

    def with_overrides(self, overrides: Mapping[str, object] | None, path: str = "thresholds") -> Thresholds:
        """A copy with some values changed; CounterParseError names a key that is unknown or not a number >= 0."""
        changes, problems = check_overrides(overrides)
        if problems:
            key, message = problems[0]
            raise CounterParseError(f"{path}.{key}: {message}" if key else f"{path}: {message}")
        return replace(self, **changes) if changes else self

    def to_dict(self) -> dict[str, float]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


THRESHOLD_NAMES = tuple(f.name for f in fields(Thresholds))


def check_overrides(overrides: Mapping[str, object] | None) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """(the valid changes, [(name, problem)] for every bad one): one rule for every way of overriding."""
    if not overrides:
        return {}, []
    if not isinstance(overrides, Mapping):
        return {}, [("", "must be a mapping of threshold names to numbers")]
    kinds = {f.name: f.type for f in fields(Thresholds)}
    changes: dict = {}
    problems: list[tuple[str, str]] = []
    for key, value in overrides.items():
        if key not in kinds:
            problems.append((str(key), f"unknown threshold; one of {', '.join(kinds)}"))
            continue
        try:
            number = float(value) if not isinstance(value, bool) else None  # type: ignore[arg-type]
        except (TypeError, ValueError):
            number = None
        if number is None or number != number or number < 0:
            problems.append((key, f"must be a number >= 0, got {value!r}"))
        elif kinds[key] in ("int", int):
            if number != int(number) or number < 1:
                problems.append((key, f"must be a whole number >= 1, got {value!r}"))
            else:
                changes[key] = int(number)
        elif key == "fec_corrected_rise_factor" and number < 1:
            problems.append((key, f"must be >= 1 (a rise), got {value!r}"))
        else:
            changes[key] = number
    return changes, problems


def threshold_notes() -> dict[str, dict]:
    """The data file as written: {name: {value, unit, flag, rule, source, note}} (for docs and tests)."""
    return _data()


@cache
def _data() -> dict[str, dict]:
    return yaml.safe_load(THRESHOLDS_FILE.read_text())


@cache
def load_thresholds() -> Thresholds:
    data = _data()
    return Thresholds(**{f.name: data[f.name]["value"] for f in fields(Thresholds)})
