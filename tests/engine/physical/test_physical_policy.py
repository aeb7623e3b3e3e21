"""MediaPolicy: defaults with sources, dict round trip, errors with key paths."""

import pytest

from engine.physical import MediaPolicy


def test_defaults_follow_nvidia_and_the_reference():
    p = MediaPolicy()
    assert p.loss.count_interfaces is True and p.loss.marginal_threshold_db == 0.5
    assert p.loss.pair_loss_db("mpo") == 0.35 and p.loss.pair_loss_db("lc") == 0.25
    assert p.loss.attenuation("os2") == 0.4 and p.loss.attenuation("om4") == 3.0
    assert p.tier("anything").medium == "auto" and p.tier("anything").cabling == "direct"


def test_it_round_trips_through_a_dict():
    d = {
        "tiers": {"leaf-spine": {"medium": "single-mode", "cabling": "panels", "trunk_base": 12}},
        "reach_limits_m": {"dac": 1.5},
        "trunk_spare_fraction": 0.25,
        "loss": {"connector_grade": {"mpo": "standard"}, "splices_per_channel": 2},
        "labels": {"end": "<grid>-<ru>:<port>", "own_end_first": False},
    }
    p = MediaPolicy.from_dict(d)
    assert MediaPolicy.from_dict(p.to_dict()) == p
    assert p.tier("leaf-spine").trunk_base == 12 and p.reach_limit("dac") == 1.5
    assert p.loss.pair_loss_db("mpo") == 0.75
    hash(p)


@pytest.mark.parametrize(
    "d, message",
    [
        ({"tiers": {"leaf-spine": {"medium": "laser"}}}, "physical.tiers.leaf-spine.medium: must be one of"),
        ({"tiers": {"leaf-spine": {"cabling": "wireless"}}}, "physical.tiers.leaf-spine.cabling: must be one of"),
        ({"tiers": {"leaf-spine": {"trunk_base": 10}}}, "physical.tiers.leaf-spine.trunk_base: must be one of"),
        ({"reach_limits_m": {"dac": -1}}, "physical.reach_limits_m.dac: must be > 0"),
        ({"reach_limits_m": {"laser": 3}}, "physical.reach_limits_m.laser: unknown medium"),
        ({"loss": {"connector_grade": {"mpo": "gold"}}}, "physical.loss.connector_grade.mpo: must be one of"),
        ({"loss": {"marginal_threshold_db": "half"}}, "physical.loss.marginal_threshold_db: must be a number"),
        (
            {"loss": {"attenuation_db_per_km": {"os9": 1}}},
            "physical.loss.attenuation_db_per_km.os9: unknown fiber type",
        ),
        ({"labels": {"end": "<site>-<shelf>"}}, "physical.labels.end: unknown placeholder <shelf>"),
        ({"trunk_spare": 0.1}, "physical.trunk_spare: unknown key"),
    ],
)
def test_bad_values_name_the_offending_key_path(d, message):
    with pytest.raises(ValueError) as exc:
        MediaPolicy.from_dict(d)
    assert str(exc.value).startswith(message)
