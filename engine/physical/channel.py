"""Optical channels: elements, mated pairs, polarity as position permutations, checks.

A channel runs from the transceiver at end A to the transceiver at end B::

    direct:  [module A] -cord- [module B]
    panels:  [module A] -cord- |adapter| =trunk= |adapter| -cord- [module B]
    duplex:  [module A] -LC cord- |cassette| =trunk= |cassette| -LC cord- [module B]
    split:   [module A] -splitter leg k- [module B]       (1:2 splitter fiber)

Each element maps fiber positions on its A-side face to positions on its B-side face
(reference C1, derived M): Type-A cable / Type-A adapter = identity, Type-B = reversal
n -> N+1-n, Type-C = adjacent pair swap; a duplex LC A-to-B cord swaps its two fibers.
A mated pair is two connector faces that touch: a cord in a transceiver receptacle, or
two connectors meeting inside an adapter or a cassette's built-in adapter. Every check
names the element at fault.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import NamedTuple

from engine.errors import EngineInvariantError
from engine.physical.catalog import CablingRules
from engine.physical.constants import POSITIONS
from engine.physical.policy import MediaPolicy


@dataclass(frozen=True, slots=True)
class Face:
    """One connector face: family (mpo-12|mpo-16|lc), gender (pinned|unpinned|none),
    polish (apc|upc), fiber mode (sm|mm)."""

    family: str
    gender: str
    polish: str
    mode: str


@dataclass(frozen=True, slots=True)
class Element:
    """One element of a channel.

    kind: interface | cord | trunk | adapter | cassette | splitter | copper.
    ``a`` / ``b``: the faces toward end A / end B (an interface has one, an adapter none).
    ``polarity``: cables A|B|C (MPO) or A-B|A-A (duplex LC); adapters A|B.
    ``expected_polarity``: what the recipe intended (used to name the culprit).
    ``fibers``: fibers installed in a cable (0 = every position).
    ``port``: cassette LC port / splitter leg (1-based); ``ports``: cassette LC ports.
    ``flipped``: the element sits reversed (cassette MPO->LC, splitter leg->trunk side).
    ``lanes`` / ``tx`` / ``rx``: interface lanes of this link and their positions; for a
    splitter leg, the trunk-side positions of the lanes the leg carries.
    """

    id: str
    kind: str
    part: str | None = None
    a: Face | None = None
    b: Face | None = None
    polarity: str = ""
    expected_polarity: str | None = None
    fibers: int = 0
    port: int = 0
    ports: int = 0
    family: str = ""
    flipped: bool = False
    lanes: tuple[int, ...] = ()
    tx: tuple[int, ...] = ()
    rx: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Channel:
    """A whole channel, hashable. ``kind``: parallel | duplex | copper."""

    elements: tuple[Element, ...]
    kind: str
    channel_type: str | None = None
    fiber_type: str | None = None
    structured: bool = False
    rules: CablingRules | None = None
    pmd: str | None = None

    @property
    def panels(self) -> int:
        """Patch-panel points: adapters and cassettes (each sits in one panel)."""
        return sum(1 for e in self.elements if e.kind in ("adapter", "cassette"))


@dataclass(frozen=True, slots=True)
class ChannelIssue:
    """A broken rule. ``element_index`` / ``element_id`` name the element at fault."""

    rule: str  # connector-family | gender | polish | fiber-mode | polarity | polarity-type | lanes
    element_index: int
    element_id: str
    message: str
    source: str = ""


class LanePath(NamedTuple):
    """One lane through the channel. ``path``: position after each element, starting at
    the transmitter's position; 0 = the light is lost there."""

    lane: int
    tx_pos: int
    rx_pos: int
    direction: str  # "a->b" | "b->a"
    rx_lane: int  # receiving lane at the far end, -1 if the light lands on no receiver
    path: tuple[int, ...]


class MatedPair(NamedTuple):
    left: int  # element index whose b face mates
    right: int  # element index whose a face mates
    via: int  # adapter element index, or -1


def mated_faces(els: tuple[Element, ...], p: MatedPair) -> tuple[Face, Face]:
    """(left element's B face, right element's A face) of a pair from mated_pairs, which pairs only faces."""
    fl, fr = els[p.left].b, els[p.right].a
    if fl is None or fr is None:
        raise EngineInvariantError(f"{els[p.left].id} meets {els[p.right].id} without a connector face")
    return fl, fr


def cable_faces(el: Element) -> tuple[Face, Face]:
    """(A face, B face) of a cord or trunk, which has both."""
    if el.a is None or el.b is None:
        raise EngineInvariantError(f"{el.id}: a {el.kind} without both connector faces")
    return el.a, el.b


# --------------------------------------------------------------------------------------
# Position permutations
# --------------------------------------------------------------------------------------

_BASE8 = (1, 2, 3, 4, 9, 10, 11, 12)  # an 8-fiber MPO-12 uses the outer positions


def _fiber_positions(npos: int, fibers: int) -> tuple[int, ...]:
    if fibers in (0, npos):
        return tuple(range(1, npos + 1))
    if npos == 12 and fibers == 8:
        return _BASE8
    if npos == 12 and fibers == 4:
        return (1, 2, 11, 12)
    return tuple(range(1, fibers + 1))


def _cable_map(npos: int, polarity: str, fibers: int) -> dict[int, int]:
    present = _fiber_positions(npos, fibers)
    out = {}
    for p in present:
        if polarity == "A" or polarity == "A-A":
            q = p
        elif polarity == "B":
            q = npos + 1 - p
        elif polarity == "A-B":
            q = 3 - p
        elif polarity == "C":
            q = p + 1 if p % 2 else p - 1
        else:
            continue
        out[p] = q
    return out


@lru_cache(maxsize=4096)
def element_map(el: Element) -> dict[int, int]:
    """Position map A-side -> B-side of one element (missing key: light lost)."""
    if el.kind in ("cord", "trunk"):
        face = el.a or el.b
        if face is None:
            raise EngineInvariantError(f"{el.id}: a {el.kind} without connector faces")
        m = _cable_map(POSITIONS[face.family], el.polarity, el.fibers)
    elif el.kind == "adapter":
        npos = POSITIONS[el.family]
        m = {p: npos + 1 - p for p in range(1, npos + 1)} if el.polarity == "B" else {p: p for p in range(1, npos + 1)}
    elif el.kind == "cassette":
        # Canonical orientation: LC port (A side) -> MPO (B side), straight fan-out:
        # duplex port k takes the k-th pair of the trunk leg's fiber positions.
        present = _fiber_positions(12, 8 if el.ports == 4 else 12)
        k = el.port - 1
        m = {1: present[2 * k], 2: present[2 * k + 1]} if 0 <= k < len(present) // 2 else {}
    elif el.kind == "splitter":
        # Canonical orientation: trunk side (A) -> leg (B). The leg behaves as a Type-B
        # cord on the lanes it carries: trunk-side Tx of lane i lands on the leg's Rx
        # position of lane i (N+1-(i+1)); the leg's Tx of lane i lands on the trunk-side
        # Rx of lane i. Positions per leg are not published (reference C2 gap).
        trunk_side = el.a if not el.flipped else el.b
        if trunk_side is None:
            raise EngineInvariantError(f"{el.id}: a splitter without its trunk-side face")
        npos = POSITIONS[trunk_side.family]
        m = {}
        for i, (t, r) in enumerate(zip(el.tx, el.rx, strict=True)):
            m[t] = npos - i
            m[r] = i + 1
    else:  # interface, copper
        return {}
    if el.flipped:
        m = {v: k for k, v in m.items()}
    return m


@lru_cache(maxsize=4096)
def _back_map(el: Element) -> dict[int, int]:
    """Position map B-side -> A-side of one element."""
    return {v: k for k, v in element_map(el).items()}


# --------------------------------------------------------------------------------------
# Building channels from a media choice
# --------------------------------------------------------------------------------------


def build_channel(choice, structured: bool, policy: MediaPolicy, *, leg: int = 1, port: int = 1) -> Channel:
    """The channel of one link of ``choice`` (a ``select.MediaChoice``).

    ``structured``: False = direct cord; True = cord + panel + trunk + panel + cord.
    ``leg``: which leg of a 1:2 splitter this link uses (1 or 2).
    ``port``: the LC port of the near cassette (duplex links in panel mode).
    Pure and hashable in, hashable out: memoize per (choice, structured, leg, port).
    """
    if not choice.optical:
        return Channel(elements=(Element(id="cable", kind="copper", part=choice.cable_sku),), kind="copper")
    pmd = choice.pmd_spec
    tier = policy.tier(choice.tier)
    if choice.breakout == "split-1:2" and leg not in (1, 2):
        raise ValueError(f"build_channel: leg must be 1 or 2 for a 1:2 splitter, got {leg!r}")
    cassette = choice.structured.cassette if structured and choice.structured else None
    if cassette is not None and not 1 <= port <= cassette.lc_ports:
        raise ValueError(f"build_channel: port must be 1..{cassette.lc_ports} for {cassette.sku}, got {port!r}")
    connector, polish, mode = choice.connector, choice.polish, choice.fiber_mode
    lc = connector == "lc"
    if_face = Face(connector, "none" if lc else "pinned", polish, mode)
    split = choice.breakout == "split-1:2"
    split_at_a = choice.split_end == "a"
    n = choice.lanes_per_link
    # Read only where they apply: all_lanes without a splitter, wide/narrow_lanes with one.
    all_lanes: tuple[int, ...] = tuple(range(pmd.lanes if not lc else 1)) if not split else ()
    wide_lanes: tuple[int, ...] = tuple(range((leg - 1) * n, leg * n)) if split else ()
    narrow_lanes: tuple[int, ...] = tuple(range(n)) if split else ()

    def iface(eid: str, side: str, lanes: tuple[int, ...], part: str | None) -> Element:
        tx = tuple(pmd.tx_positions[i] for i in lanes)
        rx = tuple(pmd.rx_positions[i] for i in lanes)
        # an interface has one face, toward the channel
        a, b = (None, if_face) if side == "a" else (if_face, None)
        return Element(id=eid, kind="interface", part=part, a=a, b=b, lanes=lanes, tx=tx, rx=rx)

    lanes_a: tuple[int, ...]
    lanes_b: tuple[int, ...]
    if lc:
        lanes_a = lanes_b = (0,)
    elif split:
        lanes_a, lanes_b = (wide_lanes, narrow_lanes) if split_at_a else (narrow_lanes, wide_lanes)
    else:
        lanes_a = lanes_b = all_lanes
    mod_a = iface("module-A", "a", lanes_a, choice.a_module)
    mod_b = iface("module-B", "b", lanes_b, choice.b_module)

    def cord(eid: str, part_cord, sku: str) -> Element:
        fa = Face(part_cord.connector, part_cord.gender_a, part_cord.polish, part_cord.fiber_mode)
        fb = Face(part_cord.connector, part_cord.gender_b, part_cord.polish, part_cord.fiber_mode)
        return Element(
            id=eid,
            kind="cord",
            part=sku,
            a=fa,
            b=fb,
            polarity=part_cord.polarity,
            expected_polarity="A-B" if lc else "B",
            fibers=part_cord.fibers,
        )

    def splitter(eid: str, part_cord, sku: str, flipped: bool) -> Element:
        wide = wide_lanes
        g = part_cord.gender_a
        f = Face(part_cord.connector, g, part_cord.polish, part_cord.fiber_mode)
        return Element(
            id=eid,
            kind="splitter",
            part=sku,
            a=f,
            b=Face(part_cord.connector, part_cord.gender_b, part_cord.polish, part_cord.fiber_mode),
            polarity=part_cord.polarity,
            expected_polarity="B",
            fibers=part_cord.fibers_per_leg or 0,
            port=leg,
            flipped=flipped,
            lanes=wide,
            tx=tuple(pmd.tx_positions[i] for i in wide),
            rx=tuple(pmd.rx_positions[i] for i in wide),
        )

    ctype = choice.channel_type
    elements: tuple[Element, ...]
    if not structured:
        if split:
            mid = splitter(f"splitter-leg-{leg}", choice.cord, choice.cable_sku, flipped=not split_at_a)
        else:
            mid = cord("cord", choice.cord, choice.cable_sku)
        elements = (mod_a, mid, mod_b)
    else:
        sp = choice.structured
        if sp is None:
            raise ValueError(
                f"tier {choice.tier}: the choice has no panel parts; select media with the tier's cabling set to 'panels'"
            )
        trunk_face = Face(sp.trunk.connector, sp.trunk_gender, sp.trunk.polish, sp.trunk.fiber_mode)
        trunk = Element(
            id="trunk",
            kind="trunk",
            part=sp.trunk.family,
            a=trunk_face,
            b=trunk_face,
            polarity=sp.trunk.polarity,
            expected_polarity="B",
            fibers=sp.trunk_base if sp.trunk_base < 12 else 0,
        )
        if lc:
            cas = sp.cassette
            cas_lc = Face("lc", "none", cas.lc_polish, cas.fiber_mode)
            cas_mpo = Face(cas.mpo_connector, cas.mpo_gender, cas.mpo_polish, cas.fiber_mode)
            far_port = cas.lc_ports + 1 - port
            elements = (
                mod_a,
                cord("cord-A", sp.cord_a, sp.cord_a_sku),
                Element(
                    id="cassette-A", kind="cassette", part=cas.sku, a=cas_lc, b=cas_mpo, port=port, ports=cas.lc_ports
                ),
                trunk,
                Element(
                    id="cassette-B",
                    kind="cassette",
                    part=cas.sku,
                    a=cas_mpo,
                    b=cas_lc,
                    port=far_port,
                    ports=cas.lc_ports,
                    flipped=True,
                ),
                cord("cord-B", sp.cord_b, sp.cord_b_sku),
                mod_b,
            )
        else:
            adp = sp.adapter
            adapter_a = Element(
                id="panel-A",
                kind="adapter",
                part=adp.sku,
                polarity=adp.type,
                expected_polarity=tier.adapter_type,
                family=adp.connector,
            )
            adapter_b = replace(adapter_a, id="panel-B")
            if split and split_at_a:
                near = cord("cord-A", sp.cord_a, sp.cord_a_sku)
                far = splitter(f"splitter-leg-{leg}", sp.cord_b, sp.cord_b_sku, flipped=False)
            elif split:
                near = splitter(f"splitter-leg-{leg}", sp.cord_b, sp.cord_b_sku, flipped=True)
                far = cord("cord-B", sp.cord_a, sp.cord_a_sku)
            else:
                near = cord("cord-A", sp.cord_a, sp.cord_a_sku)
                far = cord("cord-B", sp.cord_b, sp.cord_b_sku)
            elements = (mod_a, near, adapter_a, trunk, adapter_b, far, mod_b)
    return Channel(
        elements=elements,
        kind="duplex" if lc else "parallel",
        channel_type=ctype,
        fiber_type=choice.fiber_type,
        structured=structured,
        rules=choice.rules,
        pmd=choice.pmd,
    )


# --------------------------------------------------------------------------------------
# Mated pairs and checks
# --------------------------------------------------------------------------------------


def mated_pairs(channel: Channel) -> tuple[MatedPair, ...]:
    """Every pair of touching connector faces, left to right."""
    pairs = []
    left, via = -1, -1
    for i, el in enumerate(channel.elements):
        if el.kind == "adapter":
            via = i
            continue
        if el.a is not None and left >= 0:
            pairs.append(MatedPair(left, i, via))
        if el.b is not None:
            left, via = i, -1
    return tuple(pairs)


def _pick_culprit(
    broken: list[MatedPair], relevant: list[MatedPair], elements: tuple[Element, ...]
) -> list[tuple[MatedPair, int]]:
    """For each broken pair, the element at fault: the one with more broken pairs (a
    mutated cable breaks both its ends), then the larger share of its own pairs broken
    (a cassette has one MPO face, a trunk two), then the non-interface, then the later."""
    count: dict[int, int] = {}
    share: dict[int, int] = {}
    for p in broken:
        count[p.left] = count.get(p.left, 0) + 1
        count[p.right] = count.get(p.right, 0) + 1
    for p in relevant:
        share[p.left] = share.get(p.left, 0) + 1
        share[p.right] = share.get(p.right, 0) + 1

    def score(i: int) -> tuple[int, float, bool, int]:
        return (count[i], count[i] / share.get(i, 1), elements[i].kind != "interface", i)

    return [(p, max((p.left, p.right), key=score)) for p in broken]


_PAIR_RULES = ("connector-family", "gender", "polish", "fiber-mode")


def check_channel(channel: Channel) -> list[ChannelIssue]:
    """Check mating (family, gender, polish, fiber mode) and polarity. [] when sound."""
    els = channel.elements
    if channel.kind == "copper":
        return []
    issues: list[ChannelIssue] = []
    broken: dict[str, list[MatedPair]] = {r: [] for r in _PAIR_RULES}
    pairs = mated_pairs(channel)
    for p in pairs:
        fl, fr = mated_faces(els, p)
        if fl.family != fr.family:
            broken["connector-family"].append(p)
        elif p.via >= 0 and els[p.via].family != fl.family:
            issues.append(
                ChannelIssue(
                    "connector-family",
                    p.via,
                    els[p.via].id,
                    f"{els[p.via].id}: a {els[p.via].family.upper()} adapter cannot hold {fl.family.upper()} connectors "
                    "(MPO-16 has an offset key) [S17][S33]",
                    "S17",
                )
            )
        elif fl.family != "lc" and fl.gender == fr.gender:
            broken["gender"].append(p)
        if fl.polish != fr.polish:
            broken["polish"].append(p)
        if fl.mode != fr.mode:
            broken["fiber-mode"].append(p)
    for rule in _PAIR_RULES:
        seen = set()
        relevant = [p for p in pairs if rule != "gender" or mated_faces(els, p)[0].family != "lc"]
        for p, culprit in _pick_culprit(broken[rule], relevant, els):
            if culprit in seen:
                continue
            seen.add(culprit)
            issues.append(_pair_issue(rule, p, culprit, els))
    if broken["connector-family"] or any(i.rule == "connector-family" for i in issues):
        return issues  # tracing positions across unmatable faces means nothing
    issues.extend(_polarity_issues(channel))
    return issues


def _pair_issue(rule: str, p: MatedPair, culprit: int, els: tuple[Element, ...]) -> ChannelIssue:
    left, right = els[p.left], els[p.right]
    fl, fr = mated_faces(els, p)
    where = f"{left.id} meets {right.id}" + (f" in {els[p.via].id}" if p.via >= 0 else "")
    if rule == "connector-family":
        msg = f"{where}: {fl.family.upper()} cannot mate {fr.family.upper()} (MPO-16 has an offset key) [S17][S33]"
        src = "S17"
    elif rule == "gender":
        if fl.gender == "pinned":
            msg = f"{where}: pinned meets pinned; the guide pins damage each other. Every MPO pair must be one pinned + one unpinned end [S17][S52]"
        else:
            msg = f"{where}: unpinned meets unpinned; the ferrules misalign. Every MPO pair must be one pinned + one unpinned end [S17][S52]"
        src = "S17"
    elif rule == "polish":
        msg = f"{where}: {fl.polish.upper()} meets {fr.polish.upper()}; an 8-degree APC face cannot meet a flat UPC face (>3 dB loss, strong reflection, end-face damage) [S34]"
        src = "S34"
    else:
        msg = f"{where}: {fl.mode.upper()} fiber meets {fr.mode.upper()} fiber; single-mode and multimode never mate"
        src = "S9"
    return ChannelIssue(rule, culprit, els[culprit].id, f"{els[culprit].id} at fault: {msg}", src)


def _trace(els: tuple[Element, ...], start: int, forward: bool) -> tuple[int, tuple[int, ...], int]:
    """Follow one position through the middle elements. Returns (final position, path,
    index of the element where the light was lost or -1)."""
    p = start
    path = [p]
    seq = range(1, len(els) - 1) if forward else range(len(els) - 2, 0, -1)
    for i in seq:
        m = element_map(els[i]) if forward else _back_map(els[i])
        p = m.get(p, 0)
        path.append(p)
        if p == 0:
            return 0, tuple(path), i
    return p, tuple(path), -1


def _trace_all(channel: Channel) -> tuple[list[LanePath], list[tuple[int, int]]]:
    """All lanes both ways. Returns (lane paths, [(lane index, lost-at element)])."""
    els = channel.elements
    ea, eb = els[0], els[-1]
    out: list[LanePath] = []
    lost: list[tuple[int, int]] = []
    for src, dst, forward, direction in ((ea, eb, True, "a->b"), (eb, ea, False, "b->a")):
        rx_lane_of = {pos: dst.lanes[j] for j, pos in enumerate(dst.rx)}
        for lane, pos in zip(src.lanes, src.tx, strict=True):
            end, path, lost_at = _trace(els, pos, forward)
            out.append(LanePath(lane, pos, end, direction, rx_lane_of.get(end, -1), path))
            if lost_at >= 0:
                lost.append((len(out) - 1, lost_at))
    return out, lost


def _lane_ok(channel: Channel, paths: list[LanePath]) -> bool:
    els = channel.elements
    ea, eb = els[0], els[-1]
    for lp in paths:
        src, dst = (ea, eb) if lp.direction == "a->b" else (eb, ea)
        j = src.lanes.index(lp.lane)
        if j >= len(dst.rx) or lp.rx_pos != dst.rx[j]:
            return False
    return True


_ALTERNATIVES = {"cord": ("A", "B", "C"), "trunk": ("A", "B", "C"), "adapter": ("A", "B"), "splitter": ("B",)}


def _polarity_issues(channel: Channel) -> list[ChannelIssue]:
    els = channel.elements
    ea, eb = els[0], els[-1]
    issues: list[ChannelIssue] = []
    if len(ea.lanes) != len(eb.lanes):
        return [
            ChannelIssue(
                "lanes", len(els) - 1, eb.id, f"{ea.id} has {len(ea.lanes)} lanes but {eb.id} has {len(eb.lanes)}"
            )
        ]
    if channel.kind == "parallel":
        for i, el in enumerate(els):
            if el.kind in ("cord", "trunk") and el.polarity == "C":
                issues.append(
                    ChannelIssue(
                        "polarity-type",
                        i,
                        el.id,
                        f"{el.id} at fault: a Type-C (pair-flipped) cable is for duplex pair systems, never for parallel optics [S30]",
                        "S30",
                    )
                )
    paths, lost = _trace_all(channel)
    if not lost and _lane_ok(channel, paths):
        return issues
    # Name the culprit: an element that deviates from the recipe (expected polarity),
    # else one whose polarity alone would fix the channel, else where the light is lost.
    culprits = [
        i for i, el in enumerate(els) if el.expected_polarity is not None and el.polarity != el.expected_polarity
    ]
    if not culprits:
        culprits = _single_fixes(channel)
    if lost:
        lp = paths[lost[0][0]]
        if not culprits:
            culprits = [lost[0][1]]
        for i in culprits:
            el = els[i]
            issues.append(
                ChannelIssue(
                    "polarity",
                    i,
                    el.id,
                    f"{el.id} at fault: lane {lp.lane} ({lp.direction}, Tx at position {lp.tx_pos}) reaches a position "
                    f"with no fiber or no port at {els[lost[0][1]].id}"
                    + (
                        f" (Type-{el.polarity}, expected Type-{el.expected_polarity})"
                        if el.expected_polarity and el.polarity != el.expected_polarity
                        else ""
                    ),
                    "S30",
                )
            )
        return issues
    bad = next(lp for lp in paths if not _lane_ok(channel, [lp]))
    if not culprits:
        culprits = [len(els) - 2]
    expect = "reversal (an odd number of Type-B elements, no Type-C)" if channel.kind == "parallel" else "Tx onto Rx"
    for i in culprits:
        el = els[i]
        issues.append(
            ChannelIssue(
                "polarity",
                i,
                el.id,
                f"{el.id} at fault (Type-{el.polarity}{', expected Type-' + el.expected_polarity if el.expected_polarity else ''}): "
                f"lane {bad.lane} {bad.direction} leaves Tx position {bad.tx_pos} and lands on position {bad.rx_pos}, "
                f"not its Rx; the channel must map {expect}. NVIDIA: Type-B cords and trunks [S9][S30]",
                "S9",
            )
        )
    return issues


def _single_fixes(channel: Channel) -> list[int]:
    """Elements whose polarity, changed alone, would fix the channel."""
    out = []
    els = channel.elements
    for i, el in enumerate(els):
        for alt in _ALTERNATIVES.get(el.kind, ()):
            if alt == el.polarity:
                continue
            trial = replace(channel, elements=(*els[:i], replace(el, polarity=alt), *els[i + 1 :]))
            paths, lost = _trace_all(trial)
            if not lost and _lane_ok(trial, paths):
                out.append(i)
                break
    return out


def lane_map(channel: Channel) -> tuple[LanePath, ...]:
    """Every lane of the link both ways: (lane, tx_pos, rx_pos, direction, rx_lane, path)."""
    if channel.kind == "copper":
        return ()
    return tuple(_trace_all(channel)[0])
