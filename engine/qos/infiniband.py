"""Subnet-manager settings: one opensm.conf fragment per InfiniBand fabric (or plane) and its root-node file.

InfiniBand is lossless by credit-based link flow control: there is no PFC, ECN threshold or headroom to
configure on the switches, so an IB fabric gets subnet-manager files instead of per-switch QoS files.

Two flavours (`qos.infiniband.subnet_manager`), each with its own option names and routing engines:

* `opensm`: upstream OpenSM (Debian's opensm 3.3.23; `opensm -c <file>` dumps every option it knows). Routing
  engines: minhop, updn, dnup, file, ftree, lash, dor, torus-2QoS, nue, dfsssp, sssp; no adaptive routing and
  no SHARP option. Fat trees use `ftree,updn` (updn when ftree rejects the topology).
* `ufm`: NVIDIA UFM / MLNX OpenSM (UFM's conf/opensm/opensm.conf), which adds the adaptive-routing engines
  `ar_ftree` / `ar_updn` and `sharp_enabled`. The SHARP aggregation manager needs a tree routing engine
  (updn, ar_updn, ftree, ar_ftree: NVIDIA SHARP 3.3 "Setting up NVIDIA SHARP Environment").

Both take `max_op_vls` for the operational VLs ("max_op_vls 2" in NVIDIA SHARP 2.6.1 "Reducing the Number of
Operational VLs", and in `opensm -c`) and the qos_* options of `opensm -c`.

Root switches: ftree needs the GUIDs of the top tier in `root_guid_file`. A plan has no GUIDs, so each fabric
gets its own `<fabric>.root_guids.conf` beside its conf, written from node descriptions (`#node <name>` lines,
resolved on the SM host once installed) or, once GUIDs were discovered (as-built), from those GUIDs.
"""

from __future__ import annotations

from collections.abc import Mapping

from .inputs import IbFabric
from .policy import QosPolicy

# Where the conf points OpenSM at the root-node file; install both files there (UFM: beside its opensm.conf).
INSTALL_DIR = "/etc/opensm"


def routing_engine(policy: QosPolicy) -> str:
    ib = policy.infiniband
    if ib.routing_engine != "auto":
        return ib.routing_engine
    if ib.subnet_manager == "ufm" and ib.adaptive_routing:
        return "ar_ftree,ar_updn"
    return "ftree,updn"


def sharp_on(policy: QosPolicy, fabric: IbFabric) -> bool:
    s = policy.infiniband.sharp
    return fabric.sharp_capable if s == "auto" else s == "on"


def root_file_name(fabric: IbFabric) -> str:
    return f"{fabric.name}.root_guids.conf"


def render(policy: QosPolicy, fabric: IbFabric) -> str:
    ib = policy.infiniband
    upstream = ib.subnet_manager == "opensm"
    engine = routing_engine(policy)
    flavour = "upstream OpenSM" if upstream else "NVIDIA UFM / MLNX OpenSM (UFM conf/opensm/opensm.conf)"
    out = [
        (
            f"# fabricdesign subnet-manager settings for InfiniBand fabric {fabric.name}: {fabric.tiers}-tier fat tree, "
            f"{fabric.switches} switches ({', '.join(fabric.models) or 'unknown models'})"
        ),
        f"# opensm.conf key/value lines for {flavour}.",
        "# Subnet manager: "
        + (
            "an on-board SM is available on these switches; a host/UFM SM is preferred at scale"
            if fabric.sm_on_switch
            else "the switches are externally managed: run OpenSM/UFM on a host"
        ),
        f"# Root switches ({len(fabric.root_switches)} top-tier): {root_file_name(fabric)}, installed in {INSTALL_DIR}",
    ]
    if fabric.root_switches:
        names = list(fabric.root_switches)
        shown = names[:16]
        out.append("#   " + " ".join(shown) + (f" ... (+{len(names) - len(shown)})" if len(names) > 16 else ""))
    out += [f"routing_engine {engine}", f"root_guid_file {INSTALL_DIR}/{root_file_name(fabric)}", f"lmc {ib.lmc}"]
    if "ar_" in engine:
        out.append(
            "# adaptive routing: the ar_* engines program AR groups on the switches (verify with ibdiagnet --routing)"
        )
    elif upstream and ib.adaptive_routing:
        out.append("# adaptive routing: not available in upstream OpenSM (UFM / MLNX OpenSM only); static ftree/updn")
    else:
        out.append("# adaptive routing off: static ftree/updn forwarding tables")
    out.append(f"max_op_vls {ib.max_operational_vls}")
    if ib.qos:
        out += [
            "qos TRUE",
            f"qos_max_vls {ib.max_operational_vls}",
            "# SL2VL: SL0 compute data -> VL0; SHARP aggregation SL -> its own VL (separated traffic classes)",
            "qos_sl2vl " + ",".join(map(str, ib.sl2vl)),
            "qos_vlarb_low " + ",".join(f"{vl}:{w}" for vl, w in ib.vlarb_low),
        ]
    else:
        out.append("qos FALSE")
    on = sharp_on(policy, fabric)
    if upstream:
        out.append(
            "# SHARP: "
            + (
                "run NVIDIA's sharp_am beside the SM (upstream OpenSM has no SHARP option); "
                f"sharp_am.cfg: ib_qpc_sl {ib.sharp_sl}"
                if on
                else "off"
            )
        )
    elif on:
        out += [
            "# SHARP: all switch models support it (switches.yaml sharp: true); start sharp_am on the SM host",
            "sharp_enabled 2",
            f"# sharp_am.cfg: ib_qpc_sl {ib.sharp_sl}",
        ]
    else:
        why = "not every switch model supports SHARP" if not fabric.sharp_capable else "disabled by policy"
        out += [f"# SHARP off: {why}", "sharp_enabled 0"]
    return "\n".join(out) + "\n"


# Prints "<GUID> # <name>" for the ibswitches line whose node description holds <name> as a whole word
# (a Quantum switch describes itself as e.g. "MF0;<hostname>:MQM9700/U1"; ibswitches: `Switch : 0x... ports
# N "<description>" ...`).
_AWK = '\'{d=$2; gsub(/[;:\\/ ]/, " ", d); if (index(" " d " ", " " n " ")) {split($1, a, " "); print a[3] " # " n}}\''


def render_root_nodes(fabric: IbFabric, guids: Mapping[str, str] | None = None) -> str:
    """OpenSM root_guid_file: one GUID per line (`#` starts a comment). `guids` maps a root switch's name to
    its discovered node GUID (as-built); switches without one are written as `#node <name>` lines to resolve."""
    guids = guids or {}
    known = [(n, guids[n]) for n in fabric.root_switches if n in guids]
    todo = [n for n in fabric.root_switches if n not in guids]
    name = root_file_name(fabric)
    out = [
        f"# OpenSM root_guid_file for InfiniBand fabric {fabric.name}: its {len(fabric.root_switches)} "
        "top-tier (root) switches."
    ]
    if todo:
        out += [
            "# A switch's GUID is known only once it is installed: each `#node` line names a root switch by its",
            "# node description (the switch's hostname). Resolve them on the SM host after cabling, e.g.:",
            f"#   for n in $(sed -n 's/^#node //p' {name}); do ibswitches | awk -F'\"' -v n=\"$n\" \\",
            "#     " + _AWK + f"; done >> {name}",
            "# (it appends one GUID line per root switch; OpenSM reads only the GUID lines).",
        ]
    out += [f"{g} # {n}" for n, g in known]
    out += [f"#node {n}" for n in todo]
    return "\n".join(out) + "\n"
