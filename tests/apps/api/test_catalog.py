"""The catalog read, custom parts validated by the engine's loaders, price lists, presets, spec schema."""

from __future__ import annotations

import pytest

from apps.catalog.models import CustomPart
from apps.catalog.services import custom_catalog_for
from engine.catalog import load_catalog
from tests.apps.api.conftest import error_of

SWITCH = {
    "name": "Acme X64",
    "vendor": "Acme",
    "os": {"nvue": "swp", "sonic": "ethernet-lane"},
    "technology": ["ethernet"],
    "cages": 32,
    "form_factor": "osfp",
    "speeds": {"400": 2, "200": 4},
    "rack_units": 1,
    "power_kw": 1.5,
}


@pytest.mark.parametrize(
    "section, key",
    [
        ("servers", "dgx-h100"),
        ("switches", "qm9700"),
        ("transceivers", "MMA1Z00-NS400"),
        ("panels", "GEN-PANEL-1U-CAS4"),
        ("cables", None),
        ("cords", None),
        ("trunks", None),
        ("cassettes", None),
        ("adapters", None),
        ("pmds", None),
        ("copper_cords", None),
    ],
)
def test_every_catalog_section_reads(alice, section, key):
    body = alice.get(f"/api/v1/catalog/{section}/").json()
    assert body["section"] == section and body["catalog_version"] == load_catalog().version
    keys = [item["key"] for item in body["results"]]
    assert keys and all(item["custom"] is False for item in body["results"])
    if key:
        assert key in keys


def test_switch_records_carry_their_radix(alice):
    qm = next(s for s in alice.get("/api/v1/catalog/switches/").json()["results"] if s["key"] == "qm9700")
    assert {"speed_gbps": 400, "ports_per_cage": 2, "radix": 64} in qm["speeds"]


def test_the_catalog_needs_a_login_and_knows_its_sections(alice, anon, db):
    assert anon.get("/api/v1/catalog/servers/").status_code == 401
    assert error_of(alice.get("/api/v1/catalog/bananas/"))["code"] == "not_found"


def test_a_custom_switch_joins_its_owners_catalog_only(alice, bob, users):
    response = alice.post("/api/v1/parts/", {"section": "switches", "key": "acme-x64", "body": SWITCH}, format="json")
    assert response.status_code == 201, response.content
    part = response.json()
    assert response["Location"] == part["url"] and part["key"] == "acme-x64"
    mine = {s["key"]: s for s in alice.get("/api/v1/catalog/switches/").json()["results"]}
    assert mine["acme-x64"]["custom"] is True and mine["acme-x64"]["speeds"][1]["radix"] == 64
    assert "acme-x64" not in {s["key"] for s in bob.get("/api/v1/catalog/switches/").json()["results"]}
    assert bob.get(part["url"]).status_code == 404
    assert custom_catalog_for(users.alice) == {"switches": {"acme-x64": SWITCH}}
    assert custom_catalog_for(users.bob) is None
    assert load_catalog(custom_catalog_for(users.alice)).switches["acme-x64"].radix(400) == 64


def test_a_custom_transceiver_takes_its_key_from_the_body(alice, users):
    shipped = alice.get("/api/v1/catalog/transceivers/").json()["results"][0]["entry"]
    body = {**shipped, "sku": "ACME-SR4", "vendor": "acme"}
    response = alice.post("/api/v1/parts/", {"section": "transceivers", "body": body}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["key"] == "ACME-SR4"
    listed = {t["key"]: t for t in alice.get("/api/v1/catalog/transceivers/").json()["results"]}
    assert listed["ACME-SR4"]["custom"] is True
    assert custom_catalog_for(users.alice)["media"]["transceivers"][0]["sku"] == "ACME-SR4"


@pytest.mark.parametrize(
    "payload, path",
    [
        ({"section": "switches", "key": "bad", "body": {**SWITCH, "speeds": "fast"}}, "body"),
        ({"section": "switches", "key": "bad", "body": {"name": "no cages"}}, "body"),
        ({"section": "switches", "body": SWITCH}, "key"),
        ({"section": "transceivers", "body": {"vendor": "acme"}}, "body.sku"),
        ({"section": "transceivers", "body": {"sku": "X", "bogus": 1}}, "body"),
        ({"section": "servers", "key": "s", "body": {"name": "S", "compute": [1, 2]}}, "body"),
        ({"section": "racks", "key": "r", "body": {}}, "section"),
        ({"section": "switches", "key": "k", "body": SWITCH, "extra": 1}, "extra"),
        ({"section": "switches", "key": "k", "body": []}, "body"),
        # not trimmed: the schema's pattern and maxLength describe the very string the server checks
        ({"section": "switches", "key": " acme-x64 ", "body": SWITCH}, "key"),
        ({"section": "switches", "key": " " * 62 + "00", "body": SWITCH}, "key"),
    ],
)
def test_parts_the_engine_refuses_are_a_400(alice, payload, path):
    response = alice.post("/api/v1/parts/", payload, format="json")
    assert response.status_code == 400, response.content
    assert path in [f["path"] for f in error_of(response)["fields"]]
    assert not CustomPart.objects.exists()


def test_parts_are_unique_per_owner_and_can_be_replaced_and_deleted(alice, bob):
    part = {"section": "switches", "key": "acme", "body": SWITCH}
    url = alice.post("/api/v1/parts/", part, format="json").json()["url"]
    again = alice.post("/api/v1/parts/", part, format="json")
    assert again.status_code == 409 and error_of(again)["code"] == "conflict"
    assert bob.post("/api/v1/parts/", part, format="json").status_code == 201
    replaced = alice.put(url, {"section": "switches", "key": "acme", "body": {**SWITCH, "cages": 64}}, format="json")
    assert replaced.status_code == 200 and replaced.json()["body"]["cages"] == 64
    assert alice.put(url, {**part, "body": {"cages": 1}}, format="json").status_code == 400
    assert bob.put(url, part, format="json").status_code == 404
    assert [p["key"] for p in alice.get("/api/v1/parts/").json()["results"]] == ["acme"]
    assert alice.delete(url).status_code == 204
    assert alice.get(url).status_code == 404


def test_a_design_computes_with_its_owners_custom_switch(alice, users):
    """The hook the compute service uses: load_catalog(custom_catalog_for(owner))."""
    from engine.pipeline import compute_design
    from engine.spec import parse_spec

    alice.post(
        "/api/v1/parts/",
        {"section": "switches", "key": "acme-x64", "body": {**SWITCH, "technology": ["infiniband"]}},
        format="json",
    )
    spec = parse_spec(
        {
            "name": "c",
            "servers": {"model": "dgx-h100", "count": 8},
            "compute_fabric": {"technology": "infiniband", "switch": "acme-x64"},
        }
    )
    result = compute_design(spec, load_catalog(custom_catalog_for(users.alice)))
    assert result.summary["networks"]["compute"]["switch_models"]["leaf"] == "acme-x64"


def test_the_price_list_is_personal_and_validated(alice, bob):
    assert alice.get("/api/v1/price-list/").json() == {
        "currency": "USD",
        "prices": {},
        "updated_at": None,
        "version": None,
    }
    response = alice.put(
        "/api/v1/price-list/", {"currency": "EUR", "prices": {"MQM9700-NS2F": "31000", "X": "0.125"}}, format="json"
    )
    assert response.status_code == 200
    assert (
        response.json()["prices"] == {"MQM9700-NS2F": "31000.00", "X": "0.125"} and response.json()["currency"] == "EUR"
    )
    assert response.json()["version"] == 1
    assert bob.get("/api/v1/price-list/").json()["prices"] == {}
    for bad in (
        {"prices": {"X": "-1"}},
        {"prices": {"X": 12}},
        {"prices": {"X": "abc"}},
        {"currency": "euro", "prices": {}},
        {"prices": {"": "1"}},
        {"prices": {}, "discount": 5},
    ):
        assert alice.put("/api/v1/price-list/", bad, format="json").status_code == 400, bad
    assert alice.get("/api/v1/price-list/").json()["currency"] == "EUR"


def test_presets_and_the_spec_schema(alice, anon, db):
    presets = alice.get("/api/v1/presets/").json()["results"]
    assert "dgx-h100-superpod-4su" in {p["key"] for p in presets}
    spec = alice.get(presets[0]["url"]).json()["spec"]
    assert spec["servers"]["count"] > 0
    assert alice.get("/api/v1/presets/nope/").status_code == 404
    schema = alice.get("/api/v1/spec-schema/").json()
    assert "compute_fabric" in schema["properties"]
    assert anon.get("/api/v1/presets/").status_code == 401
