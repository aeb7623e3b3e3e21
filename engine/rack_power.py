"""Rack power: the budget every rack is filled to and checked against.

Budgets (kW per rack):
- server racks: `layout.rack_power_kw` when set (it also limits servers per rack); unset, the server racks
  are the reference architecture's (its servers per rack) and have no budget to check.
- network racks (leaves, spines, cores, other networks' switches, appliances): `layout.network_rack_power_kw`;
  auto = `layout.rack_power_kw` when set, else one reference server rack's draw: the server model's servers per
  rack x its maximum power (DGX H100: 4 x 10.2 = 40.8 kW; the H100 RA's example SU rack draws > 40 kW,
  fabrics-qos-traffic.md A.2). That assumes every rack position is fed like a server rack: a user default,
  listed in docs/data-gaps.md.
Only devices with a power figure count; the summary names the models without one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.catalog import ServerModel
    from engine.model import Device, Place, Rack
    from engine.spec import LayoutSpec

SERVER_KINDS = ("server",)
MAX_RACK_WARNINGS = 20  # one warning per rack up to this many; the summary lists them all


@dataclass(frozen=True)
class RackBudgets:
    server_kw: float | None
    network_kw: float | None
    network_source: str  # how the network budget was set, for the summary

    def of(self, kind: str) -> float | None:
        return self.server_kw if kind in SERVER_KINDS else self.network_kw


def rack_budgets(layout: LayoutSpec, server: ServerModel) -> RackBudgets:
    if layout.network_rack_power_kw is not None:
        network, source = layout.network_rack_power_kw, "layout.network_rack_power_kw"
    elif layout.rack_power_kw is not None:
        network, source = layout.rack_power_kw, "layout.rack_power_kw"
    elif server.power_kw:
        network = round(server.default_per_rack * server.power_kw, 3)
        source = f"one reference {server.key} rack: {server.default_per_rack} x {server.power_kw:g} kW"
    else:
        network, source = None, "none: the server model has no power figure"
    return RackBudgets(layout.rack_power_kw, network, source)


def rack_power_report(
    devices: list[Device], places: list[Place | None], racks: list[Rack], budgets: RackBudgets
) -> tuple[dict, list[str]]:
    """(summary section, warnings): known kW per rack against its budget, one warning per rack over it."""
    kw = [0.0] * len(racks)
    for d, p in zip(devices, places):
        if p is not None and d.power_kw:
            kw[p.rack] += d.power_kw
    over = []
    peak: dict[str, float] = {}
    for r in racks:
        load = round(kw[r.idx], 2)
        group = "server" if r.kind in SERVER_KINDS else "network"
        peak[group] = max(peak.get(group, 0.0), load)
        budget = budgets.of(r.kind)
        if budget is not None and load > budget + 1e-9:
            over.append({"rack": r.id, "kind": r.kind, "kw": load, "budget_kw": budget})
    warnings = [
        f"rack {o['rack']} ({o['kind']}) draws {o['kw']:g} kW, above its {o['budget_kw']:g} kW budget"
        for o in over[:MAX_RACK_WARNINGS]
    ]
    if len(over) > MAX_RACK_WARNINGS:
        warnings.append(
            f"{len(over) - MAX_RACK_WARNINGS} more rack(s) draw more than their budget "
            "(summary: rack_power.over_budget)"
        )
    section = {
        "budget_kw": {"server": budgets.server_kw, "network": budgets.network_kw},
        "network_budget_from": budgets.network_source,
        "max_kw": {k: peak[k] for k in sorted(peak)},
        "over_budget": over,
    }
    return section, warnings
