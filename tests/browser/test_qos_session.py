"""The QoS policy of a RoCE design, end to end in headless Chromium with a real worker."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.browser.test_design_session import PASSWORD, open_section, unlabelled_inputs, wait_for_revision

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]


def test_alice_edits_the_qos_policy_computes_and_downloads_a_switch_config(
    live_server, celery_worker, page, django_user_model
):
    """
    GIVEN alice's design from the generic 8-GPU RoCE preset, and a running worker
    WHEN she opens its QoS page, switches to PFC-only, marks RoCE with DSCP 24, saves and computes
    THEN the revision page's QoS section shows the checks, the headroom and one file per switch,
    AND the leaf switch's NVUE file she downloads maps DSCP 24 to the lossless priority.
    """
    from playwright.sync_api import expect

    from apps.designs.services import design_create

    alice = django_user_model.objects.create_user("alice", password=PASSWORD)
    design = design_create(user=alice, preset="hgx-roce-2su")
    page.goto(f"{live_server.url}/accounts/login/?next=/designs/{design.pk}/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()

    # The QoS page: the Ethernet defaults, every field labelled, the trade-off explained.
    page.get_by_role("link", name="QoS policy").click()
    expect(page.get_by_role("heading", name="QoS and congestion control")).to_be_visible()
    expect(page.get_by_label("ECN + DCQCN, PFC as a backstop (NVIDIA's default)")).to_be_checked()
    dscp = page.get_by_label("RoCE data (lossless): DSCP")
    expect(dscp).to_have_value("26")
    expect(page.get_by_text("the PFC watchdog is essential")).to_be_visible()
    assert unlabelled_inputs(page) == []
    if os.environ.get("FABRICDESIGN_QOS_SCREENSHOT"):  # e.g. /tmp/qos (writes -page.png and -revision.png)
        page.screenshot(path=os.environ["FABRICDESIGN_QOS_SCREENSHOT"] + "-page.png", full_page=True)

    # A mistake is shown at its field and keeps what was typed.
    dscp.fill("24, 99")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator("#id_roce__dscp_errors")).to_contain_text("must be an integer from 0 to 63")
    expect(page.get_by_label("RoCE data (lossless): DSCP")).to_have_value("24, 99")

    # Fixed, saved, then computed.
    page.get_by_label("PFC only, no ECN or DCQCN (Meta at 400G)").check()
    page.get_by_label("RoCE data (lossless): DSCP").fill("24")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_text("Saved the QoS policy.")).to_be_visible()
    expect(page.get_by_label("PFC only, no ECN or DCQCN (Meta at 400G)")).to_be_checked()
    expect(page.get_by_label("RoCE data (lossless): DSCP")).to_have_value("24")
    page.get_by_role("button", name="Save and compute").click()
    wait_for_revision(page, 1)
    open_section(page, "QoS")

    # The revision's QoS section loads its report.
    report = page.locator("#qos-report")
    expect(report).to_contain_text("Consistency checks")
    expect(report).to_contain_text("pfc-only")
    expect(page.locator("#qos-worst-ports")).to_contain_text("D-Resp")
    expect(page.locator("#qos-files")).to_contain_text("CF-SU01-L01.nvue.txt")
    if os.environ.get("FABRICDESIGN_QOS_SCREENSHOT"):
        page.locator("#qos").screenshot(path=os.environ["FABRICDESIGN_QOS_SCREENSHOT"] + "-revision.png")

    with page.expect_download() as info:
        page.get_by_role("link", name="CF-SU01-L01.nvue.txt", exact=True).click()
    download = info.value
    assert download.suggested_filename == "CF-SU01-L01.nvue.txt"
    text = Path(download.path()).read_text(encoding="utf-8")
    assert "nv set qos mapping default-global dscp 24 switch-priority 3" in text
    assert re.search(r"^nv config apply -y$", text, re.M)
