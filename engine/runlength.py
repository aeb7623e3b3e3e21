"""Run length of every link: the cable path an installer would pull, before rounding to a stocked length.

Between racks (optics-and-cabling.md F, "suggested length model", a heuristic, L):
    up from the port to the rack top + drop to the overhead tray
  + Manhattan run along the trays (along the row, then across rows)
  + drop + down to the far port + service slack at both ends.
Inside one rack: the vertical distance between the ports + a routing allowance + slack.
Between halls (docs/site-model.md): up + drop + the tray run from each rack to its hall's entry (the front
corner of the hall, x = y = 0) + each hall's pathway to the MDA (hall 1 holds the MDA: no pathway)
+ drop + down + slack:

    [rack A]--tray-->entry(hall a)==pathway a==[MDA]==pathway b==entry(hall b)--tray-->[rack B]

Every term is a layout or site setting; the defaults are listed in docs/data-gaps.md.
"""

from __future__ import annotations

from .model import Device, Place, Rack
from .placement import U_M
from .spec import LayoutSpec, SiteSpec


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


def run_lengths(links, geometry, layout: LayoutSpec, site: SiteSpec | None = None, racks=None) -> list[float]:
    """Metres per link, rounded to the centimetre, parallel to `links`; `racks` (with their halls) is needed
    only when they stand in more than one hall."""
    if site is not None and racks and any(r.hall for r in racks):
        return _run_lengths_halls(links, geometry, layout, site, [r.hall for r in racks])
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


def _run_lengths_halls(links, geometry, layout: LayoutSpec, site: SiteSpec, hall_of: list[int]) -> list[float]:
    top = layout.rack_units * U_M
    drop = layout.tray_drop_m
    ends = 2 * layout.slack_per_end_m
    inner = layout.in_rack_allowance_m + ends
    pathway = [site.pathway_of(h) for h in range(max(hall_of) + 1)]
    out: list[float] = []
    append = out.append
    for link in links:
        ga = geometry[link.a]
        gb = geometry[link.b]
        ra, rb = ga[0], gb[0]
        if ra == rb:
            length = abs(ga[3] - gb[3]) + inner
        else:
            length = (top - ga[3]) + (top - gb[3]) + 2 * drop + ends
            ha, hb = hall_of[ra], hall_of[rb]
            if ha == hb:
                length += abs(ga[1] - gb[1]) + abs(ga[2] - gb[2])
            else:
                length += ga[1] + ga[2] + pathway[ha] + pathway[hb] + gb[1] + gb[2]
        append(round(length, 2))
    return out
