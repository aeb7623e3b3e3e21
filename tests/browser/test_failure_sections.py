"""Designing for failure on the revision page, in headless Chromium with a real worker: the blast radius of a
leaf, and spares from failure rates beside the flat percent."""

from __future__ import annotations

import pytest

from tests.browser.test_design_session import PASSWORD, open_section, wait_for_revision

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]

SPEC = {
    "name": "SuperPOD 4 SU",
    "servers": {"model": "dgx-h100", "count": 128},
    "compute_fabric": {"technology": "infiniband", "switch": "qm9700", "scalable_unit": 32},
}


def test_a_reliability_engineer_reads_the_blast_radius_and_sets_failure_rates(
    live_server, celery_worker, page, django_user_model
):
    """
    GIVEN alice's 128 DGX H100 in 4 SUs, computed
    THEN the revision page says a leaf failure takes 32 GPUs, one per server, off the fabric (jobs abort) and a
      spine costs 6.25 % beyond the leaf (jobs continue)
    AND the spares table says its failure rates are defaults to set
    WHEN she sets switches to 2 %/year, 2,160 h, 99 %
    THEN the 48 QM9700 get 2 spares beside the flat rule's, and switches are no longer marked default.
    """
    from playwright.sync_api import expect

    from apps.designs.services import design_create

    alice = django_user_model.objects.create_user("alice", password=PASSWORD)
    design = design_create(user=alice, spec=SPEC)
    page.goto(f"{live_server.url}/accounts/login/?next=/designs/{design.pk}/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("button", name="Compute", exact=True).click()
    wait_for_revision(page, 1)
    open_section(page, "Failure and spares")

    leaf = page.locator("#blast-table tr[data-kind='leaf']")
    expect(leaf).to_contain_text(
        "32 GPUs (one per server), port OSFP1P1 of 32 servers in SU 1, lose their scale-out port"
    )
    expect(leaf).to_contain_text("abort")
    spine = page.locator("#blast-table tr[data-kind='spine']")
    expect(spine).to_contain_text("6.25 % of their bandwidth to GPUs under other leaves")
    expect(spine).to_contain_text("degraded")

    expect(page.locator("#spares-defaults-note")).to_contain_text("placeholders to set")
    qm = page.locator("#spares-beside tr", has_text="QM9700")
    expect(qm).to_contain_text("default")
    form = page.get_by_role("form", name="Spares inputs")
    form.get_by_label("Spares %").fill("5")
    form.get_by_label("Annual failure rate %").fill("switch:2")
    form.get_by_label("Replenishment time (h)").fill("switch:2160")
    form.get_by_label("Service level %").fill("switch:99")
    form.get_by_role("button", name="Show spares").click()
    qm = page.locator("#spares-beside tr", has_text="QM9700")
    cells = qm.locator("td")
    expect(cells.nth(2)).to_have_text("48")
    expect(cells.nth(4)).to_have_text("3")  # flat: ceil(48 x 5 %)
    expect(cells.nth(8)).to_have_text("0.2367")
    expect(cells.nth(9)).to_have_text("2")  # Poisson 99 % quantile of 0.2367
    expect(qm).not_to_contain_text("default")
    expect(page.locator("#spares-beside tr", has_text="MMA4Z00-NS-FLT")).to_contain_text("default")
