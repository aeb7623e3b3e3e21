"""Run length of every link: the cable path an installer would pull, before rounding to a stocked length.

Between racks (optics-and-cabling.md F, "suggested length model", a heuristic, L):
    up from the port to the rack top + drop to the overhead tray
  + Manhattan run along the trays (along the row, then across rows)
  + drop + down to the far port + service slack at both ends.
Inside one rack: the vertical distance between the ports + a routing allowance + slack.
Every term is a layout setting; the defaults are listed in docs/data-gaps.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .model import Device, Place, Rack
from .placement import U_M
from .spec import LayoutSpec

if TYPE_CHECKING:
    from engine.model import Link


def device_geometry(
    devices: list[Device], places: list[Place | None], racks: list[Rack]
) -> list[tuple[int, float, float, float] | None]:
    """Per device: (rack index, x, y, port height above the floor in metres); None when unplaced."""
    out: list[tuple[int, float, float, float] | None] = []
    for d, p in zip(devices, places):
        if p is None:
            out.append(None)
            continue
        r = racks[p.rack]
        # Ports sit at the device's mid-height; a zero-U device (PDU) counts from the floor.
        h = 0.0 if d.rack_units == 0 else (p.u - 1 + d.rack_units / 2) * U_M
        out.append((p.rack, r.x_m, r.y_m, h))
    return out


def run_lengths(
    # geometry is device_geometry's; every linked device is placed, so no entry read here is None
    links: list[Link],
    geometry: list[Any],
    layout: LayoutSpec,
) -> list[float]:
    """Metres per link, rounded to the centimetre, parallel to `links`."""
    top = layout.rack_units * U_M
    drop = layout.tray_drop_m
    ends = 2 * layout.slack_per_end_m
    inner = layout.in_rack_allowance_m + ends
    out: list[float] = []
    append = out.append
    for link in links:
        ga = geometry[link.a]
        gb = geometry[link.b]
        if ga[0] == gb[0]:
            length = abs(ga[3] - gb[3]) + inner
        else:
            length = (top - ga[3]) + (top - gb[3]) + 2 * drop + abs(ga[1] - gb[1]) + abs(ga[2] - gb[2]) + ends
        append(round(length, 2))
    return out
