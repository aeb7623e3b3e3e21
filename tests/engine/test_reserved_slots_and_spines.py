"""Sizing honesty: a reserved slot that costs a whole SU warns, and spine counts that leave ports idle are explained.

128 DGX H100 in 32-node SUs with one node slot held for UFM (H100-RA 1-4 SU table, fabrics-qos-traffic.md A.2):

    slots = 128 + 1 = 129  ->  5 SUs (40 leaves, 32 spines)      127 servers -> 4 SUs (32 leaves, 16 spines)

The H100 storage fabric (A.8: DGX storage ports at about 4:3, appliances 1:1) on 64-port QM9700s:

    8 server leaves (36 down / 27 up) + 1 appliance leaf (32 / 32)
    even striping: the spine count divides 27 -> 1, 3, 9;  3 spines: 8 x 9 + 10 = 82 > 64  ->  9 spines, 27 ports used
    243 uplinks need only 4 x 64 ports
"""

from __future__ import annotations

import pytest

from engine.errors import SpecError
from tests.engine.conftest import build, compute_summary

RESERVED = {"reserved_node_slots": 1}


def _su_warnings(result) -> list[str]:
    return [w for w in result.warnings if w.startswith("compute_fabric.reserved_node_slots")]


def test_128_servers_and_a_reserved_slot_warn_about_the_fifth_su_and_name_the_alternative():
    r = build(compute_fabric=RESERVED)
    assert compute_summary(r)["scalable_units"] == 5
    (w,) = _su_warnings(r)
    assert "128 servers and 1 reserved node slot need 5 SUs of 32" in w
    assert "127 servers fit 4 SUs" in w and "or 128 without it" in w
    assert "+8 leaves, +16 spines, +256 leaf-spine links for 1 server" in w
    assert w in r.summary["warnings"]


def test_servers_that_fill_their_sus_with_the_reserved_slot_do_not_warn():
    assert _su_warnings(build(servers={"count": 127}, compute_fabric=RESERVED)) == []
    assert _su_warnings(build(servers={"count": 128})) == []  # no reserved slot: 4 SUs exactly


def test_the_alternative_the_warning_names_is_what_the_engine_builds():
    """+8 leaves and +16 spines are the difference between the two designs, not a guess."""
    five = compute_summary(build(compute_fabric=RESERVED))
    four = compute_summary(build(servers={"count": 127}, compute_fabric=RESERVED))
    assert five["switches"]["leaf"] - four["switches"]["leaf"] == 8
    assert five["switches"]["spine"] - four["switches"]["spine"] == 16
    assert five["links"]["leaf-spine"] - four["links"]["leaf-spine"] == 256


STORAGE = {"enabled": True, "switch": "qm9700", "appliances": 8}


def test_the_storage_spines_that_leave_most_ports_idle_are_explained_with_cheaper_choices():
    r = build(servers={"count": 127}, compute_fabric=RESERVED, storage_fabric=STORAGE)
    choice = r.summary["spine_choices"]["storage"]
    assert (choice["spines"], choice["ports_used_per_spine"], choice["spine_ports"]) == (9, 27, 64)
    assert choice["fewest_spines_for_the_uplinks"] == 4
    uneven, ratio = choice["options"]
    assert uneven == {
        "change": "uneven striping",
        "spines": 4,
        "leaf_ratio": "4:3",
        "worst_case_leaf_ratio": "3:2",
        "links_per_leaf_per_spine": "7 links to each of 3 spines and 6 to each of 1",
    }
    assert ratio == {
        "change": "leaf ratio",
        "spines": 4,
        "uplinks_per_leaf": 28,
        "leaf_ratio": "9:7",
        "ports_used_per_spine": 64,
    }
    assert any(n.startswith("storage fabric: 9 spines use 27 of 64 ports each") for n in r.summary["notes"])


def test_the_leaf_ratio_offered_builds_with_the_spines_it_promises():
    r = build(servers={"count": 127}, compute_fabric=RESERVED, storage_fabric={**STORAGE, "oversubscription": "9:7"})
    storage = r.summary["networks"]["storage"]
    assert storage["switches"]["spine"] == 4 and storage["oversubscription"]["leaf"] == "9:7"
    assert "storage" not in r.summary["spine_choices"]  # 4 spines are the fewest for its uplinks


def test_spines_the_ports_need_are_not_explained():
    """4 SU: 32 leaves x 32 uplinks = 1,024 = 16 spines x 64 ports: nothing idle, nothing to say."""
    r = build(servers={"count": 127}, compute_fabric=RESERVED)
    assert "compute" not in r.summary["spine_choices"]


def test_three_su_compute_spines_are_explained():
    """3 SU: 24 leaves x 32 uplinks = 768 fit 12 spines; even striping needs a divisor of 32 -> 16 (48 of 64 used)."""
    r = build(servers={"count": 95}, compute_fabric=RESERVED)
    choice = r.summary["spine_choices"]["compute"]
    assert (choice["spines"], choice["ports_used_per_spine"], choice["fewest_spines_for_the_uplinks"]) == (16, 48, 12)
    assert choice["options"][0]["worst_case_leaf_ratio"] == "4:3"  # 32 uplinks over 12 spines: 2 or 3 each, 24 at worst


@pytest.mark.parametrize("value", [0, -1, "many"])
def test_network_rack_devices_is_checked_at_its_field(value):
    with pytest.raises(SpecError, match=r"layout\.network_rack_devices"):
        build(layout={"network_rack_devices": value})
