"""Small designs shared by the QoS tests, and the golden-file helper.

Regenerate golden files after an intended output change:
    FABRICDESIGN_UPDATE_GOLDEN=1 python -m pytest -p no:django tests/engine/qos -q
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from engine.qos import HostInfo, PortInfo, QosPolicy, SwitchPorts

GOLDEN = Path(__file__).parent / "golden"


def leaf(os_: str = "nvue", name: str = "CF-SU01-L01", model: str = "sn5600", buffer_mb=None) -> SwitchPorts:
    """A RoCE leaf: two 400G node ports on short runs, two 400G spine uplinks on longer ones."""
    names = {
        "nvue": ("swp1", "swp2", "swp33", "swp34"),
        "sonic": ("Ethernet0", "Ethernet8", "Ethernet256", "Ethernet264"),
        "eos": ("Ethernet1/1", "Ethernet2/1", "Ethernet33/1", "Ethernet34/1"),
    }[os_]
    ports = (
        PortInfo(names[0], 400, 3.0, "DGX-SU01-N01:OSFP1P1"),
        PortInfo(names[1], 400, 2.5, "DGX-SU01-N02:OSFP1P1"),
        PortInfo(names[2], 400, 30.0, "CF-S01:p1"),
        PortInfo(names[3], 400, 42.7, "CF-S02:p1"),
    )
    return SwitchPorts(name=name, model=model, os=os_, buffer_mb=buffer_mb, sharp=False, ports=ports, role="leaf")


def spine(os_: str = "nvue") -> SwitchPorts:
    port = {"nvue": "swp1", "sonic": "Ethernet0", "eos": "Ethernet1/1"}[os_]
    return SwitchPorts(
        name="CF-S01",
        model="arista-7060x6-64pe" if os_ == "eos" else "sn5600",
        os=os_,
        buffer_mb=None,
        sharp=False,
        ports=(PortInfo(port, 800, 30.0, "CF-SU01-L01:swp33"),),
        role="spine",
    )


def host() -> HostInfo:
    return HostInfo(nic="connectx-7", ports=("eth2", "eth3", "eth4", "eth5"), speed_gbps=400, cable_m=3.0)


def ib_switches(sharp: bool = True) -> list[SwitchPorts]:
    leaves = [
        SwitchPorts(f"CF-SU01-L{i:02d}", "qm9700", "ib", None, sharp, (), role="leaf", subnet_manager=True)
        for i in range(1, 9)
    ]
    spines = [
        SwitchPorts(f"CF-S{i:02d}", "qm9700", "ib", None, sharp, (), role="spine", subnet_manager=True)
        for i in range(1, 5)
    ]
    return leaves + spines


def policy(**qos) -> QosPolicy:
    return QosPolicy.from_dict(qos or None, "ethernet")


def golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("FABRICDESIGN_UPDATE_GOLDEN"):
        path.write_text(text)
    assert path.exists(), f"missing golden {name}: run with FABRICDESIGN_UPDATE_GOLDEN=1"
    assert text == path.read_text(), f"{name} differs from golden; see the diff and regenerate if intended"


__all__ = ["golden", "host", "ib_switches", "leaf", "policy", "replace", "spine"]
