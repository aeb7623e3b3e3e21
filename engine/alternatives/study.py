"""Run a study: enumerate, compute each candidate (up to the requirement's max_candidates), judge, front.

Framework-free: the caller (apps/alternatives) gives `progress(done, total)` and gets plain data back;
`on_candidate` sees each computed row as soon as it exists, so a worker can store it before the next one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass

from ..catalog import Catalog
from ..errors import SpecError
from ..guard import Limits
from ..orders.money import fmt_money
from ..pipeline import compute_design
from .candidates import Candidate, Rejected, enumerate_candidates
from .judge import figures, objective_value
from .pareto import pareto_front
from .requirement import Requirement


@dataclass
class Row:
    label: str
    choice: dict
    spec: dict
    figures: dict
    fabric: str  # fingerprint of what was built: equal for the same fabric
    pareto: bool = False

    def to_dict(self) -> dict:
        return {
            "label": self.label,
            "choice": self.choice,
            "spec": self.spec,
            "figures": self.figures,
            "fabric": self.fabric,
            "pareto": self.pareto,
        }


def fabric_fingerprint(summary: dict) -> str:
    """What was built, not how it was asked for: the networks' counts and the BOM."""
    blob = json.dumps([summary.get("networks"), summary.get("bom")], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _constraint_reason(req: Requirement, fig: dict, summary: dict) -> str | None:
    over = (summary.get("rack_power") or {}).get("over_budget") or []
    if over:
        return f"{len(over)} rack(s) over the {req.rack_power_kw or 'rack'} kW power budget"
    if fig["loss_fail"]:
        return f"{fig['loss_fail']} link(s) fail their loss budget"
    if req.budget is not None:
        if fig["cost"] is None:
            return "the price list does not price every BOM line, so the budget cannot be checked"
        if objective_value(fig, "cost") > float(req.budget):  # type: ignore[operator]
            return f"costs {fig['cost']}, over the budget of {fmt_money(req.budget)}"
    return None


def run_study(
    req: Requirement,
    catalog: Catalog,
    *,
    limits: Limits | None = None,
    progress: Callable[[int, int], None] = lambda _done, _total: None,
    on_candidate: Callable[[Row], None] = lambda _row: None,
) -> tuple[list[Row], list[Rejected]]:
    candidates, rejected = enumerate_candidates(req, catalog, limits)
    rows: list[Row] = []
    seen: dict[str, Row] = {}
    queue: list[Candidate] = list(candidates)
    total = min(len(queue), req.max_candidates)
    progress(0, total)
    while queue and len(rows) < req.max_candidates:
        cand = queue.pop(0)
        try:
            result = compute_design(cand.spec, catalog, limits=limits)
        except SpecError as exc:
            rejected.append(Rejected(cand.choice, str(exc)))
            continue
        fig = figures(result, req.price_map)
        reason = _constraint_reason(req, fig, result.summary)
        fp = fabric_fingerprint(result.summary)
        if reason is not None:
            rejected.append(Rejected(cand.choice, reason))
        elif fp in seen:
            rejected.append(Rejected(cand.choice, "the same fabric as another candidate", seen[fp].label))
        else:
            row = Row(cand.choice.label, cand.choice.to_dict(), cand.spec_data, fig, fp)
            seen[fp] = row
            rows.append(row)
            on_candidate(row)
        progress(len(rows), min(len(rows) + len(queue), req.max_candidates))
    mark_front(rows, req.objectives)
    return rows, rejected


def mark_front(rows: list[Row], objectives) -> None:
    flags = pareto_front(rows, lambda r: [objective_value(r.figures, o) for o in objectives])
    for row, flag in zip(rows, flags, strict=True):
        row.pareto = flag
