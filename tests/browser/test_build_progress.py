"""Build progress in headless Chromium with a real worker: a small InfiniBand design, an as-built CSV with one pair
of cables crossed uploaded through the revision page, and the "Build progress" section shows per SU and per rack
where the build stands."""

from __future__ import annotations

import os

import pytest

from .test_commissioning import TINY, asbuilt, reload_until
from .test_design_session import PASSWORD, open_section, wait_for_revision

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]


def test_the_site_lead_sees_which_su_and_rack_hold_the_build_back(
    live_server, celery_worker, page, django_user_model, tmp_path
):
    """
    GIVEN alice's 8 DGX H100 in 2 SUs of 4, computed by the worker
    WHEN she uploads a CSV of what is cabled, the first two cables crossed (both in SU 1's first server rack)
    THEN "Build progress" shows SU 1 and that rack cabling with 2 links wrong, and every link cabled elsewhere;
         none is verified yet, since no fiber was measured.
    """
    from playwright.sync_api import expect

    from apps.designs.models import LinkRecord, Revision
    from apps.designs.services import design_create

    alice = django_user_model.objects.create_user("alice", password=PASSWORD)
    design = design_create(user=alice, spec=TINY)
    page.goto(f"{live_server.url}/accounts/login/?next=/designs/{design.pk}/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("button", name="Compute", exact=True).click()
    wait_for_revision(page, 1)
    open_section(page, "Commissioning")
    revision = Revision.objects.get(design=design, number=1)
    progress = page.locator("#build-progress")
    expect(progress.locator("#progress-empty")).to_contain_text("every link is planned")

    crossed = tmp_path / "asbuilt-crossed.csv"
    crossed.write_bytes(asbuilt(revision, cross=True))
    section = page.locator("#commissioning")
    section.get_by_label("As-built file", exact=True).set_input_files(str(crossed))
    section.get_by_label("Format").select_option("csv")
    section.get_by_role("button", name="Import as-built").click()
    reload_until(page, "#progress-sus")

    first = LinkRecord.objects.filter(revision=revision).order_by("link_id").first()
    su1 = progress.locator('#progress-sus tr[data-name="1"]')
    expect(su1).to_have_attribute("data-state", "cabling")
    expect(su1.locator('[data-metric="verified"]')).to_have_text("0")
    progress.get_by_text("By rack").click()
    rack = progress.locator(f'#progress-racks tr[data-name="{first.a_rack}"]')
    expect(rack).to_have_attribute("data-state", "cabling")
    expect(rack.locator("td").nth(6)).to_have_text("2")  # wrong: the crossed pair
    total = progress.locator("#progress-sus tr.total")
    expect(total.locator('[data-metric="cabled"]')).to_have_text(str(revision.link_count - 2))
    if os.environ.get("PROGRESS_SCREENSHOT"):
        progress.screenshot(path=os.environ["PROGRESS_SCREENSHOT"])
