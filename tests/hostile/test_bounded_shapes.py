"""Stored input has the shape the code that reads it expects, and a size with a reason.

A custom part is checked against the shipped parts' schema, types included, before it is stored (a list inside
`sources` was accepted by the API and then made its owner's catalog page a 500). The spec's workloads and every
list or mapping in its free-form sections are bounded (2,000 workloads cost about 25 s of CPU per save).
"""

from __future__ import annotations

import pytest

from tests.apps.api.conftest import SMALL_SPEC, error_of

pytestmark = pytest.mark.django_db

SWITCH = {
    "name": "Acme X64",
    "vendor": "Acme",
    "os": {"nvue": "swp"},
    "cages": 32,
    "speeds": {400: 2},
    "rack_units": 1,
    "sources": ["S1"],
}


@pytest.mark.parametrize(
    "changes, path",
    [
        ({"sources": [["S1", "S2"]]}, "body"),
        ({"sources": [{"url": "x"}]}, "body"),
        ({"technology": "infiniband"}, "body"),
        ({"name": ["A", "B"]}, "body"),
        ({"uplinks": {"count": "4"}}, "body"),
    ],
)
def test_a_custom_switch_of_the_wrong_types_is_refused_before_it_is_stored(alice, changes, path):
    from apps.catalog.models import CustomPart

    body = {**SWITCH, **changes}
    r = alice.post("/api/v1/parts/", {"section": "switches", "key": "acme", "body": body}, format="json")
    assert r.status_code == 400, r.content
    fields = {f["path"]: f["message"] for f in error_of(r)["fields"]}
    assert path in fields and "switches.acme." in fields[path], fields
    assert not CustomPart.objects.exists()
    assert alice.get("/api/v1/catalog/switches/").status_code == 200


def test_a_part_stored_before_the_schema_leaves_the_catalog_page_working(client, users):
    from apps.catalog.models import CustomPart

    CustomPart.objects.create(owner=users.alice, section="switches", key="old", body={**SWITCH, "sources": [["S1"]]})
    client.force_login(users.alice)
    page = client.get("/designs/catalog/")
    assert page.status_code == 200
    assert "sources[0]: must be text" in page.content.decode()


def test_the_catalog_page_names_the_field_of_a_wrongly_typed_part(client, users):
    from apps.catalog.models import CustomPart

    client.force_login(users.alice)
    body = "name: Acme\nvendor: Acme\nos: {nvue: swp}\ncages: 32\nspeeds: {400: 2}\nrack_units: 1\nsources: [[S1]]\n"
    r = client.post("/designs/catalog/", {"action": "part", "section": "switches", "key": "acme", "body": body})
    assert r.status_code == 400 and "switches.acme.sources[0]: must be text, not list" in r.content.decode()
    assert not CustomPart.objects.exists()


def test_a_spec_with_more_workloads_than_the_limit_is_refused_saying_why(alice):
    spec = {**SMALL_SPEC, "workloads": [{"preset": "llama-70b-dp512", "name": f"w{i}"} for i in range(33)]}
    r = alice.post("/api/v1/designs/", {"spec": spec}, format="json")
    assert r.status_code == 400, r.content[:300]
    fields = {f["path"]: f["message"] for f in error_of(r)["fields"]}
    assert "at most 32" in fields["workloads"] and "every save" in fields["workloads"]


@pytest.mark.parametrize(
    "section, value, path",
    [
        ("physical", {"tiers": {f"t{i}": {} for i in range(1001)}}, "physical.tiers"),
        ("monitoring", {"x": list(range(1001))}, "monitoring.x"),
        ("qos", {"classes": [{"name": "c"}] * 1001}, "qos.classes"),
        ("workloads", ["llama-70b-dp512"] * 1001, "workloads"),
    ],
)
def test_every_list_in_the_spec_is_bounded(alice, section, value, path):
    r = alice.post("/api/v1/designs/", {"spec": {**SMALL_SPEC, section: value}}, format="json")
    assert r.status_code == 400, r.content[:300]
    fields = {f["path"]: f["message"] for f in error_of(r)["fields"]}
    assert "at most 1,000" in fields[path], fields
