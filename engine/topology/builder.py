"""Collects devices and links while the topology modules wire a design."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import MISSING, fields
from functools import lru_cache
from itertools import repeat
from typing import Any

from ..catalog import SwitchModel
from ..model import Device, Link

_new = tuple.__new__

# Device's fields and their defaults, the fields that have one, and the setter of each field's slot
# (Builder.devices_by_column). That method sets idx, name, role and model itself, and bypasses __init__: a field
# without a default besides those, or a __post_init__, would need it to change.
_DEVICE_DEFAULTS = {f.name: f.default for f in fields(Device)}
_OPTIONAL_FIELDS = tuple(name for name, default in _DEVICE_DEFAULTS.items() if default is not MISSING)
_DEVICE_SLOT_SET = {name: getattr(Device, name).__set__ for name in _DEVICE_DEFAULTS}
assert set(_DEVICE_DEFAULTS) - set(_OPTIONAL_FIELDS) == {"idx", "name", "role", "model"}
assert not hasattr(Device, "__post_init__")


class Builder:
    """Appends devices and links in a deterministic order; link ids are 1-based and follow that order."""

    def __init__(self) -> None:
        self.devices: list[Device] = []
        self.links: list[Link] = []

    def device(self, name: str, role: str, model: str, **kw: Any) -> int:
        idx = len(self.devices)
        self.devices.append(Device(idx, name, role, model, **kw))
        return idx

    def devices_by_column(
        self, names: Sequence[str], role: str, model: str, each: dict[str, Sequence] | None = None, **same: Any
    ) -> list[int]:
        """Append one device per name, as `device` would one by one: `each` gives fields with a value per device
        (sequences as long as `names`), `same` fields that all share. Returns their indexes.

        Built a column at a time: each field is set on every device by its slot's setter called from C (map), not
        by the frozen dataclass's __init__, which sets its ten fields through object.__setattr__ in Python, about
        1.5 us a device (the 16,384 servers of a 128K-GPU design: 24 ms of CPU as Device(...), 10 ms by column)."""
        n, first, each = len(names), len(self.devices), each or {}
        given = [*each, *same]
        if len(set(given)) < len(given) or not set(_OPTIONAL_FIELDS).issuperset(given):
            raise TypeError(f"device fields given twice or not optional: {given}")
        if any(len(values) != n for values in each.values()):
            raise ValueError(f"a field of `each` has not one value for each of the {n} devices")
        columns: dict[str, Any] = {
            "idx": range(first, first + n),
            "name": names,
            "role": repeat(role),
            "model": repeat(model),
        }
        for name in _OPTIONAL_FIELDS:
            columns[name] = each[name] if name in each else repeat(same.get(name, _DEVICE_DEFAULTS[name]))
        made = list(map(object.__new__, repeat(Device, n)))
        for name, values in columns.items():
            deque(map(_DEVICE_SLOT_SET[name], made, values), maxlen=0)
        self.devices += made
        return list(range(first, first + n))

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
