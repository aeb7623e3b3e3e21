"""Loss budgets: hand calculations to 0.01 dB, status thresholds, component compliance."""

from dataclasses import replace

import pytest

from engine.errors import EngineInvariantError
from engine.physical import MediaPolicy, build_channel, loss_budget, select_media
from tests.engine.physical.builders import DGX_CAGE, QM9700_CAGE, req


def panels_policy(**loss):
    return MediaPolicy.from_dict({"tiers": {"leaf-spine": {"cabling": "panels"}}, "loss": loss})


def dr4_budget(catalog, run, length=None, **loss):
    pol = panels_policy(**loss)
    choice = select_media(req(QM9700_CAGE, QM9700_CAGE, run), pol, catalog)
    assert choice.pmd == "400gbase-dr4"
    ch = build_channel(choice, True, pol)
    return loss_budget(ch, run if length is None else length, catalog.pmds[choice.pmd], pol)


def test_the_worked_example_matches_the_hand_calculation(catalog):
    """
    [DR4]-cord-|panel|=100 m OS2 trunk=|panel|-cord-[DR4]
    0.1 km x 0.4 dB/km + 2 x 0.35 dB = 0.74 dB; + 2 interfaces x 0.35 = 1.44 dB; limit 3.0 dB.
    """
    without = dr4_budget(catalog, 100, count_interfaces=False)
    assert without.loss_db == pytest.approx(0.74, abs=0.01)
    with_if = dr4_budget(catalog, 100)
    assert with_if.loss_db == pytest.approx(1.44, abs=0.01)
    assert with_if.limit_db == 3.0
    assert with_if.margin_db == pytest.approx(1.56, abs=0.01)
    assert with_if.status == "pass"
    assert with_if.component_issues == ()
    labels = [t[0] for t in with_if.terms]
    assert labels[0] == "fiber 100 m OS2 x 0.4 dB/km"
    assert sum(1 for lab in labels if "interface" in lab) == 2
    assert sum(1 for lab in labels if lab.startswith("panel-")) == 2
    assert sum(db for _, db in with_if.terms) == pytest.approx(with_if.loss_db, abs=1e-6)


def test_500m_through_standard_grade_mpo_panels_is_flagged(catalog):
    """
    500 m OS2 through two panels of standard-grade (0.75 dB) MPO:
    with interfaces 0.2 + 4 x 0.75 = 3.20 dB > 3.0 dB -> fail; without 0.2 + 2 x 0.75 = 1.70 dB.
    The component check flags the grade either way (NVIDIA: MPO at most 0.35 dB [S9]).
    """
    with_if = dr4_budget(catalog, 500, connector_grade={"mpo": "standard"})
    assert with_if.loss_db == pytest.approx(3.20, abs=0.01)
    assert with_if.margin_db == pytest.approx(-0.20, abs=0.01)
    assert with_if.status == "fail"
    assert "connector-grade" in {i.rule for i in with_if.component_issues}
    without = dr4_budget(catalog, 500, connector_grade={"mpo": "standard"}, count_interfaces=False)
    assert without.loss_db == pytest.approx(1.70, abs=0.01)
    assert without.status == "pass"
    assert "connector-grade" in {i.rule for i in without.component_issues}


def test_nvidia_worst_case_single_mode_channel_is_1_6_db(catalog):
    """Reference A2 (derived): 4 x 0.35 + 0.5 km x 0.4 = 1.6 dB."""
    b = dr4_budget(catalog, 500)
    assert b.loss_db == pytest.approx(1.6, abs=0.01)
    assert b.status == "pass" and b.component_issues == ()


def test_nvidia_worst_case_multimode_channel_is_marginal_against_sr4(catalog):
    """50 m OM4 through two panels: 4 x 0.35 + 0.05 x 3.0 = 1.55 dB vs SR4's 1.9 dB:
    margin 0.35 dB is below the 0.5 dB threshold."""
    pol = MediaPolicy.from_dict({"tiers": {"node-leaf": {"cabling": "panels"}}})
    choice = select_media(req(DGX_CAGE, QM9700_CAGE, 50, tier="node-leaf"), pol, catalog)
    assert choice.medium == "fiber-mm" and choice.fiber_type == "om4"
    b = loss_budget(build_channel(choice, True, pol), 50, choice.pmd_spec, pol)
    assert b.loss_db == pytest.approx(1.55, abs=0.01)
    assert b.margin_db == pytest.approx(0.35, abs=0.01)
    assert b.status == "marginal"


def test_marginal_threshold_is_user_set(catalog):
    assert dr4_budget(catalog, 500, marginal_threshold_db=1.5).status == "marginal"  # margin 1.4
    assert dr4_budget(catalog, 500, marginal_threshold_db=1.0).status == "pass"


def test_splices_add_to_the_budget(catalog):
    b = dr4_budget(catalog, 100, splices_per_channel=2)
    assert b.loss_db == pytest.approx(1.44 + 0.6, abs=0.01)


def test_ieee_attenuation_can_be_set_conservatively(catalog):
    b = dr4_budget(catalog, 500, attenuation_db_per_km={"os2": 0.5})
    assert b.loss_db == pytest.approx(0.25 + 1.4, abs=0.01)


def test_fr4_over_cassettes_counts_an_mpo_and_an_lc_pair_per_cassette(catalog):
    """
    [FR4]-LC-[cassette]=2 km trunk=[cassette]-LC-[FR4]
    0.8 (fiber) + 2 x 0.25 (LC interfaces) + 2 x (0.25 LC + 0.35 MPO) (cassettes) = 2.50 dB vs 4.0.
    NVIDIA assumes at most 4 mated pairs; this channel has 6, so it is flagged.
    """
    pol = MediaPolicy.from_dict({"tiers": {"leaf-spine": {"cabling": "panels", "trunk_base": 12}}})
    choice = select_media(req(QM9700_CAGE, QM9700_CAGE, 2000), pol, catalog)
    assert choice.pmd == "400gbase-fr4"
    b = loss_budget(build_channel(choice, True, pol), 2000, choice.pmd_spec, pol)
    assert b.loss_db == pytest.approx(2.50, abs=0.01)
    assert b.limit_db == 4.0 and b.status == "pass"
    assert {i.rule for i in b.component_issues} == {"mated-pairs"}
    combined = MediaPolicy.from_dict(
        {"tiers": {"leaf-spine": {"cabling": "panels", "trunk_base": 12}}, "loss": {"cassette_loss_db": 0.35}}
    )
    b2 = loss_budget(build_channel(choice, True, combined), 2000, choice.pmd_spec, combined)
    assert b2.loss_db == pytest.approx(0.8 + 0.5 + 0.7, abs=0.01)


def test_length_beyond_the_vendor_channel_limit_is_a_component_issue(catalog):
    b = dr4_budget(catalog, 400, length=600)
    assert "length" in {i.rule for i in b.component_issues}


def test_upc_parts_fail_the_nvidia_component_check(catalog):
    from dataclasses import replace

    from engine.physical import Face

    pol = panels_policy()
    choice = select_media(req(QM9700_CAGE, QM9700_CAGE, 100), pol, catalog)
    ch = build_channel(choice, True, pol)
    t = ch.elements[3]
    upc = Face(t.a.family, t.a.gender, "upc", t.a.mode)
    ch2 = replace(ch, elements=(*ch.elements[:3], replace(t, a=upc, b=upc, polarity="A"), *ch.elements[4:]))
    rules = {i.rule for i in loss_budget(ch2, 100, choice.pmd_spec, pol).component_issues}
    assert {"polish", "trunk-polarity"} <= rules


def test_copper_has_no_loss_budget(catalog):
    pol = MediaPolicy()
    choice = select_media(req(QM9700_CAGE, QM9700_CAGE, 1, aligned=True), pol, catalog)
    b = loss_budget(build_channel(choice, False, pol), 1, None, pol)
    assert b.status == "n/a"


def test_an_optical_channel_without_a_fiber_type_is_an_engine_bug_not_a_budget(catalog):
    pol = panels_policy()
    choice = select_media(req(QM9700_CAGE, QM9700_CAGE, 50), pol, catalog)
    channel = replace(build_channel(choice, True, pol), fiber_type=None)
    with pytest.raises(EngineInvariantError, match="without a fiber type"):
        loss_budget(channel, 50, choice.pmd_spec, pol)
