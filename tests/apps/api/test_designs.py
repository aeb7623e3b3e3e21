"""Designs over the API: create from a spec or a preset, read, update, delete, share; the UI's permissions."""

from __future__ import annotations

import pytest

from apps.designs.models import Design
from apps.designs.services import design_share
from tests.apps.api.conftest import SMALL_SPEC, error_of


def test_it_creates_a_design_from_a_spec(alice, users):
    response = alice.post("/api/v1/designs/", {"spec": SMALL_SPEC}, format="json")
    assert response.status_code == 201
    body = response.json()
    assert response["Location"] == body["url"]
    assert body["name"] == "Small H100 fabric" and body["owner"] == "alice" and body["access"] == "owner"
    assert body["latest_revision"] is None
    assert body["spec"]["compute_fabric"]["switch"] == "qm9700"
    assert body["spec"]["layout"]["rack_units"] == 48  # normalized: defaults filled in
    assert Design.objects.get(pk=body["id"]).owner == users.alice


def test_it_creates_a_design_from_a_preset_with_a_new_name(alice):
    response = alice.post("/api/v1/designs/", {"preset": "hgx-roce-2su", "name": "Lab"}, format="json")
    assert response.status_code == 201
    assert response.json()["name"] == "Lab" and response.json()["preset"] == "hgx-roce-2su"


def test_a_name_overrides_the_specs_name(alice):
    response = alice.post("/api/v1/designs/", {"spec": SMALL_SPEC, "name": "Renamed"}, format="json")
    assert response.json()["name"] == "Renamed" and response.json()["spec"]["name"] == "Renamed"


@pytest.mark.parametrize(
    "body, path",
    [
        ({}, "spec"),
        ({"spec": SMALL_SPEC, "preset": "hgx-roce-2su"}, "spec"),
        ({"preset": "no-such-preset"}, "preset"),
        ({"spec": SMALL_SPEC, "colour": "blue"}, "colour"),
        ({"spec": "servers: 3"}, "spec"),
        ({"spec": SMALL_SPEC, "name": 7}, "name"),
    ],
)
def test_it_rejects_bad_create_bodies_naming_the_field(alice, body, path):
    response = alice.post("/api/v1/designs/", body, format="json")
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "invalid"
    assert path in [f["path"] for f in error["fields"]], error


def test_spec_errors_come_back_with_their_dotted_field_paths(alice):
    spec = {
        **SMALL_SPEC,
        "compute_fabric": {
            "technology": "infiniband",
            "switch": "qm9700",
            "oversubscription": {"leaf": "0:1"},
            "tiers": 7,
        },
    }
    del spec["servers"]
    response = alice.post("/api/v1/designs/", {"spec": spec}, format="json")
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "invalid_spec"
    paths = {f["path"] for f in error["fields"]}
    assert {"servers", "compute_fabric.oversubscription.leaf", "compute_fabric.tiers"} <= paths, paths


@pytest.mark.parametrize(
    "qos, physical, path",
    [
        ({"roce": {"dscp": [26, 99]}}, None, "qos.roce.dscp[1]"),
        ({"rocee": {"dscp": 26}}, None, "qos.rocee"),
        ({"ecn": {"min_bytes": "lots"}}, None, "qos.ecn.min_bytes"),
        (None, {"tiers": {"leaf-spine": {"medium": "carrier-pigeon"}}}, "physical.tiers.leaf-spine.medium"),
    ],
)
def test_a_bad_qos_or_physical_policy_is_refused_at_create_and_update_naming_the_field(
    alice, design, qos, physical, path
):
    spec = {**SMALL_SPEC, "qos": qos, "physical": physical}

    created = alice.post("/api/v1/designs/", {"spec": spec}, format="json")
    updated = alice.patch(f"/api/v1/designs/{design.pk}/", {"spec": spec}, format="json")

    for response in (created, updated):
        assert response.status_code == 400
        error = error_of(response)
        assert error["code"] == "invalid_spec" and [f["path"] for f in error["fields"]] == [path], error
    assert Design.objects.count() == 1 and Design.objects.get(pk=design.pk).spec["qos"] is None


def test_a_valid_qos_policy_is_stored_as_written(alice):
    qos = {"mode": "pfc-only", "roce": {"dscp": 24}}
    response = alice.post("/api/v1/designs/", {"spec": {**SMALL_SPEC, "qos": qos}}, format="json")
    assert response.status_code == 201 and response.json()["spec"]["qos"] == qos


def test_alice_lists_her_designs_and_those_shared_with_her_newest_first(alice, bob, users, design):
    bobs = bob.post("/api/v1/designs/", {"spec": {**SMALL_SPEC, "name": "Bob's"}}, format="json").json()
    assert [d["name"] for d in alice.get("/api/v1/designs/").json()["results"]] == ["Small H100 fabric"]
    design_share(design=Design.objects.get(pk=bobs["id"]), user=users.alice, access="read")
    listed = alice.get("/api/v1/designs/").json()["results"]
    assert [(d["name"], d["access"]) for d in listed] == [("Bob's", "read"), ("Small H100 fabric", "owner")]


def test_the_design_list_pages_by_cursor(alice):
    for i in range(3):
        alice.post("/api/v1/designs/", {"spec": {**SMALL_SPEC, "name": f"D{i}"}}, format="json")
    first = alice.get("/api/v1/designs/?limit=2").json()
    assert [d["name"] for d in first["results"]] == ["D2", "D1"]
    second = alice.get(first["next"]).json()
    assert [d["name"] for d in second["results"]] == ["D0"] and second["next"] is None
    assert alice.get(f"/api/v1/designs/?limit=2&cursor={first['next_cursor']}").json() == second
    assert error_of(alice.get("/api/v1/designs/?cursor=garbage"))["fields"][0]["path"] == "cursor"


def test_another_users_design_is_a_404_and_anonymous_is_a_401(bob, anon, design):
    url = f"/api/v1/designs/{design.pk}/"
    for response in (bob.get(url), bob.patch(url, {"name": "x"}, format="json"), bob.delete(url)):
        assert response.status_code == 404
        assert error_of(response)["code"] == "not_found"
    assert anon.get(url).status_code == 401
    assert bob.get("/api/v1/designs/").json()["results"] == []


def test_a_read_share_can_read_but_not_change(bob, users, design):
    design_share(design=design, user=users.bob, access="read")
    url = f"/api/v1/designs/{design.pk}/"
    assert bob.get(url).json()["access"] == "read"
    assert bob.patch(url, {"name": "x"}, format="json").status_code == 404
    assert bob.post(f"{url}compute/").status_code == 404


def test_a_write_share_can_change_but_not_delete_or_share(bob, users, design):
    design_share(design=design, user=users.bob, access="write")
    url = f"/api/v1/designs/{design.pk}/"
    response = bob.patch(url, {"name": "Bob's edit"}, format="json")
    assert response.status_code == 200 and response.json()["name"] == "Bob's edit"
    assert response.json()["access"] == "write"
    assert bob.delete(url).status_code == 404
    assert bob.get(f"{url}shares/").status_code == 404
    assert bob.put(f"{url}shares/charlie/", {}, format="json").status_code == 404


def test_the_owner_updates_the_spec_and_bad_specs_are_refused(alice, design):
    url = f"/api/v1/designs/{design.pk}/"
    spec = {**SMALL_SPEC, "servers": {"model": "dgx-h100", "count": 64}}
    response = alice.patch(url, {"spec": spec}, format="json")
    assert response.status_code == 200 and response.json()["spec"]["servers"]["count"] == 64
    bad = alice.patch(url, {"spec": {**SMALL_SPEC, "servers": {"model": "dgx-h100", "count": 0}}}, format="json")
    assert bad.status_code == 400
    assert error_of(bad)["fields"][0]["path"] == "servers.count"
    assert alice.patch(url, {}, format="json").status_code == 400
    assert Design.objects.get(pk=design.pk).spec["servers"]["count"] == 64


def test_the_owner_deletes_a_design(alice, design):
    assert alice.delete(f"/api/v1/designs/{design.pk}/").status_code == 204
    assert alice.get(f"/api/v1/designs/{design.pk}/").status_code == 404


def test_the_owner_shares_changes_access_and_unshares(alice, bob, design):
    url = f"/api/v1/designs/{design.pk}/shares/"
    assert bob.get(f"/api/v1/designs/{design.pk}/").status_code == 404
    response = alice.put(f"{url}bob/", {"access": "write"}, format="json")
    assert response.status_code == 200 and response.json()["access"] == "write"
    assert alice.put(f"{url}bob/", {}, format="json").json()["access"] == "read"
    assert alice.get(url).json()["results"] == [
        {"username": "bob", "access": "read", "url": f"http://testserver{url}bob/"}
    ]
    assert bob.get(f"/api/v1/designs/{design.pk}/").status_code == 200
    assert alice.delete(f"{url}bob/").status_code == 204
    assert bob.get(f"/api/v1/designs/{design.pk}/").status_code == 404


def test_share_answers_are_identical_for_existing_and_missing_users(alice, users, design):
    url = f"/api/v1/designs/{design.pk}/shares/"

    def answer(response, username):
        body = response.content.decode().replace(username, "NAME")
        headers = {k: v for k, v in response.items() if not k.startswith("X-RateLimit-")}
        return response.status_code, body, headers

    for access in ("read", "write"):
        assert answer(alice.put(f"{url}bob/", {"access": access}, format="json"), "bob") == answer(
            alice.put(f"{url}zed/", {"access": access}, format="json"), "zed"
        )
    listed = alice.get(url).json()["results"]
    assert [(s["username"], s["access"]) for s in listed] == [("bob", "write"), ("zed", "write")]
    assert (
        answer(alice.delete(f"{url}bob/"), "bob")
        == answer(alice.delete(f"{url}zed/"), "zed")
        == answer(alice.delete(f"{url}never-shared/"), "never-shared")
    )
    assert alice.get(url).json()["results"] == []


def test_a_share_to_a_missing_user_waits_for_that_account(alice, design):
    from django.contrib.auth import get_user_model

    from tests.apps.api.conftest import token_client

    alice.put(f"/api/v1/designs/{design.pk}/shares/dave/", {}, format="json")
    dave = token_client(get_user_model().objects.create_user("dave"))
    assert dave.get(f"/api/v1/designs/{design.pk}/").json()["access"] == "read"


def test_the_recipient_lists_shared_designs_apart_and_can_leave_them(alice, bob, users, design):
    own = bob.post("/api/v1/designs/", {"spec": {**SMALL_SPEC, "name": "Bob's"}}, format="json").json()
    alice.put(f"/api/v1/designs/{design.pk}/shares/bob/", {}, format="json")
    assert [d["name"] for d in bob.get("/api/v1/designs/?section=own").json()["results"]] == ["Bob's"]
    assert [d["name"] for d in bob.get("/api/v1/designs/?section=shared").json()["results"]] == [design.name]
    assert all("spec" not in d for d in bob.get("/api/v1/designs/").json()["results"])
    # Leaving: the recipient deletes the share of their own name; anyone else's is not theirs to touch.
    assert bob.delete(f"/api/v1/designs/{design.pk}/shares/charlie/").status_code == 404
    assert bob.delete(f"/api/v1/designs/{design.pk}/shares/bob/").status_code == 204
    assert bob.get("/api/v1/designs/?section=shared").json()["results"] == []
    assert bob.get(f"/api/v1/designs/{design.pk}/").status_code == 404
    assert bob.delete(f"/api/v1/designs/{own['id']}/shares/bob/").status_code == 204  # owner: a no-op unshare
    assert bob.get(f"/api/v1/designs/{own['id']}/").status_code == 200


def test_sharing_with_the_owner_is_refused(alice, design):
    url = f"/api/v1/designs/{design.pk}/shares/"
    own = alice.put(f"{url}alice/", {}, format="json")
    assert own.status_code == 400 and error_of(own)["fields"][0]["path"] == "username"
    assert alice.put(f"{url}bob/", {"access": "admin"}, format="json").status_code == 400
