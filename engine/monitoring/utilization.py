"""Utilization measured against the plan: read a snapshot, average it per tier, rail, plane, SU and spine, compare
with the targets and with the traffic analysis's prediction, and name imbalance with its likely causes.

Two snapshot forms (docs/monitoring.md, "Utilization against the plan"):

* Prometheus query-API JSON (`/api/v1/query` or `/api/v1/query_range`) of the recorded
  `fabric:port_utilization:ratio_rate<w>` series: `{"status": "success", "data": {"resultType": "vector" |
  "matrix", "result": [{"metric": {...}, "value": [t, "0.42"]} | {"metric": {...}, "values": [[t, "0.42"],
  ...]}]}}`. A range query gives each port's average and peak over the range; an instant query one value. Series
  without the design labels are placed by `fabric_device` and the port label (the rules' targets add both).
* Two counter snapshots and their interval: `{"interval_s": 300, "before": [{"device": "CF-SU01-L01", "port":
  "33", "tx_bytes": 123}], "after": [...]}`. `port` is the design's port name or the interface name the device
  reports (engine/ifnames.py); utilization = (after - before) x 8 / interval / design speed. A counter that went
  backwards was reset (or wrapped) in between: that port is left out and named, never read as a negative rate.

Averages: a group's average is the mean of its ports' averages; its peak is the highest value any of its ports
showed. A group is imbalanced when its average is above `imbalance_hot_factor` or below `imbalance_idle_factor`
times the median of its peers (the other rails of the same network and tier, the other spines of the plane),
with at least three peers to compare.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from statistics import median
from typing import Any

from ..ifnames import technology_of
from .ports import MONITORED_NETWORKS, _link_labels, exporter_namer, interface_namer, rails_of_leaves
from .settings import MonitoringSettings


class SnapshotError(ValueError):
    """A snapshot that cannot be read; `errors` lists (where, message) for each bad entry."""

    def __init__(self, message: str, errors: Iterable[tuple[str, str]] = ()):
        super().__init__(message)
        self.message = message
        self.errors = list(errors)


@dataclass(frozen=True)
class PortSeries:
    labels: Mapping[str, str]  # network, tier, plane, rail, su, spine, pod, direction, fabric_device, port
    values: tuple[float, ...]  # utilization ratios (0.5 = 50 % of the design speed)

    @property
    def average(self) -> float:
        return _mean(self.values)

    @property
    def peak(self) -> float:
        return max(self.values)


# tier -> the traffic analysis's link-load key (engine/traffic/analysis.py, totals.link_load)
PREDICTION_KEYS = {"node-leaf": "nic", "leaf-spine": "leaf_uplinks", "spine-core": "spine_uplinks"}
DIMENSIONS = {
    "tier": ("network", "tier"),
    "plane": ("network", "tier", "plane"),
    "rail": ("network", "tier", "rail"),
    "su": ("network", "tier", "su"),
    "spine": ("network", "plane", "spine"),
}
CAUSES = {
    ("rail", "idle"): [
        "placement: the jobs leave this rail's GPUs or NICs unused (fewer GPUs per node than rails, or "
        "NCCL_IB_HCA / GPU-NIC affinity leaving the NIC out)",
        "layout: a parallel layout whose scale-out groups never use this rail",
        "a degraded or down NIC or link on this rail (link-down and symbol-error counters, commissioning results)",
    ],
    ("rail", "hot"): [
        "placement or layout putting more traffic on this rail's GPUs than on the others'",
        "a degraded parallel rail shifting its traffic here",
    ],
    ("spine", "hot"): [
        "routing: ECMP hash polarization or adaptive routing off, so flows pile onto this spine",
        "a down or degraded leaf-spine link on another spine removing its paths (link-down counters, "
        "commissioning results)",
        "uneven striping of leaf uplinks over the spines",
    ],
    ("spine", "idle"): [
        "links to this spine down, disabled or not trained (link-down counters, commissioning results)",
        "routing not using this spine (a routing-engine or ECMP configuration that leaves it out)",
    ],
    ("su", "hot"): ["placement: the scheduler packs jobs into this SU while others stay free"],
    ("su", "idle"): ["placement: no job, or only small jobs, on this SU"],
    ("plane", "hot"): ["a NIC's planes used unevenly (a down port on the other plane, multi-plane off in NCCL)"],
    ("plane", "idle"): ["this plane's ports down or unused (multi-plane NCCL settings, a down plane)"],
}


# --- the design's ports ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PortInfo:
    labels: Mapping[str, str]
    speed_gbps: int
    link_id: int


def port_index(result) -> dict[tuple[str, str], PortInfo]:
    """(device name, design port or interface name) -> the port's labels, speed and link, both ends of every
    monitored link. The labels are the rules' (engine/monitoring/ports.py): a snapshot read here and the series
    Prometheus records are grouped alike."""
    name_of = interface_namer(result)
    exporter_name = exporter_namer(result)
    rails = rails_of_leaves(result)
    devs = result.devices
    out: dict[tuple[str, str], PortInfo] = {}
    tech = {n: technology_of(result.spec, n) for n in MONITORED_NETWORKS}
    for lk in result.links:
        if lk.network not in MONITORED_NETWORKS:
            continue
        base = _link_labels(result, lk, rails)
        for idx, port, direction in ((lk.a, lk.a_port, "up"), (lk.b, lk.b_port, "down")):
            d = devs[idx]
            labels = dict(base)
            labels["direction"] = direction
            labels["fabric_device"] = d.name
            labels["port"] = port
            if d.role == "spine":
                labels["spine"] = d.name
            info = PortInfo(labels, lk.speed_gbps, lk.id)
            out[(d.name, port)] = info
            out.setdefault((d.name, name_of(idx, port, lk.speed_gbps)), info)
            # the node_exporter name of a server port (mlx5_11), as the recorded series carry it
            named = exporter_name(idx, port, lk.speed_gbps, tech[lk.network])
            if named is not None:
                out.setdefault((d.name, named[0]), info)
    return out


# --- reading snapshots -------------------------------------------------------------------------------------


def _ratio(v: Any, where: str, errors: list) -> float | None:
    try:
        x = float(v)
    except (TypeError, ValueError):
        errors.append((where, f"{str(v)[:40]!r} is not a number"))
        return None
    if not math.isfinite(x) or x < 0:
        errors.append((where, f"{x} is not a utilization (a finite ratio >= 0)"))
        return None
    return x


def parse_prometheus(data: Any, index: Mapping[tuple[str, str], PortInfo], port_label: str = "device"):
    """(series, notes) from Prometheus query-API JSON; SnapshotError when nothing usable is in it."""
    if not isinstance(data, Mapping) or not isinstance(data.get("data"), Mapping):
        raise SnapshotError('not Prometheus query-API JSON: expected {"status": "success", "data": {...}}')
    if data.get("status") not in (None, "success"):
        raise SnapshotError(f"the query failed: status {str(data.get('status'))[:40]!r}")
    body = data["data"]
    kind = body.get("resultType")
    if kind not in ("vector", "matrix"):
        raise SnapshotError(f"resultType must be vector or matrix, not {str(kind)[:40]!r}")
    result = body.get("result")
    if not isinstance(result, list):
        raise SnapshotError("data.result must be a list of series")
    errors: list[tuple[str, str]] = []
    notes: list[str] = []
    series: list[PortSeries] = []
    for i, item in enumerate(result):
        where = f"data.result[{i}]"
        if not isinstance(item, Mapping) or not isinstance(item.get("metric"), Mapping):
            errors.append((where, "a series needs a metric (labels) mapping"))
            continue
        labels = {str(k): str(v) for k, v in item["metric"].items()}
        raw = [item.get("value")] if kind == "vector" else item.get("values")
        if not isinstance(raw, list) or not raw:
            errors.append((where, "no values"))
            continue
        values = []
        for j, pair in enumerate(raw):
            if not isinstance(pair, list) or len(pair) != 2:
                errors.append((f"{where}.values[{j}]", "a [timestamp, value] pair"))
                continue
            x = _ratio(pair[1], f"{where}.values[{j}]", errors)
            if x is not None:
                values.append(x)
        if not values:
            continue
        if "tier" not in labels or "network" not in labels:
            info = index.get((labels.get("fabric_device", ""), labels.get(port_label, "")))
            if info is None:
                errors.append((where, "no design labels (tier, network) and no known fabric_device / port"))
                continue
            labels = {**info.labels, **labels}
        series.append(PortSeries(labels, tuple(values)))
    if not series:
        raise SnapshotError("no usable series in the snapshot", errors)
    notes += [f"{w}: {m}" for w, m in errors]
    return series, notes


def parse_counters(data: Any, index: Mapping[tuple[str, str], PortInfo]):
    """(series, notes) from two counter snapshots; SnapshotError naming every bad entry when none is usable."""
    if not isinstance(data, Mapping):
        raise SnapshotError('expected {"interval_s": ..., "before": [...], "after": [...]}')
    interval = data.get("interval_s")
    if isinstance(interval, bool) or not isinstance(interval, (int, float)) or not (0 < interval < math.inf):
        raise SnapshotError("interval_s: the seconds between the two snapshots, a number > 0", [("interval_s", "> 0")])
    errors: list[tuple[str, str]] = []

    def read(side: str) -> dict[tuple[str, str], float]:
        rows = data.get(side)
        if not isinstance(rows, list):
            errors.append((side, "a list of {device, port, tx_bytes}"))
            return {}
        out: dict[tuple[str, str], float] = {}
        for i, row in enumerate(rows):
            where = f"{side}[{i}]"
            if not isinstance(row, Mapping):
                errors.append((where, "an object with device, port and tx_bytes"))
                continue
            key = (str(row.get("device", "")), str(row.get("port", "")))
            if key not in index:
                errors.append((where, f"no port {key[1]!r} on a device {key[0]!r} in this design"))
                continue
            v = row.get("tx_bytes")
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
                errors.append((f"{where}.tx_bytes", "a byte count >= 0"))
                continue
            if key in out:
                errors.append((where, f"{key[0]} {key[1]} appears twice"))
                continue
            out[key] = float(v)
        return out

    before, after = read("before"), read("after")
    notes: list[str] = []
    series: list[PortSeries] = []
    for key, b in before.items():
        if key not in after:
            notes.append(f"{key[0]} {key[1]}: only in the first snapshot, left out")
            continue
        a = after[key]
        if a < b:
            notes.append(f"{key[0]} {key[1]}: counter reset between the snapshots ({b:.0f} -> {a:.0f}), left out")
            continue
        info = index[key]
        util = (a - b) * 8 / interval / (info.speed_gbps * 1e9)
        series.append(PortSeries(dict(info.labels), (util,)))
    notes += [f"{key[0]} {key[1]}: only in the second snapshot, left out" for key in after if key not in before]
    if not series:
        raise SnapshotError("no port is in both snapshots with a usable count", errors)
    notes = [f"{w}: {m}" for w, m in errors] + notes
    return series, notes


# --- judging ---------------------------------------------------------------------------------------------


def _predictions(summary: Mapping[str, Any] | None) -> dict[str, dict[str, float]]:
    """tier -> {workload: predicted average load}, from the stored traffic analysis (compute network only)."""
    out: dict[str, dict[str, float]] = defaultdict(dict)
    for name, analysis in ((summary or {}).get("workloads") or {}).items():
        loads = ((analysis or {}).get("totals") or {}).get("link_load") or {}
        for tier, key in PREDICTION_KEYS.items():
            v = loads.get(key)
            if isinstance(v, (int, float)):
                out[tier][name] = float(v)
    return out


def analyze_utilization(
    series: list[PortSeries],
    *,
    settings: MonitoringSettings,
    summary: Mapping[str, Any] | None = None,
    degraded: Iterable[Mapping[str, Any]] = (),
) -> dict:
    """Per dimension (tier, plane, rail, su, spine) the groups' average and peak against the targets and the
    prediction, and the imbalanced groups with their likely causes. `degraded`: links known to be bad from
    commissioning (each with `labels` as the port index gives them and a `reason`); an imbalanced group holding
    one names it first among its causes."""
    s = settings
    predicted = _predictions(summary)
    groups: dict[str, list[dict]] = {}
    measured = [(ser.labels, ser.average, ser.peak) for ser in series]  # each port's average and peak, once
    for dim, keys in DIMENSIONS.items():
        buckets: dict[tuple, list[tuple[float, float]]] = defaultdict(list)
        for labels, avg_, peak_ in measured:
            if dim == "spine" and labels.get("tier") != "leaf-spine":
                continue
            key = tuple(labels.get(k, "") for k in keys)
            if dim != "tier" and not key[-1]:
                continue
            buckets[key].append((avg_, peak_))
        rows = []
        for key, members in sorted(buckets.items(), key=lambda kv: tuple(_natural(x) for x in kv[0])):
            avg = _mean(m[0] for m in members)
            peak = max(m[1] for m in members)
            row: dict[str, Any] = dict(zip(keys, key))
            row.update(
                ports=len(members),
                average=avg,
                peak=peak,
                average_status="above target" if avg > s.utilization_average else "within target",
                peak_status="above target" if peak > s.utilization_peak else "within target",
            )
            tier = row.get("tier")
            if tier and row.get("network") == "compute" and predicted.get(tier):
                row["predicted"] = {w: {"load": p, "difference": avg - p} for w, p in predicted[tier].items()}
            rows.append(row)
        groups[dim] = rows
    imbalance = _imbalance(groups, s)
    _blame_degraded(imbalance, list(degraded))
    totals = {
        "ports": len(series),
        "average": _mean(m[1] for m in measured),
        "peak": max(m[2] for m in measured),
    }
    return {
        "targets": {"average": s.utilization_average, "peak": s.utilization_peak},
        "totals": totals,
        "groups": groups,
        "imbalance": imbalance,
        "microbursts": "A snapshot of rates averaged over scrape intervals cannot show sub-millisecond microbursts.",
    }


def _imbalance(groups: dict[str, list[dict]], s: MonitoringSettings) -> list[dict]:
    found = []
    for dim in ("rail", "spine", "su", "plane"):
        peers: dict[tuple, list[dict]] = defaultdict(list)
        for row in groups.get(dim, []):
            scope = tuple(row[k] for k in DIMENSIONS[dim][:-1])
            peers[scope].append(row)
        for scope, rows in peers.items():
            if len(rows) < 3:
                continue
            med = median(r["average"] for r in rows)
            for r in rows:
                ratio = r["average"] / med if med > 0 else (math.inf if r["average"] > 0 else 1.0)
                kind = "hot" if ratio > s.imbalance_hot_factor else "idle" if ratio < s.imbalance_idle_factor else None
                if kind is None:
                    continue
                name = r[DIMENSIONS[dim][-1]]
                where = " ".join(f"{k} {v}" for k, v in zip(DIMENSIONS[dim][:-1], scope))
                found.append(
                    {
                        "dimension": dim,
                        "name": name,
                        "kind": kind,
                        "scope": dict(zip(DIMENSIONS[dim][:-1], scope)),
                        "average": r["average"],
                        "peers_median": med,
                        "ratio": None if math.isinf(ratio) else ratio,
                        "message": f"{dim} {name} ({where}) is {kind}: average {r['average']:.1%} against a median "
                        f"of {med:.1%} over {len(rows)} {dim}s",
                        "likely_causes": CAUSES[(dim, kind)],
                    }
                )
    return found


def _blame_degraded(imbalance: list[dict], degraded: list[Mapping[str, Any]]) -> None:
    for finding in imbalance:
        dim, name, scope = finding["dimension"], finding["name"], finding["scope"]
        here = [
            d
            for d in degraded
            if d["labels"].get(dim) == name
            and all(d["labels"].get(k) == v for k, v in scope.items() if k != "tier")
            and (scope.get("tier") in (None, d["labels"].get("tier")))
        ]
        if here:
            finding["degraded_links"] = [d["reason"] for d in here[:20]]
            finding["likely_causes"] = [
                f"commissioning: {len(here)} link(s) here failed their loss test ({here[0]['reason']}"
                + (", ..." if len(here) > 1 else "")
                + ")",
                *finding["likely_causes"],
            ]


def link_labels(result) -> dict[int, dict[str, str]]:
    """Link id -> its labels (network, tier, plane, rail, su, spine, pod), for naming degraded links."""
    rails = rails_of_leaves(result)
    return {lk.id: _link_labels(result, lk, rails) for lk in result.links if lk.network in MONITORED_NETWORKS}


def _link_number(value: Any) -> int | None:
    text = str(value)
    text = text[1:] if text[:1] in "Ll" else text
    return int(text) if text.isdigit() else None


def _mean(values) -> float:
    """statistics.mean is exact (fractions) and 20x slower; fsum keeps the float sum correctly rounded."""
    values = list(values)
    return math.fsum(values) / len(values)


def _natural(x: str) -> tuple:
    import re

    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", str(x)))


def utilization_report(result, data: Any, *, kind: str, summary=None, settings=None, failing_links=()) -> dict:
    """Read a snapshot (`kind` prometheus | counters) of a computed design and judge it; SnapshotError if unusable.
    `failing_links`: commissioning results, each a mapping with `link_id` (`L000123` or 123) and what failed
    (`worst_db`, `limit_db`, the ends), named where an imbalanced rail, spine or SU holds them."""
    s = settings or MonitoringSettings.from_dict(getattr(result.spec, "monitoring", None))
    index = port_index(result)
    if kind == "prometheus":
        series, notes = parse_prometheus(data, index, s.port_label)
    elif kind == "counters":
        series, notes = parse_counters(data, index)
    else:
        raise SnapshotError(f"kind: prometheus or counters, not {str(kind)[:40]!r}")
    labels = link_labels(result) if failing_links else {}
    degraded = []
    for f in failing_links:
        n = _link_number(f.get("link_id"))
        if n is None or n not in labels:
            continue
        ends = f"{f.get('a_device', '')} {f.get('a_port', '')} - {f.get('b_device', '')} {f.get('b_port', '')}".strip()
        worst, limit = f.get("worst_db"), f.get("limit_db")
        detail = (
            f", worst {worst:.2f} dB against {limit:.2f} dB"
            if isinstance(worst, float) and isinstance(limit, float)
            else ""
        )
        degraded.append({"labels": labels[n], "reason": f"L{n:06d} {ends}{detail}"})
    report = analyze_utilization(series, settings=s, summary=summary, degraded=degraded)
    report["source"] = kind
    report["notes"] = notes[:200]
    report["notes_total"] = len(notes)
    return report
