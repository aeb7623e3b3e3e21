"""The fix list a technician works from: per problem the cable id and both labels, rack, U and port of each end,
and the action, sorted by rack (then U and port) for one walk through the hall.

A location is written `<rack>-<U>:<port>` ("DC1.B03-18:5/1"), the design's port name after the colon; every
port, planned or not, is named as the design names it ("10/2", not InfiniBand port 20) on the plan's device.

A swap (two cables crossed) is one row and one action, at the device where the two observed links meet
("swap the cords at CF-SU02-L03 1/2 and 3/1"): its a and b ends are the two ports whose cords are exchanged,
`cable_id` and `link_id` name both cords and links (space-separated, in that order), `label_a` and `label_b`
are each cord's label. When the evidence cannot tell at which end the cords were crossed, the action gives
both places and the labels decide (classify.Finding). So does a miswired cord neither of whose ends is on its
planned device: it may be either planned link's cord, and the action gives both moves.
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


def place(places: Mapping[str, tuple[str, int | None]], device: str) -> str:
    """`<rack>-<U>` of a device ("DC1.B03-18"), its rack alone without a U, "" when the plan does not place it."""
    rack, u = places.get(device, ("", None))
    return f"{rack}-{u:02d}" if rack and u is not None else rack


def location(places: Mapping[str, tuple[str, int | None]], device: str, port: str) -> str:
    return f"{place(places, device) or device}:{port}"


def _cable_at(link: PlannedLink, end: int) -> str:
    if not link.cables:
        return ""
    return link.cables[0] if end == 0 else link.cables[-1]


def _cord(f: Finding, ref: tuple[str, str]) -> tuple[PlannedLink, int, str]:
    """The link of a swap with an end at `ref`, which end, and its cord there (a trunk path has one per end)."""
    for lk in f.links:
        for end, here in ((0, (lk.a_device, lk.a_port)), (1, (lk.b_device, lk.b_port))):
            if here == tuple(ref):
                return lk, end, _cable_at(lk, end)
    raise ValueError(f"{ref} is no end of the swap's links")


def _label_at(cable: PlannedCable | None, ref: tuple[str, str]) -> str:
    if cable is None:
        return ""
    return cable.label_b if (cable.b_device, cable.b_port) == tuple(ref) else cable.label_a


def _swap_action(f: Finding, side, places) -> str:
    p, q = side
    cp, cq = _cord(f, p)[2] or "the cord", _cord(f, q)[2] or "the cord"
    if p[0] == q[0]:
        at = place(places, p[0])
        where = f"{p[0]} {p[1]} and {q[1]}" + (f" ({at})" if at else "")
    else:
        where = f"{p[0]} {p[1]} ({location(places, *p)}) and {q[0]} {q[1]} ({location(places, *q)})"
    return f"swap the cords at {where}: {cp} belongs on {p[1]}, {cq} on {q[1]}"


def _swap_item(n: int, f: Finding, cables: Mapping[str, PlannedCable], places) -> FixItem:
    """One row for a crossed pair (the module docstring); its ends are the first option's two ports."""
    options = f.resolved
    p, q = options[0]
    lp, _, cp = _cord(f, p)
    lq, _, cq = _cord(f, q)
    action = _swap_action(f, options[0], places)
    if len(options) > 1:
        other = _swap_action(f, options[1], places)
        action = (
            f"crossed at one end, the plan cannot tell which: {action}; or, if those cords already match their "
            f"labels, {other}"
        )
    (ra, ua), (rb, ub) = places.get(p[0], ("", None)), places.get(q[0], ("", None))
    sort = (_natural(ra), ua if ua is not None else -1, _natural(p[1]), n)
    return FixItem(
        0,
        f.kind,
        ra,
        " ".join(c for c in (cp, cq) if c),
        _label_at(cables.get(cp), p),
        _label_at(cables.get(cq), q),
        p[0],
        ra,
        ua,
        p[1],
        q[0],
        rb,
        ub,
        q[1],
        f"{lp.link_id} {lq.link_id}",
        action,
        sort,
    )


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
            ea, eb = f.resolved
            pa, pb = places.get(ea[0], ("", None)), places.get(eb[0], ("", None))
            a = (ea[0], pa[0], pa[1], ea[1])
            b = (eb[0], pb[0], pb[1], eb[1])
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
            if f.alternative:
                # One cord joins two planned links' ports, each of which could be the one misplaced.
                alk, aend, awhere = f.alternative
                aright = (alk.a_device, alk.a_port) if aend == 0 else (alk.b_device, alk.b_port)
                there, moved = _cable_at(alk, 1 - aend), _cable_at(alk, aend)
                what = "its other end" if moved == there else (moved or "its other end")
                action += (
                    f"; or, if the cord there is {there or 'the other link'} (by its labels), move {what} from"
                    f" {loc(*awhere)} to {loc(*aright)}"
                )
            item(n, f, lk, cable, action, f.observed_at)
        elif f.kind == "swapped":
            _l1, _l2 = f.links
            # The first observed link joins l1's port r1 and l2's port r2: l1's cable runs to r2 instead of
            # to l1's other port, and l2's cable ends on that port instead.
            rows.append((n, _swap_item(n, f, cables, places)))
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
            ea, eb = f.resolved
            action = f"remove the cable between {loc(*ea)} and {loc(*eb)}: not in the plan"
            item(n, f, None, "", action, ea if ea[0] in places or eb[0] not in places else eb)
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
