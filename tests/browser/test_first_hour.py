"""The first hour of a new user, from an empty database, as the README tells it: headless Chromium, a real worker.

GIVEN an empty database
WHEN the README's command creates the first user (./scripts/manage createsuperuser) and she signs in
 AND she creates the preselected DGX H100 SuperPOD, computes it, and breaks its YAML by mistake
THEN the YAML's error is in the first viewport, with her text kept;
WHEN she filters the link table
THEN it says how many links matched and pages forward and back;
WHEN she uploads the test sheet in two halves (two racks' worth of work)
THEN both halves count in the standing results;
WHEN she shrinks the design, computes again and compares with the previous revision
THEN compare shows the links removed, down to the link.

The test takes its screenshots as it goes; with FABRICDESIGN_WRITE_EXAMPLES=1 they replace docs/examples/first-hour-*
(docs/using.md links them), elsewhere they go to a temporary folder (tests/examples.py).
"""

from __future__ import annotations

import csv
import io
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.examples import examples_dir

from .conftest import ROOT, _test_database_url
from .test_design_session import PASSWORD, wait_for_revision

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]


def shot(page, name: str) -> None:
    page.screenshot(path=str(examples_dir() / f"{name}.png"))


def in_first_viewport(page, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + min(box["height"], 40) <= page.viewport_size["height"]


def readme_createsuperuser(username: str, settings) -> None:
    """The README's command for the first user, against this test's database."""
    assert "./scripts/manage createsuperuser" in (ROOT / "README.md").read_text()
    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE",)}
    env.update(
        DATABASE_URL=_test_database_url(),
        DJANGO_SECRET_KEY=settings.SECRET_KEY,
        DJANGO_SUPERUSER_PASSWORD=PASSWORD,
        FABRICDESIGN_VENV=str(Path(os.sys.executable).parents[1]),
    )
    done = subprocess.run(
        [
            ROOT / "scripts" / "manage",
            "createsuperuser",
            "--noinput",
            "--username",
            username,
            "--email",
            f"{username}@example.com",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr


def write_csv(path: Path, rows: list[list[str]]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows)
    return path


def test_the_first_hour(live_server, celery_worker, page, django_user_model, settings, tmp_path):
    from playwright.sync_api import expect

    assert not django_user_model.objects.exists()
    readme_createsuperuser("ada", settings)
    base = live_server.url

    page.goto(f"{base}/designs/")
    page.get_by_label("Username").fill("ada")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Designs", exact=True)).to_be_visible()

    # A design from the preselected preset, computed by the worker.
    page.get_by_role("link", name="New design").first.click()
    expect(page.get_by_label("DGX H100 SuperPOD 4 SU")).to_be_checked()
    shot(page, "first-hour-1-new-design")
    page.get_by_role("button", name="Create design").click()
    page.get_by_role("button", name="Save and compute", exact=True).click()
    wait_for_revision(page, 1)
    design_url = page.url.split("/revisions/")[0]

    # A broken YAML: the error is in view as the page loads, and the text is kept.
    page.goto(f"{design_url}/edit/")
    page.locator("#advanced-yaml summary").click()
    page.get_by_label("Spec (YAML)").fill("name: broken\nservers: [unclosed\n")
    page.get_by_role("button", name="Save YAML", exact=True).click()
    expect(page.locator("#yaml-errors-banner")).to_contain_text("The YAML was not saved: Not valid YAML at line 3")
    assert in_first_viewport(page, "#yaml-errors-banner")
    expect(page.get_by_label("Spec (YAML)")).to_have_value("name: broken\nservers: [unclosed\n")
    shot(page, "first-hour-2-yaml-error")

    # A filtered table says what matched and pages both ways.
    page.goto(f"{design_url}/revisions/1/links/?tier=leaf-spine&limit=25")
    from apps.designs.models import LinkRecord, Revision

    revision = Revision.objects.get(design_id=int(design_url.rstrip("/").rsplit("/", 1)[1]), number=1)
    matched = LinkRecord.objects.filter(revision=revision, tier="leaf-spine").count()
    expect(page.locator("#table-count")).to_contain_text(
        f"{matched:,} of {revision.link_count:,} links match these filters"
    )
    first_id = page.locator("#rows-table tbody tr td code").first.inner_text()
    page.get_by_role("link", name="Next →").click()
    assert page.locator("#rows-table tbody tr td code").first.inner_text() != first_id
    page.get_by_role("link", name="← Previous").click()
    expect(page.locator("#rows-table tbody tr td code").first).to_have_text(first_id)
    shot(page, "first-hour-3-filtered-table")

    # The test sheet in two halves: both count.
    page.goto(f"{design_url}/revisions/1/cabling/")
    with page.expect_download() as info:
        page.locator("#measured-results").get_by_role("link", name="test-sheet.csv").click()
    rows = list(csv.reader(io.StringIO(Path(info.value.path()).read_text(encoding="utf-8"))))
    header, body = rows[0], rows[1:]
    col = header.index("measured_loss_db")
    for r in body:
        r[col] = "0.30"
    half = len(body) // 2
    for name, part in (("rack-A.csv", body[:half]), ("rack-B.csv", body[half:])):
        page.goto(f"{design_url}/revisions/1/measurements/")
        page.get_by_label("Filled test sheet (CSV)").set_input_files(str(write_csv(tmp_path / name, [header, *part])))
        page.get_by_role("button", name="Upload results").click()
        expect(page.get_by_role("status")).to_contain_text(f"Stored {name}")
        # a half of this sheet is past MEASUREMENTS_READ_IN_REQUEST_BYTES: the worker judges it, then the job's
        # page moves on to the upload's own page (where a sheet read in the request lands at once)
        expect(page).to_have_url(re.compile(r"/revisions/1/measurements/\d+/$"), timeout=60_000)
    page.goto(f"{design_url}/revisions/1/measurements/")
    standing = page.locator("#standing-counts")
    expect(standing.locator('[data-metric="fibers-pass"]')).to_have_text(f"{len(body):,}")
    expect(standing.locator('[data-metric="fibers-not-measured"]')).to_have_text("0")
    shot(page, "first-hour-4-standing-results")

    # Shrink, compute again, compare with the previous revision: the links removed, down to the link.
    page.goto(f"{design_url}/edit/")
    page.get_by_label("Count", exact=True).fill("95")
    page.get_by_role("button", name="Save and compute", exact=True).click()
    wait_for_revision(page, 2)
    page.get_by_role("link", name="Compare with r1").click()
    removed = page.locator("#links-removed")
    expect(removed).not_to_have_text("0")
    servers = page.locator("#compare-table tr", has=page.get_by_role("rowheader", name="Servers", exact=True))
    expect(servers).to_contain_text("-32")
    shot(page, "first-hour-5-compare")
    page.locator("a#diff-links-removed").click()
    expect(page.locator("#row-diff-count")).to_contain_text("links removed")
    expect(page.locator("#row-diff-table tbody tr").first).to_contain_text("r1 L")
    shot(page, "first-hour-6-links-removed")
