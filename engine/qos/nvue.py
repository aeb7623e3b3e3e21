"""NVIDIA Cumulus Linux 5.x (NVUE) commands for one Spectrum switch.

The file is a bare command list (every line `nv set ...` or `nv config ...`, no comments) so it can be
piped to a shell as is; the reasons live in docs/qos.md. Explicit profiles are written instead of the
`nv set qos roce` shortcut so every value the policy edits is visible and the same on every switch.
Headroom is left to the NOS: NVUE takes the cable length per PFC profile and sizes the ASIC buffers itself
([CL-RoCE] shows `cable-length` in the roce profile); our 802.1Qbb figure is used for the buffer check.
"""

from __future__ import annotations

import math

from .inputs import SwitchPorts
from .policy import QosPolicy

G = "default-global"


def cable_length(cable_m: float) -> int:
    # NVUE cable-length is whole metres; round up so headroom is never undersized.
    return max(1, math.ceil(cable_m - 1e-9))


def global_lines(policy: QosPolicy) -> list[str]:
    """The switch-wide part; identical on every switch of a policy (cached by the caller)."""
    out = [f"nv set qos mapping {G} trust l3"]
    out += [f"nv set qos mapping {G} dscp {d} switch-priority {p}" for d, p in enumerate(policy.dscp_to_priority())]
    used = {c.priority for c in policy.classes}
    for sp in range(8):
        tc = sp if sp in used else policy.default.priority
        out.append(f"nv set qos egress-queue-mapping {G} switch-priority {sp} traffic-class {tc}")
    for c in sorted(policy.classes, key=lambda c: c.priority):
        out.append(f"nv set qos egress-scheduler {G} traffic-class {c.priority} mode {c.scheduling}")
        if c.scheduling == "dwrr":
            out.append(f"nv set qos egress-scheduler {G} traffic-class {c.priority} bw-percent {c.weight}")
    for tc in sorted({getattr(policy, n).priority for n in policy.ecn.classes}):
        base = f"nv set qos congestion-control {G} traffic-class {tc}"
        if policy.ecn_enabled:
            out += [
                f"{base} ecn enable",
                f"{base} red disable",
                f"{base} min-threshold {policy.ecn.min_bytes}",
                f"{base} max-threshold {policy.ecn.max_bytes}",
                f"{base} probability {policy.ecn.probability}",
            ]
        else:
            out.append(f"{base} ecn disable")
    if policy.pfc_priorities and policy.pfc.watchdog:
        robustness = max(1, round(policy.pfc.watchdog_detect_ms / policy.pfc.watchdog_poll_ms))
        out += [
            f"nv set qos pfc-watchdog polling-interval {policy.pfc.watchdog_poll_ms}",
            f"nv set qos pfc-watchdog robustness {robustness}",
        ]
    return out


def render(policy: QosPolicy, switch: SwitchPorts, global_part: list[str] | None = None) -> str:
    # Split cages first: the swpNsM interfaces below exist only once their cage is broken out. Explicit
    # `<ports>x<speed>G` form (Cumulus Linux 5.x "Switch Port Attributes", breakout: `nv set interface swp1
    # link breakout 4x25G`), so the lane speed never depends on a platform default.
    out = [f"nv set interface {cage} link breakout {mode}" for cage, mode in switch.breakouts]
    out += global_part if global_part is not None else global_lines(policy)
    pfc = policy.pfc_priorities
    if pfc:
        for length in sorted({cable_length(p.cable_m) for p in switch.ports}):
            name = f"roce-pfc-{length}m"
            out += [f"nv set qos pfc {name} switch-priority {sp}" for sp in pfc]
            out += [
                f"nv set qos pfc {name} tx enable",
                f"nv set qos pfc {name} rx enable",
                f"nv set qos pfc {name} cable-length {length}",
            ]
    mtu = policy.mtu.switch
    watchdog = bool(pfc) and policy.pfc.watchdog
    for p in switch.ports:
        out.append(f"nv set interface {p.port} link mtu {mtu}")
        if pfc:
            out.append(f"nv set interface {p.port} qos pfc profile roce-pfc-{cable_length(p.cable_m)}m")
            if watchdog:
                # Documented form: `nv set interface <id> qos pfc-watchdog state enable` (NVUE reference, QoS
                # set commands; Cumulus Linux 5.x "Data Center Bridging", PFC watchdog).
                out.append(f"nv set interface {p.port} qos pfc-watchdog state enable")
    out.append("nv config apply -y")
    return "\n".join(out) + "\n"
