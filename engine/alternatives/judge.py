"""A computed candidate's figures, each read from what the engine already produces for a design:

- cost: the priced BOM total (engine/orders/lines.py build_order(...).totals(), no spares, the study's
  price list): None unless every line is priced, as on the BOM page;
- power_kw: summary power_kw.known_total; rack_units: the devices' rack units; racks: summary racks.total;
- cables: summary cables_total; fibres: summary fibers.total.installed;
- loss: summary loss_budget (fail and marginal counts) and the worst margin of summary worst_links;
- bisection_gbps: summary bisection_gbps;
- traffic: summary workloads[*].verdict.status per workload, and the worst of them;
- blast_radius: engine/blast_radius.py, the most GPUs one single failure takes off the fabric (their port
  lost: jobs on them likely abort), with the kind of that failure.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from ..blast_radius import blast_radius
from ..orders.lines import build_order
from ..orders.money import fmt_money
from ..orders.spares import spares_rule_from_dict
from ..result import DesignResult

# The traffic analysis' verdicts, best first (engine/traffic/analysis.py _verdict).
VERDICT_ORDER = ("fits", "tight", "does-not-fit")


def priced_total(summary: Mapping, prices: Mapping[str, Decimal]) -> Decimal | None:
    if not prices:
        return None
    order = build_order(summary.get("bom") or [], rule=spares_rule_from_dict(None), prices=prices)
    return order.totals.extended_price


def worst_verdict(statuses: Mapping[str, str | None]) -> str | None:
    if not statuses:
        return None
    rank = {v: i for i, v in enumerate(VERDICT_ORDER)}
    return max(statuses.values(), key=lambda s: rank.get(s or "", len(rank)))


def figures(result: DesignResult, prices: Mapping[str, Decimal]) -> dict:
    """Plain data (JSON-safe): what the comparison table shows for one computed design."""
    s = result.summary
    br = blast_radius(result.devices, result.links)
    worst = max(br.failures, key=lambda f: (f.gpus_losing_port, f.gpus), default=None)
    traffic = {name: (w.get("verdict") or {}).get("status") for name, w in (s.get("workloads") or {}).items()}
    margins = [w["margin_db"] for w in s.get("worst_links") or [] if w.get("margin_db") is not None]
    total = priced_total(s, prices)
    return {
        "cost": None if total is None else fmt_money(total),
        "power_kw": (s.get("power_kw") or {}).get("known_total"),
        "rack_units": sum(d.rack_units for d in result.devices),
        "racks": (s.get("racks") or {}).get("total"),
        "cables": s.get("cables_total"),
        "fibres": ((s.get("fibers") or {}).get("total") or {}).get("installed", 0),
        "loss_fail": (s.get("loss_budget") or {}).get("fail", 0),
        "loss_marginal": (s.get("loss_budget") or {}).get("marginal", 0),
        "worst_margin_db": min(margins) if margins else None,
        "bisection_gbps": s.get("bisection_gbps"),
        "traffic": traffic,
        "traffic_worst": worst_verdict(traffic),
        "blast_radius_gpus": worst.gpus_losing_port if worst else 0,
        "blast_radius_kind": worst.kind if worst else None,
        "switches": {net: sum((n.get("switches") or {}).values()) for net, n in (s.get("networks") or {}).items()},
        "tiers": ((s.get("networks") or {}).get("compute") or {}).get("tiers"),
    }


def objective_value(fig: Mapping, objective: str) -> float | None:
    """The number an objective minimises; None when the figure is missing (an unpriced BOM)."""
    if objective == "cost":
        return None if fig.get("cost") is None else float(Decimal(str(fig["cost"]).replace(",", "")))
    if objective == "power":
        return fig.get("power_kw")
    if objective == "cables":
        return fig.get("cables")
    if objective == "blast_radius":
        return fig.get("blast_radius_gpus")
    raise KeyError(objective)
