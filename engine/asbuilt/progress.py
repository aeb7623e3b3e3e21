"""Where the build stands, per rack and per scalable unit: planned -> cabled -> verified.

A site lead reads it to see which racks and SUs are done and what holds the rest back. Each planned link is in
one of three stages, worked out from what commissioning already stored:

* planned: every link of the design;
* cabled: an as-built import saw it joining its planned ports (class ok, or degraded: plugged in as planned but
  trained below its planned width or speed);
* verified: cabled at full width and speed (ok), every fiber of it measured within its limit where the test
  sheet lists it (a copper link has no loss test), and no error-counter flag on it.

Beside the stages, what holds a group back: links no import covered yet (unseen), links cabled wrong or not at
all (swapped, miswired, missing, degraded), links whose loss test failed or is not complete, and links whose
error counters are flagged. A link counts in every rack it has an end in (as the as-built per-rack counts do)
and in every SU of its ends' devices; links whose devices are in no SU (spine-core, shared services) are grouped
under SU "" ("outside the SUs").

A group's state: planned (nothing of it seen by an import yet), verified (every link verified), else cabling.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

CABLED = frozenset(("ok", "degraded"))
WRONG = frozenset(("degraded", "swapped", "miswired", "missing"))
STAGES = ("planned", "cabled", "verified")


@dataclass(frozen=True)
class LinkPlace:
    """A planned link and where it is built: the racks of its ends and the SUs of its ends' devices."""

    link_id: str  # "L000001"
    racks: tuple[str, ...]
    sus: tuple[int, ...]  # empty: no end in an SU


@dataclass(frozen=True)
class StageRow:
    """One rack, one SU or the whole fabric: links per stage and what holds the rest back."""

    name: str  # rack id, SU number as text ("" = outside the SUs), or "all"
    planned: int
    cabled: int
    verified: int
    unseen: int  # no as-built import covered the link yet
    wrong: int  # swapped, miswired, missing or degraded
    loss_failed: int  # a fiber measured over its limit
    loss_pending: int  # on the test sheet, not every fiber measured yet
    flagged: int  # error counters flagged
    state: str  # planned | cabling | verified

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Progress:
    totals: StageRow
    racks: tuple[StageRow, ...]
    sus: tuple[StageRow, ...]

    def to_dict(self) -> dict:
        return {
            "totals": self.totals.to_dict(),
            "racks": [r.to_dict() for r in self.racks],
            "sus": [r.to_dict() for r in self.sus],
        }


def link_places(result: Any) -> list[LinkPlace]:
    """Every link of a computed design with its ends' racks and SUs (the racks as links.csv writes them)."""
    devs = result.devices
    out = []
    for row, lk in zip(result.link_rows(), result.links):
        racks = tuple(dict.fromkeys(r for r in (row[7], row[11]) if r))
        sus = tuple(sorted({s for s in (devs[lk.a].su, devs[lk.b].su) if s}))
        out.append(LinkPlace(row[0], racks, sus))
    return out


COUNTS = ("planned", "cabled", "verified", "unseen", "wrong", "loss_failed", "loss_pending", "flagged")


class _Tally:
    """Links per count of COUNTS, in that order."""

    def __init__(self) -> None:
        self.n = [0] * len(COUNTS)

    def add(self, stage: tuple[int, ...]) -> None:
        self.n = [a + b for a, b in zip(self.n, stage)]

    def row(self, name: str) -> StageRow:
        planned, _cabled, verified, unseen = self.n[:4]
        if planned and verified == planned:
            state = "verified"
        elif unseen == planned:
            state = "planned"
        else:
            state = "cabling"
        return StageRow(name=name, state=state, **dict(zip(COUNTS, self.n)))


def progress(
    places: Iterable[LinkPlace],
    asbuilt: Mapping[str, str],
    loss: Mapping[str, str],
    flagged: Collection[str],
) -> Progress:
    """`asbuilt`: link id -> as-built class (engine.asbuilt.classify; a link it does not name is unseen);
    `loss`: link id -> pass | fail | incomplete for the links on the test sheet; `flagged`: link ids whose error
    counters are flagged."""
    total = _Tally()
    racks: dict[str, _Tally] = {}
    sus: dict[str, _Tally] = {}
    for p in places:
        cls = asbuilt.get(p.link_id, "unseen")
        measured = loss.get(p.link_id)
        flag = p.link_id in flagged
        verified = cls == "ok" and measured in (None, "pass") and not flag
        stage = (
            1,
            cls in CABLED,
            verified,
            cls == "unseen",
            cls in WRONG,
            measured == "fail",
            measured == "incomplete",
            flag,
        )
        counts = tuple(int(x) for x in stage)
        total.add(counts)
        for rack in p.racks:
            racks.setdefault(rack, _Tally()).add(counts)
        for su in p.sus or (0,):
            sus.setdefault(str(su) if su else "", _Tally()).add(counts)
    return Progress(
        total.row("all"),
        tuple(racks[k].row(k) for k in sorted(racks, key=_natural)),
        # the SUs in order, then the links outside them
        tuple(sus[k].row(k) for k in sorted(sus, key=lambda s: (s == "", _natural(s)))),
    )


def _natural(s: str) -> tuple:
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", s) if p)
