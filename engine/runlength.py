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

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from .model import Device, Link, Place, Rack
from .placement import U_M
from .spec import LayoutSpec, SiteSpec

# Lengths are rounded to the centimetre through a memo per measure. A design's runs take a few thousand
# distinct lengths (6,828 of 1,577,792 links at 512K GPUs: racks, units and rows stand on a grid), and
# round(x, 2) (correctly rounded through its decimal digits) costs about five dictionary look-ups.


def device_geometry(
    devices: list[Device], places: list[Place | None], racks: list[Rack], layout: LayoutSpec
) -> list[tuple[int, float, float, float, float, int] | None]:
    """Per device: (rack index, x, y, port height above the floor, its depth below the rack top, in metres, and
    the rack's hall); None when unplaced. The depth and hall are read per link end by measure_runs."""
    top = layout.rack_units * U_M
    out: list[tuple[int, float, float, float, float, int] | None] = []
    for d, p in zip(devices, places):
        if p is None:
            out.append(None)
            continue
        r = racks[p.rack]
        # Ports sit at the device's mid-height; a zero-U device (PDU) counts from the floor.
        h = 0.0 if d.rack_units == 0 else (p.u - 1 + d.rack_units / 2) * U_M
        out.append((p.rack, r.x_m, r.y_m, h, top - h, r.hall))
    return out


def run_lengths(
    # geometry is device_geometry's; every linked device is placed, so no entry read here is None
    links: list[Link],
    geometry: list[Any],
    layout: LayoutSpec,
    site: SiteSpec | None = None,
    racks: list[Rack] | None = None,
) -> list[float]:
    """Metres per link, rounded to the centimetre, parallel to `links`; `racks` (with their halls) is needed
    only when they stand in more than one hall."""
    out: list[float] = []
    measure_runs(links, geometry, layout, site, racks, None, out)
    return out


def measure_runs(
    links: list[Link],
    geometry: list[Any],
    layout: LayoutSpec,
    site: SiteSpec | None,
    racks: list[Rack] | None,
    only: Sequence[int] | None,
    out: list[float],
    gathers: tuple[Callable[[Sequence], tuple], Callable[[Sequence], tuple]] | None = None,
) -> None:
    """run_lengths of the links at the indexes `only` (ascending), written into `out` (parallel to `links`) at
    those indexes; of every link when `only` is None (then `out` is filled whatever its length). The physical
    stage measures the links through patch panels first, and the others only once the panels fit
    (engine/physical_stage.py place_panels).

    `gathers` (with `only` None): two functions of a per-device table giving the tuple of each link's A (B)
    device's entry (engine/physical_stage.py LinkEnds.gathers), when the caller has them: every link is then
    measured by one list comprehension over the two gathered geometry columns, not a loop that reads each link's
    ends and stores into `out` by index (0.10 against 0.14 s at 128K GPUs)."""
    if only is None and gathers is not None:
        if site is not None and racks and any(r.hall for r in racks):
            out[:] = _halls_all(gathers, geometry, layout, site, max(r.hall for r in racks))
        else:
            out[:] = _flat_all(gathers, geometry, layout)
        return
    if only is None:
        out[:] = [0.0] * len(links)
    # (index, link) pairs, without an index look-up per link when every link is measured
    pairs = enumerate(links) if only is None else zip(only, map(links.__getitem__, only))
    if site is not None and racks and any(r.hall for r in racks):
        _measure_halls(pairs, out, geometry, layout, site, max(r.hall for r in racks))
        return
    drop2 = 2 * layout.tray_drop_m
    ends = 2 * layout.slack_per_end_m
    inner = layout.in_rack_allowance_m + ends
    memo: dict[float, float] = {}  # length -> round(length, 2) (see the note at the top)
    get = memo.get
    for i, link in pairs:
        ga = geometry[link.a]
        gb = geometry[link.b]
        if ga[0] == gb[0]:
            length = abs(ga[3] - gb[3]) + inner
        else:
            length = ga[4] + gb[4] + drop2 + abs(ga[1] - gb[1]) + abs(ga[2] - gb[2]) + ends
        r = get(length)
        if r is None:
            r = memo[length] = round(length, 2)
        out[i] = r


def _measure_halls(
    pairs: Iterator[tuple[int, Link]],
    out: list[float],
    geometry: list[Any],
    layout: LayoutSpec,
    site: SiteSpec,
    last_hall: int,
) -> None:
    drop2 = 2 * layout.tray_drop_m
    ends = 2 * layout.slack_per_end_m
    inner = layout.in_rack_allowance_m + ends
    pathway = [site.pathway_of(h) for h in range(last_hall + 1)]
    memo: dict[float, float] = {}  # length -> round(length, 2) (see the note at the top)
    get = memo.get
    for i, link in pairs:
        ga = geometry[link.a]
        gb = geometry[link.b]
        if ga[0] == gb[0]:
            length = abs(ga[3] - gb[3]) + inner
        else:
            ha, hb = ga[5], gb[5]
            if ha == hb:
                length = ga[4] + gb[4] + drop2 + ends + (abs(ga[1] - gb[1]) + abs(ga[2] - gb[2]))
            else:
                length = ga[4] + gb[4] + drop2 + ends + (ga[1] + ga[2] + pathway[ha] + pathway[hb] + gb[1] + gb[2])
        r = get(length)
        if r is None:
            r = memo[length] = round(length, 2)
        out[i] = r


# The same measures over every link at once (measure_runs with `gathers`): the expressions, and so the order of
# the additions, are those of the loops above, so the lengths are the same floats.


def _rounder(memo: dict[float, float]) -> Callable[[float], float]:
    """What a miss of `memo` (length -> round(length, 2)) costs: the rounding, kept."""

    def miss(length: float) -> float:
        r = memo[length] = round(length, 2)
        return r

    return miss


def _flat_all(
    gathers: tuple[Callable[[Sequence], tuple], Callable[[Sequence], tuple]], geometry: list[Any], layout: LayoutSpec
) -> list[float]:
    drop2 = 2 * layout.tray_drop_m
    ends = 2 * layout.slack_per_end_m
    inner = layout.in_rack_allowance_m + ends
    memo: dict[float, float] = {}
    get, miss = memo.get, _rounder(memo)
    # a length of 0.0 (falsy) goes to `miss`, which rounds it again: the same value
    return [
        get(
            length := abs(ga[3] - gb[3]) + inner
            if ga[0] == gb[0]
            else ga[4] + gb[4] + drop2 + abs(ga[1] - gb[1]) + abs(ga[2] - gb[2]) + ends
        )
        or miss(length)
        for ga, gb in zip(gathers[0](geometry), gathers[1](geometry))
    ]


def _halls_all(
    gathers: tuple[Callable[[Sequence], tuple], Callable[[Sequence], tuple]],
    geometry: list[Any],
    layout: LayoutSpec,
    site: SiteSpec,
    last_hall: int,
) -> list[float]:
    drop2 = 2 * layout.tray_drop_m
    ends = 2 * layout.slack_per_end_m
    inner = layout.in_rack_allowance_m + ends
    pathway = [site.pathway_of(h) for h in range(last_hall + 1)]
    memo: dict[float, float] = {}
    get, miss = memo.get, _rounder(memo)
    return [
        get(
            length := abs(ga[3] - gb[3]) + inner
            if ga[0] == gb[0]
            else ga[4] + gb[4] + drop2 + ends + (abs(ga[1] - gb[1]) + abs(ga[2] - gb[2]))
            if ga[5] == gb[5]
            else ga[4] + gb[4] + drop2 + ends + (ga[1] + ga[2] + pathway[ga[5]] + pathway[gb[5]] + gb[1] + gb[2])
        )
        or miss(length)
        for ga, gb in zip(gathers[0](geometry), gathers[1](geometry))
    ]
