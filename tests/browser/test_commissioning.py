"""Commissioning end to end in headless Chromium with a real worker: compute a small InfiniBand design, upload an
as-built file through the revision page's form (one pair of cables crossed), see the classes and the fix list
the worker's job produced; download the fix list; upload the corrected file and see it clear."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from .test_design_session import PASSWORD, open_section, unlabelled_inputs, wait_for_revision

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]

TINY = {
    "name": "tiny",
    "servers": {"model": "dgx-h100", "count": 8},
    "compute_fabric": {"technology": "infiniband", "switch": "qm9700", "scalable_unit": 4},
}
CLASSIFY_TIMEOUT_S = 90


def asbuilt(revision, cross: bool) -> bytes:
    from apps.designs.models import LinkRecord

    rows = [
        [lk.a_device, lk.a_port, lk.b_device, lk.b_port]
        for lk in LinkRecord.objects.filter(revision=revision).order_by("link_id")
    ]
    if cross:
        rows[0][2:], rows[1][2:] = rows[1][2:], rows[0][2:]
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["device", "port", "neighbor_device", "neighbor_port"])
    w.writerows(rows)
    return out.getvalue().encode()


def reload_until(page, selector: str, timeout_s: float = CLASSIFY_TIMEOUT_S) -> None:
    """The job classifies in the background: reload the revision page until `selector` is there."""
    import time

    deadline = time.monotonic() + timeout_s
    while page.locator(selector).count() == 0:
        assert time.monotonic() < deadline, f"{selector} did not appear"
        time.sleep(0.5)
        page.reload()


def test_alice_uploads_an_asbuilt_file_and_sees_the_classes_and_the_fix_list(
    live_server, celery_worker, page, django_user_model, tmp_path
):
    """
    GIVEN alice's small InfiniBand design, computed by the worker
    WHEN she uploads a CSV of what is cabled, two cables crossed, through the Commissioning form
    THEN the worker's job classifies it: 2 swapped, the rest ok, state "cabling", a fix list of one row (one
         swap at the server both cables meet) naming the cords, and fix-list.csv downloads with the same row;
    AND the corrected file, uploaded next, leaves no problem.
    """
    from playwright.sync_api import expect

    from apps.designs.models import Revision
    from apps.designs.services import design_create

    alice = django_user_model.objects.create_user("alice", password=PASSWORD)
    design = design_create(user=alice, spec=TINY)
    page.goto(f"{live_server.url}/accounts/login/?next=/designs/{design.pk}/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("button", name="Compute", exact=True).click()
    wait_for_revision(page, 1)
    revision = Revision.objects.get(design=design, number=1)
    open_section(page, "Commissioning")

    section = page.locator("#commissioning")
    expect(section).to_contain_text("No as-built file yet")
    expect(section.locator("#revision-state")).to_have_text("planned")
    crossed = tmp_path / "asbuilt-crossed.csv"
    crossed.write_bytes(asbuilt(revision, cross=True))
    assert unlabelled_inputs(page) == []
    section.get_by_label("As-built file", exact=True).set_input_files(str(crossed))
    section.get_by_label("Format").select_option("csv")
    section.get_by_role("button", name="Import as-built").click()
    expect(page.get_by_role("status").first).to_contain_text("Stored asbuilt-crossed.csv")

    reload_until(page, "#fix-list")
    expect(section.locator('[data-metric="swapped"]')).to_have_text("2")
    expect(section.locator('[data-metric="ok"]')).to_have_text(str(revision.link_count - 2))
    expect(section.locator("#revision-state")).to_have_text("cabling")
    rows = section.locator("#fix-list tbody tr")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("swap the cords at DGX-SU01-N01 OSFP1P1 and OSFP1P2")
    with page.expect_download() as info:
        section.get_by_role("link", name="fix-list.csv").click()
    lines = Path(info.value.path()).read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("problem,class,rack,cable_id") and len(lines) == 2

    fixed = tmp_path / "asbuilt-fixed.csv"
    fixed.write_bytes(asbuilt(revision, cross=False))
    section.get_by_label("As-built file", exact=True).set_input_files(str(fixed))
    section.get_by_label("Format").select_option("csv")
    section.get_by_role("button", name="Import as-built").click()
    reload_until(page, "#fix-list-empty")
    expect(section.locator('[data-metric="swapped"]')).to_have_text("0")
    expect(section.locator('[data-metric="ok"]')).to_have_text(str(revision.link_count))
