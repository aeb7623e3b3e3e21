"""The designs app's part of the revision workspace: its sections (fabric and racks, cabling and labels, bill of
materials and orders, traffic, failure and spares; the QoS section is apps/qos's), their panels, the summary cards
and next steps drawn from the stored summary. Registered from DesignsConfig.ready(); the other apps register theirs
the same way (apps/common/workspace.py)."""

from __future__ import annotations

import hashlib
from decimal import Decimal, InvalidOperation

from django.core.cache import cache
from django.core.paginator import Paginator
from django.db.models import Count
from django.http import HttpRequest

from apps.common.requests import SignedInRequest
from apps.common.workspace import register_card, register_next_step, register_panel, register_section
from engine.model import TIERS

from . import diagrams
from .completeness import completeness_of
from .forms import ElevationForm, MarkOrderedForm
from .models import CableRecord, Revision
from .orders import baseline_current
from .pricing import revision_pricing
from .selectors import design_can_write

BOM_PAGE = 50


def register() -> None:
    register_section("fabric", "Fabric and racks", order=10, blurb="Networks, diagrams, rack elevations")
    register_section("cabling", "Cabling and labels", order=20, blurb="Loss budgets, fiber, link and cable tables")
    register_section("bom", "Bill of materials and orders", order=30, blurb="Parts, prices, ordered baseline")
    register_section("traffic", "Traffic", order=50, blurb="Workloads against the fabric")
    register_section("failure", "Failure and spares", order=60, blurb="Blast radius, spares rules")
    register_panel("fabric", "designs/_ws_networks.html", context=networks_panel, order=10)
    register_panel("fabric", "designs/_ws_diagram.html", context=diagram_panel, order=20)
    register_panel("fabric", "designs/_ws_elevations.html", context=elevations_panel, order=30)
    register_panel("cabling", "designs/_ws_physical.html", context=physical_panel, order=10)
    register_panel("bom", "designs/_ws_bom.html", context=bom_panel, order=10)
    register_panel("failure", "designs/_spares_beside.html", context=spares_panel, order=50)
    register_card(summary_cards, order=10)
    register_next_step(next_steps, order=10)


def _base(request: HttpRequest, revision: Revision) -> dict:
    return {"design": revision.design, "revision": revision, "s": revision.summary or {}}


# --- panels ------------------------------------------------------------------------------------------------------


def networks_panel(request: HttpRequest, revision: Revision) -> dict:
    return {**_base(request, revision), "networks": network_rows(revision)}


def diagram_panel(request: HttpRequest, revision: Revision) -> dict:
    summary = revision.summary or {}
    return {
        **_base(request, revision),
        "fabric_svg": diagrams.fabric_svg(summary),
        "other_svgs": [diagrams.network_svg(k, n) for k, n in diagrams.networks_in_order(summary) if k != "compute"],
    }


def elevations_panel(request: HttpRequest, revision: Revision) -> dict:
    form = ElevationForm(request.GET, rows=diagrams.row_names(revision))
    row, start = form.selection(default_row=lambda: diagrams.first_server_row(revision))
    elevation = diagrams.rack_row(revision, row, start=start) if row else None
    return {
        **_base(request, revision),
        "elevation": elevation,
        "elevation_form": form,
        "elevation_svg": diagrams.elevation_svg(elevation) if elevation else None,
    }


def physical_panel(request: HttpRequest, revision: Revision) -> dict:
    return _base(request, revision)


def spares_panel(request: HttpRequest, revision: Revision) -> dict:
    from .views import spares_beside

    return {**_base(request, revision), "spares": spares_beside(request, revision)}


def _money(value: object) -> Decimal | None:
    try:
        return Decimal(str(value)) if value not in (None, "") else None
    except InvalidOperation:
        return None


def priced_lines(bom: list[dict], prices: dict) -> tuple[list[dict], Decimal | None, list[str]]:
    """(lines with unit and extended price, the total of the priced lines or None when nothing is priced, part
    numbers without a price). A line without a price keeps None: it is never counted as zero."""
    out, total, unpriced = [], Decimal(0), []
    for line in bom:
        unit = _money(prices.get(line.get("sku")))
        extended = unit * (line.get("quantity") or 0) if unit is not None else None
        if extended is not None:
            total += extended
        elif prices:
            unpriced.append(line.get("sku") or "")
        out.append({**line, "unit_price": unit, "extended_price": extended})
    return out, (total if prices and len(unpriced) < len(out) else None), unpriced


def bom_panel(request: SignedInRequest, revision: Revision) -> dict:
    summary = revision.summary or {}
    pricing = revision_pricing(revision=revision)
    lines, total, unpriced = priced_lines(summary.get("bom") or [], pricing.prices)
    page = Paginator(lines, BOM_PAGE).get_page(request.GET.get("page"))
    return {
        **_base(request, revision),
        "pricing": pricing,
        "bom_page": page,
        "bom_total": total,
        "bom_unpriced": unpriced,
        "bom_categories": bom_categories(summary),
        "completeness": completeness_of(summary),
        "can_write": design_can_write(user=request.user, design=revision.design),
        "baseline": baseline_current(design=revision.design),
        "mark_ordered_form": MarkOrderedForm(),
    }


# --- overview ----------------------------------------------------------------------------------------------------


def _power_card(summary: dict) -> list[dict]:
    """Known power, and the fullest racks; a figure that rests on parts without a published maximum says so, and
    a rack group whose devices all lack one is "unknown" with the reason, never 0.0 kW."""
    power = summary.get("power_kw") or {}
    missing = power.get("models_without_figure") or []
    models = ", ".join(missing)
    cards = [
        {
            "label": "Power (known)",
            "value": f"{power.get('known_total', 0):.1f}",
            "unit": "kW",
            "note": f"+ unknown for {models} (no published maximum)" if missing else "",
            "note_metric": "power-unknown",
        }
    ]
    rack = summary.get("rack_power") or {}
    if rack:
        peak, budget = rack.get("max_kw") or {}, rack.get("budget_kw") or {}
        figures = []  # (value, unit, note) per rack group, network first
        for group in ("network", "server"):
            kw = peak.get(group)
            if kw is None:
                continue
            of = f" of {budget[group]:.1f}" if budget.get(group) else ""
            if not kw and missing:
                figures.append(("unknown", group, f"no published maximum for {models}"))
            else:
                figures.append((f"{kw:.1f}", f"kW {group}{of}", "known figures only" if missing else ""))
        if figures:
            value, unit, why = figures[0]
            rest = [f"{v} {u}" + (f" ({w})" if w else "") for v, u, w in figures[1:]]
            note = "; ".join([w for w in [why] if w] + rest)
            cards.append({"label": "Fullest rack", "value": value, "unit": unit, "note": note, "metric": "rack-power"})
    return cards


def summary_cards(request: HttpRequest, revision: Revision) -> list[dict]:
    s = revision.summary or {}
    nets = s.get("networks") or {}
    switches = sum(sum((n.get("switches") or {}).values()) for n in nets.values())
    loss = s.get("loss_budget") or {}
    over = s.get("oversubscription") or {}
    return [
        {"label": "GPUs", "value": s.get("gpus"), "metric": "gpus"},
        {"label": "Servers", "value": s.get("servers"), "unit": f"× {s.get('server_model', '')}", "metric": "servers"},
        {"label": "Switches", "value": switches, "metric": "switches", "section": "fabric"},
        {
            "label": "Cables",
            "value": s.get("cables_total") or revision.cable_count,
            "metric": "cables",
            "section": "cabling",
        },
        {"label": "Links", "value": s.get("links_total"), "metric": "links", "section": "cabling"},
        {"label": "Racks", "value": (s.get("racks") or {}).get("total"), "unit": f"in {s.get('rows', 0)} rows"},
        {
            "label": "Bisection bandwidth",
            "value": s.get("bisection_gbps"),
            "format": "bandwidth",
            "metric": "bisection",
        },
        {
            "label": "Oversubscription",
            "value": over.get("leaf") or "—",
            "unit": "leaf" + (f" · {over['spine']} spine" if over.get("spine") else ""),
        },
        {
            "label": "Loss budget",
            "value": f"{loss.get('pass', 0):,} pass · {loss.get('marginal', 0):,} marginal · {loss.get('fail', 0):,} fail",
            "metric": "loss",
            "tone": "bad" if loss.get("fail") else ("warn" if loss.get("marginal") else ""),
            "section": "cabling",
        },
        {
            "label": "Fiber strands",
            "value": ((s.get("fibers") or {}).get("total") or {}).get("installed"),
            "unit": "installed",
            "section": "cabling",
        },
        *_power_card(s),
    ]


def next_steps(request: HttpRequest, revision: Revision) -> list[dict]:
    s = revision.summary or {}
    steps = []
    c = completeness_of(s)
    if not c["complete"]:
        steps.append(
            {"text": f"{c['links_without_part']:,} links have no part: add one on the catalog page", "section": "bom"}
        )
    if c.get("unconfirmed"):
        steps.append({"text": f"Verify {len(c['unconfirmed'])} BOM lines before ordering", "section": "bom"})
    if (s.get("loss_budget") or {}).get("fail"):
        steps.append({"text": "Some links fail their loss budget: see the cabling section", "section": "cabling"})
    if any(w.get("verdict", {}).get("status") not in (None, "ok", "pass") for w in (s.get("workloads") or {}).values()):
        steps.append({"text": "A workload does not fit this fabric as it is: see traffic", "section": "traffic"})
    if baseline_current(design=revision.design) is None:
        steps.append({"text": "When the order is placed, mark a revision as ordered", "section": "bom"})
    return steps


# --- figures shared by the panels --------------------------------------------------------------------------------


def network_rows(revision: Revision) -> list[dict]:
    """Per network and tier: switches, links (summary), cables (stored rows) and run length."""
    summary = revision.summary or {}
    cables = _cable_counts(revision)
    runs = summary.get("run_length_m") or {}
    out = []
    for key, net in diagrams.networks_in_order(summary):
        tiers = [
            {
                "tier": tier,
                "links": n,
                "cables": cables.get((key, tier), 0),
                "run_m": (runs.get(f"{key}/{tier}") or {}).get("total"),
            }
            for tier, n in diagrams.in_order(net.get("links"), TIERS.get(key, ()))
            if n
        ]
        out.append(
            {
                "key": key,
                "title": diagrams.NETWORK_TITLES.get(key, key),
                "net": net,
                "tiers": tiers,
                "switches": {r: n for r, n in diagrams.in_order(net.get("switches"), diagrams.ROLES) if n},
                "links": sum(t["links"] for t in tiers),
                "cables": sum(t["cables"] for t in tiers),
            }
        )
    return out


def _cable_counts(revision: Revision) -> dict[tuple[str, str], int]:
    """Cables per (network, tier): one grouped query, cached for good (a revision never changes)."""

    def count() -> dict:
        rows = (
            CableRecord.objects.filter(revision=revision)
            .values_list("network", "tier")
            .annotate(n=Count("id"))
            .order_by()
        )
        return {(net, tier): n for net, tier, n in rows}

    # Keyed by what determines the result, so equal computations share it and a reused id never misleads.
    key = hashlib.sha256(f"{revision.spec_hash}|{revision.engine_version}|{revision.catalog_version}".encode())
    # get_or_set answers what count() made (never None); its stub allows None, for a default of None.
    return cache.get_or_set(f"designs:cable-counts:{key.hexdigest()}", count, timeout=None)  # type: ignore[return-value]


def bom_categories(summary: dict) -> list[dict]:
    """BOM lines and quantities per category: a 128K-GPU design has hundreds of cord lengths."""
    out: dict[str, dict] = {}
    for line in summary.get("bom") or []:
        row = out.setdefault(
            line.get("category") or "other", {"category": line.get("category") or "other", "lines": 0, "quantity": 0}
        )
        row["lines"] += 1
        row["quantity"] += line.get("quantity") or 0
    return list(out.values())
