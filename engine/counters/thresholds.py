"""The flag thresholds: defaults from data/thresholds.yaml (each with its source or gap note), overridable."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from functools import cache
from pathlib import Path

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
        if not overrides:
            return self
        kinds = {f.name: f.type for f in fields(self)}
        changes: dict = {}
        for key, value in overrides.items():
            if key not in kinds:
                raise CounterParseError(f"{path}.{key}: unknown threshold; one of {', '.join(kinds)}")
            try:
                number = float(value) if not isinstance(value, bool) else None  # type: ignore[arg-type]
            except (TypeError, ValueError):
                number = None
            if number is None or number != number or number < 0:
                raise CounterParseError(f"{path}.{key}: must be a number >= 0, got {value!r}")
            if kinds[key] in ("int", int):
                if number != int(number) or number < 1:
                    raise CounterParseError(f"{path}.{key}: must be a whole number >= 1, got {value!r}")
                changes[key] = int(number)
            else:
                changes[key] = number
        return replace(self, **changes)


def threshold_notes() -> dict[str, dict]:
    """The data file as written: {name: {value, unit, flag, source, note}} (for docs and the monitoring rules)."""
    return _data()


@cache
def _data() -> dict[str, dict]:
    return yaml.safe_load(THRESHOLDS_FILE.read_text())


@cache
def load_thresholds() -> Thresholds:
    data = _data()
    return Thresholds(**{f.name: data[f.name]["value"] for f in fields(Thresholds)})
