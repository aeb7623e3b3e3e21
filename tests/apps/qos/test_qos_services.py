"""Saving a QoS policy: the engine validates it, the spec keeps only what differs from the defaults, and
what follows the classes keeps following them."""

from __future__ import annotations

import pytest

from apps.designs.services import design_create
from apps.qos.selectors import design_qos
from apps.qos.services import design_qos_update, qos_parse, qos_sparse
from engine.errors import SpecError
from engine.qos.policy import QosPolicy

ROCE = {
    "name": "r",
    "servers": {"model": "hgx-8gpu", "count": 8},
    "compute_fabric": {"technology": "ethernet", "switch": "sn5600"},
}


@pytest.mark.parametrize(
    "data",
    [
        None,
        {"mode": "pfc-only"},
        {"roce": {"dscp": [24, 26], "priority": 4}, "cnp": {"scheduling": "dwrr", "weight": 10}},
        {"mode": "lossy", "ecn": {"min_bytes": 200_000, "classes": ["roce"]}, "mtu": {"host": 4500}},
        {"pfc": {"priorities": [3, 4]}, "host": {"roce_dscp": 24, "trust": "pcp"}},
        {"dcqcn": {"rpg_gd": 9, "prio_mask": 8}, "headroom": {"d_intf_bits": {"400": 500_000}}},
        {"infiniband": {"sl2vl": [0] * 16, "vlarb_low": {"0": 32}}, "sonic": {"replace_stock_map": False}},
    ],
)
@pytest.mark.parametrize("technology", ["ethernet", "infiniband"])
def test_the_sparse_value_parses_back_to_the_same_policy(data, technology):
    policy = QosPolicy.from_dict(data, technology)
    sparse = qos_sparse(policy)

    assert QosPolicy.from_dict(sparse, technology) == policy
    assert sparse is None or "technology" not in sparse


def test_the_full_policy_as_get_answers_it_is_stored_as_nothing():
    full = QosPolicy.defaults("ethernet").to_dict()  # with "technology", as the API answers it

    assert qos_sparse(qos_parse(full, "ethernet")) is None


def test_a_value_equal_to_what_follows_the_classes_is_left_out():
    # pfc.priorities [4] and host.pfc_priorities [4] are what a RoCE priority of 4 implies.
    data = {"roce": {"priority": 4}, "pfc": {"priorities": [4]}, "host": {"pfc_priorities": [4], "roce_dscp": 26}}

    assert qos_sparse(QosPolicy.from_dict(data, "ethernet")) == {"roce": {"priority": 4}}


def test_another_technology_is_refused_with_its_path():
    with pytest.raises(SpecError) as exc:
        qos_parse({"technology": "infiniband"}, "ethernet")
    assert exc.value.errors[0].path == "qos.technology"


def test_design_qos_update_stores_the_sparse_policy_and_none_resets(users):
    design = design_create(user=users.alice, spec=ROCE)
    design_qos_update(design=design, policy={"mode": "pfc-only", "ecn": {"max_bytes": 1_500_000}})
    design.refresh_from_db()
    assert design.spec["qos"] == {"mode": "pfc-only"}

    with pytest.raises(SpecError) as exc:
        design_qos_update(design=design, policy={"roce": {"dscp": []}})
    assert [e.path for e in exc.value.errors] == ["qos.roce.dscp"]
    design.refresh_from_db()
    assert design.spec["qos"] == {"mode": "pfc-only"}

    design_qos_update(design=design, policy=None)
    design.refresh_from_db()
    assert design.spec["qos"] is None and design_qos(design=design).policy == QosPolicy.defaults("ethernet")
