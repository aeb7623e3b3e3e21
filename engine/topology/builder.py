"""Collects devices and links while the topology modules wire a design."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..catalog import SwitchModel
from ..model import Device, Link

_new = tuple.__new__


class Builder:
    """Appends devices and links in a deterministic order; link ids are 1-based and follow that order."""

    def __init__(self) -> None:
        self.devices: list[Device] = []
        self.links: list[Link] = []

    def device(self, name: str, role: str, model: str, **kw: Any) -> int:
        idx = len(self.devices)
        self.devices.append(Device(idx, name, role, model, **kw))
        return idx

    def link(
        self,
        network: str,
        plane: int,
        tier: str,
        a: int,
        a_port: str,
        a_cage: str,
        b: int,
        b_port: str,
        b_cage: str,
        speed: int,
    ) -> None:
        links = self.links
        # tuple.__new__ builds the record in C; Link(...) would run the NamedTuple's Python __new__ per link
        links.append(_new(Link, (len(links) + 1, network, plane, tier, a, a_port, a_cage, b, b_port, b_cage, speed)))


def switch_port_names(switch: SwitchModel, speed_gbps: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(port names, cage names) for every port of a switch at a speed, 0-based.

    A twin-port cage 17 carries ports "17/1" and "17/2": the split-port notation NVIDIA uses on its
    OSFP switches. A cage that carries one port at this speed is named by its number alone.
    """
    return _port_names(switch.cages, switch.ports_per_cage(speed_gbps))


@lru_cache(maxsize=256)
def _port_names(n_cages: int, per: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    ports, cages = [], []
    for cage in range(1, n_cages + 1):
        cage_name = str(cage)
        for sub in range(1, per + 1):
            ports.append(f"{cage}/{sub}" if per > 1 else cage_name)
            cages.append(cage_name)
    return tuple(ports), tuple(cages)
