from __future__ import annotations

import pytest

from engine.errors import SpecError
from engine.qos import QosPolicy


def paths(data) -> list[str]:
    with pytest.raises(SpecError) as e:
        QosPolicy.from_dict(data, "ethernet")
    return [err.path for err in e.value.errors]


def test_defaults_follow_the_reference():
    p = QosPolicy.defaults("ethernet")
    assert (p.mode, p.roce.dscp, p.roce.priority, p.cnp.dscp, p.cnp.priority) == ("dcqcn", (26,), 3, (48,), 6)
    assert p.cnp.scheduling == "strict" and p.roce.weight == 50 and p.default.weight == 50
    assert (p.ecn.min_bytes, p.ecn.max_bytes, p.ecn.probability) == (150_000, 1_500_000, 100)
    assert p.pfc_priorities == (3,) and p.host.roce_tos == 106
    table = p.dscp_to_priority()
    assert table[26] == 3 and table[48] == 6 and table[24] == 0 and len(table) == 64
    assert QosPolicy.from_dict(None, "ethernet") == p


def test_round_trip():
    p = QosPolicy.from_dict(
        {
            "mode": "pfc-only",
            "roce": {"dscp": [24, 26]},
            "infiniband": {"sharp": "off"},
            "dcqcn": {"rpg_time_reset": 100},
        },
        "ethernet",
    )
    d = p.to_dict()
    d.pop("technology")
    assert QosPolicy.from_dict(d, "ethernet") == p
    assert dict(p.dcqcn.rp)["rpg_time_reset"] == 100 and p.host.roce_dscp == 24


def test_modes():
    assert QosPolicy.from_dict({"mode": "lossy"}, "ethernet").pfc_priorities == ()
    pfc_only = QosPolicy.from_dict({"mode": "pfc-only"}, "ethernet")
    assert pfc_only.pfc_priorities == (3,) and not pfc_only.ecn_enabled and not pfc_only.dcqcn_enabled
    assert paths({"mode": "fast"}) == ["qos.mode"]


def test_priority_change_moves_pfc_and_hosts():
    p = QosPolicy.from_dict({"roce": {"priority": 4}}, "ethernet")
    assert p.pfc_priorities == (4,) and p.host.pfc_priorities == (4,)


def test_field_paths():
    assert paths({"roce": {"dscp": 64}}) == ["qos.roce.dscp[0]"]
    assert paths({"roce": {"dscp": "26"}}) == ["qos.roce.dscp"]
    assert paths({"cnp": {"dscp": [26]}}) == ["qos.cnp.dscp"]  # already in the roce class
    assert paths({"roce": {"dscp": []}}) == ["qos.roce.dscp"]
    assert paths({"default": {"dscp": [1]}}) == ["qos.default.dscp"]
    assert paths({"roce": {"weight": 0}}) == ["qos.roce.weight"]
    assert paths({"ecn": {"min_bytes": -1, "probability": 101}}) == ["qos.ecn.min_bytes", "qos.ecn.probability"]
    assert paths({"pfc": {"priorities": [3, 8]}}) == ["qos.pfc.priorities[1]"]
    assert paths({"colour": 1}) == ["qos.colour"]
    assert paths({"infiniband": {"sl2vl": [0]}}) == ["qos.infiniband.sl2vl"]
    assert paths({"host": {"roce_dscp": True}}) == ["qos.host.roce_dscp"]
    assert paths([1]) == ["qos"]
    with pytest.raises(SpecError):
        QosPolicy.defaults("token-ring")
