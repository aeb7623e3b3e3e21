"""The catalog page (issue 17): shipped parts with sources and flags, searchable; alice's own parts and price list
added and edited with the API's validation; a design that no part fits is marked incomplete on its revision page,
in the API's BOM and in the downloads, and is complete once alice adds a fitting part and computes again."""

from __future__ import annotations

import pytest
import yaml

from apps.catalog.models import CustomPart, PriceList
from tests.engine.stage.test_catalog_completeness import LAB_MODULE, LAB_SPEC, LAB_SWITCH

pytestmark = pytest.mark.django_db


def catalog_page(client, **params):
    return client.get("/designs/catalog/", params)


def test_the_catalog_page_needs_a_login(client):
    assert catalog_page(client).status_code == 302


def test_it_lists_shipped_parts_with_sources_and_flags_and_searches_them(client, users):
    client.force_login(users.alice)
    html = catalog_page(client).content.decode()
    assert "MFA1A00-C-RESELLER" in html and "PB-S2" in html and "unconfirmed" in html
    assert "MCP7Y10" in html and "discontinued" in html and "980-9IAH1-00XM00" in html
    found = catalog_page(client, q="qsfp28 aoc").content.decode()
    assert 'data-key="MFA1A00-C"' in found and 'data-key="MMS4A00"' not in found
    assert "No part matches" in catalog_page(client, q="no-such-part-xyz").content.decode()


def post_part(client, section: str, body, key: str = "", part_id: int | None = None):
    data = {
        "action": "part",
        "section": section,
        "key": key,
        "body": body if isinstance(body, str) else yaml.safe_dump(body),
    }
    if part_id:
        data["part_id"] = str(part_id)
    return client.post("/designs/catalog/", data)


def test_a_part_is_validated_as_the_api_validates_it(client, users):
    client.force_login(users.alice)
    bad = dict(LAB_MODULE, pmd="no-such-pmd")
    r = post_part(client, "transceivers", bad)
    assert r.status_code == 400 and "unknown PMD" in r.content.decode()
    r = post_part(client, "transceivers", "sku: [unclosed")
    assert r.status_code == 400 and "not valid YAML" in r.content.decode()
    r = post_part(client, "switches", LAB_SWITCH)  # servers and switches need a key
    assert r.status_code == 400 and "key is required" in r.content.decode()
    assert not CustomPart.objects.exists()
    r = post_part(client, "transceivers", LAB_MODULE)
    assert r.status_code == 302
    part = CustomPart.objects.get(owner=users.alice)
    assert (part.section, part.key) == ("transceivers", "LAB-OSFP-100G-DR")
    # edit: the form is filled with the stored entry; saving replaces it
    html = client.get(f"/designs/catalog/?edit={part.pk}").content.decode()
    assert "LAB-OSFP-100G-DR" in html and "Save changes" in html
    r = post_part(client, "transceivers", dict(LAB_MODULE, power_w=5), part_id=part.pk)
    assert r.status_code == 302 and CustomPart.objects.get(pk=part.pk).body["power_w"] == 5
    # bob cannot edit or delete it
    client.force_login(users.bob)
    assert client.get(f"/designs/catalog/?edit={part.pk}").status_code == 404
    assert client.post(f"/designs/catalog/parts/{part.pk}/delete/").status_code == 404
    client.force_login(users.alice)
    assert client.post(f"/designs/catalog/parts/{part.pk}/delete/").status_code == 302
    assert not CustomPart.objects.exists()


def test_the_price_list_is_edited_with_the_apis_rules(client, users):
    client.force_login(users.alice)
    r = client.post("/designs/catalog/", {"action": "prices", "currency": "eur", "prices": "MFP7E10-N003,12.5\n"})
    assert r.status_code == 302
    pl = PriceList.objects.get(owner=users.alice)
    assert (pl.currency, pl.prices) == ("EUR", {"MFP7E10-N003": "12.5"})
    r = client.post("/designs/catalog/", {"action": "prices", "currency": "EUR", "prices": "MFP7E10-N003,-1\n"})
    assert r.status_code == 400 and "prices" in r.content.decode()
    r = client.post("/designs/catalog/", {"action": "prices", "currency": "EUR", "prices": "just a part\n"})
    assert r.status_code == 400 and "PART,PRICE" in r.content.decode()
    assert PriceList.objects.get(owner=users.alice).prices == {"MFP7E10-N003": "12.5"}


def compute(design, user) -> int:
    from tests.apps.api.conftest import compute_now

    return compute_now(design, user)


def test_an_incomplete_bom_is_marked_everywhere_until_a_fitting_part_is_added(client, users):
    from apps.catalog.services import custom_part_save
    from apps.designs.services import design_create
    from tests.apps.api.conftest import token_client

    alice = users.alice
    custom_part_save(user=alice, section="switches", key="lab-osfp100", body=LAB_SWITCH)
    design = design_create(user=alice, spec=LAB_SPEC)
    assert compute(design, alice) == 1
    api = token_client(alice)
    bom = api.get(f"/api/v1/designs/{design.pk}/revisions/1/bom/").json()
    n = bom["links_without_part"]
    assert bom["complete"] is False and n > 0
    assert {(m["network"], m["tier"]) for m in bom["missing"]} == {("inband", "node-leaf"), ("inband", "leaf-spine")}
    assert sum(m["links"] for m in bom["missing"]) == n
    client.force_login(alice)
    page = client.get(f"/designs/{design.pk}/revisions/1/").content.decode()
    assert f"INCOMPLETE: {n} links have no part" in page and 'id="bom-incomplete"' in page
    csv_body = b"".join(api.get(f"/api/v1/designs/{design.pk}/revisions/1/downloads/bom.csv").streaming_content)
    assert csv_body.decode().splitlines()[0].startswith(f"# INCOMPLETE: {n} links have no part")

    assert post_part(client, "transceivers", LAB_MODULE).status_code == 302
    assert compute(design, alice) == 2
    bom = api.get(f"/api/v1/designs/{design.pk}/revisions/2/bom/").json()
    assert (bom["complete"], bom["links_without_part"], bom["missing"]) == (True, 0, [])
    assert "LAB-OSFP-100G-DR" in {line["part"] for line in bom["lines"]}
    page = client.get(f"/designs/{design.pk}/revisions/2/").content.decode()
    assert "INCOMPLETE" not in page


def test_unconfirmed_lines_are_flagged_in_the_api_and_on_the_page(client, users):
    from apps.designs.services import design_create
    from tests.apps.api.conftest import token_client

    alice = users.alice
    design = design_create(
        user=alice,
        spec={
            "name": "xdr",
            "servers": {"model": "dgx-b300", "count": 8},
            "compute_fabric": {"technology": "infiniband", "switch": "q3400"},
        },
    )
    compute(design, alice)
    bom = token_client(alice).get(f"/api/v1/designs/{design.pk}/revisions/1/bom/").json()
    lines = {line["part"]: line for line in bom["lines"]}
    assert bom["complete"] is True
    assert lines["MMS4A20"]["verify_before_ordering"] is True and "third-party" in lines["MMS4A20"]["unconfirmed"]
    client.force_login(alice)
    page = client.get(f"/designs/{design.pk}/revisions/1/bom/").content.decode()
    assert 'id="bom-verify"' in page and "verify before ordering" in page
