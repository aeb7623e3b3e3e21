"""The revision workspace: an overview and one page per section, contributed by the apps through the registry
(apps/common/workspace.py); honest figures on the overview and in the bill of materials."""

from __future__ import annotations

import pytest

from apps.common import workspace
from apps.designs.workspace import _power_card, priced_lines

from .test_views import alice, design, revision, url  # noqa: F401 - fixtures

pytestmark = pytest.mark.django_db


def test_every_section_is_in_the_navigation_and_answers_on_its_own_url(alice, revision):
    keys = [s.key for s in workspace.sections()]
    assert keys == [
        "fabric",
        "cabling",
        "bom",
        "congestion",
        "traffic",
        "failure",
        "commissioning",
        "monitoring",
        "files",
    ]
    overview = alice.get(url("revision", revision.design_id, revision.number)).content.decode()
    for key in keys:
        href = url("workspace:section", revision.design_id, revision.number, key)
        assert f'href="{href}"' in overview
        page = alice.get(href)
        assert page.status_code == 200, key
        assert f'id="section-{key}"' in page.content.decode()
        assert 'aria-current="page"' in page.content.decode().split(f'href="{href}"')[1].split(">")[0]
    assert alice.get(url("workspace:section", revision.design_id, revision.number, "nope")).status_code == 404
    # an app's own revision page is never hidden by a section key
    assert alice.get(f"/designs/{revision.design_id}/revisions/1/measurements/").status_code == 200


def test_a_section_is_only_for_readers_of_the_design(client, users, revision):
    client.force_login(users.bob)
    assert client.get(url("workspace:section", revision.design_id, revision.number, "fabric")).status_code == 404


def test_the_overview_shows_the_cards_and_what_to_do_next_but_no_section_content(alice, revision):
    html = alice.get(url("revision", revision.design_id, revision.number)).content.decode()
    assert 'id="glance"' in html and 'id="next-steps"' in html
    assert "When the order is placed, mark a revision as ordered" in html
    assert "Once cabled, upload what the fabric reports" in html  # commissioning's next step, from its app
    for inline in ('id="fix-list"', 'id="bom"', 'id="fabric-diagram"', 'id="blast-table"', 'id="downloads-title"'):
        assert inline not in html


def test_the_fabric_section_runs_none_of_the_other_sections_panels(alice, revision, monkeypatch):
    called = []
    original = workspace.panels

    def spy(key):
        called.append(key)
        return original(key)

    monkeypatch.setattr(workspace, "panels", spy)
    assert alice.get(url("workspace:section", revision.design_id, revision.number, "fabric")).status_code == 200
    assert called == ["fabric"]


def test_unknown_switch_power_reads_unknown_with_the_reason_never_zero_kw():
    summary = {
        "power_kw": {"known_total": 81.6, "models_without_figure": ["sn5600"]},
        "rack_power": {"max_kw": {"network": 0.0, "server": 40.8}, "budget_kw": {"network": 20.0, "server": 41.0}},
    }
    known, fullest = _power_card(summary)
    assert known["value"] == "81.6" and known["note"] == "+ unknown for sn5600 (no published maximum)"
    assert (fullest["value"], fullest["unit"]) == ("unknown", "network")
    assert fullest["note"] == "no published maximum for sn5600; 40.8 kW server of 41.0 (known figures only)"


def test_a_priced_bom_has_unit_and_extended_prices_and_a_total_of_the_priced_lines():
    bom = [{"sku": "QM9700", "quantity": 3}, {"sku": "CORD", "quantity": 10}]
    lines, total, unpriced = priced_lines(bom, {"QM9700": "100.50"})
    assert [str(x["extended_price"]) for x in lines] == ["301.50", "None"]
    assert str(total) == "301.50" and unpriced == ["CORD"]
    assert priced_lines(bom, {})[1] is None  # not priced: no total, never 0


def test_the_bom_section_shows_prices_and_names_the_lines_without_one(client, users, revision):
    from apps.catalog.services import price_list_save
    from apps.designs.pricing import revision_reprice

    sku = revision.summary["bom"][0]["sku"]
    price_list_save(owner=users.alice, currency="USD", prices={sku: "10"})
    revision_reprice(revision=revision, user=users.alice)
    client.force_login(users.alice)

    html = client.get(url("workspace:section", revision.design_id, revision.number, "bom")).content.decode()

    assert "Unit price (USD)" in html and "Extended (USD)" in html
    qty = revision.summary["bom"][0]["quantity"]
    assert f"{qty * 10:.2f} USD" in html.split('id="bom-total"')[1].split("</td>")[0]
    assert 'id="bom-unpriced"' in html and "without a price" in html


def test_a_read_only_sharer_opening_edit_is_told_it_is_read_only(client, users, design):
    from apps.designs.services import design_share

    design_share(design=design, user=users.bob, access="read")
    client.force_login(users.bob)
    response = client.get(url("edit", design.pk))
    assert response.status_code == 403
    assert "shared with you read-only" in response.content.decode() and "not shared with you" not in (
        response.content.decode()
    )
    assert client.post(url("edit", design.pk), {"spec_yaml": "name: x"}).status_code == 403
    client.force_login(users.charlie)
    assert client.get(url("edit", design.pk)).status_code == 404


def test_the_fix_list_is_shown_a_page_at_a_time(alice, revision):
    from apps.commissioning.models import CommissioningStanding

    fixes = [
        {"problem": n, "class": "missing", "rack": "B01", "cable_id": f"C{n:05d}", "label_a": "a", "label_b": "b"}
        for n in range(1, 121)
    ]
    CommissioningStanding.objects.create(revision=revision, state="cabling", counts={"missing": 120}, fixes=fixes)
    section = url("workspace:section", revision.design_id, revision.number, "commissioning")

    first = alice.get(section).content.decode().split('id="fix-list"')[1].split("</table>")[0]
    last = alice.get(section + "?fixes=3").content.decode()

    assert first.count('<tr data-class="missing">') == 50 and "C00001" in first and "C00051" not in first
    rows = last.split('id="fix-list"')[1].split("</table>")[0]
    assert rows.count('<tr data-class="missing">') == 20 and "C00120" in rows
    assert "page 3 of 3" in last
