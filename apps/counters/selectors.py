"""A revision's counter report: per port its baseline and intervals, per link its flags and resets, and the
suspects (flagged links grouped by the trunk, panel, part, rack or measured loss they share).

Worked out from the stored snapshots on every read (the engine is quick at this; a revision's snapshots hold
the ports that ever reported errors, plus the ports of Ethernet files, not every port of every sweep).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

from django.conf import settings
from django.db.models import Q

from apps.designs.models import CableRecord, LinkRecord, Revision
from apps.measurements.services import measurement_link_margins
from engine.counters import LinkFacts, Thresholds, drift_of_port, flags_of_link, load_thresholds, suspects
from engine.counters.drift import FLAG_TEXT, EndDrift

from .models import CounterReading, CounterSnapshot

LINKS_SHOWN = 200


def counter_thresholds(overrides: Mapping[str, object] | None = None) -> Thresholds:
    """The thresholds in force: the data file's defaults, then COUNTER_THRESHOLDS (settings), then `overrides`."""
    base = load_thresholds().with_overrides(getattr(settings, "COUNTER_THRESHOLDS", None), "COUNTER_THRESHOLDS_FILE")
    return base.with_overrides(overrides)


def _series(snapshots, readings, networks_of_link) -> dict[tuple[int, str], list[tuple[float, dict]]]:
    """Per port of every link with a reading: (time, counters) per snapshot that read it, including the sweeps
    that checked it and found it clean (implicit zeros: both ends of an InfiniBand link are swept)."""
    by_port: dict[tuple[int, str], dict[int, dict]] = defaultdict(dict)
    for r in readings:
        by_port[(r.link_id, r.end)][r.snapshot_id] = r.counters
    out = {}
    for link_id in {k[0] for k in by_port}:
        net = networks_of_link.get(link_id)
        for end in ("a", "b"):
            per = by_port.get((link_id, end), {})
            seq = []
            for s in snapshots:
                if s.pk in per:
                    seq.append((s.taken_at.timestamp(), per[s.pk]))
                elif s.implicit_zero and net in s.networks:
                    seq.append((s.taken_at.timestamp(), dict.fromkeys(s.reported, 0)))
            if seq:
                out[(link_id, end)] = seq
    return out


def _facts(
    revision: Revision, link_ids, rows, t: Thresholds
) -> tuple[dict[int, LinkFacts], dict[tuple[str, str], int]]:
    cable_ids = {int(c[1:]) for r in rows.values() for c in r["cables"].split() if c[1:].isdigit()}
    trunks = {
        c["cable_id"]: c
        for c in CableRecord.objects.filter(revision=revision, cable_id__in=cable_ids, kind="trunk").values(
            "cable_id", "a_device", "b_device", "links"
        )
    }
    facts = {}
    population: dict[tuple[str, str], int] = {}
    panels: set[str] = set()
    margins = measurement_link_margins(revision=revision) if link_ids else {}
    low = [m for m in margins.values() if m < t.low_margin_db]
    if low:
        population[("loss", f"within {t.low_margin_db:g} dB of their limit")] = len(low)
    for link_id in link_ids:
        r = rows[link_id]
        t_names, p_names = [], []
        for c in r["cables"].split():
            t = trunks.get(int(c[1:])) if c[1:].isdigit() else None
            if t is None:
                continue
            name = f"T{t['cable_id']:06d}"
            t_names.append(name)
            population[("trunk", name)] = len(t["links"].split())
            p_names += [t["a_device"], t["b_device"]]
        panels.update(p_names)
        facts[link_id] = LinkFacts(
            link_id,
            trunks=tuple(t_names),
            panels=tuple(dict.fromkeys(p_names)),
            parts=tuple(dict.fromkeys(p for p in (r["a_part"], r["b_part"]) if p)),
            racks=tuple(dict.fromkeys(x for x in (r["a_rack"], r["b_rack"]) if x)),
            margin_db=margins.get(f"L{link_id:06d}"),
        )
    for p in panels:
        through = CableRecord.objects.filter(revision=revision, kind="trunk").filter(Q(a_device=p) | Q(b_device=p))
        population[("panel", p)] = sum(len(x.split()) for x in through.values_list("links", flat=True))
    links = LinkRecord.objects.filter(revision=revision)
    for f in facts.values():
        for part in f.parts:
            if ("part", part) not in population:
                population[("part", part)] = links.filter(Q(a_part=part) | Q(b_part=part)).count()
        for rack in f.racks:
            if ("rack", rack) not in population:
                population[("rack", rack)] = links.filter(Q(a_rack=rack) | Q(b_rack=rack)).count()
    return facts, population


def _end_out(drift: EndDrift) -> dict:
    return {
        "baseline_at": drift.baseline_at,
        "baseline": dict(drift.baseline),
        "latest": dict(drift.latest),
        "since_baseline": drift.since_baseline(),
        "intervals": [
            {
                "start": iv.start,
                "end": iv.end,
                "hours": round(iv.hours, 6),
                "deltas": dict(iv.deltas),
                "per_hour": {k: round(iv.rate(k), 3) for k in iv.deltas},
                "resets": list(iv.resets),
            }
            for iv in drift.intervals
        ],
    }


def counter_report(*, revision: Revision, thresholds: Thresholds | None = None, limit: int = LINKS_SHOWN) -> dict:
    t = thresholds or counter_thresholds()
    snapshots = list(CounterSnapshot.objects.filter(revision=revision, read=True).defer("content"))
    readings = list(CounterReading.objects.filter(revision=revision).only("snapshot_id", "link_id", "end", "counters"))
    link_ids = sorted({r.link_id for r in readings})
    rows = {
        r["link_id"]: r
        for r in LinkRecord.objects.filter(revision=revision, link_id__in=link_ids).values(
            "link_id",
            "network",
            "a_device",
            "a_port",
            "a_rack",
            "b_device",
            "b_port",
            "b_rack",
            "a_part",
            "b_part",
            "cables",
        )
    }
    series = _series(snapshots, readings, {i: r["network"] for i, r in rows.items()})
    per_link: dict[int, list] = defaultdict(list)
    for (link_id, end), seq in sorted(series.items()):
        per_link[link_id].append((end, drift_of_port(seq)))
    drifts = [flags_of_link(i, ends, t) for i, ends in per_link.items() if i in rows]
    flagged = {d.link_id: d.flags for d in drifts if d.flags}
    facts, population = _facts(revision, sorted(flagged), rows, t)
    groups, ungrouped = suspects(flagged, facts, population, t)

    def label(i: int) -> str:
        return f"L{i:06d}"

    def ends_of(i: int) -> dict:
        r = rows[i]
        return {"a": f"{r['a_device']} {r['a_port']}", "b": f"{r['b_device']} {r['b_port']}"}

    worst = {f: n for n, f in enumerate(FLAG_TEXT)}
    drifts.sort(key=lambda d: (not d.flags, min((worst[f] for f in d.flags), default=99), not d.resets, d.link_id))
    return {
        "snapshots": [
            {
                "id": s.pk,
                "format": s.format,
                "taken_at": s.taken_at,
                "device": s.device,
                "interface": s.interface,
                "filename": s.filename,
                "ports": s.ports,
                "matched": s.matched,
                "unmatched": s.unmatched,
                "networks": s.networks,
                "notes": s.notes,
            }
            for s in snapshots
        ],
        "counts": {
            "links_tracked": len(drifts),
            "flagged": len(flagged),
            "with_resets": sum(bool(d.resets) for d in drifts),
        },
        "links": [
            {
                "link": label(d.link_id),
                "network": rows[d.link_id]["network"],
                "ends": ends_of(d.link_id),
                "flags": list(d.flags),
                "resets": [{"end": e, "counter": c, "at": at} for e, c, at in d.resets],
                "drift": {end: _end_out(dr) for end, dr in d.ends},
            }
            for d in drifts[:limit]
        ],
        "groups": [
            {
                "kind": g.kind,
                "key": g.key,
                "keys": list(g.keys),
                "links": [label(i) for i in g.links],
                "flags": dict(g.flags),
                "population": g.population,
                "share": round(g.share, 4),
                "action": list(g.action),
            }
            for g in groups
        ],
        "ungrouped": [label(i) for i in ungrouped],
    }
