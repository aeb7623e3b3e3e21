"""The revision workspace in headless Chromium: every section of an InfiniBand, a RoCE and a two-plane B300
revision opens from the persistent navigation with no Content-Security-Policy violation and no console error.
The revisions are computed in this process (as the worker would); the designs are small so the walk is quick."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.browser.test_design_session import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]

DESIGNS = {
    "infiniband": {
        "name": "IB with a workload",
        "servers": {"model": "dgx-h100", "count": 64},
        "compute_fabric": {"technology": "infiniband", "switch": "qm9700", "scalable_unit": 32},
        "workloads": ["llama-70b-tp8-pp4-dp16"],
    },
    "roce": {
        "name": "RoCE",
        "servers": {"model": "hgx-8gpu", "count": 16},
        "compute_fabric": {"technology": "ethernet", "switch": "sn5600", "oversubscription": "1:1"},
    },
    "b300-two-planes": {
        "name": "B300 two planes",
        "servers": {"model": "dgx-b300", "count": 128},
        "compute_fabric": {"technology": "ethernet", "switch": "sn5600", "planes": 2, "scalable_unit": 64},
    },
}


@pytest.fixture
def revisions(transactional_db, django_user_model):
    from apps.designs.services import design_create
    from tests.apps.designs.test_views import compute_now

    alice = django_user_model.objects.create_user("alice", password=PASSWORD)
    return {key: compute_now(design_create(user=alice, spec=spec), alice) for key, spec in DESIGNS.items()}


def test_every_section_of_three_revisions_opens_without_a_console_error(live_server, revisions, page):
    """
    GIVEN alice's InfiniBand (with a workload's charts), RoCE and two-plane B300 revisions
    WHEN she opens the overview and then every section from the navigation
    THEN no page reports a CSP violation or any other console error, each section is the current one in the
    navigation, and the overview fits in three screen heights at 1366x768.
    """
    from playwright.sync_api import expect

    from apps.common.workspace import sections

    console: list[str] = []
    page.on("console", lambda m: console.append(f"{page.url}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda exc: console.append(f"{page.url}: {exc}"))
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()

    nav = page.get_by_role("navigation", name="Revision sections")
    for key, revision in revisions.items():
        page.goto(f"{live_server.url}/designs/{revision.design_id}/revisions/{revision.number}/")
        expect(page.locator("#glance")).to_be_visible()
        height = page.evaluate("document.documentElement.scrollHeight")
        assert height <= 3 * 768, f"{key}: the overview is {height} px high"
        shot(page, key, "overview")
        for section in sections():
            nav.get_by_role("link", name=section.title, exact=True).click()
            expect(nav.locator("[aria-current=page]")).to_have_text(section.title)
            page.wait_for_load_state("networkidle")
            assert page.locator(f"#section-{section.key}").count() == 1, (key, section.key)
            shot(page, key, section.key)
        if key == "infiniband":
            nav.get_by_role("link", name="Traffic", exact=True).click()
            # count() does not wait: the click only starts the navigation, so wait for the page it lands on
            expect(nav.locator("[aria-current=page]")).to_have_text("Traffic")
            expect(page.locator(".charts svg")).to_have_count(2)
            # the bars keep their colours: the fill is an attribute the CSP lets through
            expect(page.locator(".charts svg rect[fill^='rgb(']").first).to_be_visible()

    assert console == [], "console errors:\n" + "\n".join(console)


def shot(page, design: str, section: str) -> None:
    """FABRICDESIGN_WORKSPACE_SCREENSHOTS=docs/examples/workspace writes one screenshot per page (first screen)."""
    folder = os.environ.get("FABRICDESIGN_WORKSPACE_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{design}-{section}.png"))
