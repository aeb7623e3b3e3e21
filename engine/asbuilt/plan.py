"""The plan side of the as-built comparison, from a computed design: its links with where each end stands and
their cables, the cables' labels, and every name of every port (engine.asbuilt.matching.port_aliases)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.ifnames import technology_of

from .matching import PortRef, SpareNames, port_aliases, spare_names
from .records import PlannedCable, PlannedLink

_CABLE_ID = "C{:06d}"


@dataclass(frozen=True)
class PlannedFabric:
    links: tuple[PlannedLink, ...]
    cables: dict[str, PlannedCable]
    aliases: dict[PortRef, tuple[str, ...]]
    spare: dict[str, SpareNames] = field(default_factory=dict)  # switch -> names of its unused ports


def planned_fabric(
    result: Any, catalog: Any = None, ethernet_os: str | None = None, *, cables: bool = True
) -> PlannedFabric:
    """Every link of the design (all networks), its cables and labels; the design must have its physical
    layer (compute_design always makes one). `cables=False` leaves the labels out (rendering 400,000 of them
    costs seconds): the app reads the few a fix list needs from the stored cable rows."""
    physical = result.physical
    catalog = catalog if catalog is not None else getattr(result, "catalog", None)
    switches = getattr(catalog, "switches", {}) if catalog is not None else {}
    lane_rate = [getattr(switches.get(d.model), "lanes_gbps", 0) or 0 for d in result.devices]
    per_link = physical.cables if physical is not None else [()] * len(result.links)
    links = []
    for row, lk, cable_ids in zip(result.link_rows(), result.links, per_link):
        rate = lane_rate[lk.a] or lane_rate[lk.b]
        link_id, network, _plane, tier, speed, a_dev, a_port, a_rack, a_u, b_dev, b_port, b_rack, b_u, _len = row
        links.append(
            PlannedLink(
                link_id,
                network,
                int(speed),
                a_dev,
                a_port,
                b_dev,
                b_port,
                a_rack,
                a_u if a_u != "" else None,
                b_rack,
                b_u if b_u != "" else None,
                tuple(map(_CABLE_ID.format, cable_ids)),
                tier,
                int(lk.speed_gbps // rate) if rate else 0,
                technology_of(result.spec, network),
            )
        )
    labels: dict[str, PlannedCable] = {}
    if physical is not None and cables:
        for row in physical.cable_rows_out(result):
            cid, a_dev, a_port, b_dev, b_port, la, lb = row[0], row[6], row[7], row[10], row[11], row[14], row[15]
            labels[cid] = PlannedCable(cid, la, lb, a_dev, a_port, b_dev, b_port)
    return PlannedFabric(
        tuple(links), labels, port_aliases(result, catalog, ethernet_os), spare_names(result, catalog, ethernet_os)
    )
