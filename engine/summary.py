"""The JSON-ready summary of a result (schema: docs/summary.md)."""

from __future__ import annotations

from collections import Counter
from functools import reduce
from itertools import groupby
from operator import add, itemgetter
from typing import Any

from .model import NETWORKS, TIERS
from .topology.sizing import ratio_text

ROLES = ("leaf", "spine", "core")
_NETWORK_TIER = itemgetter(1, 3)  # a Link's (network, tier)


def _bisection(gpus: int, injection_gbps: float, ratios: list[float]) -> float:
    """Half the GPUs' injection bandwidth divided by the largest oversubscription on the path (never below 1)."""
    worst = max([1.0, *ratios])
    return round(gpus * injection_gbps / 2 / worst, 3)


def tier_runs(links: Any) -> list[tuple[tuple[str, str], int, int]]:
    """The links' runs of one (network, tier) in link order, as ((network, tier), first index, index past the
    last). The builder emits a tier's links together, so a design has a few runs (a tier may come back in another
    run); engine.pipeline.finish_design works them out once for the summary and the uplink diversity check."""
    runs = []
    at = 0
    for key, run in groupby(links, _NETWORK_TIER):
        n = len(list(run))
        runs.append((key, at, at + n))
        at += n
    return runs


def _per_tier(links: Any, lengths: Any, runs: list | None = None) -> tuple[Counter, dict]:
    """(links per (network, tier), run lengths per "network/tier": [total, min, max, links]). `runs`: tier_runs'
    answer for `links`, when the caller has it."""
    tier_count: Counter = Counter()
    length_by_tier: dict = {}
    # Each run of one (network, tier) is summed in C, rather than a Python step and a formatted key per link. The
    # run's lengths are a slice of `lengths` (parallel to the links): no (key, length) pair made per link.
    for (network, tier), start, stop in tier_runs(links) if runs is None else runs:
        run_lengths = lengths[start:stop]
        tier_count[(network, tier)] += len(run_lengths)
        key = f"{network}/{tier}"
        s = length_by_tier.get(key)
        lo, hi = min(run_lengths), max(run_lengths)
        # added one by one, in link order, as before (sum() compensates rounding on newer Pythons)
        total = reduce(add, run_lengths, 0.0 if s is None else s[0])
        if s is None:
            length_by_tier[key] = [total, lo, hi, len(run_lengths)]
        else:
            s[0] = total
            s[1] = min(s[1], lo)
            s[2] = max(s[2], hi)
            s[3] += len(run_lengths)
    return tier_count, length_by_tier


def summarize(
    *,
    spec: Any,
    plan: Any,
    storage_plan: Any,
    inband_plan: Any,
    devices: Any,
    links: Any,
    lengths: Any,
    racks: Any,
    server: Any,
    physical: Any,
    warnings: Any,
    runs: list | None = None,
) -> dict:
    """The summary of a design (docs/summary.md). `runs`: tier_runs(links), when the caller has it."""
    gpus = spec.servers.count * server.gpus
    role_count: Counter = Counter()
    for d in devices:
        if d.network:
            role_count[(d.network, d.role)] += 1
    tier_count, length_by_tier = _per_tier(links, lengths, runs)

    networks: dict = {}
    injection = len(server.compute_ports) * plan.speed_gbps * plan.planes / server.gpus
    leaf_ratio = plan.leaf_down / plan.leaf_up
    ratios = [leaf_ratio] + ([plan.spine_down / plan.spine_up] if plan.tiers == 3 else [])
    networks["compute"] = {
        "technology": spec.compute.technology,
        "planes": plan.planes,
        "tiers": plan.tiers,
        "port_speed_gbps": plan.speed_gbps,
        "scalable_unit": plan.su_size,
        "scalable_units": plan.n_su,
        "pods": plan.n_pods if plan.tiers == 3 else 0,
        "reserved_node_slots": plan.reserved_slots,
        "switch_models": {
            "leaf": plan.leaf.key,
            "spine": plan.spine.key,
            "core": plan.core.key if plan.tiers == 3 else None,
        },
        "switches": {r: role_count[("compute", r)] for r in ROLES},
        "links": {t: tier_count[("compute", t)] for t in TIERS["compute"]},
        "oversubscription": {
            "leaf": ratio_text(plan.leaf_down, plan.leaf_up),
            "spine": ratio_text(plan.spine_down, plan.spine_up) if plan.tiers == 3 else None,
        },
        "injection_gbps_per_gpu": injection,
        "bisection_gbps": _bisection(gpus, injection, ratios),
    }
    for name, p in (("storage", storage_plan), ("inband", inband_plan)):
        if p is None:
            continue
        networks[name] = {
            "switch_models": {"leaf": p.switch.key, "spine": p.switch.key if p.spines else None, "core": None},
            "port_speed_gbps": p.speed_gbps,
            "tiers": 2 if p.spines else 1,
            "switches": {r: role_count[(name, r)] for r in ROLES},
            "links": {t: tier_count[(name, t)] for t in TIERS[name]},
            "oversubscription": {"leaf": ratio_text(p.server_down, p.server_up), "spine": None},
        }
    if spec.oob.enabled:
        networks["oob"] = {
            "switch_models": {
                "leaf": spec.oob.switch,
                "spine": spec.oob.aggregation_switch or spec.inband.switch,
                "core": None,
            },
            "port_speed_gbps": 1,
            # Per-rack OOB switches play the leaf role; the aggregation pair plays the spine role.
            "switches": {"leaf": role_count[("oob", "oob")], "spine": role_count[("oob", "oob-agg")], "core": 0},
            "links": {t: tier_count[("oob", t)] for t in TIERS["oob"]},
            "pdus": role_count[("oob", "pdu")],
        }

    power_known = sum(d.power_kw for d in devices if d.power_kw)
    power_unknown = sorted({d.model for d in devices if d.power_kw is None and d.role not in ("pdu",)})
    rack_kinds = Counter(r.kind for r in racks)
    summary = {
        "name": spec.name,
        "schema_version": 1,
        "server_model": server.key,
        "servers": spec.servers.count,
        "gpus": gpus,
        "networks": {n: networks[n] for n in NETWORKS if n in networks},
        "oversubscription": networks["compute"]["oversubscription"],
        "bisection_gbps": networks["compute"]["bisection_gbps"],
        "devices": len(devices),
        "links_total": len(links),
        "racks": {"total": len(racks), **{k: rack_kinds[k] for k in sorted(rack_kinds)}},
        "rows": (racks[-1].row + 1) if racks else 0,
        "power_kw": {"known_total": round(power_known, 2), "models_without_figure": power_unknown},
        "run_length_m": {
            k: {"total": round(v[0], 2), "min": v[1], "max": v[2], "mean": round(v[0] / v[3], 2), "links": v[3]}
            for k, v in sorted(length_by_tier.items())
        },
        "warnings": list(warnings),
    }
    if physical is not None:
        summary.update(physical.summary_sections())
    return summary
