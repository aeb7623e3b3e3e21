"""Subnet-manager settings (opensm.conf key/value lines, as OpenSM and UFM's conf/opensm/opensm.conf take them).

InfiniBand is lossless by credit-based link flow control: there is no PFC, ECN threshold or headroom to
configure on the switches, so an IB fabric gets one SM file instead of per-switch QoS files.
Routing: fat trees use `ftree` (or `ar_ftree` with adaptive routing), with `updn`/`ar_updn` as the
fallback OpenSM tries when ftree rejects the topology (comma list). SHARP aggregation trees need a
fat-tree routing engine and switches with `sharp: true` (switches.yaml).
"""
from __future__ import annotations

from .inputs import IbFabric
from .policy import QosPolicy


def routing_engine(policy: QosPolicy) -> str:
    ib = policy.infiniband
    if ib.routing_engine != "auto":
        return ib.routing_engine
    return "ar_ftree,ar_updn" if ib.adaptive_routing else "ftree,updn"


def sharp_on(policy: QosPolicy, fabric: IbFabric) -> bool:
    s = policy.infiniband.sharp
    return fabric.sharp_capable if s == "auto" else s == "on"


def render(policy: QosPolicy, fabric: IbFabric) -> str:
    ib = policy.infiniband
    engine = routing_engine(policy)
    out = [
        (f"# fabricdesign subnet-manager settings for InfiniBand fabric {fabric.name}: {fabric.tiers}-tier fat tree, "
        f"{fabric.switches} switches ({', '.join(fabric.models) or 'unknown models'})"),
        "# opensm.conf key/value lines (OpenSM, or UFM conf/opensm/opensm.conf).",
        "# Subnet manager: " + ("an on-board SM is available on these switches; a host/UFM SM is preferred at scale"
                                if fabric.sm_on_switch else "the switches are externally managed: run OpenSM/UFM on a host"),
        f"# Root switches ({len(fabric.root_switches)} top-tier): list their GUIDs in the root GUID file once installed",
    ]
    if fabric.root_switches:
        names = list(fabric.root_switches)
        shown = names[:16]
        out.append("#   " + " ".join(shown) + (f" ... (+{len(names) - len(shown)})" if len(names) > 16 else ""))
    out += [f"routing_engine {engine}", "root_guid_file /etc/opensm/root_guids.conf", f"lmc {ib.lmc}"]
    if engine.startswith("ar_") or ",ar_" in engine:
        out.append("# adaptive routing: the ar_* engines program AR groups on the switches (verify with ibdiagnet --routing)")
    else:
        out.append("# adaptive routing off: static ftree/updn forwarding tables")
    if ib.qos:
        out += [
            "qos TRUE",
            f"max_operational_vls {ib.max_operational_vls}",
            f"qos_max_vls {ib.max_operational_vls}",
            "# SL2VL: SL0 compute data -> VL0; SHARP aggregation SL -> its own VL (separated traffic classes)",
            "qos_sl2vl " + ",".join(map(str, ib.sl2vl)),
            "qos_vlarb_low " + ",".join(f"{vl}:{w}" for vl, w in ib.vlarb_low),
        ]
    else:
        out.append("qos FALSE")
    if sharp_on(policy, fabric):
        out += ["# SHARP: all switch models support it (switches.yaml sharp: true); start sharp_am on the SM host",
                "sharp_enabled 2",
                f"# sharp_am.cfg: ib_qpc_sl {ib.sharp_sl}"]
    else:
        why = "not every switch model supports SHARP" if not fabric.sharp_capable else "disabled by policy"
        out += [f"# SHARP off: {why}", "sharp_enabled 0"]
    return "\n".join(out) + "\n"
