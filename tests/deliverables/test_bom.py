"""The BOM's split by network and SU (engine.orders.bom.compute_bom, from the engine's physical.bom_split)
equals a plain recount from result.links and the cable rows, on a small design with panels and a medium one."""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest

from .conftest import OPTIONS

LINK_SCALE = ("switch", "appliance", "panel", "panel-insert")  # categories not counted per link or cable


def recount(result):
    """The per-network and per-SU quantities of transceivers and cables, counted link by link and
    cable row by cable row: one module per cage end (device, cage) in the network of its links,
    cables in the SU of their A-end device."""
    ph = result.physical
    su_of = [d.su for d in result.devices]
    category = {line["sku"]: line["category"] for line in result.summary["bom"]}
    by_network: dict = defaultdict(Counter)
    by_su: dict = defaultdict(Counter)
    cages = set()
    for link, choice in zip(result.links, ph.choices):
        if choice is None:
            continue
        if choice.a_module:
            cages.add((choice.a_module, link.a, link.a_cage, link.network))
        if choice.b_module:
            cages.add((choice.b_module, link.b, link.b_cage, link.network))
    for module, dev, _cage, net in cages:
        by_network[net][("transceiver", module)] += 1
        if su_of[dev]:
            by_su[su_of[dev]][("transceiver", module)] += 1
    lengths: dict = {}
    for _cid, _kind, part, length, a, _b, _lids, _tier, net in ph.cable_rows:
        key = (category.get(part, "cable"), part)
        by_network[net][key] += 1
        if a[0] != "panel" and su_of[a[0]]:
            by_su[su_of[a[0]]][key] += 1
        lengths.setdefault(part, length)
    return by_network, by_su, lengths


def _link_scale(split: dict) -> dict:
    out = {}
    for scope, counts in split.items():
        kept = {k: n for k, n in counts.items() if k[0] not in LINK_SCALE and n}
        if kept:
            out[scope] = kept
    return out


@pytest.mark.parametrize("which", ["design", "direct_design"])
def test_bom_split_by_network_and_su_equals_a_recount_from_the_links(which, request):
    from deliverables.bom import bom_of

    result = request.getfixturevalue(which)
    bom = bom_of(result, OPTIONS)
    by_network, by_su, lengths = recount(result)
    assert _link_scale(bom.by_network) == _link_scale(by_network)
    assert _link_scale(bom.by_su) == _link_scale(by_su)
    assert "unassigned" not in bom.by_network
    for (cat, sku), part in bom.parts.items():
        if cat not in LINK_SCALE and cat != "transceiver":
            assert part.length_m == lengths[sku]
    # every SU of the design is there, with its servers
    assert set(bom.by_su) == {d.su for d in result.devices if d.su}
    assert bom.su_servers == Counter(d.su for d in result.devices if d.su and d.role == "server")


def test_bom_split_adds_up_to_the_order_quantities(direct_design):
    from deliverables.bom import bom_of

    bom = bom_of(direct_design, OPTIONS)
    per_part = Counter()
    for counts in bom.by_network.values():
        per_part.update(counts)
    assert {(o[0], o[1]): o[2] for o in bom.order} == dict(per_part)
