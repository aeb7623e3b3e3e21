"""A large file in the browser: its link starts a background build, the page shows the build's progress, and the
browser then downloads the file; the second time it comes straight from the store. Headless Chromium, a real
worker."""

from __future__ import annotations

import re
import time

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]

PASSWORD = "correct-horse-battery-staple"
SPEC = {
    "name": "Big enough",
    "servers": {"model": "dgx-h100", "count": 32},
    "compute_fabric": {"technology": "infiniband", "switch": "qm9700"},
}


def _computed_and_open(live_server, page, django_user_model, spec: dict, section: str):
    """alice's design computed by the worker, a section of its revision open in the browser, signed in as alice."""
    from apps.designs.services import design_compute_enqueue, design_create
    from apps.jobs.models import Job

    alice = django_user_model.objects.create_user("alice", password=PASSWORD)
    design = design_create(user=alice, spec=spec)
    job = design_compute_enqueue(design=design, user=alice)
    deadline = time.monotonic() + 120
    while not Job.objects.filter(pk=job.pk, status="succeeded").exists():
        assert time.monotonic() < deadline, "the worker did not compute the design"
        time.sleep(0.2)

    page.goto(f"{live_server.url}/accounts/login/?next=/designs/{design.pk}/revisions/1/{section}/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    return design


def test_a_large_file_shows_its_build_progress_then_downloads(
    live_server, celery_worker, page, django_user_model, settings
):
    from playwright.sync_api import expect

    from apps.jobs.models import Job

    settings.DOWNLOAD_INLINE_MAX_CABLES = 0  # every rendered file of this design is "large"
    design = _computed_and_open(live_server, page, django_user_model, SPEC, "files")
    expect(page.get_by_text("(built in the background)").first).to_be_visible()

    with page.expect_download(timeout=120_000) as download:
        page.get_by_role("link", name="labels.pdf", exact=True).click()
        expect(page.get_by_role("heading", name=re.compile(r"^Building labels\.pdf of r1"))).to_be_visible()
        expect(page.get_by_label("Build progress")).to_be_attached()
    path = download.value.path()
    assert download.value.suggested_filename == "big-enough-r1-labels.pdf"
    with open(path, "rb") as fh:
        assert fh.read(4) == b"%PDF"
    expect(page.get_by_role("link", name="Download labels.pdf")).to_be_visible()

    page.goto(f"{live_server.url}/designs/{design.pk}/revisions/1/files/")
    link = page.get_by_role("link", name="labels.pdf", exact=True)
    expect(link).to_have_attribute("download", "")  # stored now: a plain download
    with page.expect_download() as again:
        link.click()
    assert again.value.suggested_filename == "big-enough-r1-labels.pdf"
    # one build of labels.pdf (the page's QoS section queues configs.zip's build of its own)
    assert Job.objects.filter(kind="export", params__kind="labels.pdf").count() == 1


ROCE = {
    "name": "Big RoCE",
    "servers": {"model": "hgx-8gpu", "count": 8},
    "compute_fabric": {"technology": "ethernet", "switch": "sn5600"},
}


def test_a_large_revisions_qos_section_shows_its_build_then_the_report(
    live_server, celery_worker, page, django_user_model, settings
):
    """The QoS report of a large revision is read from its configs.zip, which a worker builds first: the revision
    page's QoS section shows that build's progress, then the report, whose file links download from the store."""
    from playwright.sync_api import expect

    from apps.jobs.models import Job

    settings.DOWNLOAD_INLINE_MAX_CABLES = 0
    _computed_and_open(live_server, page, django_user_model, ROCE, "congestion")

    section = page.locator("#qos-report")
    # The build is queued by the section's first fetch; its progress shows until the worker is done (or, on a
    # fast worker, the report follows at once: either way the report must arrive without a reload).
    expect(
        section.get_by_role("heading", name=re.compile(r"^(Building configs\.zip of r1|Consistency checks)"))
    ).to_be_visible()
    expect(section.get_by_role("heading", name="Consistency checks")).to_be_visible(timeout=120_000)
    assert Job.objects.filter(kind="export", params__kind="configs.zip", status="succeeded").count() == 1

    with page.expect_download() as download:
        section.get_by_role("link", name="policy.json", exact=True).click()
    assert download.value.suggested_filename == "policy.json"
    with open(download.value.path(), encoding="utf-8") as fh:
        assert '"mode": "dcqcn"' in fh.read()
