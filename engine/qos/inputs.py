"""What the QoS stage needs from a design. The lead builds these from engine results (devices, links,
run lengths, catalog); nothing here imports the rest of the engine, so the stage can be tested alone."""

from __future__ import annotations

from dataclasses import dataclass

OSES = ("nvue", "sonic", "eos", "ib")  # engine.catalog.SWITCH_OSES (this module imports nothing of the engine)


@dataclass(frozen=True, slots=True)
class PortInfo:
    """One cabled switch port. `cable_m` is the run length of this very link (headroom depends on it)."""

    port: str  # switch port name as the NOS spells it (e.g. "swp1", "Ethernet0", "Ethernet1/1")
    speed_gbps: int
    cable_m: float
    peer: str  # "<device>:<port>" on the far end, for comments and the headroom table


@dataclass(frozen=True)
class SwitchPorts:
    name: str  # device name, e.g. "CF-SU01-L01"
    model: str  # catalog key, e.g. "sn5600"
    os: str  # "nvue" | "sonic" | "eos" | "ib": the catalog's OS for the model (engine.catalog SwitchModel.os_for)
    buffer_mb: float | None  # catalog `buffer_mb`; None = unpublished (fabrics-qos-traffic.md F)
    sharp: bool
    ports: tuple[PortInfo, ...]
    # Optional facts for InfiniBand subnet-manager settings (ignored for Ethernet).
    role: str = ""  # leaf | spine | core
    network: str = "compute"
    plane: int = 0
    subnet_manager: bool = False  # catalog `subnet_manager`: an on-board SM is available
    # Split cages: (cage interface, breakout mode), e.g. ("swp17", "2x400G"); NVUE writes them (engine.ifnames).
    breakouts: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class HostInfo:
    """The compute host template: one script serves every server of the model."""

    nic: str  # "connectx-7" | "connectx-8"
    ports: tuple[str, ...]  # netdev names of the RoCE ports on a host (e.g. "eth2", or rail netdevs)
    speed_gbps: int
    cable_m: float | None = None  # longest node-leaf run; sets `mlnx_qos --cable_len` when given


@dataclass(frozen=True)
class IbFabric:
    """Facts of one InfiniBand fabric (or plane) for its subnet manager."""

    name: str  # e.g. "compute" or "compute-plane1"
    tiers: int
    switches: int
    sharp_capable: bool  # every switch model has catalog `sharp: true`
    sm_on_switch: bool  # some switch model has an on-board SM
    root_switches: tuple[str, ...]  # top-tier switch names, to resolve to GUIDs for the root GUID file
    models: tuple[str, ...] = ()


def ib_fabric_facts(switches: list[SwitchPorts] | tuple[SwitchPorts, ...], name: str) -> IbFabric:
    """Derive IbFabric from the IB switches of one fabric: tiers from roles (leaf/spine/core)."""
    order = ("leaf", "spine", "core")
    roles = {s.role for s in switches if s.role}
    tiers = max((order.index(r) + 1 for r in roles if r in order), default=2)
    top = order[tiers - 1] if roles else ""
    roots = tuple(sorted(s.name for s in switches if s.role == top)) if top else ()
    return IbFabric(
        name=name,
        tiers=tiers,
        switches=len(switches),
        sharp_capable=bool(switches) and all(s.sharp for s in switches),
        sm_on_switch=any(s.subnet_manager for s in switches),
        root_switches=roots,
        models=tuple(sorted({s.model for s in switches})),
    )
