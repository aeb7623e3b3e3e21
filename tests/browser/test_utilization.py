"""Utilization against the plan, end to end in headless Chromium with a real worker: compute a design, import two
counter snapshots through the revision page's form, read the report naming the hot spine and the idle rail."""

from __future__ import annotations

import json

import pytest

from .test_design_session import PASSWORD, unlabelled_inputs, wait_for_revision

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]

SMALL = {
    "name": "small",
    "servers": {"model": "dgx-h100", "count": 32},
    "compute_fabric": {"technology": "infiniband", "switch": "qm9700"},
}
INTERVAL_S = 60
FULL = 400e9 / 8 * INTERVAL_S


def _counters(revision) -> tuple[dict, str]:
    rows = list(revision.links.filter(tier="leaf-spine").values_list("a_device", "a_port", "b_device"))
    hot = sorted({b for *_, b in rows})[1]
    before, after = [], []
    for leaf, port, spine in rows:
        rail = int(leaf.rsplit("-L", 1)[1])
        util = 0.0 if rail == 2 else 1.0 if spine == hot else 0.5
        before.append({"device": leaf, "port": port, "tx_bytes": 10})
        after.append({"device": leaf, "port": port, "tx_bytes": 10 + util * FULL})
    return {"interval_s": INTERVAL_S, "before": before, "after": after}, hot


def test_alice_imports_counters_and_sees_the_hot_spine_and_idle_rail(
    live_server, celery_worker, page, django_user_model, tmp_path
):
    """
    GIVEN alice's 32-node design, computed by the worker
    WHEN she opens the revision's utilization page from its Monitoring section and imports two counter
         snapshots in which rail 2 sent nothing and one spine carried twice its share
    THEN the report names spine hot and rail 2 idle with their likely causes, and the revision page
         shows the latest snapshot.
    """
    from playwright.sync_api import expect

    from apps.designs.services import design_create

    alice = django_user_model.objects.create_user("alice", password=PASSWORD)
    design = design_create(user=alice, spec=SMALL)
    page.goto(f"{live_server.url}/accounts/login/?next=/designs/{design.pk}/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("button", name="Compute", exact=True).click()
    wait_for_revision(page, 1)
    page.goto(f"{live_server.url}/designs/{design.pk}/revisions/1/monitoring/")

    section = page.locator("#monitoring")
    expect(section).to_contain_text("No utilization snapshot imported yet")
    expect(section.get_by_role("link", name="prometheus-rules.yaml")).to_be_visible()
    section.get_by_role("link", name="Utilization snapshots (0)").click()

    snapshot, hot = _counters(design.revisions.get(number=1))
    path = tmp_path / "counters.json"
    path.write_text(json.dumps(snapshot))
    form = page.get_by_role("form", name="Import a utilization snapshot")
    assert unlabelled_inputs(page) == []
    form.get_by_label("Snapshot (JSON)").set_input_files(str(path))
    form.get_by_label("Format").select_option("counters")
    form.get_by_label("Label").fill("after job 7")
    form.get_by_role("button", name="Import").click()

    imbalance = page.locator("#imbalance")
    expect(imbalance.locator(f'article[data-dimension="spine"][data-name="{hot}"][data-kind="hot"]')).to_be_visible()
    expect(imbalance.locator('article[data-dimension="rail"][data-name="2"][data-kind="idle"]')).to_contain_text(
        "placement"
    )
    expect(page.locator("#groups-spine")).to_contain_text(hot)
    page.goto(f"{live_server.url}/designs/{design.pk}/revisions/1/monitoring/")
    expect(page.locator("#utilization-latest")).to_contain_text("after job 7")
    expect(page.locator("#utilization-latest")).to_contain_text(f"spine {hot} hot")
