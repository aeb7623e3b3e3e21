"""Prometheus recording and alerting rules for one computed design (docs/monitoring.md).

Three rule groups:

* `<design>: ports`: one recording rule per port group (engine/monitoring/ports.py) and per measure, turning
  the exporter's counters into per-port ratios named `fabric:port_<measure>:<how>` that carry the design's
  labels (network, tier, plane, rail, su, spine, pod, direction) beside the exporter's own (instance, device).
* `<design>: fabric`: averages and maxima per tier, rail, SU, spine and rail x spine, for the dashboard.
* `<design>: alerts`: one alert per check, over the recorded series, so an alert names the design's device,
  interface, tier, rail and SU.

Utilization = bits per second each way (transmit and receive of the link's recording end) over the link's design speed (not the exporter's reported rate: a
link that trained down to a lower speed then shows as over-full, which is what it is against the plan).
Rates average over `rate_window`; nothing here sees a sub-millisecond microburst (monitoring/settings.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from ..qos.policy import QosPolicy
from .ports import PortGroup, port_groups
from .settings import MonitoringSettings

UTIL = "fabric:port_utilization:ratio_rate{w}"
LOSS = "fabric:port_loss:ratio_rate{w}"
PAUSE = "fabric:port_pfc_pause:ratio_rate{w}"
ECN = "fabric:port_ecn_marks:ratio_rate{w}"
BER = "fabric:port_fec_corrected:ber_rate{w}"
STORM = "fabric:port_pfc_storm_events:increase1h"
LINK_DOWN = "fabric:port_link_down:increase1h"
RECOVERY = "fabric:port_link_recovery:increase1h"
SYMBOL = "fabric:port_symbol_errors:increase1h"
UNCORRECTABLE = "fabric:port_fec_uncorrectable:increase1h"
FLAPS = "fabric:port_link_flaps:increase1h"
FEC_CORRECTED = "fabric:port_fec_corrected:increase1h"

AGGREGATES = {
    # record name -> (function, by-labels, filter)
    "fabric:tier_utilization:avg": ("avg", ("network", "tier", "plane", "direction"), ""),
    "fabric:tier_utilization:max": ("max", ("network", "tier", "plane", "direction"), ""),
    "fabric:rail_utilization:avg": ("avg", ("network", "tier", "plane", "rail", "direction"), 'rail!=""'),
    "fabric:rail_utilization:max": ("max", ("network", "tier", "plane", "rail", "direction"), 'rail!=""'),
    "fabric:su_utilization:avg": ("avg", ("network", "tier", "plane", "su", "direction"), 'su!=""'),
    "fabric:su_utilization:max": ("max", ("network", "tier", "plane", "su", "direction"), 'su!=""'),
    "fabric:spine_utilization:avg": ("avg", ("network", "plane", "spine", "direction"), 'tier="leaf-spine"'),
    "fabric:rail_spine_utilization:avg": (
        "avg",
        ("network", "plane", "rail", "spine", "direction"),
        'tier="leaf-spine", rail!=""',
    ),
}


def record_names(settings: MonitoringSettings) -> dict[str, str]:
    w = settings.rate_window
    return {
        "utilization": UTIL.format(w=w),
        "loss": LOSS.format(w=w),
        "pfc_pause": PAUSE.format(w=w),
        "ecn": ECN.format(w=w),
        "fec_ber": BER.format(w=w),
        "pfc_storm": STORM,
        "link_down": LINK_DOWN,
        "link_recovery": RECOVERY,
        "symbol_errors": SYMBOL,
        "fec_uncorrectable": UNCORRECTABLE,
        "link_flaps": FLAPS,
        "fec_corrected": FEC_CORRECTED,
    }


def _selector(group: PortGroup, settings: MonitoringSettings) -> str:
    parts = [f"{k}=~`{v}`" if k == "fabric_device" else f'{k}="{v}"' for k, v in group.selector]
    ports = "|".join(re.escape(p) for p in group.ports)
    # A backtick string is raw in PromQL: the regex needs no second escaping.
    parts.append(f"{settings.port_label}=~`{ports}`")
    parts += [f'{k}="{v}"' for k, v in group.port_selector]
    return "{" + ", ".join(parts) + "}"


def pfc_priority(result) -> int | None:
    """The lossless priority whose pause time is watched, or None without PFC (InfiniBand, lossy RoCE)."""
    spec = result.spec
    if spec.compute.technology != "ethernet":
        return None
    try:
        prios = QosPolicy.from_dict(spec.qos or {}, "ethernet").pfc_priorities
    except (ValueError, TypeError, KeyError, AttributeError):  # validated at save; an old revision keeps the default
        prios = QosPolicy.defaults("ethernet").pfc_priorities
    return prios[0] if prios else None


def _port_rules(group: PortGroup, s: MonitoringSettings, prio: int | None, rec: dict[str, str]) -> Iterator[dict]:
    m = s.metrics[group.technology]
    sel = _selector(group, s)
    w = s.rate_window
    labels = dict(group.labels)
    bps = group.speed_gbps * 1e9

    def metric(key: str) -> str | None:
        name = m.get(key)
        if name and "{priority}" in name:
            if prio is None:
                return None
            name = name.replace("{priority}", str(prio))
        return name

    def rule(record: str, expr: str, extra: dict | None = None) -> dict:
        return {"record": record, "expr": expr, "labels": {**labels, **(extra or {})}}

    # The one recording end of each link measures both directions (ports.py): at the lower end transmit is up.
    tx_dir, rx_dir = ("up", "down") if group.lower else ("down", "up")
    if metric("tx_bytes"):
        yield rule(
            rec["utilization"],
            f"rate({metric('tx_bytes')}{sel}[{w}]) * 8 / {bps:g}",
            {"counter": "tx", "direction": tx_dir},
        )
    if metric("rx_bytes"):
        yield rule(
            rec["utilization"],
            f"rate({metric('rx_bytes')}{sel}[{w}]) * 8 / {bps:g}",
            {"counter": "rx", "direction": rx_dir},
        )
    drops = [metric(k) for k in ("tx_discards", "rx_discards") if metric(k)]
    pkts = [metric(k) for k in ("tx_packets", "rx_packets") if metric(k)]
    if drops and pkts:
        num = " + ".join(f"rate({n}{sel}[{w}])" for n in drops)
        den = " + ".join(f"rate({n}{sel}[{w}])" for n in pkts)
        yield rule(rec["loss"], f"({num}) / clamp_min({den}, 1)")
    if metric("pfc_pause_us"):
        # The counter is in microseconds: its rate over a second is the share of time spent paused.
        yield rule(rec["pfc_pause"], f"rate({metric('pfc_pause_us')}{sel}[{w}]) / 1e6", {"priority": str(prio)})
    if metric("pfc_storm_events"):
        yield rule(rec["pfc_storm"], f"increase({metric('pfc_storm_events')}{sel}[1h])")
    if metric("ecn_marked") and metric("rx_packets"):
        yield rule(
            rec["ecn"], f"rate({metric('ecn_marked')}{sel}[{w}]) / clamp_min(rate({metric('rx_packets')}{sel}[{w}]), 1)"
        )
    for key, name in (
        ("link_down", "link_down"),
        ("link_recovery", "link_recovery"),
        ("symbol_errors", "symbol_errors"),
        ("fec_uncorrectable", "fec_uncorrectable"),
    ):
        if metric(key):
            yield rule(rec[name], f"increase({metric(key)}{sel}[1h])")
    # A flap is a link-down or a link error recovery, as in the counter flags (engine/counters/drift.py);
    # an exporter without a recovery counter (mlx5 Ethernet) counts link-downs only.
    flaps = [f"increase({metric(k)}{sel}[1h])" for k in ("link_down", "link_recovery") if metric(k)]
    if flaps:
        yield rule(rec["link_flaps"], " + ".join(flaps))
    if metric("fec_corrected_bits"):
        yield rule(rec["fec_ber"], f"rate({metric('fec_corrected_bits')}{sel}[{w}]) / {bps:g}")
        yield rule(rec["fec_corrected"], f"increase({metric('fec_corrected_bits')}{sel}[1h])")


def _alerts(s: MonitoringSettings, rec: dict[str, str], prio: int | None) -> list[dict]:
    """Every alert, in the rules file's order: utilization and loss, PFC and ECN (with a lossless priority),
    then link health."""
    where = "{{ $labels.fabric_device }} {{ $labels." + s.port_label + " }} ({{ $labels.network }} {{ $labels.tier }}"
    where += ", plane {{ $labels.plane }}, rail {{ $labels.rail }}, SU {{ $labels.su }})"
    out = _utilization_alerts(s, rec, where)
    if prio is not None:
        out += _lossless_alerts(s, rec, where, prio)
    return out + _link_health_alerts(s, rec, where)


def _alert(name, expr, summary, *, severity="warning", for_=None, description=""):
    a = {"alert": name, "expr": expr}
    if for_:
        a["for"] = for_
    a["labels"] = {"severity": severity}
    a["annotations"] = {"summary": summary, "description": description}
    return a


_PCT = "{{ $value | humanizePercentage }}"


def _utilization_alerts(s: MonitoringSettings, rec: dict[str, str], where: str) -> list[dict]:
    alert, pct, avg_w = _alert, _PCT, s.average_window
    # One alert per link: its busier direction (both are recorded at the link's one recording end, ports.py).
    link = "max without (counter, direction) "
    return [
        alert(
            "FabricLinkUtilizationPeak",
            f"{link}({rec['utilization']}) > {s.utilization_peak:g}",
            f"{where}: {pct} of the design speed, above the {s.utilization_peak:.0%} peak target",
            for_=s.alert_for,
            description="Peaks should stay under the target to absorb bursts (bandwidth seed article). "
            f"A {s.rate_window} rate cannot show sub-millisecond microbursts.",
        ),
        alert(
            "FabricLinkUtilizationAverage",
            f"{link}(avg_over_time({rec['utilization']}[{avg_w}])) > {s.utilization_average:g}",
            f"{where}: {avg_w} average {pct}, above the {s.utilization_average:.0%} average target",
            description="A link busy above the average target for long needs capacity or a better placement.",
        ),
        alert(
            "FabricTierUtilizationAverage",
            f"avg_over_time(fabric:tier_utilization:avg[{avg_w}]) > {s.utilization_average:g}",
            "{{ $labels.network }} {{ $labels.tier }} plane {{ $labels.plane }} ({{ $labels.direction }}): "
            f"{avg_w} average {pct}, above the {s.utilization_average:.0%} target",
        ),
        alert(
            "FabricTierUtilizationPeak",
            f"fabric:tier_utilization:max > {s.utilization_peak:g}",
            "{{ $labels.network }} {{ $labels.tier }} plane {{ $labels.plane }}: busiest link "
            f"{pct}, above the {s.utilization_peak:.0%} peak target",
            for_=s.alert_for,
        ),
        alert(
            "FabricPacketLoss",
            f"{rec['loss']} > {s.packet_loss_ratio:g}",
            f"{where}: {pct} of packets dropped or errored, above {s.packet_loss_ratio:.2%}",
            severity="critical",
            for_=s.alert_for,
            description="0.01 % loss can cost about 10 % of effective bandwidth through retransmissions "
            "(bandwidth seed article).",
        ),
    ]


def _lossless_alerts(s: MonitoringSettings, rec: dict[str, str], where: str, prio: int) -> list[dict]:
    alert, pct = _alert, _PCT
    return [
        alert(
            "FabricPfcPause",
            f"{rec['pfc_pause']} > {s.pfc_pause_share:g}",
            f"{where}: paused by PFC {pct} of the time on priority {prio}",
            for_=s.alert_for,
            description="Sustained PFC pauses spread congestion upstream (head-of-line blocking); check ECN "
            "thresholds and DCQCN.",
        ),
        alert(
            "FabricPfcStorm",
            f"{rec['pfc_storm']} > 0",
            f"{where}: PFC storm watchdog fired {{{{ $value }}}} time(s) in the last hour",
            severity="critical",
            description="A port that keeps sending pauses (a stuck receiver) can stall the lossless class "
            "fabric-wide; the NIC watchdog stopped its pauses.",
        ),
        alert(
            "FabricEcnMarks",
            f"{rec['ecn']} > {s.ecn_mark_ratio:g}",
            f"{where}: {pct} of received packets ECN-marked",
            for_=s.alert_for,
        ),
    ]


def _link_health_alerts(s: MonitoringSettings, rec: dict[str, str], where: str) -> list[dict]:
    alert, th = _alert, s.thresholds
    return [
        # Every threshold below is a value of engine/counters/data/thresholds.yaml, the one the counter flags
        # read. The flags judge a count between two readings per hour of the interval; here the count is
        # increase(...[1h]), which IS a count per hour, so a per-hour value is compared as it stands and an
        # "increment" n becomes `>= n`. `>=` as in the flags (a value equal to the threshold fires).
        alert(
            "FabricLinkDown",
            f"{rec['link_down']} >= {th.link_down_increment:g}",
            f"{where}: link went down {{{{ $value }}}} time(s) in the last hour",
            severity="critical",
            description="Reseat or clean the optics and check the cable route (commissioning counters, issue 29).",
        ),
        alert(
            "FabricLinkFlapping",
            # at least 2 as in the flags: one down-and-up is a link-down, not flapping
            f"{rec['link_flaps']} >= {max(th.flaps_per_hour, 2):g}",
            f"{where}: {{{{ $value }}}} link downs and error recoveries in the last hour",
            severity="critical",
            description="A link that keeps going down or retraining: reseat or clean the optics, then swap the "
            "transceiver or cable (commissioning counters, issue 29).",
        ),
        alert(
            "FabricSymbolErrors",
            # the flags also need one error: a threshold of 0 means "any", not "always"
            f"{rec['symbol_errors']} >= {th.symbol_errors_per_hour:g}"
            if th.symbol_errors_per_hour > 0
            else f"{rec['symbol_errors']} > 0",
            f"{where}: {{{{ $value }}}} symbol errors FEC could not correct in the last hour",
            description="Clean and inspect the connectors first: the cheapest cause to rule out "
            "(GPU-networking seed article).",
        ),
        alert(
            "FabricFecUncorrectable",
            f"{rec['fec_uncorrectable']} >= {th.fec_uncorrectable_increment:g}",
            f"{where}: {{{{ $value }}}} uncorrectable FEC codewords in the last hour",
            severity="critical",
        ),
        alert(
            "FabricFecCorrectedRising",
            # The flags' rule: over fec_corrected_per_hour, or over fec_corrected_min_per_hour and rising by
            # fec_corrected_rise_factor. The flags compare with the interval before; Prometheus has the port's
            # own history, so the rise is against its fec_baseline_window average (a ratio of two rates of the
            # same port, so the bits-vs-blocks unit cancels).
            f"{rec['fec_corrected']} >= {th.fec_corrected_per_hour:g} or ({rec['fec_corrected']} >= "
            f"{th.fec_corrected_min_per_hour:g} and avg_over_time({rec['fec_ber']}[1h]) >= "
            f"{th.fec_corrected_rise_factor:g} * avg_over_time({rec['fec_ber']}[{s.fec_baseline_window}]))",
            f"{where}: {{{{ $value }}}} FEC-corrected bits in the last hour, over {th.fec_corrected_per_hour:g} "
            f"or {th.fec_corrected_rise_factor:g}x its {s.fec_baseline_window} baseline",
            description="Rising corrected errors do not always mean a dirty connector, but it is the cheapest "
            "cause to rule out (GPU-networking seed article).",
        ),
    ]


def _merge_same_output(rules: list[dict]) -> list[dict]:
    """One rule per (record, labels): groups of different device classes (the compute and in-band leaves) can
    end up with the same output labels; their selectors pick disjoint series, so their results are joined with
    `or` (two rules writing one series would be a conflict, and promtool refuses them as duplicates)."""
    merged: dict[tuple, dict] = {}
    for r in rules:
        key = (r["record"], tuple(sorted(r["labels"].items())))
        if key in merged:
            merged[key]["expr"] = f"({merged[key]['expr']}) or ({r['expr']})"
        else:
            merged[key] = dict(r)
    return list(merged.values())


def _alerts_for(port_rules: list[dict], s: MonitoringSettings, rec: dict[str, str], prio: int | None) -> list[dict]:
    """The alerts whose series some port rule records (an InfiniBand design has no PFC or FEC alert)."""
    recorded = {r["record"] for r in port_rules} | set(AGGREGATES)
    return [a for a in _alerts(s, rec, prio) if any(name in a["expr"] for name in recorded)]


def _aggregates() -> list[dict]:
    return [
        {"record": name, "expr": f"{fn} by ({', '.join(by)}) ({UTIL_PLACEHOLDER}{{{flt}}})"}
        if flt
        else {"record": name, "expr": f"{fn} by ({', '.join(by)}) ({UTIL_PLACEHOLDER})"}
        for name, (fn, by, flt) in AGGREGATES.items()
    ]


UTIL_PLACEHOLDER = "__UTIL__"


def rules_document(result, settings: MonitoringSettings | None = None) -> tuple[dict, list[str]]:
    """(the rules file as a dict, notes for its header)."""
    s = settings or MonitoringSettings.from_dict(getattr(result.spec, "monitoring", None))
    rec = record_names(s)
    prio = pfc_priority(result)
    groups, notes = port_groups(result)
    port_rules = _merge_same_output([r for g in groups for r in _port_rules(g, s, prio, rec)])
    aggregates = [
        {"record": a["record"], "expr": a["expr"].replace(UTIL_PLACEHOLDER, rec["utilization"])} for a in _aggregates()
    ]
    name = result.spec.name
    doc = {
        "groups": [
            {"name": f"{name}: ports", "interval": s.scrape_interval, "rules": port_rules},
            {"name": f"{name}: fabric", "interval": s.scrape_interval, "rules": aggregates},
            {"name": f"{name}: alerts", "rules": _alerts_for(port_rules, s, rec, prio)},
        ]
    }
    missing = sorted(
        {
            f"{tech}: {key}"
            for g in groups
            for tech in [g.technology]
            for key, metric in s.metrics[tech].items()
            if metric is None
        }
    )
    if missing:
        notes = [*notes, f"no metric mapped (check left out): {', '.join(missing)}"]
    return doc, notes


def iter_rules_yaml(result, settings: MonitoringSettings | None = None) -> Iterator[str]:
    """The rules file (Prometheus rule-file YAML) with a header saying what it watches and what it cannot."""
    s = settings or MonitoringSettings.from_dict(getattr(result.spec, "monitoring", None))
    doc, notes = rules_document(result, s)
    yield f"# Prometheus rules for {_one_line(result.spec.name)} (fabricdesign; docs/monitoring.md).\n"
    yield "# Load with rule_files; scrape the exporters with prometheus-targets.json (file_sd_configs) so every\n"
    yield "# series carries its device's design labels. Check: promtool check rules <this file>.\n"
    yield (
        f"# Rates average over {s.rate_window} (scrape interval {s.scrape_interval}): sub-millisecond microbursts "
        "are invisible here.\n"
    )
    for note in notes:
        yield f"# Note: {_one_line(note)}\n"
    yield from emit_rules_yaml(doc)


def emit_rules_yaml(doc: dict) -> Iterator[str]:
    """The rules document as YAML, every scalar quoted: single quotes for printable text (PromQL's double quotes
    stay readable), else a JSON string (which is a YAML double-quoted scalar). Written by hand because PyYAML's
    representer takes seconds over the 5,000 rules of a 16K-GPU design; the tests read the output back with
    yaml.safe_load and promtool."""
    q = _quote
    yield "groups:\n"
    for group in doc["groups"]:
        yield f"- name: {q(group['name'])}\n"
        if "interval" in group:
            yield f"  interval: {q(group['interval'])}\n"
        yield "  rules:\n"
        for rule in group["rules"]:
            first = True
            for key, value in rule.items():
                lead = "  - " if first else "    "
                first = False
                if isinstance(value, dict):
                    yield f"{lead}{key}:\n" if value else f"{lead}{key}: {{}}\n"
                    for k, v in value.items():
                        yield f"      {k}: {q(str(v))}\n"
                else:
                    yield f"{lead}{key}: {q(str(value))}\n"


def _quote(text: str) -> str:
    if text.isprintable():
        return "'" + text.replace("'", "''") + "'"
    return json.dumps(text)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def iter_targets_json(result, settings: MonitoringSettings | None = None) -> Iterator[str]:
    """prometheus-targets.json: file_sd target groups giving every scraped device its design labels."""
    from .ports import targets

    s = settings or MonitoringSettings.from_dict(getattr(result.spec, "monitoring", None))
    yield json.dumps(targets(result, s.exporter_port), indent=1) + "\n"
