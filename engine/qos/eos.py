"""Arista EOS configuration for one switch (paste into `configure session`, then `commit`).

Syntax follows the AMD ROCm RoCE guide for EOS ([ROCm-EOS], C.1): `qos trust dscp`, `priority-flow-control
on` + `priority-flow-control priority 3 no-drop`, ECN under `uc-tx-queue` with `random-detect ecn`. Thresholds
are written in bytes (the guide's "segments" are a platform cell size the reference does not give). EOS
accepts an MTU of 9214 at most, so a 9216 policy MTU is capped here. Round-robin queues take `no priority`;
EOS keeps higher-numbered queues strict, which fits CNP (6) and control (7) above RoCE (3) and default (0).
"""

from __future__ import annotations

from . import reference as ref
from .headroom import bytes_to_us
from .inputs import SwitchPorts
from .policy import QosPolicy


def _secs(ms: int) -> str:
    return f"{ms / 1000:g}"


def global_lines(policy: QosPolicy) -> list[str]:
    table = policy.dscp_to_priority()
    out = []
    for tc in sorted(set(table)):
        dscps = [d for d, t in enumerate(table) if t == tc]
        for i in range(0, len(dscps), 8):  # EOS takes up to 8 code points per command
            out.append(f"qos map dscp {' '.join(map(str, dscps[i : i + 8]))} to traffic-class {tc}")
    if policy.pfc_priorities and policy.pfc.watchdog:
        pf = policy.pfc
        out += [
            "!",
            f"priority-flow-control pause watchdog default timeout {_secs(pf.watchdog_detect_ms)}",
            f"priority-flow-control pause watchdog default polling-interval {_secs(pf.watchdog_poll_ms)}",
            f"priority-flow-control pause watchdog default recovery-time {_secs(pf.watchdog_restore_ms)}",
            f"priority-flow-control pause watchdog action {'drop' if pf.watchdog_action == 'drop' else 'notify-only'}",
        ]
    return out


def _queue_block(policy: QosPolicy) -> list[str]:
    out = []
    ecn = set(policy.ecn_priorities())
    e = policy.ecn
    for c in sorted(policy.classes, key=lambda c: c.priority):
        out.append(f"   uc-tx-queue {c.priority}")
        if c.scheduling == "strict":
            out.append("      priority strict")
        else:
            out += ["      no priority", f"      bandwidth percent {c.weight}"]
        if c.priority in ecn:
            out.append(
                f"      random-detect ecn minimum-threshold {e.min_bytes} bytes maximum-threshold "
                f"{e.max_bytes} bytes max-mark-probability {e.probability} weight 0"
            )
    return out


def render(
    policy: QosPolicy, switch: SwitchPorts, global_part: list[str] | None = None, queue_part: list[str] | None = None
) -> str:
    mtu = min(policy.mtu.switch, ref.EOS_MAX_MTU)
    out = [f"! fabricdesign QoS for {switch.name} ({switch.model}), mode {policy.mode}"]
    if mtu != policy.mtu.switch:
        out.append(f"! MTU {mtu}: the EOS maximum (policy asks for {policy.mtu.switch})")
    if policy.ecn_enabled:
        for speed in sorted({p.speed_gbps for p in switch.ports}):
            out.append(
                f"! ECN at {speed}G: min {policy.ecn.min_bytes} B = {bytes_to_us(policy.ecn.min_bytes, speed):g} us, "
                f"max {policy.ecn.max_bytes} B = {bytes_to_us(policy.ecn.max_bytes, speed):g} us of line rate"
            )
    out += global_part if global_part is not None else global_lines(policy)
    queues = queue_part if queue_part is not None else _queue_block(policy)
    pfc = policy.pfc_priorities
    for p in switch.ports:
        out += [
            "!",
            f"interface {p.port}",
            f"   description {p.peer} {p.cable_m:g}m",
            f"   mtu {mtu}",
            "   qos trust dscp",
        ]
        if pfc:
            out.append("   priority-flow-control on")
            out += [f"   priority-flow-control priority {sp} no-drop" for sp in pfc]
        out += queues
    out.append("!")
    return "\n".join(out) + "\n"
