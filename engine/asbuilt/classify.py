"""Every planned and observed link classified against the plan.

Classes (CLASSES): ok; degraded (up between the planned ports at fewer lanes, or a lower speed, than
planned); swapped (two planned links crossed: A1-B2 and A2-B1 seen instead of A1-B1 and A2-B2); miswired (one
end on the planned port, the other on the wrong port or device); missing (planned, nothing seen on either of
its ports although a device it joins was covered by an import); unexpected (seen, not planned, and no
planned link claims it). A planned link whose devices no import covered yet is `unseen`, not a problem.

Partial imports (a rack, a row, a day) accumulate (accumulate()): an import replaces what earlier imports said
about the devices it covers and keeps the rest, so a problem fixed and re-imported drops out.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .matching import PortMatcher, PortRef
from .records import Observation, ObservedLink, PlannedLink

CLASSES = ("ok", "degraded", "swapped", "miswired", "missing", "unexpected")
PROBLEMS = ("degraded", "swapped", "miswired", "missing", "unexpected")


@dataclass(frozen=True)
class Finding:
    """One problem: its class, the planned links it concerns, the observed links behind it, and for a
    miswired link which end is wrong: `wrong_end` (0 = a, 1 = b) of link_ids[0] sits at `observed_at`
    (PortMatcher.resolve: the design's names where known).

    A swap's `resolved` holds where its cords can be exchanged, each option a pair of planned ports (one of
    each link's, in natural order) that no single observed link joins: the side where both observed links
    meet on one device first and alone; both sides, in natural order, when the evidence cannot tell (both
    sides on one device each, as two parallel switch links, or neither). Its links are in link-id order.
    An unexpected link's `resolved` holds its two ends (PortMatcher.resolve) in natural order, whichever the file
    printed first."""

    kind: str
    links: tuple[PlannedLink, ...]
    observed: tuple[ObservedLink, ...] = ()
    wrong_end: int | None = None
    observed_at: tuple[str, str] = ("", "")
    detail: str = ""
    resolved: tuple = ()  # swapped: ((PortRef, PortRef), ...) options; unexpected: (PortRef, PortRef)
    # miswired, when the evidence cannot tell which end of the observed link is the wrong one: the other
    # reading, (link, wrong_end, observed_at) as above
    alternative: tuple = ()


@dataclass(frozen=True)
class Classification:
    counts: dict[str, int]  # per class, links (unexpected: observed links); plus "unseen"
    per_rack: dict[str, dict[str, int]]  # rack -> class -> planned links with an end in it
    findings: tuple[Finding, ...]
    status: dict[str, str] = field(repr=False)  # link_id -> class (every planned link)


def accumulate(
    observations: Iterable[Observation], matcher: PortMatcher
) -> tuple[list[ObservedLink], set[tuple[str, str]]]:
    """The observed links standing after `observations` (oldest first), and what they cover: (plan's device,
    technology) pairs, technology "" for a file that may hold any link. An observation drops earlier links
    of its technology with an end on a device it covers."""
    standing: list[tuple[ObservedLink, frozenset[str], str]] = []
    covered: set[tuple[str, str]] = set()
    for obs in observations:
        tech = obs.technology
        scope = {d for d in (matcher.device(x) for x in obs.devices) if d is not None}
        unresolved = {x for x in obs.devices if matcher.device(x) is None}
        covered |= {(d, tech) for d in scope}
        if scope or unresolved:
            standing = [
                (lk, ends, t)
                for lk, ends, t in standing
                if not (tech in ("", t) or t == "")
                or (not (ends & scope) and not ({lk.a.device, lk.b.device} & unresolved))
            ]
        for lk in obs.links:
            ends = frozenset(d for d in (matcher.device(lk.a.device), matcher.device(lk.b.device)) if d)
            standing.append((lk, ends, tech))
    return [lk for lk, _, _ in standing], covered


def _covers(covered: set[tuple[str, str]], link: PlannedLink) -> bool:
    for device in (link.a_device, link.b_device):
        if (device, "") in covered or (device, link.technology) in covered:
            return True
    return False


def _degraded(link: PlannedLink, seen: ObservedLink, compare_speed: bool) -> str:
    lanes = link.lanes
    if seen.width and lanes and seen.width < lanes:
        return f"up at {seen.width}X instead of {lanes}X"
    total = seen.total_gbps
    if compare_speed and total is not None and total < link.speed_gbps * 0.99:
        return f"up at {total:g} Gb/s instead of {link.speed_gbps} Gb/s"
    return ""


def classify(
    links: Sequence[PlannedLink],
    observed: Sequence[ObservedLink],
    matcher: PortMatcher,
    covered: set[tuple[str, str]],
    *,
    compare_speed: bool = True,
) -> Classification:
    """Classify (see the module docstring). `compare_speed=False` judges InfiniBand links by width only (a
    simulator that runs every lane at SDR)."""
    resolved: list[tuple[PortRef | None, PortRef | None]] = [(matcher.port(o.a), matcher.port(o.b)) for o in observed]
    at: dict[PortRef, int] = {}  # planned port -> index of the observed link seen on it
    for i, (ra, rb) in enumerate(resolved):
        for r in (ra, rb):
            if r is not None:
                at.setdefault(r, i)
    status: dict[str, str] = {}
    findings: list[Finding] = []
    used: set[int] = set()  # observed links explained

    # ok / degraded: an observed link between the two planned ports.
    for lk in links:
        ea, eb = matcher.ends(lk)
        hit = at.get(ea)
        if hit is not None and at.get(eb) == hit:
            used.add(hit)
            why = _degraded(lk, observed[hit], compare_speed)
            if why:
                status[lk.link_id] = "degraded"
                findings.append(Finding("degraded", (lk,), (observed[hit],), detail=why))
            else:
                status[lk.link_id] = "ok"

    _find_swaps(resolved, observed, at, matcher, used, status, findings)
    _find_miswired(resolved, observed, at, matcher, used, status, findings)

    # missing / unseen
    for lk in links:
        if lk.link_id in status:
            continue
        if _covers(covered, lk):
            status[lk.link_id] = "missing"
            findings.append(Finding("missing", (lk,)))
        else:
            status[lk.link_id] = "unseen"

    unexpected = [
        observed[i] for i in range(len(observed)) if i not in used and not _planned_pair(resolved[i], status, matcher)
    ]
    for o in unexpected:
        ends = sorted((matcher.resolve(o.a), matcher.resolve(o.b)), key=lambda r: [_natural(x) for x in r])
        findings.append(Finding("unexpected", (), (o,), resolved=tuple(ends)))

    counts = Counter(status.values())
    out = {k: counts.get(k, 0) for k in CLASSES if k != "unexpected"}
    out["unexpected"] = len(unexpected)
    out["unseen"] = counts.get("unseen", 0)
    per_rack: dict[str, Counter] = {}
    for lk in links:
        s = status[lk.link_id]
        for rack in {lk.a_rack, lk.b_rack}:
            if rack:
                per_rack.setdefault(rack, Counter())[s] += 1
    return Classification(out, {r: dict(c) for r, c in sorted(per_rack.items())}, tuple(findings), status)


def _find_swaps(
    resolved: list[tuple[PortRef | None, PortRef | None]],
    observed: Sequence[ObservedLink],
    at: dict[PortRef, int],
    matcher: PortMatcher,
    used: set[int],
    status: dict[str, str],
    findings: list[Finding],
) -> None:
    """Marks the swapped pairs in `status`, `used` and `findings`."""
    # swapped: planned L1 = p1-q1 and L2 = p2-q2 seen as p1-q2 and p2-q1.
    for i, (ra, rb) in enumerate(resolved):
        if i in used or ra is None or rb is None:
            continue
        l1, l2 = matcher.link_at(ra), matcher.link_at(rb)
        if l1 is None or l2 is None or l1 is l2 or l1.link_id in status or l2.link_id in status:
            continue
        o1 = _other(matcher, l1, ra)
        o2 = _other(matcher, l2, rb)
        j = at.get(o1)
        if j is None or j == i or j in used or at.get(o2) != j:
            continue
        used.update((i, j))
        status[l1.link_id] = status[l2.link_id] = "swapped"
        pair = tuple(sorted((l1, l2), key=lambda lk: lk.link_id))
        findings.append(Finding("swapped", pair, (observed[i], observed[j]), resolved=_swap_sides(ra, rb, o1, o2)))


def _find_miswired(
    resolved: list[tuple[PortRef | None, PortRef | None]],
    observed: Sequence[ObservedLink],
    at: dict[PortRef, int],
    matcher: PortMatcher,
    used: set[int],
    status: dict[str, str],
    findings: list[Finding],
) -> None:
    """Marks the miswired links in `status`, `used` and `findings`."""
    # miswired: one end where planned, the other elsewhere. The link whose correct port is free is the one
    # moved; a move on the same device (another port) is preferred to one onto another device.
    for i, (ra, rb) in enumerate(resolved):
        if i in used:
            continue
        best = alt = None
        for here, there, raw_there in ((ra, rb, observed[i].b), (rb, ra, observed[i].a)):
            cand = matcher.link_at(here)
            if here is None or cand is None or cand.link_id in status:
                continue
            target = _other(matcher, cand, here)
            free = target not in at
            where = there if there is not None else matcher.resolve(raw_there)
            same_device = where[0] == target.device
            score = (free, same_device)
            # A tie is both readings, the lower link id first: not the end the file happened to print first.
            if best is None or score > best[0] or (score == best[0] and cand.link_id < best[1].link_id):
                best, alt = (score, cand, target, where), best
            else:
                alt = (score, cand, target, where)
        if best is None:
            continue
        _, lk, target, where = best
        used.add(i)
        status[lk.link_id] = "miswired"
        other: tuple = ()
        if alt is not None and alt[0] == best[0]:
            _, alk, atarget, awhere = alt
            other = (alk, 0 if (alk.a_device, alk.a_port) == tuple(atarget) else 1, awhere)
        wrong = 0 if (lk.a_device, lk.a_port) == tuple(target) else 1
        findings.append(
            Finding("miswired", (lk,), (observed[i],), wrong_end=wrong, observed_at=where, alternative=other)
        )


def _other(matcher: PortMatcher, link: PlannedLink, end: PortRef) -> PortRef:
    a, b = matcher.ends(link)
    return b if end == a else a


def _natural(s: str) -> list:
    return [(0, int(x), "") if x.isdigit() else (1, 0, x) for x in re.split(r"(\d+)", s)]


def _side_key(side: tuple[PortRef, PortRef]) -> list:
    return [_natural(part) for ref in side for part in ref]


def _swap_sides(ra: PortRef, rb: PortRef, o1: PortRef, o2: PortRef) -> tuple[tuple[PortRef, PortRef], ...]:
    """Where a crossed pair can be put right. Planned l1 = ra-o1 and l2 = rb-o2 are seen as ra-rb and o1-o2:
    exchanging the cords at ra and o2 (one side) or at o1 and rb (the other) both restore the links, and only
    one leaves each cord where its label says. The cords were crossed where the two observed links meet: the
    side whose two ports are on one device (two cables from two racks can only have been crossed there)."""
    sides = [tuple(sorted(s, key=lambda r: [_natural(x) for x in r])) for s in ((ra, o2), (o1, rb))]
    shared = [s for s in sides if s[0].device == s[1].device]
    if len(shared) == 1:
        return (shared[0],)  # type: ignore[return-value]
    return tuple(sorted(sides, key=_side_key))  # type: ignore[arg-type]


def _planned_pair(refs, status, matcher) -> bool:
    """An observed link seen a second time (the same planned pair, already classified)."""
    ra, rb = refs
    la, lb = matcher.link_at(ra), matcher.link_at(rb)
    return la is not None and la is lb and la.link_id in status
