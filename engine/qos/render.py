"""Dispatch to the vendor renderers. Every function returns (relative filename under configs/, text)."""

from __future__ import annotations

from typing import Any

from . import eos, hosts, infiniband, nvue, sonic
from .inputs import HostInfo, IbFabric, SwitchPorts
from .policy import QosPolicy

SUFFIX = {"nvue": "nvue.txt", "sonic": "config_db.json", "eos": "eos.cfg"}


def switch_filename(switch: SwitchPorts) -> str:
    return f"qos/switches/{switch.name}.{SUFFIX[switch.os]}"


def render_switch(policy: QosPolicy, switch: SwitchPorts, _cache: dict | None = None) -> tuple[str, str]:
    """One switch's QoS config in its own OS syntax. `_cache` (from plan_qos) holds the switch-wide parts,
    which are the same for every switch of a policy, so large designs build them once."""
    cache = _cache if _cache is not None else {}
    if switch.os == "nvue":
        part = cache.get("nvue") or cache.setdefault("nvue", nvue.global_lines(policy))
        return switch_filename(switch), nvue.render(policy, switch, part)
    if switch.os == "sonic":
        return switch_filename(switch), sonic.render(policy, switch)
    if switch.os == "eos":
        g = cache.get("eos") or cache.setdefault("eos", eos.global_lines(policy))
        q = cache.get("eos-q") or cache.setdefault("eos-q", eos._queue_block(policy))
        return switch_filename(switch), eos.render(policy, switch, g, q)
    raise ValueError(f"{switch.name}: no per-switch QoS file for os {switch.os!r} (InfiniBand uses the subnet manager)")


def render_hosts(policy: QosPolicy, host: HostInfo) -> tuple[str, str]:
    return f"qos/hosts/roce-qos-{host.nic}.sh", hosts.render(policy, host)


def render_subnet_manager(policy: QosPolicy, fabric: IbFabric) -> tuple[str, str]:
    return f"qos/subnet-manager/{fabric.name}.opensm.conf", infiniband.render(policy, fabric)


def render_root_nodes(fabric: IbFabric, guids: Any = None) -> tuple[str, str]:
    """The fabric's root-node file, beside its conf (engine.qos.infiniband.render_root_nodes)."""
    return f"qos/subnet-manager/{infiniband.root_file_name(fabric)}", infiniband.render_root_nodes(fabric, guids)
