"""Large uploads are read by a real worker, never in the web process (issue 44), end to end in headless Chromium:
a measured-results sheet and a counter file over their read-in-request sizes go from the form to their job's
page, which moves on to the result once the worker has read them; a sheet the worker refuses leaves nothing."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

from .test_design_session import PASSWORD, open_section, wait_for_revision
from .test_measured_results import TINY

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]


def test_large_uploads_are_read_by_the_worker_and_the_page_follows_them(
    live_server, celery_worker, page, django_user_model, tmp_path, settings
):
    from playwright.sync_api import expect

    from apps.counters.models import CounterSnapshot
    from apps.designs.services import design_create
    from apps.jobs.models import Job
    from apps.measurements.models import MeasurementUpload
    from tests.apps.counters.helpers import errors_on, switch_links

    settings.MEASUREMENTS_READ_IN_REQUEST_BYTES = 1_000  # the live server's: every sheet here is "large"
    settings.COUNTERS_READ_IN_REQUEST_BYTES = 100
    alice = django_user_model.objects.create_user("alice", password=PASSWORD)
    design = design_create(user=alice, spec=TINY)
    page.goto(f"{live_server.url}/accounts/login/?next=/designs/{design.pk}/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("button", name="Compute", exact=True).click()
    wait_for_revision(page, 1)
    open_section(page, "Cabling and labels")

    section = page.locator("#measured-results")
    with page.expect_download() as info:
        section.get_by_role("link", name="test-sheet.csv").click()
    rows = list(csv.reader(io.StringIO(Path(info.value.path()).read_text(encoding="utf-8"))))
    header, body = rows[0], rows[1:]
    col = {c: i for i, c in enumerate(header)}
    for r in body:
        r[col["measured_loss_db"]] = "0.31"
    filled = tmp_path / "large-sheet.csv"
    with open(filled, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows([header, *body])
    section.get_by_label("Filled test sheet (CSV)").set_input_files(str(filled))
    section.get_by_role("button", name="Upload results").click()

    # The job's page, then (the worker has judged it) the upload's own page with its verdicts.
    expect(page).to_have_url(
        re.compile(r"/revisions/1/measurements/\d+/$"), timeout=90_000
    )  # a real worker on a loaded CI machine
    expect(page.locator('[data-metric="fibers-pass"]')).to_have_text(f"{len(body):,}")
    assert Job.objects.get(kind="measurements").status == "succeeded"
    assert MeasurementUpload.objects.get().read is True

    # A sheet the worker refuses: the job's page says why, and nothing is kept.
    page.goto(f"{live_server.url}/designs/{design.pk}/revisions/1/cabling/")
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("fiber,loss\n" + "F1,0.3\n" * 400, encoding="utf-8")
    page.locator("#measured-results").get_by_label("Filled test sheet (CSV)").set_input_files(str(wrong))
    page.locator("#measured-results").get_by_role("button", name="Upload results").click()
    expect(page.locator("body")).to_contain_text(
        "wrong.csv was refused and not kept", timeout=90_000
    )  # a real worker on a loaded CI machine
    assert MeasurementUpload.objects.count() == 1

    # A counter file: its job's page, then the revision's counters.
    revision = design.revisions.get(number=1)
    sweep = tmp_path / "sweep.txt"
    sweep.write_text(errors_on(switch_links(revision, n=2), SymbolErrorCounter=9), encoding="utf-8")
    page.goto(f"{live_server.url}/designs/{design.pk}/revisions/1/commissioning/")
    counters = page.locator("#counters")
    counters.get_by_label("Counter file").set_input_files(str(sweep))
    counters.get_by_label("Format").select_option("ibqueryerrors")
    counters.get_by_role("button", name=re.compile("Import|Upload")).click()
    expect(page).to_have_url(
        re.compile(r"/revisions/1/commissioning/#counters$"), timeout=90_000
    )  # a real worker on a loaded CI machine
    snap = CounterSnapshot.objects.get()
    assert snap.read is True and snap.matched == 2
