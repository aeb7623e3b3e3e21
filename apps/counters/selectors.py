"""A revision's counter report: per port its baseline and intervals, per link its flags and resets, and the
suspects (flagged links grouped by the trunk, panel, part, rack or measured loss they share).

Worked out from the stored snapshots on every read (the engine is quick at this; a revision's snapshots hold
the ports that ever reported errors, plus the ports of Ethernet files, not every port of every sweep).
"""

from __future__ import annotations

import json
import zlib
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db.models import Q

from apps.designs.models import CableRecord, LinkRecord, Revision
from apps.designs.revision_cache import compute_once, revision_fingerprint, revision_key, store_blob
from apps.exports.services import revision_result
from apps.measurements.services import measurement_link_margins
from engine.counters import LinkFacts, Thresholds, drift_of_port, flags_of_link, load_thresholds, suspects
from engine.counters.drift import FLAG_TEXT, EndDrift
from engine.errors import SpecError
from engine.physical.paths import physical_paths

from .models import CounterReading, CounterSnapshot

LINKS_SHOWN = 200


def counter_thresholds(overrides: Mapping[str, object] | None = None) -> Thresholds:
    """The thresholds in force: the data file's defaults, then COUNTER_THRESHOLDS (settings), then `overrides`."""
    base = load_thresholds().with_overrides(getattr(settings, "COUNTER_THRESHOLDS", None), "COUNTER_THRESHOLDS_FILE")
    return base.with_overrides(overrides)


def _series(
    snapshots: list[CounterSnapshot], readings: list[CounterReading], networks_of_link: Mapping[int, str]
) -> dict[tuple[int, str], list[tuple[float, dict]]]:
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


_PATHS_VERSION = 1


def panel_facts(revision: Revision) -> dict:
    """{"ports": panel -> front ports, "panel_links": panel -> links patched into it, "trunk_links": trunk cable
    id -> links it carries}, from the revision's physical paths (engine/physical/paths.py), kept in the cache.
    Empty when the revision has no snapshot to read them from (then the stored rows are counted instead)."""
    key = revision_key("panel-facts", _PATHS_VERSION, revision_fingerprint(revision))

    def ready() -> dict | None:
        blob = cache.get(key)
        return None if blob is None else json.loads(zlib.decompress(blob))

    def compute() -> dict:
        try:
            paths = physical_paths(revision_result(revision=revision))
        except SpecError:
            return {}
        out = {
            "ports": {name: p.ports for name, p in paths.panels.items()},
            "panel_links": {name: len(v) for name, v in paths.panel_links().items()},
            "trunk_links": {str(k): len(v) for k, v in paths.trunk_links.items()},
        }
        store_blob(key, zlib.compress(json.dumps(out).encode(), 1))  # panel names repeat: a 128K design's is small
        return out

    return compute_once(f"{key}:lock", ready, compute)


def _cords_of(revision: Revision, rows: Mapping[int, Mapping[str, Any]], link_ids: list[int]) -> dict[int, tuple]:
    """Per link through patch panels: (trunk cable id, (panel, front port) at the A end, at the B end), from the
    stored cords patched into the panels (cord A ends on a panel port, cord B starts on one)."""
    channel: dict[int, tuple[int, int, int]] = {}
    for link_id in link_ids:
        ids = [int(c[1:]) for c in rows[link_id]["cables"].split() if c[1:].isdigit()]
        if len(ids) == 3:
            channel[link_id] = (ids[0], ids[1], ids[2])
    wanted = {c for ch in channel.values() for c in ch}
    cables = {
        c["cable_id"]: c
        for c in CableRecord.objects.filter(revision=revision, cable_id__in=wanted).values(
            "cable_id", "kind", "a_device", "a_port", "b_device", "b_port", "links"
        )
    }
    out = {}
    for link_id, (ca, tr, cb) in channel.items():
        a, t, b = cables.get(ca), cables.get(tr), cables.get(cb)
        if a is None or t is None or b is None or t["kind"] != "trunk":
            continue
        out[link_id] = (tr, (a["b_device"], a["b_port"]), (b["a_device"], b["a_port"]), t["links"])
    return out


def _facts(
    revision: Revision, link_ids: list[int], rows: Mapping[int, Mapping[str, Any]], t: Thresholds
) -> tuple[dict[int, LinkFacts], dict[tuple[str, str], int], dict[str, int]]:
    paths = _cords_of(revision, rows, link_ids)
    known = panel_facts(revision) if paths else {}
    facts = {}
    population: dict[tuple[str, str], int] = {}
    margins = measurement_link_margins(revision=revision) if link_ids else {}
    low = [m for m in margins.values() if m < t.low_margin_db]
    if low:
        population[("loss", f"within {t.low_margin_db:g} dB of their limit")] = len(low)
    panels: set[str] = set()
    for link_id in link_ids:
        r = rows[link_id]
        path = paths.get(link_id)
        t_names: tuple[str, ...] = ()
        ends: tuple[tuple[str, str], ...] = ()
        if path is not None:
            trunk, end_a, end_b, carried = path
            name = f"C{trunk:06d}"  # a trunk is named by its cable id, as on cables.csv and its labels
            t_names = (name,)
            n = known.get("trunk_links", {}).get(str(trunk))
            population[("trunk", name)] = n if n is not None else len(carried.split())
            ends = (end_a, end_b)
            panels.update(p for p, _ in ends)
        facts[link_id] = LinkFacts(
            link_id,
            trunks=t_names,
            panels=tuple(dict.fromkeys(p for p, _ in ends)),
            parts=tuple(dict.fromkeys(p for p in (r["a_part"], r["b_part"]) if p)),
            racks=tuple(dict.fromkeys(x for x in (r["a_rack"], r["b_rack"]) if x)),
            margin_db=margins.get(f"L{link_id:06d}"),
            panel_ports=ends,
        )
    cords = CableRecord.objects.filter(revision=revision, kind="cord")
    for p in panels:
        n = known.get("panel_links", {}).get(p)
        # every link through a panel has one cord patched into it
        population[("panel", p)] = n if n is not None else cords.filter(Q(a_device=p) | Q(b_device=p)).count()
    links = LinkRecord.objects.filter(revision=revision)
    for f in facts.values():
        for part in f.parts:
            if ("part", part) not in population:
                population[("part", part)] = links.filter(Q(a_part=part) | Q(b_part=part)).count()
        for rack in f.racks:
            if ("rack", rack) not in population:
                population[("rack", rack)] = links.filter(Q(a_rack=rack) | Q(b_rack=rack)).count()
    return facts, population, {p: n for p, n in known.get("ports", {}).items() if p in panels}


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
    facts, population, ports = _facts(revision, sorted(flagged), rows, t)
    groups, ungrouped = suspects(flagged, facts, population, t, ports)

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
                "ports": g.ports,
                "front_ports": {k: list(v) for k, v in g.front_ports.items()},
                "share": round(g.share, 4),
                "action": list(g.action),
            }
            for g in groups
        ],
        "ungrouped": [label(i) for i in ungrouped],
    }
