"""Measured results back in, end to end in headless Chromium with a real worker: compute a small
design, download its test sheet, fill it in, upload it through the form, read the verdicts."""

from __future__ import annotations

import csv
import io
import os
import re
from pathlib import Path

import pytest

from .test_design_session import PASSWORD, open_section, unlabelled_inputs, wait_for_revision

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]

TINY = {
    "name": "tiny",
    "servers": {"model": "dgx-h100", "count": 8},
    "compute_fabric": {"technology": "infiniband", "switch": "qm9700", "scalable_unit": 4},
}


def test_alice_uploads_a_filled_test_sheet_and_sees_the_verdicts(
    live_server, celery_worker, page, django_user_model, tmp_path
):
    """
    GIVEN alice's small design, computed by the worker
    WHEN she downloads its test sheet, measures every fiber (one over its limit, one written in mW)
         and uploads it through the revision page's form
    THEN she sees one failing fiber and link, the bad row with its line and column, the failing link,
         and the measured links next to the loss budget on the revision page.
    """
    from playwright.sync_api import expect

    from apps.designs.services import design_create

    alice = django_user_model.objects.create_user("alice", password=PASSWORD)
    design = design_create(user=alice, spec=TINY)
    page.goto(f"{live_server.url}/accounts/login/?next=/designs/{design.pk}/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("button", name="Compute", exact=True).click()
    wait_for_revision(page, 1)
    open_section(page, "Cabling and labels")

    # The test sheet, from the link in the empty "Measured results" section.
    section = page.locator("#measured-results")
    expect(section).to_contain_text("No measured results yet")
    with page.expect_download() as info:
        section.get_by_role("link", name="test-sheet.csv").click()
    rows = list(csv.reader(io.StringIO(Path(info.value.path()).read_text(encoding="utf-8"))))
    header, body = rows[0], rows[1:]
    col = {c: i for i, c in enumerate(header)}
    for r in body:
        r[col["measured_loss_db"]] = "0.31"
    body[0][col["measured_loss_db"]] = f"{float(body[0][col['limit_db']]) + 1:.2f} dB"  # over its limit
    body[1][col["measured_loss_db"]] = "0.4 mW"  # not a loss in dB: reported, left out
    filled = tmp_path / "filled-test-sheet.csv"
    with open(filled, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows([header, *body])

    assert unlabelled_inputs(page) == []
    section.get_by_label("Filled test sheet (CSV)").set_input_files(str(filled))
    expect(section.get_by_label("Keep the valid rows when some rows have errors")).to_be_checked()
    section.get_by_role("button", name="Upload results").click()

    expect(page).to_have_url(re.compile(r"/revisions/1/measurements/\d+/$"))
    expect(page.get_by_role("status")).to_contain_text("Stored filled-test-sheet.csv")
    expect(page.locator('[data-metric="fibers-fail"]')).to_have_text("1")
    expect(page.locator('[data-metric="fibers-not-measured"]')).to_have_text("1")
    expect(page.locator('[data-metric="fibers-pass"]')).to_have_text(f"{len(body) - 2:,}")
    expect(page.locator('[data-metric="links-fail"]')).to_have_text("1")
    errors = page.locator("#measurement-errors")
    expect(errors).to_contain_text("'0.4 mW' is not an insertion loss in dB")
    expect(errors.locator("tbody tr")).to_have_count(1)
    expect(errors.locator("tbody td").first).to_have_text("3")
    expect(page.locator("#failing-links tbody tr")).to_have_count(1)
    expect(page.locator("#failing-links")).to_contain_text(body[0][col["link_id"]])
    if os.environ.get("FABRICDESIGN_UI_SCREENSHOT_MEASURED"):
        page.screenshot(path=os.environ["FABRICDESIGN_UI_SCREENSHOT_MEASURED"], full_page=True)

    # Back on the revision page: the upload is listed, and the loss budget shows the measured links.
    page.get_by_role("link", name="r1", exact=True).click()
    open_section(page, "Cabling and labels")
    expect(page.locator("#measured-links")).to_contain_text("1 fail")
    expect(page.locator("#measurement-uploads")).to_contain_text("filled-test-sheet.csv")
    expect(page.locator("#measurement-uploads")).to_contain_text("alice")
