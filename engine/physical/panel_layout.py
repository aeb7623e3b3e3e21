"""Rack units for patch panels: every panel of every tier gets units of its own.

``plan_trunks`` numbers a tier's panels per rack and panel kind from 0, so two tiers (node-leaf and
leaf-spine) or two panel kinds (MPO and LC cassette) in one rack both have a panel 0. Here each rack's
panels stack downwards from the top free unit, tier after tier, kind after kind, each panel taking its
own ``rack_units``: the panels placed are exactly the panels ordered (``plan_panels`` counts
ceil(positions / positions per panel) per rack, tier and kind, which is what is stacked here).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from engine.physical.structured import TrunkPlan


class PanelPlace(NamedTuple):
    """One placed patch panel: rack index, lowest rack unit, units it takes, and what it is."""

    rack: int
    u: int
    rack_units: int
    tier: str
    panel_kind: str
    panel_sku: str


class PanelOverflow(ValueError):
    """A rack's patch panels reach its devices' units: `rack` (index) needs `needed` panel units, `free` are free."""

    def __init__(self, rack: int, rack_name: str, needed: int, free: int) -> None:
        self.rack, self.rack_name, self.needed, self.free = rack, rack_name, needed, free
        self.rack_kind = ""  # filled in by the caller, with what it knows about the rack's devices
        self.devices = 0
        self.device_units = 0
        super().__init__(
            f"rack {rack_name} needs {needed} rack units of patch panels and has {free} free above its devices"
        )


class PanelUnits:
    """Hands out panel rack units per rack; `unit(rack, kind, ordinal)` after `add_plan` for that tier.

    `top` is the highest unit panels may take (below the OOB switch when there is one); `reserved` the
    units placement kept free for panels (`layout.panel_units`); `device_top` the highest unit a device
    takes in each rack. Racks whose panels need more than `reserved` units are in `over` ({rack index:
    units needed}): they use free units below the reserve. A panel that would reach a device's units
    (or fall below U1) raises PanelOverflow: two things cannot share a rack unit.
    """

    def __init__(self, top: int, reserved: int, device_top: dict[int, int] | None = None) -> None:
        self.top = top
        self.reserved = reserved
        self.device_top = device_top or {}
        self.used: dict[int, int] = {}  # rack -> panel units taken so far, from the top down
        self.units: dict[tuple[int, str], tuple[int, ...]] = {}  # (rack, kind) -> lowest unit per ordinal
        self.places: list[PanelPlace] = []
        self.over: dict[int, int] = {}

    def add_plan(self, plan: TrunkPlan, rack_index: dict[str, int], rack_names: list[str]) -> None:
        """Stack one tier's panels (TrunkPlan.usage) under the panels of the tiers added before."""
        self.units = {}
        positions: dict[tuple[int, str], list] = {}
        for use in plan.usage:
            key = (rack_index[use.rack], use.panel_kind)
            entry = positions.get(key)
            taken = use.positions + use.skipped  # skipped positions stand on the panels all the same
            if entry is None:
                positions[key] = [taken, use.positions_per_panel, use.rack_units_per_panel, use.panel_sku]
            else:
                entry[0] += taken
        for (rack, kind), (n, per, ru, sku) in positions.items():
            panels = -(-n // per)
            base = self.used.get(rack, 0)
            units = []
            for k in range(panels):
                u = self.top - base - (k + 1) * ru + 1
                floor = self.device_top.get(rack, 0)
                if u <= floor:
                    raise PanelOverflow(rack, rack_names[rack], base + panels * ru, self.top - floor)
                units.append(u)
                self.places.append(PanelPlace(rack, u, ru, plan.tier, kind, sku))
            self.units[(rack, kind)] = tuple(units)
            self.used[rack] = base + panels * ru
            if self.used[rack] > self.reserved:
                self.over[rack] = self.used[rack]

    def unit(self, rack: int, kind: str, ordinal: int) -> int:
        return self.units[(rack, kind)][ordinal]
