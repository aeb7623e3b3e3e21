"""The blast-radius endpoint: per kind of single failure the GPUs hit, for users who may read the design."""

from __future__ import annotations

from apps.designs.services import design_share
from tests.apps.api.conftest import compute_now, error_of, rev_url


def test_it_reports_each_kind_of_failure_from_the_stored_plan(alice, computed):
    """32 DGX H100 (one SU, 2 tiers): a leaf takes rail 1 of the SU's 32 servers off the fabric."""
    body = alice.get(rev_url(computed, 1, "blast-radius/")).json()
    assert (body["revision"], body["gpus"], body["planes"], body["tiers"]) == (1, 256, 1, 2)
    kinds = {f["kind"]: f for f in body["failures"]}
    assert list(kinds) == [
        "node-leaf-cable",
        "server-transceiver",
        "leaf-transceiver",
        "leaf",
        "leaf-spine-cable",
        "spine",
        "leaf-uplink-transceiver",
        "spine-transceiver",
        "rack",
    ]
    # the spines share one rack: its failure isolates every GPU (direct cords: no trunk or panel)
    assert (kinds["rack"]["example"], kinds["rack"]["gpus_isolated"]) == ("DC1.A01", 256)
    leaf = kinds["leaf"]
    assert (leaf["gpus_affected"], leaf["gpus_losing_port"], leaf["jobs"], leaf["example"]) == (
        32,
        32,
        "abort",
        "CF-SU01-L01",
    )
    assert leaf["groups"][0]["ports"] == ["OSFP1P1"] and leaf["groups"][0]["servers"] == 32
    assert kinds["spine"]["jobs"] == "degraded" and kinds["spine"]["groups"][0]["scope"] == "beyond-leaf"


def test_a_twin_plane_design_has_a_plane_failure_that_halves_bandwidth(alice, design, users):
    from apps.designs.services import design_update

    design_update(
        design=design,
        spec={
            "name": "B300 twin plane",
            "servers": {"model": "dgx-b300", "count": 64},
            "compute_fabric": {"technology": "ethernet", "switch": "sn5600", "planes": 2, "scalable_unit": 64},
        },
    )
    n = compute_now(design, users.alice)
    kinds = {f["kind"]: f for f in alice.get(rev_url(design, n, "blast-radius/")).json()["failures"]}
    assert kinds["plane"]["jobs"] == "degraded" and kinds["plane"]["groups"][0]["share_lost"] == 0.5
    assert kinds["leaf"]["gpus_losing_port"] == 0 and "half bandwidth" in kinds["leaf"]["verdict"]


def test_only_users_who_may_read_the_design_see_it(bob, anon, computed, users):
    assert error_of(bob.get(rev_url(computed, 1, "blast-radius/")))["code"] == "not_found"
    assert anon.get(rev_url(computed, 1, "blast-radius/")).status_code in (401, 403)
    design_share(design=computed, user=users.bob, access="read")
    assert bob.get(rev_url(computed, 1, "blast-radius/")).status_code == 200
    assert bob.get(rev_url(computed, 9, "blast-radius/")).status_code == 404
