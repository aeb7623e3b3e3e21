"""The fix list a technician works from: per problem the cable id and both labels, rack, U and port of each end,
and the action, sorted by rack (then U and port) for one walk through the hall.

A location is written `<rack>-<U>:<port>` ("DC1.B03-18:5/1"), the design's port name after the colon. A problem
with two cables (a swap) is two rows with one problem number.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace

from ..csvcells import iter_csv
from .classify import Finding
from .records import PlannedCable, PlannedLink

FIX_COLUMNS = (
    "problem",
    "class",
    "rack",
    "cable_id",
    "label_a",
    "label_b",
    "a_device",
    "a_rack",
    "a_u",
    "a_port",
    "b_device",
    "b_rack",
    "b_u",
    "b_port",
    "link_id",
    "action",
)

RESEAT = "reseat and clean both ends, check polarity"


@dataclass(frozen=True)
class FixItem:
    problem: int
    kind: str
    rack: str  # where the technician goes for this row
    cable_id: str
    label_a: str
    label_b: str
    a_device: str
    a_rack: str
    a_u: int | None
    a_port: str
    b_device: str
    b_rack: str
    b_u: int | None
    b_port: str
    link_id: str
    action: str
    _sort: tuple = ()

    def row(self) -> tuple:
        return (
            self.problem,
            self.kind,
            self.rack,
            self.cable_id,
            self.label_a,
            self.label_b,
            self.a_device,
            self.a_rack,
            "" if self.a_u is None else self.a_u,
            self.a_port,
            self.b_device,
            self.b_rack,
            "" if self.b_u is None else self.b_u,
            self.b_port,
            self.link_id,
            self.action,
        )

    def to_dict(self) -> dict:
        return dict(zip(FIX_COLUMNS, self.row()))


def _natural(s) -> list:
    return [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", str(s))]


def device_places(links: Iterable[PlannedLink]) -> dict[str, tuple[str, int | None]]:
    """device -> (rack, U), from the plan's links."""
    out: dict[str, tuple[str, int | None]] = {}
    for lk in links:
        out.setdefault(lk.a_device, (lk.a_rack, lk.a_u))
        out.setdefault(lk.b_device, (lk.b_rack, lk.b_u))
    return out


def location(places: Mapping[str, tuple[str, int | None]], device: str, port: str) -> str:
    rack, u = places.get(device, ("", None))
    if not rack:
        return f"{device}:{port}"
    return f"{rack}-{u:02d}:{port}" if u is not None else f"{rack}:{port}"


def _cable_at(link: PlannedLink, end: int) -> str:
    if not link.cables:
        return ""
    return link.cables[0] if end == 0 else link.cables[-1]


def fix_list(
    findings: Iterable[Finding], cables: Mapping[str, PlannedCable], places: Mapping[str, tuple[str, int | None]]
) -> list[FixItem]:
    """The fix list of a classification's findings (engine.asbuilt.classify), sorted by rack."""
    rows: list[tuple[int, FixItem]] = []  # (finding index, item)

    def item(n: int, f: Finding, link: PlannedLink | None, cable: str, action: str, at: tuple[str, str]) -> None:
        c = cables.get(cable)
        rack, u = places.get(at[0], ("", None))
        if link is not None:
            a = (link.a_device, link.a_rack, link.a_u, link.a_port)
            b = (link.b_device, link.b_rack, link.b_u, link.b_port)
        else:
            o = f.observed[0]
            pa, pb = places.get(o.a.device, ("", None)), places.get(o.b.device, ("", None))
            a = (o.a.device, pa[0], pa[1], o.a.port)
            b = (o.b.device, pb[0], pb[1], o.b.port)
        sort = (_natural(rack), u if u is not None else -1, _natural(at[1]), n)
        rows.append(
            (
                n,
                FixItem(
                    0,
                    f.kind,
                    rack,
                    cable,
                    c.label_a if c else "",
                    c.label_b if c else "",
                    *a,
                    *b,
                    link.link_id if link is not None else "",
                    action,
                    sort,
                ),
            )
        )

    def loc(device: str, port: str) -> str:
        return location(places, device, port)

    for n, f in enumerate(findings):
        if f.kind == "miswired":
            lk = f.links[0]
            end = f.wrong_end or 0
            right = (lk.a_device, lk.a_port) if end == 0 else (lk.b_device, lk.b_port)
            cable = _cable_at(lk, end)
            action = f"move {cable or 'the cable'} from {loc(*f.observed_at)} to {loc(*right)}"
            item(n, f, lk, cable, action, f.observed_at)
        elif f.kind == "swapped":
            l1, l2 = f.links
            # The first observed link joins l1's port r1 and l2's port r2: l1's cable runs to r2 instead of
            # to l1's other port, and l2's cable ends on that port instead.
            r1, r2 = f.resolved
            e1 = 0 if tuple(r1) == (l1.a_device, l1.a_port) else 1
            e2 = 0 if tuple(r2) == (l2.a_device, l2.a_port) else 1
            far1 = 1 - e1  # l1's end that is wrong
            p1 = (l1.a_device, l1.a_port) if far1 == 0 else (l1.b_device, l1.b_port)
            p2 = (l2.a_device, l2.a_port) if e2 == 0 else (l2.b_device, l2.b_port)
            c1, c2 = _cable_at(l1, far1), _cable_at(l2, e2)
            pair = f"swap {c1} and {c2}"
            item(n, f, l1, c1, f"{pair}: move {c1} from {loc(*p2)} to {loc(*p1)}", p2)
            item(n, f, l2, c2, f"{pair}: move {c2} from {loc(*p1)} to {loc(*p2)}", p1)
        elif f.kind == "missing":
            lk = f.links[0]
            cable = " ".join(lk.cables)
            a, b = loc(lk.a_device, lk.a_port), loc(lk.b_device, lk.b_port)
            action = f"nothing seen: connect {cable or 'the link'} between {a} and {b}; if it is in place, {RESEAT}"
            item(n, f, lk, lk.cables[0] if lk.cables else "", action, (lk.a_device, lk.a_port))
        elif f.kind == "degraded":
            lk = f.links[0]
            cable = " ".join(lk.cables)
            action = f"{f.detail}: {RESEAT}; replace {cable or 'the cable'} if it stays degraded"
            item(n, f, lk, lk.cables[0] if lk.cables else "", action, (lk.a_device, lk.a_port))
        elif f.kind == "unexpected":
            o = f.observed[0]
            action = (
                f"remove the cable between {loc(o.a.device, o.a.port)} and {loc(o.b.device, o.b.port)}: not in the plan"
            )
            item(n, f, None, "", action, (o.a.device, o.a.port))
    rows.sort(key=lambda r: r[1]._sort)
    numbers: dict[int, int] = {}
    out = []
    for n, it in rows:
        k = numbers.setdefault(n, len(numbers) + 1)
        out.append(replace(it, problem=k, _sort=()))
    return out


def iter_fix_csv(items: Iterable[FixItem]) -> Iterator[str]:
    """The fix list as CSV lines (header first), neutralized: the as-built files' device names are anyone's text."""
    yield from iter_csv([FIX_COLUMNS, *(it.row() for it in items)])
