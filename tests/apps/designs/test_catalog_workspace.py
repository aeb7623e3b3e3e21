"""The catalog page speaks to a browser user (issue 39): a valid example to start from, ISO 4217 currencies only,
a warning for price-list part numbers nothing carries, and no source-folder names or spec keys in its text."""

from __future__ import annotations

import pytest

from apps.catalog.models import CustomPart, PriceList
from apps.designs.catalog_views import EXAMPLE_PART, EXAMPLE_SECTION

pytestmark = pytest.mark.django_db


def test_the_example_in_the_empty_box_saves_as_it_is(client, users):
    client.force_login(users.alice)
    html = client.get("/designs/catalog/").content.decode()
    assert 'id="part-example"' in html and "MY-OSFP-100G-DR" in html
    assert "engine/catalog/data" not in html and "physical.allow_discontinued" not in html

    response = client.post(
        "/designs/catalog/", {"action": "part", "section": EXAMPLE_SECTION, "key": "", "body": EXAMPLE_PART}
    )

    assert response.status_code == 302, response.content.decode()[:2000]
    assert CustomPart.objects.filter(owner=users.alice, section=EXAMPLE_SECTION).count() == 1


def test_a_currency_must_be_an_iso_4217_code_not_three_letters(client, users):
    client.force_login(users.alice)
    refused = client.post("/designs/catalog/", {"action": "prices", "currency": "DOL", "prices": "X,1\n"})
    assert refused.status_code == 400
    assert "DOL is not an ISO 4217 currency code" in refused.content.decode()
    assert not PriceList.objects.filter(owner=users.alice).exists()
    page = client.get("/designs/catalog/").content.decode()
    assert '<option value="USD" selected>USD — US Dollar</option>' in page and '<option value="EUR">' in page


def test_a_price_list_warns_about_part_numbers_no_part_carries(client, users):
    client.force_login(users.alice)
    response = client.post(
        "/designs/catalog/",
        {"action": "prices", "currency": "USD", "prices": "MQM9700-NS2F,30000\nMQM9700-NSF2,29000\n"},
        follow=True,
    )
    html = response.content.decode()
    assert PriceList.objects.get(owner=users.alice).prices == {"MQM9700-NS2F": "30000", "MQM9700-NSF2": "29000"}
    assert "1 part number of the price list is in no catalog part" in html and "MQM9700-NSF2" in html
    assert "MQM9700-NS2F," not in html.split("a typing mistake?")[1].split("<")[0]


def test_a_yaml_mistake_in_the_part_box_names_its_line(client, users):
    client.force_login(users.alice)
    body = "sku: X\nvendor: lab\n\tform_factor: osfp\n"
    response = client.post("/designs/catalog/", {"action": "part", "section": "transceivers", "key": "", "body": body})
    assert response.status_code == 400
    assert "body: not valid YAML at line 3, column 1" in response.content.decode()
