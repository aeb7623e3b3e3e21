"""Loss-budget report (loss-budget.csv): one row per optical link with its budget terms, worst
links first (smallest margin first; equal margins in link order). Streamed: links are grouped by
their (shared) budget object, the few distinct budgets are sorted, then rows are generated."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engine.columns import LINK_IDENTITY
from engine.result import DesignResult

from ._csv import csv_lines
from ._view import DesignView

LOSS_COLUMNS = (
    "rank",
    *LINK_IDENTITY,
    "medium",
    "pmd",
    "fiber_type",
    "cable_ids",
    "length_m",
    "fiber_db",
    "mated_pairs",
    "connectors_db",
    "other_db",
    "loss_db",
    "limit_db",
    "margin_db",
    "status",
    "component_issues",
    "terms",
)


def _view(result: DesignResult | DesignView) -> DesignView:
    return result if isinstance(result, DesignView) else DesignView(result)


def _budget_fields(b: Any) -> tuple:
    pairs = 0
    fdb = cdb = odb = 0.0
    for label, db in b.terms:
        if label.startswith("fiber "):
            fdb += db
        elif "mated pair" in label:
            pairs += 1
            cdb += db
        else:
            odb += db
    terms = "; ".join(f"{label} = {db:g} dB" for label, db in b.terms)
    issues = "; ".join(i.message for i in b.component_issues)
    return (
        b.length_m,
        round(fdb, 4),
        pairs,
        round(cdb, 4),
        round(odb, 4),
        round(b.loss_db, 4),
        "" if b.limit_db is None else b.limit_db,
        "" if b.margin_db is None else round(b.margin_db, 4),
        b.status,
        issues,
        terms,
    )


def iter_loss_rows(result: DesignResult | DesignView) -> Iterator[tuple]:
    v = _view(result)
    ph = v.ph
    groups: dict = {}
    for i, b in enumerate(ph.budgets):
        if b is None or b.status == "n/a":
            continue
        groups.setdefault(id(b), (b, []))[1].append(i)
    ranked = sorted(groups.values(), key=lambda g: (g[0].margin_db if g[0].margin_db is not None else -1e9, g[1][0]))
    # equal margins: merge their link lists in link order
    rank = 0
    devs, links = v.devices, v.links
    k = 0
    while k < len(ranked):
        m = ranked[k][0].margin_db
        j = k
        while j + 1 < len(ranked) and ranked[j + 1][0].margin_db == m:
            j += 1
        members = sorted((i, g[0]) for g in ranked[k : j + 1] for i in g[1])
        memo: dict = {}
        for i, b in members:
            f = memo.get(id(b))
            if f is None:
                f = memo[id(b)] = _budget_fields(b)
            lk = links[i]
            ch = ph.choices[i]
            rank += 1
            yield (
                rank,
                f"L{lk.id:06d}",
                lk.network,
                lk.tier,
                devs[lk.a].name,
                lk.a_port,
                devs[lk.b].name,
                lk.b_port,
                ch.medium if ch else "",
                ch.pmd if ch else "",
                b.fiber_type or "",
                " ".join(f"C{x:06d}" for x in ph.cables[i]),
                *f,
            )
        k = j + 1


def iter_loss_budget_csv(result: DesignResult | DesignView, *, raw: bool = False) -> Iterator[str]:
    yield from csv_lines(LOSS_COLUMNS, iter_loss_rows(result), raw=raw)
