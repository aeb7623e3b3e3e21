"""Consistency checks over the policy and the design: each finding is a QosWarning with the reason in plain words.

They compare what each platform will actually do (after vendor defaults, e.g. SONiC's stock DSCP map) with
what the hosts do, so a mismatch is caught before the fabric drops RoCE traffic under load. Warnings are
aggregated per switch model where a finding would otherwise repeat on thousands of switches.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from . import reference as ref
from .headroom import bytes_to_us, headroom_bytes
from .infiniband import routing_engine, sharp_on
from .inputs import HostInfo, SwitchPorts, ib_fabric_facts
from .policy import QosPolicy
from .sonic import effective_dscp_map


@dataclass(frozen=True)
class QosWarning:
    code: str
    message: str
    where: str

    def to_dict(self) -> dict:
        return {"code": self.code, "message": self.message, "where": self.where}


# Switch OSes that read a DWRR weight as a percent of the port (NVUE's ETS bandwidth-percent, EOS's bandwidth
# percent): their weights must add up to 100. SONiC's DWRR weights are relative to each other, any sum works.
PERCENT_WEIGHT_OSES = ("nvue", "eos")


def policy_save_errors(policy: QosPolicy, oses: Iterable[str]) -> list[tuple[str, str]]:
    """(path, message) for settings that no switch can be configured with, so a save is refused with each at its
    field: an ECN min threshold not below the max, and DWRR weights that do not add up to 100 % on a platform
    that reads them as percentages. `oses` are the design's switch OSes (engine.catalog SwitchModel.os_for).

    These are only checked when a policy is saved: a spec stored before a rule existed still parses (its stored
    revisions stay reproducible) and its QoS form shows the errors."""
    errors: list[tuple[str, str]] = []
    e = policy.ecn
    if policy.technology == "ethernet" and e.min_bytes >= e.max_bytes:
        errors.append(
            (
                "qos.ecn.min_bytes",
                f"must be below the max threshold ({e.min_bytes:,} B is not below "
                f"{e.max_bytes:,} B): switches mark between min and max",
            )
        )
    percent = sorted(set(oses) & set(PERCENT_WEIGHT_OSES))
    dwrr = [c for c in policy.classes if c.scheduling == "dwrr"]
    total = sum(c.weight for c in dwrr)
    if policy.technology == "ethernet" and percent and dwrr and total != 100:
        shares = ", ".join(f"{c.name} {c.weight}" for c in dwrr)
        where = " and ".join(o.upper() for o in percent)
        for c in dwrr:
            errors.append(
                (
                    f"qos.{c.name}.weight",
                    f"DWRR weights are percentages on {where} and must add up to "
                    f"100; these add up to {total} ({shares})",
                )
            )
    return errors


def switch_headroom_bytes(policy: QosPolicy, switch: SwitchPorts) -> int:
    """Headroom a switch reserves: per port, per lossless priority (C.3: multiply by priorities and ports)."""
    n = len(policy.pfc_priorities)
    if not n:
        return 0
    return n * sum(
        headroom_bytes(p.speed_gbps, p.cable_m, policy.mtu.switch, policy.headroom).total_bytes for p in switch.ports
    )


def _switch_mtu(policy: QosPolicy, os: str) -> int:
    return min(policy.mtu.switch, ref.EOS_MAX_MTU) if os == "eos" else policy.mtu.switch


def check_consistency(
    policy: QosPolicy,
    switches: Iterable[SwitchPorts],
    hosts: HostInfo | Iterable[HostInfo] | None,
    headroom_totals: Mapping[str, int] | None = None,
) -> list[QosWarning]:
    switches = list(switches)
    host_list = [hosts] if isinstance(hosts, HostInfo) else list(hosts or [])
    eth = [s for s in switches if s.os != "ib"]
    ib = [s for s in switches if s.os == "ib"]
    out: list[QosWarning] = []
    if eth or (host_list and policy.technology == "ethernet"):
        out += _roce_checks(policy, eth, host_list, headroom_totals)
    if ib:
        out += _ib_checks(policy, ib)
    return out


def _roce_checks(
    policy: QosPolicy, eth: list[SwitchPorts], hosts: list[HostInfo], totals: Mapping[str, int] | None
) -> list[QosWarning]:
    """The RoCE policy against the design's Ethernet switches and hosts, one named check after another."""
    oses = sorted({s.os for s in eth}) or ["nvue"]
    speeds = sorted({p.speed_gbps for s in eth for p in s.ports} | {x.speed_gbps for x in hosts})
    return [
        *_dscp_map_checks(policy, oses),
        *_pfc_checks(policy),
        *_scheduling_checks(policy, oses),
        *_ecn_checks(policy, speeds),
        *_mtu_checks(policy, eth),
        *_headroom_checks(policy, eth, totals),
    ]


def _dscp_map_checks(policy: QosPolicy, oses: list[str]) -> Iterator[QosWarning]:
    """What the hosts mark must land in the RoCE (lossless) and CNP queues on every switch OS."""
    h = policy.host
    lossless = set(policy.pfc_priorities)
    roce_p, cnp_p = policy.roce.priority, policy.cnp.priority
    for os in oses:
        table = effective_dscp_map(policy) if os == "sonic" else policy.dscp_to_priority()
        where = f"hosts vs {os} switches"
        got = table[h.roce_dscp]
        if got != roce_p:
            kind = "lossy" if got not in lossless else "another"
            yield QosWarning(
                "host-dscp-not-lossless",
                f"hosts mark RoCE with DSCP {h.roce_dscp} but the {os} switches map DSCP {h.roce_dscp} to priority {got} "
                f"({kind} queue), not the RoCE priority {roce_p} (switches classify DSCP "
                f"{', '.join(map(str, policy.roce.dscp))}); RoCE would be dropped under congestion instead of paused. "
                f"Mark the same DSCP on hosts and switches (qos.host.roce_dscp or qos.roce.dscp).",
                where,
            )
        got = table[h.cnp_dscp]
        if got != cnp_p:
            yield QosWarning(
                "host-cnp-dscp",
                f"hosts send congestion notifications with DSCP {h.cnp_dscp} but the {os} switches map it to priority "
                f"{got}, not the CNP priority {cnp_p}; CNPs would queue behind data and DCQCN would react late.",
                where,
            )
        if os == "sonic":
            extra = [d for d, p in enumerate(table) if p in lossless and d not in policy.roce.dscp]
            if extra:
                yield QosWarning(
                    "sonic-stock-map",
                    f"with qos.sonic.replace_stock_map false the stock SONiC map stays under the fragment and also "
                    f"sends DSCP {', '.join(map(str, extra))} into the lossless queue (stock: DSCP 3 -> TC3, 4 -> TC4, "
                    f"everything else -> TC1); unrelated traffic would be paused.",
                    "sonic switches",
                )


def _pfc_checks(policy: QosPolicy) -> Iterator[QosWarning]:
    """PFC on exactly the lossless priority, hosts and switches alike, with its watchdog."""
    if not policy.lossless:
        return
    h = policy.host
    lossless = set(policy.pfc_priorities)
    roce_p = policy.roce.priority
    if set(policy.pfc.priorities) != {roce_p}:
        extra = sorted(set(policy.pfc.priorities) - {roce_p})
        missing = roce_p not in policy.pfc.priorities
        parts = []
        if missing:
            parts.append(f"the RoCE priority {roce_p} has no PFC, so RoCE is not lossless")
        if extra:
            parts.append(
                f"priorities {', '.join(map(str, extra))} carry no lossless class: pausing them "
                f"spreads head-of-line blocking and each needs its own headroom"
            )
        yield QosWarning(
            "pfc-priorities",
            f"PFC is on {list(policy.pfc.priorities)}, not exactly the RoCE priority "
            f"{roce_p}: " + "; ".join(parts) + ".",
            "qos.pfc.priorities",
        )
    if set(h.pfc_priorities) != set(policy.pfc.priorities):
        yield QosWarning(
            "host-pfc-mismatch",
            f"hosts enable PFC on {list(h.pfc_priorities)} but the switches on {list(policy.pfc.priorities)}; "
            f"a port pauses a priority its peer does not honour, so the lossless class drops.",
            "qos.host.pfc_priorities",
        )
    for c in (policy.cnp, policy.control, policy.default):
        if c.priority in lossless:
            yield QosWarning(
                "class-on-lossless-priority",
                f"the {c.name} class uses priority {c.priority}, which has PFC: it would be paused together with "
                f"RoCE (and CNPs stuck behind a pause slow congestion control).",
                f"qos.{c.name}.priority",
            )
    if not policy.pfc.watchdog:
        yield QosWarning(
            "pfc-watchdog-off",
            "PFC is on but the PFC watchdog is off: one stuck NIC can pause the fabric "
            "(PFC storm) with nothing to break the deadlock.",
            "qos.pfc.watchdog",
        )


def _scheduling_checks(policy: QosPolicy, oses: list[str]) -> Iterator[QosWarning]:
    """CNPs in a strict queue; DWRR weights that add up to 100 where the OS reads them as percentages."""
    if policy.dcqcn_enabled and policy.cnp.scheduling != "strict":
        yield QosWarning(
            "cnp-not-strict",
            "congestion notifications are not in a strict-priority queue: they wait behind "
            "data, so senders slow down late (NVIDIA and Cisco both run CNP strict).",
            "qos.cnp.scheduling",
        )
    dwrr = {c.priority: c.weight for c in policy.classes if c.scheduling == "dwrr"}
    if dwrr and sum(dwrr.values()) != 100 and set(oses) & set(PERCENT_WEIGHT_OSES):
        yield QosWarning(
            "ets-weights",
            f"DWRR weights add up to {sum(dwrr.values())}%, not 100% "
            f"({', '.join(f'TC{p} {wt}%' for p, wt in sorted(dwrr.items()))}).",
            "qos.*.weight",
        )


def _ecn_checks(policy: QosPolicy, speeds: list[int]) -> Iterator[QosWarning]:
    """ECN thresholds sane for the speeds in the design (C.4), and some congestion control when lossy."""
    e = policy.ecn
    if policy.ecn_enabled:
        if "roce" not in e.classes:
            yield QosWarning(
                "ecn-not-on-roce",
                "ECN marking is not enabled on the RoCE queue, so DCQCN never gets a signal.",
                "qos.ecn.classes",
            )
        if e.min_bytes >= e.max_bytes:
            yield QosWarning(
                "ecn-order", f"ECN min threshold {e.min_bytes} B is not below max {e.max_bytes} B.", "qos.ecn"
            )
        frame = policy.mtu.switch + ref.IFG_PREAMBLE_BYTES
        if e.min_bytes < 2 * frame:
            yield QosWarning(
                "ecn-too-low",
                f"ECN min threshold {e.min_bytes} B is under two {policy.mtu.switch} B frames: "
                f"almost every burst is marked and throughput collapses.",
                "qos.ecn.min_bytes",
            )
        for speed in speeds:
            lo, hi = bytes_to_us(e.min_bytes, speed), bytes_to_us(e.max_bytes, speed)
            if hi > ref.ECN_MAX_US_CEILING:
                yield QosWarning(
                    "ecn-too-deep",
                    f"at {speed}G the ECN max threshold {e.max_bytes} B is {hi:g} us of line rate, "
                    f"deeper than any reference template (at most {ref.ECN_MAX_US_CEILING:g} us, "
                    f"Cisco 3000 KB at 100G): queues and latency grow before senders react.",
                    f"{speed}G ports",
                )
            if lo < 1.0:
                yield QosWarning(
                    "ecn-too-shallow",
                    f"at {speed}G the ECN min threshold {e.min_bytes} B is only {lo:g} us of "
                    f"line rate: marking starts on sub-microsecond queues.",
                    f"{speed}G ports",
                )
    if policy.mode == "lossy" and not policy.ecn.classes:
        yield QosWarning(
            "lossy-no-cc",
            "lossy mode without ECN on any class: RoCE has neither PFC nor congestion control.",
            "qos.ecn",
        )


def _mtu_checks(policy: QosPolicy, eth: list[SwitchPorts]) -> Iterator[QosWarning]:
    """Host frames that fit every switch OS's MTU, and a host MTU that carries the RoCE frame."""
    for os in sorted({s.os for s in eth}):
        sw = _switch_mtu(policy, os)
        if policy.mtu.host + 18 > sw:  # 14 B Ethernet header + 4 B FCS on top of the host's IP MTU
            yield QosWarning(
                "mtu",
                f"host MTU {policy.mtu.host} plus 18 B of Ethernet framing exceeds the {os} switch MTU {sw}: "
                f"large frames are dropped at the switch.",
                f"{os} switches",
            )
    if policy.mtu.host < policy.headroom.lossless_frame_bytes - 18:
        yield QosWarning(
            "roce-mtu",
            f"host MTU {policy.mtu.host} cannot carry the {policy.headroom.lossless_frame_bytes} B RoCE frame "
            f"of a {policy.mtu.roce} B RoCE MTU: the NIC falls back to a smaller RoCE MTU.",
            "qos.mtu.host",
        )


def _headroom_checks(
    policy: QosPolicy, eth: list[SwitchPorts], totals: Mapping[str, int] | None
) -> Iterator[QosWarning]:
    """PFC headroom against each switch model's buffer (catalog buffer_mb; null = unpublished)."""
    if not (policy.lossless and eth):
        return
    e = policy.ecn
    by_model: dict[str, list[SwitchPorts]] = {}
    for s in eth:
        by_model.setdefault(s.model, []).append(s)
    for model, group in sorted(by_model.items()):
        buf = group[0].buffer_mb
        needs = [
            (totals[s.name] if totals and s.name in totals else switch_headroom_bytes(policy, s), s.name) for s in group
        ]
        worst, worst_name = max(needs)
        if buf is None:
            yield QosWarning(
                "buffer-unknown",
                f"{model}: packet-buffer size unpublished (catalog buffer_mb null; fabrics-qos-traffic.md F), so the "
                f"PFC headroom of {len(group)} switch(es) cannot be checked; the largest need is "
                f"{worst / 1e6:.2f} MB on {worst_name}. Set buffer_mb in a custom catalog entry to check it.",
                model,
            )
            continue
        cap = buf * 1e6
        share = policy.pfc.headroom_buffer_share
        over = [(n, nm) for n, nm in needs if n > cap * share]
        if over:
            full = sum(1 for n, _ in over if n > cap)
            yield QosWarning(
                "headroom-exceeds-buffer",
                f"{model}: {len(over)} of {len(group)} switch(es) need more PFC headroom than "
                f"{share:.0%} of the {buf:g} MB buffer ({full} more than the whole buffer); worst {worst_name} "
                f"needs {worst / 1e6:.2f} MB. Shorten cables, use fewer lossless priorities, or a deeper-buffer switch.",
                worst_name,
            )
        if policy.ecn_enabled and e.max_bytes > cap:
            yield QosWarning(
                "ecn-above-buffer",
                f"{model}: ECN max threshold {e.max_bytes} B exceeds the {buf:g} MB buffer.",
                model,
            )


def _ib_checks(policy: QosPolicy, ib: list[SwitchPorts]) -> list[QosWarning]:
    w: list[QosWarning] = []
    s = policy.infiniband
    groups: dict[tuple[str, int], list[SwitchPorts]] = {}
    for sw in ib:
        groups.setdefault((sw.network, sw.plane), []).append(sw)
    for (network, plane), group in sorted(groups.items()):
        fabric = ib_fabric_facts(group, _fabric_name(network, plane))
        if s.sharp == "on" and not fabric.sharp_capable:
            lacking = sorted({g.model for g in group if not g.sharp})
            w.append(
                QosWarning(
                    "sharp-unsupported",
                    f"SHARP is forced on but {', '.join(lacking)} do not support it "
                    f"(switches.yaml sharp: false); aggregation trees cannot span them.",
                    fabric.name,
                )
            )
        if sharp_on(policy, fabric) and not any(x in routing_engine(policy) for x in ("ftree", "updn")):
            w.append(
                QosWarning(
                    "sharp-routing",
                    f"SHARP needs a fat-tree routing engine (ftree/updn); routing_engine is {routing_engine(policy)}.",
                    fabric.name,
                )
            )
    if s.qos:
        high = [vl for vl in s.sl2vl if vl >= s.max_operational_vls]
        if high:
            w.append(
                QosWarning(
                    "sl2vl-range",
                    f"SL2VL uses VL {max(high)} but only {s.max_operational_vls} VLs are "
                    f"operational; those SLs fall back or drop.",
                    "qos.infiniband.sl2vl",
                )
            )
        if s.sl2vl[s.sharp_sl] == s.sl2vl[0]:
            w.append(
                QosWarning(
                    "sl2vl-not-separated",
                    f"SHARP SL {s.sharp_sl} and compute SL 0 share VL {s.sl2vl[0]}: "
                    f"the traffic classes are not separated.",
                    "qos.infiniband.sl2vl",
                )
            )
    return w


def _fabric_name(network: str, plane: int) -> str:
    return f"{network}-plane{plane}" if plane else network
