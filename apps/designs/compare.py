"""What changed between two revisions of a design.

Counts come from the two stored summaries, labelled as a person reads them and in the order the revision page
shows them (cluster, then each network's switches and links, then parts). The row diff matches the two
revisions' links and cables by their ends, which is what a site team recognises (link ids are renumbered
whenever the topology changes): a link is the same link when it joins the same two ports on the same network;
a cable, when it joins the same two ports with the same kind of cable. Matched rows whose medium, parts or
length differ are "changed".

The row diff reads every link and cable of both revisions once (400,000 of each for a 128K-GPU design) and is
kept in the cache under the two revisions' ids and spec hashes: revisions never change, so it never goes stale.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from engine.columns import LINK_IDENTITY
from engine.model import TIERS

from . import diagrams
from .models import CableRecord, LinkRecord, Revision
from .revision_cache import cached_value

CHANGES = ("added", "removed", "changed")
TABLES = ("links", "cables")
_DIFF_VERSION = 1

# (model, id column, the columns that say which row it is, the columns compared, the columns a page shows)
_LINK = (
    LinkRecord,
    "link_id",
    ("network", "a_device", "a_port", "b_device", "b_port"),
    ("medium", "a_part", "b_part", "length_m"),
    (*LINK_IDENTITY, "medium", "a_part", "b_part", "length_m"),
)
_CABLE = (
    CableRecord,
    "cable_id",
    ("network", "kind", "a_device", "a_port", "b_device", "b_port"),
    ("part", "length_m"),
    ("cable_id", "network", "tier", "kind", "a_device", "a_port", "b_device", "b_port", "part", "length_m", "label_a"),
)
# (model, id column, columns that match a row to its counterpart, columns compared, columns shown)
TableSpec = tuple[type[LinkRecord] | type[CableRecord], str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]
_SPECS: dict[str, TableSpec] = {"links": _LINK, "cables": _CABLE}

COMPARED_LABELS = {
    "medium": "medium",
    "a_part": "A-end part",
    "b_part": "B-end part",
    "part": "part",
    "length_m": "length",
}


# --- counts ---------------------------------------------------------------------------------------------------


def revision_counts_diff(*, old: Revision, new: Revision) -> list[dict]:
    """The counts that differ: [{"section", "item", "old", "new", "delta"}] in the revision page's order.

    A count missing on one side is 0 there (a part that disappeared reads -N, not a blank)."""
    a, b = _labelled_counts(old.summary or {}), _labelled_counts(new.summary or {})
    rows = []
    for key in sorted(set(a) | set(b), key=lambda k: (b[k] if k in b else a[k])["rank"]):
        ca, cb = a.get(key), b.get(key)
        vo, vn = (ca or {}).get("value"), (cb or {}).get("value")
        if vo == vn:
            continue
        meta = b[key] if key in b else a[key]
        numeric = all(v is None or isinstance(v, (int, float)) for v in (vo, vn))
        if numeric:
            vo, vn = vo or 0, vn or 0
        rows.append(
            {
                "section": meta["section"],
                "item": meta["item"],
                "old": vo,
                "new": vn,
                "delta": vn - vo if numeric and vn is not None and vo is not None else None,
            }
        )
    return rows


def _labelled_counts(summary: dict) -> dict:
    """key -> {"section", "item" (a label), "value", "rank"}. Ranks compare across two summaries: cluster
    figures first, then each network in the engine's order (switches by role, then links by tier), then parts by
    category and part number."""
    out: dict[str, dict] = {}

    def put(key: str, rank: tuple, section: str, item: str, value: object) -> None:
        if value is not None:
            out[key] = {"section": section, "item": item, "value": value, "rank": rank}

    racks = summary.get("racks")
    cluster = {
        "gpus": summary.get("gpus"),
        "servers": summary.get("servers"),
        "links_total": summary.get("links_total"),
        "cables_total": summary.get("cables_total"),
        "racks": racks.get("total") if isinstance(racks, dict) else racks,
    }
    labels = {
        "gpus": "GPUs",
        "servers": "Servers",
        "links_total": "Links, all networks",
        "cables_total": "Cables, all networks",
        "racks": "Racks",
    }
    for i, (key, value) in enumerate(cluster.items()):
        put(key, (0, i), "Cluster", labels[key], value)
    networks = {k: i for i, k in enumerate(diagrams.NETWORK_TITLES)}
    for net_key, net in diagrams.networks_in_order(summary):
        title = diagrams.NETWORK_TITLES.get(net_key, net_key)
        n_rank = 1 + networks.get(net_key, len(networks))
        roles = {r: i for i, r in enumerate(diagrams.ROLES)}
        for role, n in (net.get("switches") or {}).items():
            put(
                f"{net_key} {role} switches",
                (n_rank, 0, roles.get(role, len(roles)), role),
                title,
                f"{role.capitalize()} switches",
                n,
            )
        tiers = {t: i for i, t in enumerate(TIERS.get(net_key, ()))}
        for tier, n in (net.get("links") or {}).items():
            put(f"{net_key} {tier} links", (n_rank, 1, tiers.get(tier, len(tiers)), tier), title, f"{tier} links", n)
    for line in summary.get("bom") or []:
        desc = line.get("description") or ""
        put(
            f"part {line['sku']}",
            (99, line.get("category") or "", line["sku"]),
            "Parts",
            line["sku"] + (f" ({desc})" if desc and desc != line["sku"] else ""),
            line.get("quantity"),
        )
    return out


# --- rows -------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RowDiff:
    """Per table: ids of the rows added (new revision), removed (old revision), and changed ((old id, new id))."""

    links: dict
    cables: dict

    def counts(self) -> dict:
        return {t: {c: len(getattr(self, t)[c]) for c in CHANGES} for t in TABLES}


def revision_row_diff(*, old: Revision, new: Revision) -> RowDiff:
    key = f"designs:rowdiff:v{_DIFF_VERSION}:{old.pk}:{old.spec_hash}:{new.pk}:{new.spec_hash}"
    tables = cached_value(key, lambda: {table: _diff_table(_SPECS[table], old.pk, new.pk) for table in TABLES}, level=6)
    return RowDiff(**tables)


def _rows(spec: TableSpec, revision_id: int) -> Iterator[tuple[Any, ...]]:
    model, id_col, match, compared, _shown = spec
    return (
        model.objects.filter(revision_id=revision_id)
        .order_by(id_col)
        .values_list(id_col, *match, *compared)
        .iterator(chunk_size=20000)
    )


def _diff_table(spec: TableSpec, old_id: int, new_id: int) -> dict:
    _model, _id_col, match, _compared, _shown = spec
    m = len(match)
    old_by_key: dict[tuple, list] = defaultdict(list)
    for row in _rows(spec, old_id):
        old_by_key[row[1 : 1 + m]].append((row[0], _norm(row[1 + m :])))
    added, changed = [], []
    for row in _rows(spec, new_id):
        olds = old_by_key.get(row[1 : 1 + m])
        if not olds:
            added.append(row[0])
            continue
        old_row_id, old_values = olds.pop(0)  # the same two ports twice (twin cables) match in id order
        if not olds:
            del old_by_key[row[1 : 1 + m]]
        if old_values != _norm(row[1 + m :]):
            changed.append((old_row_id, row[0]))
    removed = sorted(rid for olds in old_by_key.values() for rid, _ in olds)
    return {"added": added, "removed": removed, "changed": changed}


def _norm(values: tuple) -> tuple:
    # lengths are stored as floats: compare them to the centimetre, as the tables print them
    return tuple(round(v, 2) if isinstance(v, float) else v for v in values)


def revision_diff_page(*, old: Revision, new: Revision, table: str, change: str, page: int, size: int = 100) -> dict:
    """One page of the row diff: {"rows", "count", "page", "pages", "columns"}; each row has "old" and/or "new"
    (the row's shown columns as dicts) and, for a change, "what" (the compared columns that differ)."""
    spec = _SPECS[table]
    model, id_col, _match, compared, shown = spec
    ids = getattr(revision_row_diff(old=old, new=new), table)[change]
    count = len(ids)
    pages = max(1, -(-count // size))
    page = min(max(1, page), pages)
    chunk = ids[(page - 1) * size : page * size]

    def fetch(revision_id: int, wanted: list[int]) -> dict:
        rows = model._default_manager.filter(revision_id=revision_id, **{f"{id_col}__in": wanted}).values(*shown)
        return {r[id_col]: r for r in rows}

    if change == "added":
        got = fetch(new.pk, chunk)
        rows = [{"new": got[i]} for i in chunk if i in got]
    elif change == "removed":
        got = fetch(old.pk, chunk)
        rows = [{"old": got[i]} for i in chunk if i in got]
    else:
        got_old = fetch(old.pk, [o for o, _ in chunk])
        got_new = fetch(new.pk, [n for _, n in chunk])
        rows = []
        for o, n in chunk:
            ro, rn = got_old.get(o), got_new.get(n)
            if ro is None or rn is None:
                continue
            what = [COMPARED_LABELS[c] for c in compared if _norm((ro[c],)) != _norm((rn[c],))]
            rows.append({"old": ro, "new": rn, "what": what})
    return {"rows": rows, "count": count, "page": page, "pages": pages, "size": size, "id_col": id_col}


def previous_revision_number(revision: Revision) -> int | None:
    """The number of the design's revision just before this one (numbers may have gaps after deletes)."""
    return (
        Revision.objects.filter(design_id=revision.design_id, number__lt=revision.number)
        .order_by("-number")
        .values_list("number", flat=True)
        .first()
    )
