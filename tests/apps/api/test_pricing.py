"""Versioned prices: a revision is a document procurement orders from, so its priced BOM never changes silently.

    alice's price list v1 (QM9700 at 100 EUR)    -> r1 computed: priced with v1
    alice changes the list: v2 (QM9700 at 120)   -> r1 still v1 (API BOM, bom.csv, bom.pdf), r2 computed: v2
    alice reprices r1                            -> r1 v2, the reprice recorded (who, when); the BOM names it

bob may read alice's design but not reprice it; charlie sees nothing; without a price list a reprice is a 409.
"""

from __future__ import annotations

import csv
import io

from apps.catalog.models import PriceListVersion
from apps.designs.models import RevisionRepricing
from apps.designs.services import design_share
from tests.apps.api.conftest import compute_now, error_of, rev_url


def qm9700(bom: dict) -> dict:
    return next(x for x in bom["lines"] if x["part"] == "MQM9700-NS2F")


def bom_csv(client, design, number: int) -> list[dict]:
    response = client.get(rev_url(design, number, "downloads/bom.csv"))
    text = (b"".join(response.streaming_content) if response.streaming else response.content).decode()
    return list(csv.DictReader(io.StringIO(text)))


def test_a_revision_keeps_the_prices_it_was_computed_with_until_repriced(alice, users, computed):
    design = computed
    # `computed` was computed before any price list: unpriced, and it stays so when a list appears.
    alice.put("/api/v1/price-list/", {"currency": "EUR", "prices": {"MQM9700-NS2F": "100"}}, format="json")
    r1 = design.revisions.get(number=compute_now(design, users.alice))  # r2 of the design, computed under v1
    alice.put("/api/v1/price-list/", {"currency": "EUR", "prices": {"MQM9700-NS2F": "120"}}, format="json")
    alice.put("/api/v1/price-list/", {"currency": "EUR", "prices": {"MQM9700-NS2F": "120"}}, format="json")  # no change
    r2 = design.revisions.get(number=compute_now(design, users.alice))

    assert list(PriceListVersion.objects.filter(owner=users.alice).values_list("number", flat=True)) == [2, 1]
    unpriced = alice.get(rev_url(design, 1, "bom/")).json()
    old = alice.get(rev_url(design, r1.number, "bom/")).json()
    new = alice.get(rev_url(design, r2.number, "bom/")).json()
    assert unpriced["price_version"] is None and qm9700(unpriced)["unit_price"] is None
    assert (old["price_version"], qm9700(old)["unit_price"]) == (1, "100.00")
    assert (new["price_version"], qm9700(new)["unit_price"]) == (2, "120.00")
    row = next(r for r in bom_csv(alice, design, r1.number) if r["section"] == "order" and r["sku"] == "MQM9700-NS2F")
    assert row["unit_price"] == "100.00"
    pricing_row = next(r for r in bom_csv(alice, design, r1.number) if r["section"] == "pricing")
    assert pricing_row["description"].startswith("price list v1 of ") and "in force when" in pricing_row["description"]

    repriced = alice.post(rev_url(design, r1.number, "reprice/"))

    assert repriced.status_code == 200
    assert repriced.json()["price_version"] == 2 and repriced.json()["repriced_by"] == "alice"
    after = alice.get(rev_url(design, r1.number, "bom/")).json()
    assert (after["price_version"], qm9700(after)["unit_price"], after["repriced_by"]) == (2, "120.00", "alice")
    assert RevisionRepricing.objects.filter(revision=r1).count() == 1
    again = alice.post(rev_url(design, r1.number, "reprice/"))  # already on the newest: nothing recorded
    assert again.json()["price_version"] == 2 and RevisionRepricing.objects.filter(revision=r1).count() == 1
    assert (
        "repriced by alice on"
        in next(r for r in bom_csv(alice, design, r1.number) if r["section"] == "pricing")["description"]
    )


def test_only_writers_reprice_and_there_must_be_a_list(alice, bob, users, computed):
    refused = alice.post(rev_url(computed, 1, "reprice/"))
    assert refused.status_code == 409 and error_of(refused)["code"] == "no_price_list"

    alice.put("/api/v1/price-list/", {"currency": "USD", "prices": {"MQM9700-NS2F": "1"}}, format="json")
    assert bob.post(rev_url(computed, 1, "reprice/")).status_code == 404
    design_share(design=computed, user=users.bob, access="read")
    assert bob.post(rev_url(computed, 1, "reprice/")).status_code == 404
    assert bob.get(rev_url(computed, 1, "bom/")).json()["price_version"] is None
    design_share(design=computed, user=users.bob, access="write")
    assert bob.post(rev_url(computed, 1, "reprice/")).json()["repriced_by"] == "bob"


def test_the_revision_page_names_the_version_and_offers_to_reprice(client, users, computed, alice):
    client.force_login(users.alice)
    alice.put("/api/v1/price-list/", {"currency": "EUR", "prices": {"MQM9700-NS2F": "100"}}, format="json")
    page = client.get(f"/designs/{computed.pk}/revisions/1/bom/").content.decode()
    line = page.split('id="bom-pricing"')[1].split("</p>")[0]
    assert "Not priced" in line and "Reprice with v1" in line

    response = client.post(f"/designs/{computed.pk}/revisions/1/reprice/", follow=True)

    line = response.content.decode().split('id="bom-pricing"')[1].split("</p>")[0]
    assert "price list <strong>v1</strong>" in line and "chosen by alice" in line and "Reprice" not in line


def test_a_price_list_part_number_with_a_control_character_is_a_400_not_a_server_error(alice):
    response = alice.put("/api/v1/price-list/", {"currency": "EUR", "prices": {"QM\u00009700": "1"}}, format="json")
    assert response.status_code == 400, response.content
    assert "control characters" in response.json()["error"]["fields"][0]["message"]
