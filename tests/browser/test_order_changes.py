"""A buyer's change order, end to end in headless Chromium with a real worker: 127 servers shrink to 95."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from tests.browser.test_design_session import PASSWORD, open_section, wait_for_revision

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]


def test_shrinking_to_95_servers_shows_removed_cords_in_compare_and_in_the_change_order(
    live_server, celery_worker, page, django_user_model
):
    """
    GIVEN alice's DGX H100 4-SU design (127 servers) computed and marked ordered with 5 % spares
    WHEN she changes the servers to 95, computes again and compares with what was ordered
    THEN the cords that disappeared show as removed with negative quantity and order changes,
    AND the change order she downloads says the same.
    """
    from playwright.sync_api import expect

    from apps.designs.services import design_create
    from engine.presets import load_preset

    alice = django_user_model.objects.create_user("alice", password=PASSWORD)
    design = design_create(user=alice, spec=load_preset("dgx-h100-superpod-4su"))
    page.goto(f"{live_server.url}/accounts/login/?next=/designs/{design.pk}/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("button", name="Compute", exact=True).click()
    wait_for_revision(page, 1)
    open_section(page, "Bill of materials and orders")

    # r1 is what was bought: mark it ordered with 5 % spares.
    ordered = page.get_by_role("form", name="Mark as ordered")
    ordered.get_by_label("Spares %").fill("5")
    ordered.get_by_role("button", name="Mark r1 as ordered").click()
    expect(page.locator("#ordered-baseline")).to_contain_text("r1 was marked ordered by alice")

    # 127 -> 95 servers, compute again.
    page.get_by_role("link", name=design.name).first.click()
    page.get_by_role("link", name="Edit spec").click()
    count = page.get_by_label("Count", exact=True)
    expect(count).to_have_value("127")
    count.fill("95")
    page.get_by_role("button", name="Save and compute", exact=True).click()
    # the job page polls and opens r2 itself (no reload: a fast job may be navigating away already)
    wait_for_revision(page, 2)
    open_section(page, "Bill of materials and orders")
    expect(page.locator("#ordered-baseline")).to_contain_text("compare this revision with what was ordered")
    page.get_by_role("link", name="compare this revision with what was ordered").click()

    # Compare: the 3 m cords are gone (168 in the order, 177 with spares), signed, labelled "removed".
    cord = page.locator("#order-delta tr[data-part='MFP7E10-N030']")
    expect(cord).to_contain_text("removed")
    expect(cord.locator("td").nth(2)).to_have_text("168")
    expect(cord.locator("td").nth(3)).to_have_text("0")
    expect(cord.locator("td").nth(4)).to_have_text("-168")
    expect(cord.locator("td").nth(5)).to_have_text("-9")
    expect(cord.locator("td").nth(6)).to_have_text("-177")
    expect(page.locator("#order-basis")).to_contain_text("r1 (ordered)")
    expect(page.locator("#order-lines-removed")).not_to_have_text("0")
    # every changed line is signed; the parts come under human category titles
    expect(page.locator("#order-delta th[scope=rowgroup]").first).to_have_text("Switches")
    for text in page.locator("#order-delta tbody tr[data-part] td:nth-child(7)").all_inner_texts():
        assert text == "0" or text[0] in "+-", text

    # The change order a buyer sends says the same.
    with page.expect_download() as info:
        page.locator("#change-order-csv").click()
    download = info.value
    assert download.suggested_filename == f"design-{design.pk}-change-order-ordered-to-r2.csv"
    rows = list(csv.DictReader(io.StringIO(Path(download.path()).read_text(encoding="utf-8"))))
    line = next(r for r in rows if r["section"] == "line" and r["part"] == "MFP7E10-N030")
    assert (line["status"], line["old_quantity"], line["new_quantity"]) == ("removed", "168", "0")
    assert (line["delta_quantity"], line["delta_spares"], line["delta_order_quantity"]) == ("-168", "-9", "-177")
    removed = {r["part"] for r in rows if r["section"] == "line" and r["status"] == "removed"}
    assert {"MFP7E10-N030", "MFP7E10-N003"} <= removed
    assert all(int(r["delta_order_quantity"]) < 0 for r in rows if r["section"] == "line" and r["status"] == "removed")
