"""The QoS policy of a design (GET / PUT /designs/{id}/qos/) and a revision's configuration files
(GET /revisions/{n}/configs/ and /configs/{name}).

GIVEN alice's RoCE design (8 generic 8-GPU servers on SN5600), bob shared read or not at all, anonymous
WHEN they read or replace the policy, list and fetch the files
THEN the policy is the engine's (defaults filled), bad input is a 400 naming the field, files match
     configs.zip, and access follows the designs' rules (404 for what you may not see, 401 signed out).
"""

from __future__ import annotations

import io
import json
import zipfile

import pytest

from apps.designs.adapters import spec_hash
from apps.designs.models import Design, Revision
from apps.designs.services import design_create, design_share
from engine.qos.policy import QosPolicy
from tests.apps.api.conftest import compute_now, error_of, rev_url, token_client

ROCE = {
    "name": "Tiny RoCE",
    "servers": {"model": "hgx-8gpu", "count": 8},
    "compute_fabric": {"technology": "ethernet", "switch": "sn5600"},
}


@pytest.fixture
def roce(users):
    return design_create(user=users.alice, spec=ROCE)


@pytest.fixture
def roce_computed(roce, users):
    compute_now(roce, users.alice)
    return roce


def qos_url(design) -> str:
    return f"/api/v1/designs/{design.pk}/qos/"


# --- the policy ----------------------------------------------------------------------------------


def test_get_answers_the_effective_policy_with_defaults_filled(alice, roce):
    body = alice.get(qos_url(roce)).json()

    assert body["technology"] == "ethernet" and body["stored"] is None and body["errors"] == []
    assert body["policy"] == QosPolicy.defaults("ethernet").to_dict()
    assert body["policy"]["roce"] == {"dscp": [26], "priority": 3, "scheduling": "dwrr", "weight": 50}
    assert body["url"].endswith(qos_url(roce))


def test_put_replaces_the_policy_and_stores_only_what_differs(alice, roce):
    r = alice.put(qos_url(roce), {"policy": {"mode": "pfc-only", "roce": {"dscp": 24}}}, format="json")

    assert r.status_code == 200
    body = r.json()
    assert body["stored"] == {"mode": "pfc-only", "roce": {"dscp": [24]}}
    assert body["policy"]["mode"] == "pfc-only" and body["policy"]["host"]["roce_dscp"] == 24
    roce.refresh_from_db()
    assert roce.spec["qos"] == body["stored"]
    assert alice.get(qos_url(roce)).json() == body


def test_what_get_answers_can_be_put_back_unchanged(alice, roce):
    alice.put(qos_url(roce), {"policy": {"ecn": {"min_bytes": 200000}}}, format="json")
    policy = alice.get(qos_url(roce)).json()["policy"]

    r = alice.put(qos_url(roce), {"policy": policy}, format="json")
    assert r.status_code == 200 and r.json()["stored"] == {"ecn": {"min_bytes": 200000}}


def test_null_resets_to_the_defaults(alice, roce):
    alice.put(qos_url(roce), {"policy": {"mode": "lossy"}}, format="json")
    body = alice.put(qos_url(roce), {"policy": None}, format="json").json()

    assert body["stored"] is None and body["policy"]["mode"] == "dcqcn"


@pytest.mark.parametrize(
    "policy, paths",
    [
        ({"roce": {"dscp": [26, 99]}}, ["qos.roce.dscp[1]"]),
        ({"mode": "fast", "ecn": {"min_bytes": "150000"}}, ["qos.mode", "qos.ecn.min_bytes"]),
        ({"cnp": {"dscp": [26]}}, ["qos.cnp.dscp"]),
        ({"bogus": 1}, ["qos.bogus"]),
        ({"technology": "infiniband"}, ["qos.technology"]),
        ({"infiniband": {"vlarb_low": {"99": 1}}}, ["qos.infiniband.vlarb_low.99"]),
    ],
)
def test_a_bad_policy_is_a_400_naming_each_field(alice, roce, policy, paths):
    r = alice.put(qos_url(roce), {"policy": policy}, format="json")
    err = error_of(r)

    assert r.status_code == 400 and err["code"] == "invalid_qos"
    assert [f["path"] for f in err["fields"]] == paths
    roce.refresh_from_db()
    assert roce.spec.get("qos") is None


@pytest.mark.parametrize(
    "body, path",
    [
        ({"policy": "dcqcn"}, "policy"),
        ({"policy": [1]}, "policy"),
        ({}, "policy"),
        ({"policy": {}, "mode": "lossy"}, "mode"),
    ],
)
def test_a_malformed_body_is_a_400_naming_the_field(alice, roce, body, path):
    r = alice.put(qos_url(roce), body, format="json")

    assert r.status_code == 400 and path in [f["path"] for f in error_of(r)["fields"]]


def test_a_stored_policy_that_does_not_parse_is_reported_not_hidden(alice, roce):
    Design.objects.filter(pk=roce.pk).update(spec={**roce.spec, "qos": {"roce": {"dscp": [99]}}})
    body = alice.get(qos_url(roce)).json()

    assert body["policy"] is None and body["stored"] == {"roce": {"dscp": [99]}}
    assert body["errors"][0]["path"] == "qos.roce.dscp[0]"


def test_a_reader_may_get_but_not_put(alice, bob, users, roce):
    design_share(design=roce, user=users.bob, access="read")

    assert bob.get(qos_url(roce)).status_code == 200
    assert bob.put(qos_url(roce), {"policy": {"mode": "lossy"}}, format="json").status_code == 404
    roce.refresh_from_db()
    assert roce.spec.get("qos") is None


def test_a_writer_may_put(bob, users, roce):
    design_share(design=roce, user=users.bob, access="write")

    assert bob.put(qos_url(roce), {"policy": {"mode": "lossy"}}, format="json").status_code == 200


def test_an_outsider_gets_404_and_anonymous_401(bob, anon, roce):
    assert bob.get(qos_url(roce)).status_code == 404
    assert bob.put(qos_url(roce), {"policy": None}, format="json").status_code == 404
    r = anon.get(qos_url(roce))
    assert r.status_code == 401 and error_of(r)["code"] == "not_authenticated"
    assert anon.put(qos_url(roce), {"policy": None}, format="json").status_code == 401


# --- the configuration files ---------------------------------------------------------------------


def test_the_list_names_every_file_with_its_switch_format_size_and_url(alice, roce_computed):
    r = alice.get(rev_url(roce_computed, tail="configs/"))
    body = r.json()
    files = {f["name"]: f for f in body["results"]}

    assert r.status_code == 200 and body["revision"] == 1 and body["mode"] == "dcqcn" and body["warnings"] >= 1
    leaf = files["CF-SU01-L01.nvue.txt"]
    assert leaf["kind"] == "switch" and leaf["switch"] == "CF-SU01-L01" and leaf["format"] == "nvue"
    assert leaf["path"] == "qos/switches/CF-SU01-L01.nvue.txt"
    assert leaf["url"].endswith(rev_url(roce_computed, tail="configs/CF-SU01-L01.nvue.txt"))
    assert sum(f["kind"] == "switch" for f in body["results"]) == 12
    assert files["roce-qos-connectx-7.sh"]["kind"] == "hosts"
    assert {"policy.json", "headroom.csv", "summary.json"} <= set(files)
    assert body["archive_url"].endswith(rev_url(roce_computed, tail="configs/configs.zip"))
    one = alice.get(leaf["url"])
    assert len(one.content) == leaf["size"] and one["Content-Type"] == leaf["content_type"]


def test_each_file_matches_the_archive(alice, roce_computed):
    archive = alice.get(rev_url(roce_computed, tail="configs/configs.zip"))
    zf = zipfile.ZipFile(io.BytesIO(b"".join(archive.streaming_content)))  # streamed from the artifact store

    assert archive["Content-Type"] == "application/zip"
    assert archive["Content-Disposition"] == 'attachment; filename="tiny-roce-r1-configs.zip"'
    for f in alice.get(rev_url(roce_computed, tail="configs/")).json()["results"]:
        assert alice.get(f["url"]).content == zf.read(f"configs/{f['path']}"), f["name"]
    sonic = alice.get(rev_url(roce_computed, tail="configs/policy.json"))
    assert sonic["Content-Disposition"] == 'attachment; filename="policy.json"'
    assert json.loads(sonic.content)["technology"] == "ethernet"


def test_an_unknown_file_is_a_404(alice, roce_computed):
    r = alice.get(rev_url(roce_computed, tail="configs/nope.txt"))
    assert r.status_code == 404 and error_of(r)["code"] == "not_found"


def test_files_of_an_infiniband_design_are_the_subnet_manager_settings(alice, computed):
    names = {f["name"]: f for f in alice.get(rev_url(computed, tail="configs/")).json()["results"]}

    assert names["compute.opensm.conf"]["kind"] == "subnet-manager" and names["compute.opensm.conf"]["switch"] is None
    assert not any(f["kind"] == "switch" for f in names.values())


def test_a_revision_whose_policy_does_not_parse_is_a_409_naming_the_field(alice, users, roce):
    """Only a revision stored before parse_spec checked the policy (and before snapshots) can hold one that does
    not parse: its snapshot backfill cannot recompute it, so it shows its stored rows only and says why."""
    from apps.designs.models import RevisionSnapshot
    from apps.designs.snapshots import snapshot_backfill_all

    compute_now(roce, users.alice)
    rev = roce.revisions.get(number=1)
    legacy = {**rev.spec, "qos": {"roce": {"dscp": [99]}}}
    Revision.objects.filter(pk=rev.pk).update(
        spec=legacy, spec_hash=spec_hash(json.dumps(legacy, sort_keys=True, separators=(",", ":")))
    )
    RevisionSnapshot.objects.filter(revision=rev).delete()
    assert snapshot_backfill_all() == {"complete": 0, "rows-only": 1}
    for tail in ("configs/", "configs/policy.json"):
        r = alice.get(rev_url(roce, tail=tail))
        err = error_of(r)
        assert r.status_code == 409 and err["code"] == "revision_not_reproducible"
        assert "not reproducible with catalog" in err["message"] and "qos.roce.dscp[0]" in err["message"]


def test_a_reader_may_list_and_fetch_others_get_404_and_anonymous_401(alice, bob, anon, users, roce_computed):
    charlie = token_client(users.charlie)
    design_share(design=roce_computed, user=users.bob, access="read")

    assert bob.get(rev_url(roce_computed, tail="configs/")).status_code == 200
    assert bob.get(rev_url(roce_computed, tail="configs/CF-S01.nvue.txt")).status_code == 200
    assert charlie.get(rev_url(roce_computed, tail="configs/")).status_code == 404
    assert charlie.get(rev_url(roce_computed, tail="configs/CF-S01.nvue.txt")).status_code == 404
    assert anon.get(rev_url(roce_computed, tail="configs/")).status_code == 401
    assert anon.get(rev_url(roce_computed, tail="configs/CF-S01.nvue.txt")).status_code == 401
