"""The revision page's failure sections: spares under both rules with their inputs, and the blast radius."""

from __future__ import annotations

import pytest

from apps.designs.services import design_create

from .test_views import TINY, compute_now, url


@pytest.fixture
def alice(client, users):
    client.force_login(users.alice)
    return client


@pytest.fixture
def tiny(users):
    """alice's 8 DGX H100 in 2 SUs of 4 (r1): 8 leaves per SU, each taking one rail of 4 servers."""
    design = design_create(user=users.alice, spec=TINY)
    compute_now(design, users.alice)
    return design


def test_the_revision_page_shows_which_gpus_each_failure_hits(alice, tiny):
    response = alice.get(url("workspace:section", tiny.pk, 1, "failure"))
    html = response.content.decode()
    kinds = {f["kind"]: f for f in response.context["blast"]["data"]["failures"]}
    assert kinds["leaf"]["groups"][0]["text"] == (
        "4 GPUs (one per server), port OSFP1P1 of 4 servers in SU 1, lose their scale-out port"
    )
    assert 'id="blast-table"' in html and 'data-kind="leaf"' in html
    assert "4 GPUs (one per server), port OSFP1P1 of 4 servers in SU 1, lose their scale-out port" in html
    assert f"/designs/{tiny.pk}/revisions/1/links/?q=CF-SU01-L01" in html  # the leaf's links: the GPUs it hits


def test_a_large_revision_links_to_the_blast_radius_page(alice, tiny, settings):
    settings.DOWNLOAD_INLINE_MAX_CABLES = 1
    html = alice.get(url("workspace:section", tiny.pk, 1, "failure")).content.decode()
    assert 'id="blast-table"' not in html and url("exports:blast_radius", tiny.pk, 1) in html
    page = alice.get(url("exports:blast_radius", tiny.pk, 1))
    assert page.status_code == 200 and 'id="blast-table"' in page.content.decode()


def test_the_blast_radius_page_is_only_for_readers_of_the_design(client, users, tiny):
    client.force_login(users.bob)
    assert client.get(url("exports:blast_radius", tiny.pk, 1)).status_code == 404
    client.logout()
    assert client.get(url("exports:blast_radius", tiny.pk, 1)).status_code == 302  # to sign in


def test_the_spares_table_shows_both_rules_and_says_the_rates_are_defaults(alice, tiny):
    """8 servers in 2 SUs of 4: 16 leaves + 1 spine = 17 QM9700. Flat 5 %: ceil(0.85) = 1. At 2 %/year over
    2,160 h: lambda = 17 x 0.02 x 2160/8760 = 0.08384; P(0) = 0.91958 < 0.99, P(1) = 0.07710 -> 0.99668: 1."""
    html = alice.get(url("workspace:section", tiny.pk, 1, "failure")).content.decode()
    assert "placeholders to set" in html and "default</small>" in html
    response = alice.get(
        url(
            "workspace:section",
            tiny.pk,
            1,
            "failure",
            spares_percent="5",
            spares_afr_percent="switch:2",
            spares_replenish_hours="switch:2160",
            spares_service_level_percent="switch:99",
        )
    )
    rows = {r["part"]: r for r in response.context["spares"]["rows"]}
    qm = rows["MQM9700-NS2F"]
    assert (qm["percent"], qm["afr_percent"], qm["replenish_hours"], qm["service_level_percent"]) == (
        "5",
        "2",
        "2160",
        "99",
    )
    assert (qm["quantity"], qm["percent_spares"], qm["expected_failures"], qm["failure_rate_spares"]) == (
        17,
        1,
        0.0838,
        1,
    )
    assert qm["defaults"] is False
    assert 'id="spares-beside"' in response.content.decode()


def test_a_bad_failure_rate_is_a_form_error_at_its_field(alice, tiny):
    response = alice.get(url("workspace:section", tiny.pk, 1, "failure", spares_service_level_percent="100"))
    assert response.status_code == 200
    assert "is not a service level" in response.context["spares"]["form"].errors["spares_service_level_percent"][0]


def test_an_order_can_be_frozen_with_the_failure_rate_rule(alice, tiny):
    from apps.designs.models import OrderedBaseline

    response = alice.post(url("mark_ordered", tiny.pk, 1), {"spares_rule": "failure-rate", "spares_afr_percent": "3"})
    assert response.status_code == 302
    rule = OrderedBaseline.objects.get(design=tiny).order["spares_rule"]
    assert rule["kind"] == "failure-rate" and rule["afr_percent"]["switch"] == "3"


def test_compare_orders_with_the_failure_rate_rule_and_its_change_order_links_carry_it(alice, users):
    design = design_create(user=users.alice, spec=TINY)
    compute_now(design, users.alice)
    design.spec = {**design.spec, "servers": {"model": "dgx-h100", "count": 4}}
    design.save()
    compute_now(design, users.alice)
    response = alice.get(
        url("compare", design.pk, old=1, new=2, spares_rule="failure-rate", spares_afr_percent="switch:2")
    )
    assert response.status_code == 200
    order = response.context["order"]
    assert order["new"].spares_rule["kind"] == "failure-rate"
    assert all("Poisson" in r["spares_rule"] or "no expected" in r["spares_rule"] for r in order["rows"])
    html = response.content.decode()
    assert "spares_rule=failure-rate&amp;spares_afr_percent=switch%3A2" in html


def test_trunks_panels_and_racks_are_listed_with_isolated_and_degraded_gpus(alice, users):
    """The tiny design with its leaf-spine links through patch panels: the page lists the worst trunk, panel and
    rack with the GPUs isolated and degraded, and links the trunk and the panel to their cables."""
    design = design_create(
        user=users.alice, spec={**TINY, "physical": {"tiers": {"leaf-spine": {"cabling": "panels"}}}}
    )
    compute_now(design, users.alice)
    response = alice.get(url("workspace:section", design.pk, 1, "failure"))
    html = response.content.decode()
    kinds = {f["kind"]: f for f in response.context["blast"]["data"]["failures"]}
    assert {"trunk", "patch-panel", "rack", "leaf-uplink-transceiver", "spine-transceiver"} <= set(kinds)
    trunk, panel = kinds["trunk"], kinds["patch-panel"]
    for f in (trunk, panel):
        assert f["gpus_isolated"] + f["gpus_degraded"] == f["gpus_affected"] > 0
        assert f'data-kind="{f["kind"]}"' in html
    cables = f"/designs/{design.pk}/revisions/1/cables/?q="
    assert f"{cables}C{trunk['example'][1:]}" in html and f"{cables}{panel['example']}" in html
    listed = alice.get(f"{cables}C{trunk['example'][1:]}").content.decode()
    assert "trunk" in listed and f"C{trunk['example'][1:]}" in listed
