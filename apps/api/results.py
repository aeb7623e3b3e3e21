"""Reads of a stored revision's result: BOM lines with spares and prices, BOM difference, loss budgets."""

from __future__ import annotations

from decimal import Decimal

from apps.designs.completeness import completeness_of
from apps.designs.models import LinkRecord, Revision
from apps.designs.pricing import revision_pricing
from engine.columns import LINK_IDENTITY


def _bom_by_part(summary: dict) -> dict[str, dict]:
    """Summary BOM lines keyed by part number (a part listed under two categories is summed)."""
    out: dict[str, dict] = {}
    for line in (summary or {}).get("bom") or []:
        part = line["sku"]
        cur = out.get(part)
        if cur is None:
            out[part] = {
                "part": part,
                "description": line.get("description", ""),
                "category": line.get("category", ""),
                "quantity": int(line.get("quantity") or 0),
                "watts": line.get("watts"),
            }
        else:
            cur["quantity"] += int(line.get("quantity") or 0)
            if line.get("watts") is not None:
                cur["watts"] = round((cur["watts"] or 0) + line["watts"], 2)
    return out


def _money(d: Decimal) -> str:
    from engine.orders.money import fmt_money

    return fmt_money(d)


def revision_bom(*, revision: Revision, rule=None, category: str | None = None) -> dict:
    """BOM lines of a revision: quantity, spares (rounded up), unit price and total from the revision's price-list
    version (apps.api.pricing: the one in force when it was computed, unless explicitly repriced), priced by the
    same function as bom.csv and bom.pdf (engine.orders.bom.order_lines). `rule`: the spares rule
    (apps.api.spares_params.spares_rule_of), None for no spares."""
    from deliverables.options import ExportOptions
    from engine.orders.bom import order_lines
    from engine.orders.spares import PercentPerCategory

    from .spares_params import percent_text

    pricing = revision_pricing(revision=revision, latest=False)
    prices = pricing.prices
    summary_lines = [
        line for line in (revision.summary or {}).get("bom") or [] if not category or line.get("category") == category
    ]
    percent = rule if isinstance(rule, PercentPerCategory) else None
    opts = ExportOptions.from_any(
        {
            "prices": prices,
            "spares_percent": dict(percent.percents) if percent is not None else {},
            # the failure-rate rule (engine/orders/failure_rates.py) replaces the percent
            "spares_failure_rate": rule if rule is not None and percent is None else None,
        }
    )
    rule = opts.spares_rule()
    order, totals, _ = order_lines(summary_lines, prices=opts.prices, rule=rule)
    lines = [
        {
            "part": sku,
            "description": line.get("description", ""),
            "category": cat,
            "quantity": qty,
            "spares": spares,
            "order_quantity": oq,
            "unit_price": _money(prices[sku]) if prices.get(sku) is not None else None,
            "total": _money(ext) if ext is not None else None,
            "watts": watts,
            "verify_before_ordering": bool(line.get("unconfirmed")),
            "unconfirmed": line.get("unconfirmed") or "",
        }
        for line, (cat, sku, qty, spares, oq, watts, _unit, ext) in zip(summary_lines, order)
    ]
    completeness = completeness_of(revision.summary)
    return {
        "revision": revision.number,
        "currency": pricing.currency,
        **pricing.to_dict(),
        "spares_percent": percent_text(percent),
        "spares_rule": {**rule.to_dict(), "text": rule.describe()},
        "complete": completeness["complete"],
        "links_without_part": completeness["links_without_part"],
        "missing": completeness["missing"],
        "lines": lines,
        "totals": {
            "lines": len(lines),
            "quantity": totals["quantity"],
            "spares": totals["spares"],
            "price": _money(totals["price"]) if lines and totals["priced_all"] else None,
            "priced_lines": len(lines) - totals["lines_without_price"],
            "watts": round(totals["watts"], 2),
        },
    }


def bom_diff(*, old: Revision, new: Revision) -> dict:
    """Parts added, removed and changed in quantity from `old` to `new`."""
    a, b = _bom_by_part(old.summary), _bom_by_part(new.summary)
    added = [dict(b[p]) for p in sorted(set(b) - set(a))]
    removed = [dict(a[p]) for p in sorted(set(a) - set(b))]
    changed = [
        {
            "part": p,
            "description": b[p]["description"],
            "category": b[p]["category"],
            "old_quantity": a[p]["quantity"],
            "new_quantity": b[p]["quantity"],
            "delta": b[p]["quantity"] - a[p]["quantity"],
        }
        for p in sorted(set(a) & set(b))
        if a[p]["quantity"] != b[p]["quantity"]
    ]
    for rows in (added, removed):
        for r in rows:
            r.pop("watts", None)
    return {
        "old": old.number,
        "new": new.number,
        "added": added,
        "removed": removed,
        "changed": changed,
        "unchanged": sum(1 for p in set(a) & set(b) if a[p]["quantity"] == b[p]["quantity"]),
    }


WORST_FIELDS = (
    *LINK_IDENTITY,
    "length_m",
    "medium",
    "a_part",
    "b_part",
    "loss_db",
    "margin_db",
    "status",
)


# One vocabulary: a link's `status` (the stored rows, the ?status= filter). The engine's summary counts copper
# links as "copper" and links without a medium as "no_medium"; the API names them as the links do.
LINK_STATUSES = ["pass", "marginal", "fail", "n/a", "no-medium"]
LINK_MEDIA = ["fiber-sm", "fiber-mm", "dac", "acc", "aoc", "copper-rj45"]
_SUMMARY_TO_STATUS = {"copper": "n/a", "no_medium": "no-medium"}


def loss_counts(summary_counts: dict) -> dict:
    counts = {status: 0 for status in LINK_STATUSES}
    for key, n in summary_counts.items():
        counts[_SUMMARY_TO_STATUS.get(key, key)] = n
    return counts


def revision_loss_budget(*, revision: Revision) -> dict:
    """Loss-budget counts from the summary, and the worst links (smallest margin) with their rows."""
    s = revision.summary or {}
    worst = s.get("worst_links") or []
    ids = []
    for w in worst:
        text = str(w.get("link", ""))
        if text[:1] == "L" and text[1:].isdigit():
            ids.append(int(text[1:]))
    found = LinkRecord.objects.filter(revision=revision, link_id__in=ids).values(*WORST_FIELDS)
    rows = {r["link_id"]: r for r in found}
    return {
        "revision": revision.number,
        "counts": loss_counts(s.get("loss_budget") or {}),
        "worst_links": [rows[i] for i in ids if i in rows],
    }
