"""Build progress per rack and per SU through the app (apps/counters/progress.py): from the as-built import (the
ibsim fabric with four mistakes on DGX-SU01-N01..N04, rack DC1.B01, read back by ibnetdiscover), the revision's own
test sheet filled in, and an ibqueryerrors sweep, all stored the way the field sends them.

The 1-SU DGX H100 design: 16 DGX in DC1.B01-B04 (4 each), 8 leaves in DC1.B05, spines in DC1.A01; 128 server-leaf
links (32 per server rack) and 256 leaf-spine links, every one of them fiber on the test sheet.

alice owns the design; bob may read it; charlie is a stranger.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from apps.commissioning.services import commissioning_refresh
from apps.designs.models import Access, DesignShare, LinkRecord
from apps.designs.services import design_create
from engine.catalog import load_catalog
from engine.pipeline import compute_design
from engine.spec import parse_spec
from tests.apps.designs.test_measurement_views import as_csv, sheet, upload
from tests.apps.designs.test_views import compute_now
from tests.engine.asbuilt.ibsim_fabric import discover, need_tools
from tests.engine.asbuilt.test_ibsim_asbuilt import ONE_SU, mistaken

from .helpers import errors_on, ibqueryerrors, switch_links

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def ibnetdiscover_text(tmp_path_factory):
    need_tools()
    result = compute_design(parse_spec(ONE_SU), load_catalog())
    text, _ = discover(mistaken(result), tmp_path_factory.mktemp("ibsim-progress"), "mistakes")
    return text


@pytest.fixture
def rev(users):
    design = design_create(user=users.alice, spec=ONE_SU)
    DesignShare.objects.create(design=design, user=users.bob, username="bob", access=Access.READ)
    return compute_now(design, users.alice)


def api(user) -> APIClient:
    c = APIClient()
    c.force_authenticate(user)
    return c


def progress_url(rev) -> str:
    return f"/api/v1/designs/{rev.design_id}/revisions/{rev.number}/commissioning/progress/"


def _stamp(t) -> str:
    return t.isoformat(timespec="seconds").replace("+00:00", "Z")


def test_a_fresh_revision_is_all_planned(rev, users):
    got = api(users.alice).get(progress_url(rev))
    assert got.status_code == 200, got.content
    body = got.json()
    assert body["evidence"] == {"asbuilt": False, "measurements": False, "counters": False}
    assert body["totals"]["planned"] == 384 and body["totals"]["state"] == "planned"
    assert [s["name"] for s in body["sus"]] == ["1"]
    assert [r["name"] for r in body["racks"]] == ["DC1.A01", "DC1.B01", "DC1.B02", "DC1.B03", "DC1.B04", "DC1.B05"]


def test_as_built_loss_and_counters_move_racks_from_planned_to_verified(
    rev, users, client, ibnetdiscover_text, monkeypatch, settings
):
    # every file here is read in the request (large ones go to a job: tests/hostile/test_upload_worker*.py)
    settings.ASBUILT_READ_IN_REQUEST_BYTES = settings.COUNTERS_READ_IN_REQUEST_BYTES = 10 * 1024 * 1024
    settings.MEASUREMENTS_READ_IN_REQUEST_BYTES = 10 * 1024 * 1024
    alice = api(users.alice)
    asbuilt = f"/api/v1/designs/{rev.design_id}/revisions/{rev.number}/asbuilt/"
    r = alice.post(
        asbuilt + "?format=ibnetdiscover&width_only=true", data=ibnetdiscover_text.encode(), content_type="text/plain"
    )
    assert r.status_code == 202, r.content
    commissioning_refresh(revision=rev)  # what the queued "asbuilt" job runs
    # the job handed its classes over: the view does not classify the uploads again
    monkeypatch.setattr("apps.commissioning.progress.classify_uploads", _must_not_run)

    # Cabled, nothing measured yet: every link is on the test sheet, so none is verified.
    body = alice.get(progress_url(rev)).json()
    racks = {x["name"]: x for x in body["racks"]}
    assert (racks["DC1.B01"]["cabled"], racks["DC1.B01"]["wrong"], racks["DC1.B01"]["verified"]) == (28, 5, 0)
    assert racks["DC1.B02"]["cabled"] == 32 and racks["DC1.B02"]["loss_pending"] == 32
    assert body["totals"]["state"] == "cabling"

    # The test sheet filled in: one link of DC1.B02 over its limit, another not measured, every other fiber 0.30 dB.
    b02 = list(
        LinkRecord.objects.filter(revision=rev, a_rack="DC1.B02").order_by("link_id").values_list("link_id", flat=True)
    )
    failing, unmeasured = f"L{b02[0]:06d}", f"L{b02[1]:06d}"
    header, rows = sheet(rev)
    col = {c: i for i, c in enumerate(header)}
    for row in rows:
        if row[col["link_id"]] == failing:
            row[col["measured_loss_db"]] = f"{float(row[col['limit_db']]) + 0.5:.2f}"
        elif row[col["link_id"]] != unmeasured:
            row[col["measured_loss_db"]] = "0.30"
    client.force_login(users.alice)
    assert upload(client, rev, as_csv(header, rows)).status_code == 302

    # A clean sweep, then one two hours later with symbol errors on one leaf-spine link (DC1.B05 - DC1.A01).
    t0 = timezone.now() - timedelta(hours=3)
    counters = f"/api/v1/designs/{rev.design_id}/revisions/{rev.number}/counters/?format=ibqueryerrors"
    assert (
        alice.post(f"{counters}&taken_at={_stamp(t0)}", ibqueryerrors({}), content_type="text/plain").status_code == 201
    )
    (spine_link,) = switch_links(rev, 1, tier="leaf-spine")
    sweep = errors_on([spine_link], SymbolErrorCounter=1200)
    later = f"{counters}&taken_at={_stamp(t0 + timedelta(hours=2))}"
    assert alice.post(later, sweep, content_type="text/plain").status_code == 201

    body = api(users.bob).get(progress_url(rev)).json()  # a reader sees the same view
    assert body["evidence"] == {"asbuilt": True, "measurements": True, "counters": True}
    racks = {x["name"]: x for x in body["racks"]}
    # DC1.B01: the four mistakes (5 links: a swapped pair, unplugged, moved, narrow) hold 5 links back
    assert {k: racks["DC1.B01"][k] for k in ("planned", "cabled", "verified", "wrong", "state")} == {
        "planned": 32,
        "cabled": 28,
        "verified": 27,
        "wrong": 5,
        "state": "cabling",
    }
    b02_row = racks["DC1.B02"]
    assert (b02_row["verified"], b02_row["loss_failed"], b02_row["loss_pending"]) == (30, 1, 1)
    assert racks["DC1.B03"]["state"] == racks["DC1.B04"]["state"] == "verified"
    assert (racks["DC1.A01"]["flagged"], racks["DC1.A01"]["verified"], racks["DC1.A01"]["planned"]) == (1, 255, 256)
    # the leaf rack holds an end of every link: all three kinds of holdup show there
    b05 = racks["DC1.B05"]
    assert (b05["wrong"], b05["loss_failed"], b05["loss_pending"], b05["flagged"]) == (5, 1, 1, 1)
    assert b05["verified"] == 384 - 5 - 1 - 1 - 1
    (su,) = body["sus"]
    assert su["name"] == "1" and su["verified"] == body["totals"]["verified"] == 376 and su["cabled"] == 380

    # The revision page shows the same figures in its "Build progress" section.
    client.force_login(users.bob)
    html = client.get(reverse("workspace:section", args=[rev.design_id, rev.number, "commissioning"])).content.decode()
    section = html[html.index('id="build-progress"') :]
    assert 'data-name="DC1.B01" data-state="cabling"' in section
    assert 'data-name="DC1.B03" data-state="verified"' in section
    assert '<progress max="384" value="376"' in section

    # With the cache gone (evicted, or another cache per process), the classes are worked out again: same view.
    monkeypatch.undo()
    cache.clear()
    assert api(users.bob).get(progress_url(rev)).json() == body


def _must_not_run(*args, **kwargs):
    raise AssertionError("classified again in the request")


def test_strangers_get_a_404_and_anonymous_callers_a_401(rev, users):
    assert api(users.charlie).get(progress_url(rev)).status_code == 404
    assert APIClient().get(progress_url(rev)).status_code == 401
    assert api(users.bob).get(progress_url(rev)).status_code == 200


def test_the_page_of_a_fresh_revision_says_every_link_is_planned(rev, users, client):
    client.force_login(users.alice)
    html = client.get(reverse("workspace:section", args=[rev.design_id, rev.number, "commissioning"])).content.decode()
    assert 'id="progress-empty"' in html and "every link is planned" in html
