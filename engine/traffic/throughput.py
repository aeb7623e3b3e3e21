"""Is a workload's step time plausible? The model TFLOP/s per GPU it implies against the most any GPU of
the server model has been published to achieve (data/gpu-rates.yaml, with its source).

The network-share and link-load verdicts divide by the step time, so a step twice as fast as any
published run makes them look twice as bad (or a slow one, twice as good). A step that implies more
than the achievable rate, or an `achieved_tflops_per_gpu` above it, is a warning at that field, never
a refusal: the user may know better, but is told.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from ..errors import FieldError
from .workload import Workload

RATES_FILE = Path(__file__).parent / "data" / "gpu-rates.yaml"


@dataclass(frozen=True)
class AchievableRate:
    tflops_per_gpu: float
    source: str


@lru_cache(maxsize=1)
def _rates() -> dict[str, AchievableRate]:
    data = yaml.safe_load(RATES_FILE.read_text()) or {}
    return {k: AchievableRate(float(v["achievable_tflops_per_gpu"]), str(v["source"]).strip()) for k, v in data.items()}


def achievable_rate(server_key: str | None, setting: float | None = None) -> AchievableRate | None:
    """The user's setting (workloads.settings.achievable_tflops_per_gpu) when given, else the catalog figure of
    the server model, else None (no published figure: the check is not made)."""
    if setting:
        return AchievableRate(float(setting), "workloads.settings.achievable_tflops_per_gpu (your setting)")
    return _rates().get(server_key or "")


def implied_tflops_per_gpu(wl: Workload) -> float | None:
    """Model TFLOP/s per GPU a workload claims or implies: 6 · P_active · tokens / (GPUs · step)."""
    if wl.achieved_tflops_per_gpu and not wl.target_step_time_s:
        return float(wl.achieved_tflops_per_gpu)
    if wl.target_step_time_s and wl.gpus:
        return 6 * wl.active_parameters * wl.tokens_per_step / (wl.gpus * wl.target_step_time_s) / 1e12
    return None


def throughput_warnings(workloads: list[Workload], paths: list[str], rate: AchievableRate | None) -> list[FieldError]:
    """A warning at the step-time (or TFLOP/s) field of each workload implying more than `rate`."""
    out: list[FieldError] = []
    if rate is None:
        return out
    for wl, path in zip(workloads, paths):
        implied = implied_tflops_per_gpu(wl)
        if implied is None or implied <= rate.tflops_per_gpu:
            continue
        field = "target_step_time_s" if wl.target_step_time_s else "achieved_tflops_per_gpu"
        what = (
            f"a {wl.target_step_time_s:g} s step implies {implied:,.0f} TFLOP/s per GPU"
            if field == "target_step_time_s"
            else f"{implied:,.0f} TFLOP/s per GPU"
        )
        out.append(
            FieldError(
                f"{path}.{field}",
                f"{what}, {implied / rate.tflops_per_gpu:.1f}x the {rate.tflops_per_gpu:,.0f} TFLOP/s "
                f"achievable ({rate.source}); the network-share verdicts depend on it",
            )
        )
    return out


def workload_paths(workloads_spec: Any) -> tuple[Any, str]:
    """(the profiles list, its path) of a spec's `workloads` value (a list, or {profiles, settings})."""
    if isinstance(workloads_spec, Mapping) and ("profiles" in workloads_spec or "settings" in workloads_spec):
        return workloads_spec.get("profiles") or [], "workloads.profiles"
    return workloads_spec, "workloads"
