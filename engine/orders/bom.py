"""The bill of materials of a computed design, priced: its parts, the order (one line per part with spares, unit
and extended price) and the quantities split per network and per scalable unit.

The one place that prices a BOM: bom.pdf and bom.csv (deliverables/bom.py render it), the API's /bom/ and the
ordered BOM (lines.bom_split) read it. The quantities come from the result: the order per part equals
summary["bom"] line by line, and the split per network and SU is the engine's BOM pass (physical.bom_split), with
whatever it does not place shown as network "unassigned", never lost.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from .lines import CATEGORY_ORDER, NETWORK_ORDER
from .money import to_cents
from .orderable import SWITCH_ROLES, device_lines
from .spares import PercentPerCategory, SparesRule

if TYPE_CHECKING:
    from engine.model import Device

_FF = re.compile(r"\b(OSFP|QSFP112|QSFP-DD|QSFP56|QSFP28|SFP28|SFP\+|RJ45)\b", re.I)


@dataclass
class Part:
    category: str
    sku: str
    description: str
    form_factor: str = ""
    length_m: float | None = None
    unit_watts: float | None = None


@dataclass
class Bom:
    parts: dict  # (category, sku) -> Part
    order: list  # (category, sku, qty, spares, order_qty, watts, unit_price, extended)
    by_network: dict  # network -> Counter((category, sku) -> qty)
    by_su: dict  # su -> Counter((category, sku) -> qty)
    su_servers: Counter
    fibers: dict
    currency: str
    spares_percent: dict  # category -> Decimal
    totals: dict = field(default_factory=dict)


def bom_category_key(cat: str) -> int:
    return CATEGORY_ORDER.index(cat) if cat in CATEGORY_ORDER else len(CATEGORY_ORDER)


def bom_network_key(n: str) -> tuple:
    return (NETWORK_ORDER.index(n) if n in NETWORK_ORDER else len(NETWORK_ORDER), n)


def _form_factors(catalog: Any, result: Any = None) -> dict:
    # The catalog the design was computed with (a stored revision's snapshot holds it), never today's when known.
    cat = catalog if catalog is not None else getattr(result, "catalog", None)
    if cat is None:
        try:
            from engine.catalog import load_catalog  # noqa: PLC0415 - the shipped catalog only when the result lacks one

            cat = load_catalog()
        except Exception:  # noqa: BLE001  # pragma: no cover - catalog not loadable: fall back to descriptions
            return {}
    media = getattr(cat, "media", cat)
    tr = getattr(media, "transceivers", None) or {}
    try:
        return {sku: t.form_factor for sku, t in tr.items()}
    except AttributeError:  # pragma: no cover
        return {}


def _device_keys(d: Device, catalog: Any, procurement: Any, parts: Mapping[tuple[str, str], Part]) -> list:
    """The (category, sku) lines a device adds to the BOM; a revision computed before switches carried their
    orderable numbers named the model ("QM9700", "UFM") and still splits by that."""
    if d.role in SWITCH_ROLES:
        legacy = ("switch", d.model.upper())
    elif d.role == "ufm":
        legacy = ("appliance", "UFM")
    else:
        return []
    keys = [(c, p.sku) for c, p, _ in device_lines(d.role, d.model, catalog, procurement)] if catalog else []
    keys = [k for k in keys if k in parts]
    return keys or ([legacy] if legacy in parts else [])


def compute_bom(
    result: Any,
    *,
    prices: Mapping[str, Decimal] | None = None,
    rule: SparesRule | None = None,
    currency: str = "USD",
    catalog: Any = None,
) -> Bom:
    """The BOM of a computed design: its parts, the priced order with spares (order_lines), and the
    quantities split per network and per SU. `catalog`: the one the design was computed with (default the
    result's own; transceiver form factors and orderable numbers come from it); `rule`: None for no spares."""
    ph = result.physical
    summary_bom = result.summary.get("bom") or (ph.bom if ph is not None else [])
    parts = _parts(summary_bom, _form_factors(catalog, result))
    by_network: dict = defaultdict(Counter)
    by_su: dict = defaultdict(Counter)
    catalog = catalog if catalog is not None else getattr(result, "catalog", None)
    _split_devices(result, catalog, parts, by_network, by_su)
    if ph is not None:
        _split_physical(ph, parts, by_network, by_su)
    _reconcile(summary_bom, parts, by_network)
    order, totals, spares_pct = order_lines(
        sorted(summary_bom, key=lambda ln: (bom_category_key(ln["category"]), ln["sku"])), prices=prices, rule=rule
    )
    fib = result.summary.get("fibers") or {}
    su_servers = Counter(d.su for d in result.devices if d.su and d.role == "server")
    bom = Bom(parts, order, dict(by_network), dict(by_su), su_servers, fib, currency, spares_pct)
    bom.totals = totals
    return bom


def _parts(summary_bom: Iterable[Mapping[str, Any]], form_factors: Mapping[str, str]) -> dict:
    """(category, sku) -> Part of every summary BOM line, with its power per unit and a transceiver's form
    factor (the catalog's, else read from its description)."""
    parts: dict = {}
    for line in summary_bom:
        q = line["quantity"]
        uw = None if line.get("watts") is None or not q else line["watts"] / q
        parts[(line["category"], line["sku"])] = Part(
            line["category"], line["sku"], line.get("description", ""), unit_watts=uw
        )
    for (cat, sku), p in parts.items():
        if cat == "transceiver":
            ff = form_factors.get(sku)
            if not ff:
                m = _FF.search(p.description or "")
                ff = m.group(1) if m else ""
            p.form_factor = ff.upper()
    return parts


def _split_devices(result: Any, catalog: Any, parts: dict, by_network: dict, by_su: dict) -> None:
    """Switches and appliances: the parts the engine's BOM named for each device (engine/orders/orderable.py)."""
    procurement = getattr(getattr(result, "spec", None), "procurement", None)
    device_keys: dict = {}
    for d in result.devices:
        keys = device_keys.get((d.role, d.model))
        if keys is None:
            keys = device_keys[(d.role, d.model)] = _device_keys(d, catalog, procurement, parts)
        for key in keys:
            by_network[d.network or "compute"][key] += 1
            if d.su:
                by_su[d.su][key] += 1


def _split_physical(ph: Any, parts: dict, by_network: dict, by_su: dict) -> None:
    """Transceivers (one per cage end that carries a module) and cables (by part; per SU by the A-end device)
    come split by network and SU from the engine's BOM pass (physical.bom_split): no walk over the ~400,000
    links and cables here. Panels and their inserts go to the network of the trunks that end in them."""
    sku_cat = {sku: cat for cat, sku in parts}
    split = ph.bom_split
    for (m, net, s), n in split.transceivers.items():
        key = ("transceiver", m)
        by_network[net][key] += n
        if s:
            by_su[s][key] += n
    for (part, net, s), n in split.cables.items():
        key = (sku_cat.get(part, "cable"), part)
        by_network[net][key] += n
        if s:
            by_su[s][key] += n
    lengths = split.cable_lengths
    for (cat, sku), p in parts.items():
        if sku in lengths and cat not in ("switch", "appliance", "transceiver"):
            p.length_m = lengths[sku]
    net_of = {}
    for net, t in ph.trunks:
        net_of[(t.rack_a, t.tier)] = net
        net_of[(t.rack_b, t.tier)] = net
    for rp in ph.panels:
        net = net_of.get((rp.rack, rp.tier), "")
        by_network[net][("panel", rp.panel_sku)] += rp.panels
        for insert, count in rp.inserts:
            by_network[net][("panel-insert", insert)] += count


def _reconcile(summary_bom: Iterable[Mapping[str, Any]], parts: dict, by_network: dict) -> None:
    """The order quantities are the summary's: any difference in the split is shown as network "unassigned"
    (never silently lost)."""
    want_q = {(ln["category"], ln["sku"]): ln["quantity"] for ln in summary_bom}
    assigned: Counter = Counter()
    for c in by_network.values():
        assigned.update(c)
    for key in parts:
        diff = want_q[key] - assigned.get(key, 0)
        if diff:
            by_network["unassigned"][key] += diff


def order_lines(
    summary_lines: Iterable[Mapping[str, Any]],
    *,
    prices: Mapping[str, Decimal] | None = None,
    rule: SparesRule | None = None,
) -> tuple[list[tuple], dict, dict]:
    """The order, one (category, sku, quantity, spares, order quantity, watts, unit price, extended price)
    per summary BOM line in the given order, with its totals and the spares % used per category.

    The one place that prices a BOM (bom.pdf, bom.csv and the API's /bom/): spares are whole parts rounded
    up per line; each extended price is rounded half-up to the cent, and the total is the sum of those.
    """
    prices = prices or {}
    rule = rule if rule is not None else PercentPerCategory({})
    order = []
    tot_qty = tot_sp = 0
    tot_w = Decimal(0)
    tot_price = Decimal(0)
    priced_all = True
    spares_pct = {}
    for line in summary_lines:
        cat, sku, qty = line["category"], line["sku"], line["quantity"]
        # the flat percent a category's spares follow (0 under the failure-rate rule, whose spares say their inputs)
        spares_pct[cat] = rule.percent_for(cat) if isinstance(rule, PercentPerCategory) else Decimal(0)
        spares = rule.spares(category=cat, part=sku, quantity=qty).count
        oq = qty + spares
        watts = line.get("watts")
        unit = prices.get(sku)
        ext = None if unit is None else to_cents(unit * oq)
        if ext is None:
            priced_all = False
        else:
            tot_price += ext
        order.append((cat, sku, qty, spares, oq, watts, unit, ext))
        tot_qty += qty
        tot_sp += spares
        if watts is not None:
            tot_w += Decimal(str(watts))
    totals = {
        "quantity": tot_qty,
        "spares": tot_sp,
        "order_quantity": tot_qty + tot_sp,
        "watts": float(tot_w),
        "price": tot_price if prices else None,
        "priced_all": priced_all,
        "lines_without_watts": sum(1 for o in order if o[5] is None),
        "lines_without_price": sum(1 for o in order if o[6] is None),
    }
    return order, totals, spares_pct
