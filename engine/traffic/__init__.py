"""Training-traffic analysis of a design: what a workload sends, where, how long it takes, and whether it fits.

Entry point for the pipeline: `analyze_design_workloads(workloads_spec, summary, server_model_info)`
returns `{workload name: analysis}` for `summary["workloads"]`. See docs/traffic.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import FieldError, SpecError
from .analysis import AnalysisSettings, analyze
from .fabric import FabricFacts
from .throughput import achievable_rate, implied_tflops_per_gpu, throughput_warnings, workload_paths
from .workload import (
    Workload,
    list_workload_presets,
    load_workload_preset,
    parse_workloads,
)


def _server_figure(info: Any, name: str) -> Any:
    if isinstance(info, Mapping):
        return info[name]
    return getattr(info, name)


def analyze_design_workloads(
    workloads_spec: Any,
    summary: Mapping[str, Any],
    server_model_info: Any,
    *,
    settings: AnalysisSettings | Mapping[str, Any] | None = None,
    su_per_pod: int | None = None,
) -> dict:
    """Analyse every workload profile of a spec against a computed design.

    workloads_spec     the spec's `workloads` value: a list of preset names / profiles, or a mapping
                       {"profiles": [...], "settings": {...}} to set the heuristic thresholds too.
    summary            the engine's summary dict (engine/summary.py).
    server_model_info  the catalog ServerModel, or a mapping with gpus, nvlink_domain_gpus, gpu_memory_gb.
    settings           AnalysisSettings or a mapping of its fields (overrides the spec's settings).
    su_per_pod         ComputePlan.su_per_pod for 3-tier fabrics, when known.
    Raises SpecError with `workloads...` field paths.
    """
    if workloads_spec is None:
        return {}
    path = "workloads"
    spec_settings = None
    if isinstance(workloads_spec, Mapping) and ("profiles" in workloads_spec or "settings" in workloads_spec):
        unknown = set(workloads_spec) - {"profiles", "settings"}
        if unknown:
            raise SpecError.at(f"{path}.{min(unknown)}", "unknown field (known: profiles, settings)")
        spec_settings = workloads_spec.get("settings")
        workloads_spec = workloads_spec.get("profiles") or []
        path = "workloads.profiles"
    if settings is None:
        s = AnalysisSettings.from_mapping(spec_settings, "workloads.settings")
    else:
        s = AnalysisSettings.from_mapping(settings)
    facts = FabricFacts.from_summary(
        summary,
        _server_figure(server_model_info, "gpus"),
        _server_figure(server_model_info, "nvlink_domain_gpus"),
        _server_figure(server_model_info, "gpu_memory_gb"),
        su_per_pod=su_per_pod,
    )
    workloads = parse_workloads(workloads_spec, path=path, design_gpus=facts.gpus)
    out = {wl.name: analyze(wl, facts, s) for wl in workloads}
    rate = achievable_rate(_server_key(server_model_info), s.achievable_tflops_per_gpu)
    for i, wl in enumerate(workloads):
        warnings = throughput_warnings([wl], [f"{path}[{i}]"], rate)
        out[wl.name]["throughput"] = {
            "implied_tflops_per_gpu": implied_tflops_per_gpu(wl),
            "achievable_tflops_per_gpu": rate.tflops_per_gpu if rate else None,
            "achievable_source": rate.source
            if rate
            else "no published figure for this server model (set workloads.settings.achievable_tflops_per_gpu)",
            "warnings": [str(w) for w in warnings],
        }
    return out


def _server_key(info: Any) -> str | None:
    return info.get("key") if isinstance(info, Mapping) else getattr(info, "key", None)


def check_workloads(workloads_spec: Any, *, design_gpus: int, server_key: str | None) -> list[FieldError]:
    """What a spec's workloads are checked for at save, before any compute: every field and preset name
    (SpecError, with paths) and the step times' plausibility (returned as warnings, FieldErrors)."""
    if workloads_spec is None:
        return []
    profiles, path = workload_paths(workloads_spec)
    if path == "workloads.profiles":
        unknown = set(workloads_spec) - {"profiles", "settings"}
        if unknown:
            raise SpecError.at(f"workloads.{min(unknown)}", "unknown field (known: profiles, settings)")
    s = AnalysisSettings.from_mapping(
        workloads_spec.get("settings") if path == "workloads.profiles" else None, "workloads.settings"
    )
    workloads = parse_workloads(profiles, path=path, design_gpus=design_gpus)
    rate = achievable_rate(server_key, s.achievable_tflops_per_gpu)
    return throughput_warnings(workloads, [f"{path}[{i}]" for i in range(len(workloads))], rate)


__all__ = [
    "AnalysisSettings",
    "FabricFacts",
    "Workload",
    "analyze",
    "analyze_design_workloads",
    "check_workloads",
    "list_workload_presets",
    "load_workload_preset",
    "parse_workloads",
]
