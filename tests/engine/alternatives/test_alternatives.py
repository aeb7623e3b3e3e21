"""Design alternatives (engine/alternatives): the choices enumerated, refusals with reasons, duplicates
collapsed, and the Pareto front of a small study checked by hand."""

from __future__ import annotations

from decimal import Decimal

import pytest

from engine.alternatives.candidates import enumerate_candidates
from engine.alternatives.pareto import pareto_front
from engine.alternatives.requirement import parse_requirement
from engine.alternatives.study import run_study
from engine.catalog import load_catalog
from engine.errors import SpecError
from engine.spec import parse_spec


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def _req(catalog, **data):
    gpus = {k: s.gpus for k, s in catalog.servers.items()}
    prices = data.pop("prices", None)
    return parse_requirement({"server_model": "dgx-h100", **data}, gpus_per_server=gpus, prices=prices)


def test_gpus_round_up_to_whole_servers_and_bad_fields_are_named(catalog):
    assert _req(catalog, gpus=250).servers == 32
    with pytest.raises(SpecError) as exc:
        _req(catalog, gpus=256, servers=32, technology="token-ring", max_oversubscription={"compute": "1:2"})
    paths = {e.path for e in exc.value.errors}
    assert paths == {"servers", "technology", "max_oversubscription.compute"}
    with pytest.raises(SpecError) as exc:
        _req(catalog, gpus=256, budget="1000000")
    assert [e.path for e in exc.value.errors] == ["budget"]
    with pytest.raises(SpecError) as exc:  # a 512-GPU job on 256 GPUs: said once, not by every candidate
        _req(catalog, gpus=256, workloads=["llama-70b-tp8-pp4-dp16"])
    assert [e.path for e in exc.value.errors] == ["workloads[0].parallelism.data"]


def test_candidates_are_valid_specs_within_the_requirement(catalog):
    req = _req(catalog, gpus=256, technology="infiniband", max_oversubscription={"compute": "3:2"})
    kept, _ = enumerate_candidates(req, catalog)
    switches = {c.choice.switch for c in kept}
    assert switches == {"qm9700", "qm9790", "q3400"}  # InfiniBand only; no management switch
    assert {c.choice.ratio for c in kept} == {"1:1", "3:2"}  # never past the 3:2 asked for
    for c in kept:
        again = parse_spec(c.spec_data)  # the one spec schema: what a user could have typed
        assert again.normalized == c.spec.normalized
        assert again.servers.count == 32
    # the fabric-shaping choices come first, so a capped study spans switch models and shapes
    assert all(c.choice.cabling == "direct" and c.choice.media == "auto" for c in kept[:10])


def test_infeasible_choices_are_dropped_with_the_checks_reason(catalog):
    req = _req(catalog, gpus=256, technology="infiniband")
    _, rejected = enumerate_candidates(req, catalog)
    q3400_two_planes = [r for r in rejected if r.choice.switch == "q3400" and r.choice.planes == 2]
    assert q3400_two_planes
    assert all("q3400 has no 200 Gb/s ports" in r.reason for r in q3400_two_planes)


def test_the_same_fabric_asked_two_ways_is_one_candidate(catalog):
    # 16K DGX H100 on 64-port NDR switches needs 3 tiers, so "3 tiers" is what "auto" already builds.
    req = _req(catalog, gpus=16384, technology="infiniband")
    kept, rejected = enumerate_candidates(req, catalog)
    labels = {c.choice.label for c in kept}
    assert "qm9700 · 1:1 · 1 plane · auto tiers · direct · media auto" in labels
    assert "qm9700 · 1:1 · 1 plane · 3 tiers · direct · media auto" not in labels
    dup = next(r for r in rejected if r.choice.label == "qm9700 · 1:1 · 1 plane · 3 tiers · direct · media auto")
    assert dup.same_as == "qm9700 · 1:1 · 1 plane · auto tiers · direct · media auto"
    assert len({c.plan_key for c in kept}) == len(kept)


def test_pareto_front_basic():
    pts = [(1, 5), (2, 2), (3, 5), (1, 5)]
    assert pareto_front(pts, lambda p: p) == [True, True, False, True]
    # a missing objective (an unpriced BOM) leaves the front to the objectives every point has
    assert pareto_front([(None, 3), (None, 1)], lambda p: p) == [False, True]


# Test prices (not market figures): a switch 30,000, a transceiver 1,000, a fibre cable 100.
PRICES = {
    "MQM9700-NS2F": Decimal("30000"),
    "MMA4Z00-NS": Decimal("1000"),
    "MMA4Z00-NS-FLT": Decimal("1000"),
    "MFP7E10-N007": Decimal("100"),
    "MFP7E10-N010": Decimal("100"),
    "MFP7E10-N015": Decimal("100"),
}


def test_pareto_front_of_256_gpus_checked_by_hand(catalog):
    """256 DGX H100 GPUs on QM9700, 1:1, the first three candidates, judged on cost and worst blast radius:

    candidate                      switches  transceivers  cables  cost       worst failure (GPUs cut off)
    A 1 plane, 2 tiers (auto)      12        512           512     923,200    a leaf: 32
    B 1 plane, 3 tiers             24        768           768     1,564,800  a leaf: 32
    C 2 planes, 2 tiers (auto)     24        512           512     1,283,200  a twin-port transceiver: 2

        blast
        radius
         32 |  A ........ B      B costs more than A for the same blast radius: dominated
            |
          2 |        C           C buys a 16x smaller blast radius for 360,000 more: on the front
            +---------------------- cost
    """
    req = _req(catalog, gpus=256, technology="infiniband", max_candidates=3, objectives=["cost", "blast_radius"])
    req = type(req)(**{**req.__dict__, "prices": tuple(sorted(PRICES.items()))})
    rows, _ = run_study(req, catalog)
    got = [(r.label, r.figures["cost"], r.figures["blast_radius_gpus"], r.pareto) for r in rows]
    assert got == [
        ("qm9700 · 1:1 · 1 plane · auto tiers · direct · media auto", "923200.00", 32, True),
        ("qm9700 · 1:1 · 1 plane · 3 tiers · direct · media auto", "1564800.00", 32, False),
        ("qm9700 · 1:1 · 2 planes · auto tiers · direct · media auto", "1283200.00", 2, True),
    ]


def test_a_budget_drops_what_it_cannot_afford_with_the_reason(catalog):
    req = _req(catalog, gpus=256, technology="infiniband", max_candidates=2, prices=PRICES, budget="1000000")
    rows, rejected = run_study(req, catalog)
    assert "qm9700 · 1:1 · 1 plane · 3 tiers · direct · media auto" not in {r.label for r in rows}
    why = {r.choice.label: r.reason for r in rejected}
    assert why["qm9700 · 1:1 · 1 plane · 3 tiers · direct · media auto"] == (
        "costs 1564800.00, over the budget of 1000000.00"
    )
