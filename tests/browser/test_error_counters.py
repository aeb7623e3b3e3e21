"""Error counters on the revision page, in headless Chromium: two sweeps imported through the form show each
flagged link's trend (a line per end from the baseline), the suspects and the checklist; a third sweep after
the counters were cleared shows the reset on the trend."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.apps.counters.helpers import errors_on, ibqueryerrors, switch_links
from tests.apps.designs.test_views import compute_now

from .test_design_session import PASSWORD, unlabelled_inputs

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TINY = {
    "name": "tiny",
    "servers": {"model": "dgx-h100", "count": 8},
    "compute_fabric": {"technology": "infiniband", "switch": "qm9700", "scalable_unit": 4},
}


def test_alice_imports_three_sweeps_and_sees_the_trend_the_suspects_and_the_reset(
    live_server, page, django_user_model, tmp_path
):
    """
    GIVEN alice's small design, computed (in this process: the worker is not what is under test)
    WHEN she imports a clean ibqueryerrors sweep, one an hour later with symbol errors on two leaf ports of one
         switch, and one more an hour later after the counters were cleared
    THEN the revision page lists both links as flagged after the second sweep, draws each one's trend from the
         baseline, shows the shared suspects with the checklist; after the third, the trend marks the reset.
    """
    from playwright.sync_api import expect

    from apps.designs.services import design_create

    alice = django_user_model.objects.create_user("alice", password=PASSWORD)
    revision = compute_now(design_create(user=alice, spec=TINY), alice)
    links = switch_links(revision, 2)
    t0 = timezone.localtime(timezone.now() - timedelta(hours=3))
    sweeps = [
        ("t0.txt", ibqueryerrors({}), t0),
        ("t1.txt", errors_on(links, SymbolErrorCounter=25), t0 + timedelta(hours=1)),
        ("t2.txt", ibqueryerrors({}), t0 + timedelta(hours=2)),
    ]
    for name, text, _ in sweeps:
        (tmp_path / name).write_text(text)

    page.goto(f"{live_server.url}/accounts/login/?next=/designs/{revision.design_id}/revisions/1/commissioning/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    section = page.locator("#counters")
    expect(section).to_contain_text("No counters yet")
    assert unlabelled_inputs(page) == []
    assert section.get_by_label("Counter file").count() == 1

    def import_sweep(name, at):
        section = page.locator("#counters")
        section.get_by_label("Counter file").set_input_files(str(tmp_path / name))
        section.get_by_label("Format").select_option("ibqueryerrors")
        section.get_by_label("Read at").fill(at.strftime("%Y-%m-%d %H:%M:%S"))
        section.get_by_role("button", name="Import counters").click()
        expect(page.locator(".messages")).to_contain_text("Counters read")

    for name, _, at in sweeps[:2]:
        import_sweep(name, at)
    labels = [f"L{lk.link_id:06d}" for lk in links]
    expect(section.locator("#counters-summary")).to_contain_text("2 flagged")
    for label in labels:
        row = section.locator(f'#counter-links tr[data-link="{label}"]')
        expect(row).to_contain_text("rising symbol errors")
        # the trend: end a's line from the baseline (0 errors) to 25 an hour later, end b flat
        points = row.locator("polyline.end-a").get_attribute("points").split()
        assert len(points) == 2 and points[0].split(",")[1] != points[1].split(",")[1]
        assert len(row.locator("polyline.end-b").get_attribute("points").split()) == 2
    top = section.locator("#counter-suspects li.suspect").first  # direct cords: the racks and parts they share
    for label in labels:
        expect(top).to_contain_text(label)
    expect(top).to_contain_text("Check the fiber route and the polarity")

    import_sweep("t2.txt", sweeps[2][2])
    expect(section.locator("#counters-summary")).to_contain_text("0 flagged")
    expect(section.locator("#counters-summary")).to_contain_text("2 with a counter reset")
    row = section.locator(f'#counter-links tr[data-link="{labels[0]}"]')
    expect(row).to_contain_text("reset: end a symbol_errors")
    expect(row.locator("rect.reset")).to_have_count(1)
    assert len(row.locator("polyline.end-a").get_attribute("points").split()) == 3
