"""Measured results accumulate: a test campaign uploads per rack or per day and re-tests after cleaning, and
what counts for each fiber is its latest measured value in any upload not withdrawn.

    upload 1 (rack A)   fibers 1..n/2 measured            -> standing: half measured
    upload 2 (rack B)   fibers n/2..n measured            -> standing: every fiber measured
    upload 3 (re-test)  fiber 1 again, after cleaning     -> fiber 1 counts upload 3's value
    withdraw upload 3                                     -> fiber 1 counts upload 1's value again

alice (owner) uploads and withdraws; bob (shared read) sees the standing results but cannot withdraw; charlie
gets 404. The sheets are the revision's real test-sheet.csv, filled in.
"""

from __future__ import annotations

import pytest
from django.core.management import call_command

from apps.designs.models import Access, DesignShare
from apps.measurements.models import MeasurementStanding, MeasurementUpload

from .test_measurement_views import as_csv, sheet, upload
from .test_views import alice, design, revision, url  # noqa: F401 - fixtures


@pytest.fixture
def halves(revision):
    """(header, col, first half, second half) of the test sheet, every row filled at 0.30 dB."""
    header, rows = sheet(revision)
    col = {c: i for i, c in enumerate(header)}
    for r in rows:
        r[col["measured_loss_db"]] = "0.30"
    mid = len(rows) // 2
    return header, col, rows[:mid], rows[mid:]


def fibers(counts: dict) -> dict:
    """The fiber counts with the verdicts no fiber has as 0 (the stored counts leave them out)."""
    got = counts.get("fibers", {})
    return {k: got.get(k, 0) for k in ("pass", "fail", "not-measured")}


def standing_metric(html: str, metric: str) -> str:
    section = html.split('id="standing-counts"')[1].split("</table>")[0]
    return section.split(f'data-metric="{metric}">')[1].split("<")[0]


def test_two_partial_sheets_both_count(alice, revision, halves):
    header, _col, first, second = halves
    total = len(first) + len(second)

    upload(alice, revision, as_csv(header, first), name="rack-A.csv")
    upload(alice, revision, as_csv(header, second), name="rack-B.csv")

    standing = MeasurementStanding.objects.get(revision=revision)
    assert standing.uploads == 2 and standing.measured_fibers == total
    assert fibers(standing.counts) == {"pass": total, "fail": 0, "not-measured": 0}
    latest = MeasurementUpload.objects.order_by("-id").first()
    assert fibers(latest.counts)["not-measured"] == len(first)  # one upload alone is still half the sheet
    html = alice.get(url("measurements:measurements", revision.design_id, revision.number)).content.decode()
    assert standing_metric(html, "fibers-pass") == f"{total:,}"
    assert standing_metric(html, "fibers-not-measured") == "0"
    page = alice.get(url("workspace:section", revision.design_id, revision.number, "cabling")).content.decode()
    assert "2 uploads together" in page.split('id="measured-standing"')[1].split("</p>")[0]


def test_a_retest_supersedes_and_an_empty_cell_does_not_erase(alice, revision, halves):
    header, col, first, second = halves
    bad = list(first[0])
    bad[col["measured_loss_db"]] = f"{float(bad[col['limit_db']]) + 1:.2f}"
    fiber = bad[col["fiber_id"]]
    upload(alice, revision, as_csv(header, [bad, *first[1:], *second]), name="day-1.csv")
    assert fibers(MeasurementStanding.objects.get().counts)["fail"] == 1

    cleaned = list(first[0])
    cleaned[col["measured_loss_db"]] = "0.25"
    empty = list(first[1])
    empty[col["measured_loss_db"]] = ""
    upload(alice, revision, as_csv(header, [cleaned, empty]), name="retest.csv")

    counts = fibers(MeasurementStanding.objects.get().counts)
    assert counts == {"pass": len(first) + len(second), "fail": 0, "not-measured": 0}
    history = alice.get(url("measurements:measurement_fiber", revision.design_id, revision.number, fiber=fiber))
    rows = history.content.decode().split('id="fiber-history"')[1].split("</table>")[0]
    assert history.status_code == 200
    assert rows.index("retest.csv") < rows.index("day-1.csv")  # newest first
    assert rows.count("<strong>counts</strong>") == 1
    assert "0.25" in rows.split("<strong>counts</strong>")[0] and "superseded" in rows


def test_withdrawing_an_upload_takes_its_rows_out_and_restoring_brings_them_back(alice, revision, halves):
    header, col, first, second = halves
    upload(alice, revision, as_csv(header, first + second), name="all.csv")
    wrong = list(first[0])
    wrong[col["measured_loss_db"]] = f"{float(wrong[col['limit_db']]) + 1:.2f}"
    upload(alice, revision, as_csv(header, [wrong]), name="wrong-port.csv")
    assert fibers(MeasurementStanding.objects.get().counts)["fail"] == 1
    wrong_upload = MeasurementUpload.objects.get(filename="wrong-port.csv")

    response = alice.post(
        url("measurements:measurement_withdraw", revision.design_id, revision.number, wrong_upload.pk)
    )

    assert response.status_code == 302
    wrong_upload.refresh_from_db()
    assert wrong_upload.withdrawn_at is not None and wrong_upload.withdrawn_by.username == "alice"
    standing = MeasurementStanding.objects.get()
    assert fibers(standing.counts)["fail"] == 0 and standing.uploads == 1
    html = alice.get(url("measurements:measurements", revision.design_id, revision.number)).content.decode()
    assert "withdrawn" in html.split(f'data-upload="{wrong_upload.pk}"')[1].split("</tr>")[0]

    alice.post(
        url("measurements:measurement_withdraw", revision.design_id, revision.number, wrong_upload.pk), {"restore": "1"}
    )
    assert fibers(MeasurementStanding.objects.get().counts)["fail"] == 1


def test_bob_reads_the_standing_results_but_cannot_withdraw_and_charlie_sees_nothing(
    client, users, revision, alice, halves
):
    header, _col, first, second = halves
    upload(alice, revision, as_csv(header, first + second), name="all.csv")
    stored = MeasurementUpload.objects.get()
    DesignShare.objects.create(design=revision.design, user=users.bob, access=Access.READ)
    client.force_login(users.bob)

    html = client.get(url("measurements:measurements", revision.design_id, revision.number)).content.decode()
    refused = client.post(url("measurements:measurement_withdraw", revision.design_id, revision.number, stored.pk))

    assert 'id="standing-counts"' in html and "Withdraw</button>" not in html
    assert refused.status_code == 404
    stored.refresh_from_db()
    assert stored.withdrawn_at is None
    client.force_login(users.charlie)
    assert (
        client.get(url("measurements:measurement_fiber", revision.design_id, revision.number, fiber="x")).status_code
        == 404
    )
    assert (
        client.post(
            url("measurements:measurement_withdraw", revision.design_id, revision.number, stored.pk)
        ).status_code
        == 404
    )


def test_an_unknown_fiber_says_so(alice, revision):
    response = alice.get(url("measurements:measurement_fiber", revision.design_id, revision.number, fiber="L999999:1"))

    assert response.status_code == 404
    assert "No fiber &#x27;L999999:1&#x27; on this revision" in response.content.decode()


def test_the_api_lists_the_standing_results_and_withdraws(api_client, users, revision, halves):
    header, _col, first, second = halves
    api_client.force_authenticate(users.alice)
    base = f"/api/v1/designs/{revision.design_id}/revisions/{revision.number}/measurements/"
    for part in (first, second):
        created = api_client.post(base, as_csv(header, part), content_type="text/csv")
        assert created.status_code == 201, created.content
    first_id = MeasurementUpload.objects.order_by("id").first().pk

    listed = api_client.get(base).json()
    withdrawn = api_client.post(f"{base}{first_id}/withdraw/", {"withdrawn": True}, format="json")
    after = api_client.get(base).json()

    total = len(first) + len(second)
    assert listed["standing"]["uploads"] == 2
    assert fibers(listed["standing"]["counts"]) == {"pass": total, "fail": 0, "not-measured": 0}
    assert withdrawn.status_code == 200 and withdrawn.json()["withdrawn_by"] == "alice"
    assert fibers(after["standing"]["counts"])["not-measured"] == len(first)
    assert api_client.post(f"{base}{first_id}/withdraw/", {"withdrawn": "yes"}, format="json").status_code == 400
    DesignShare.objects.create(design=revision.design, user=users.bob, access=Access.READ)
    api_client.force_authenticate(users.bob)
    assert api_client.get(base).status_code == 200
    assert api_client.post(f"{base}{first_id}/withdraw/", {"withdrawn": False}, format="json").status_code == 404


def test_import_results_prints_the_standing_results(revision, halves, tmp_path, capsys):
    header, _col, first, second = halves
    for name, part in (("a.csv", first), ("b.csv", second)):
        (tmp_path / name).write_bytes(as_csv(header, part))
        call_command("import-results", str(revision.design_id), str(tmp_path / name))

    out = capsys.readouterr().out
    assert f"standing, 2 upload(s) together (latest value per fiber): fibers: pass {len(first) + len(second):,}" in out
