"""Fixing an incomplete BOM from the browser (issue 17), end to end in headless Chromium with a real worker."""

from __future__ import annotations

import re

import pytest
import yaml

from tests.browser.test_design_session import (
    COMPUTE_TIMEOUT_MS,
    PASSWORD,
    open_section,
    unlabelled_inputs,
    wait_for_revision,
)
from tests.engine.stage.test_catalog_completeness import LAB_MODULE, LAB_SPEC, LAB_SWITCH

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]


def test_alice_adds_a_fitting_part_on_the_catalog_page_and_the_bom_becomes_complete(
    live_server, celery_worker, page, django_user_model
):
    """
    GIVEN alice's design whose in-band switch (her own) has OSFP 100G cages no catalog part fits
    WHEN she computes it, THEN the revision page says the BOM is incomplete;
    AND WHEN she adds a fitting transceiver on the catalog page and computes again,
    THEN the new revision's BOM is complete.
    """
    from playwright.sync_api import expect

    from apps.catalog.services import custom_part_save
    from apps.designs.services import design_create

    alice = django_user_model.objects.create_user("alice", password=PASSWORD)
    custom_part_save(user=alice, section="switches", key="lab-osfp100", body=LAB_SWITCH)
    design = design_create(user=alice, spec=LAB_SPEC)

    page.goto(f"{live_server.url}/accounts/login/?next=/designs/{design.pk}/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("button", name="Compute", exact=True).click()
    wait_for_revision(page, 1)
    banner = page.locator("#bom-incomplete")
    expect(banner).to_contain_text(re.compile(r"INCOMPLETE: \d+ links have no part"))
    expect(banner).to_contain_text("inband/node-leaf")

    # The banner points at the catalog page, where the shipped parts can be searched.
    banner.get_by_role("link", name="catalog page").click()
    expect(page.get_by_role("heading", name="Catalog", exact=True)).to_be_visible()
    assert unlabelled_inputs(page) == []
    page.get_by_label("Search").fill("osfp 100g")
    page.get_by_role("button", name="Search").click()
    expect(page.locator("#catalog-parts")).to_contain_text("lab-osfp100")

    # A part the engine refuses is shown with the reason and nothing is saved.
    form = page.locator("#part-form")
    form.get_by_label("Section").select_option("transceivers")
    form.get_by_label("Entry (YAML").fill(yaml.safe_dump(dict(LAB_MODULE, pmd="100gbase-xx")))
    form.get_by_role("button", name="Add part").click()
    expect(page.locator("#part-errors")).to_contain_text("unknown PMD")

    form = page.locator("#part-form")
    form.get_by_label("Entry (YAML").fill(yaml.safe_dump(LAB_MODULE))
    form.get_by_role("button", name="Add part").click()
    expect(page.locator(".messages")).to_contain_text("Saved your transceivers part LAB-OSFP-100G-DR")
    expect(page.locator("#own-parts")).to_contain_text("LAB-OSFP-100G-DR")

    page.goto(f"{live_server.url}/designs/{design.pk}/")
    page.get_by_role("button", name="Compute", exact=True).click()
    wait_for_revision(page, 2)
    expect(page.locator("#bom-incomplete")).to_have_count(0)
    open_section(page, "Bill of materials and orders")
    expect(page.locator("#bom")).to_contain_text("LAB-OSFP-100G-DR", timeout=COMPUTE_TIMEOUT_MS)
