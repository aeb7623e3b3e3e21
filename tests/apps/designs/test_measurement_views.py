"""Measured results in the browser: alice uploads a filled test sheet of her revision and reads the
verdicts; bob (shared read) reads them but cannot upload; charlie gets 404; nobody signed in is sent
to sign in. The sheets are built from the revision's real test-sheet.csv, as the API and CLI tests do.
"""

from __future__ import annotations

import csv
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from apps.designs.models import Access, DesignShare
from apps.exports.services import revision_result
from apps.measurements.models import MeasurementUpload
from deliverables import iter_test_sheet_csv

from .test_views import alice, design, revision, url  # noqa: F401 - fixtures


def sheet(revision) -> tuple[list[str], list[list[str]]]:
    """The revision's test sheet: header and rows, every measured_loss_db empty."""
    text = "".join(iter_test_sheet_csv(revision_result(revision=revision)))
    rows = list(csv.reader(io.StringIO(text)))
    return rows[0], rows[1:]


def as_csv(header, rows) -> bytes:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return out.getvalue().encode()


def upload(client, revision, data: bytes, name="filled.csv", test_limit="pmd", keep_valid=True, follow=False):
    form = {"file": SimpleUploadedFile(name, data, content_type="text/csv"), "test_limit": test_limit}
    if keep_valid:
        form["keep_valid"] = "on"
    return client.post(url("measurements:measurements", revision.design_id, revision.number), form, follow=follow)


@pytest.fixture
def filled(revision):
    """A filled sheet: every fiber at 0.30 dB except one over its limit (line 2), one in mW (line 3),
    one unknown fiber id (line 4), one left empty (line 6) and a duplicate of line 5 at the end."""
    header, rows = sheet(revision)
    col = {c: i for i, c in enumerate(header)}
    for r in rows:
        r[col["measured_loss_db"]] = "0.30"
    rows[0][col["measured_loss_db"]] = f"{float(rows[0][col['limit_db']]) + 0.5:.2f}"
    rows[1][col["measured_loss_db"]] = "0.5 mW"
    rows[2][col["fiber_id"]] = "L999999:A1-B1"
    rows[4][col["measured_loss_db"]] = ""
    rows.append(list(rows[3]))
    return header, rows, col


# --- Uploading and reading the verdicts --------------------------------------------------------


def test_alice_uploads_a_filled_sheet_and_sees_pass_fail_and_every_bad_row(alice, revision, filled):
    header, rows, col = filled
    fibers = len(rows) - 1  # the duplicate is not a fiber of its own

    response = upload(alice, revision, as_csv(header, rows), name="row-A.csv")

    stored = MeasurementUpload.objects.get()
    assert response.status_code == 302
    assert response.url == url("measurements:measurement", revision.design_id, revision.number, stored.pk)
    assert (stored.filename, stored.uploaded_by.username, stored.test_limit) == ("row-A.csv", "alice", "pmd")
    assert stored.rows == fibers - 2 and stored.error_count == 3
    assert stored.counts["fibers"] == {"pass": fibers - 4, "fail": 1, "not-measured": 3}
    assert stored.counts["links"]["fail"] == 1

    page = alice.get(response.url)
    html = page.content.decode()
    assert page.status_code == 200
    assert 'data-metric="fibers-fail">1<' in html
    assert f'data-metric="fibers-pass">{fibers - 4:,}<' in html
    assert 'data-metric="fibers-not-measured">3<' in html
    assert 'data-metric="links-fail">1<' in html
    assert "Rows with errors (3)" in html
    assert "&#x27;0.5 mW&#x27; is not an insertion loss in dB" in html
    assert "&#x27;L999999:A1-B1&#x27; is not a fiber of this design&#x27;s test sheet" in html
    assert "is a duplicate of line 5" in html
    failing = html.split('id="failing-links"')[1].split("</table>")[0]
    assert rows[0][col["link_id"]] in failing and rows[0][col["a_device"]] in failing


def test_the_revision_page_shows_the_standing_results_next_to_the_loss_budget(alice, revision, filled):
    header, rows, _ = filled
    assert (
        "No measured results yet"
        in alice.get(url("workspace:section", revision.design_id, 1, "cabling")).content.decode()
    )
    upload(alice, revision, as_csv(header, rows), name="row-A.csv")

    html = alice.get(url("workspace:section", revision.design_id, 1, "cabling")).content.decode()

    section = html.split('id="measured-results"')[1].split("</section>")[0]
    assert "row-A.csv" in section and "alice" in section
    assert "3 rows with errors left out" in section
    assert 'id="measurement-form"' in section and 'enctype="multipart/form-data"' in section
    assert 'name="csrfmiddlewaretoken"' in section
    assert '<label for="id_file">Filled test sheet (CSV)</label>' in section
    links = html.split('id="measured-links"')[1].split("</p>")[0]
    assert "1 fail" in links and "1 upload together" in links


def test_failing_links_are_listed_worst_first(alice, revision):
    header, rows = sheet(revision)
    col = {c: i for i, c in enumerate(header)}
    first = rows[0]
    other = next(r for r in rows if r[col["link_id"]] != first[col["link_id"]])
    for r, over in ((first, 0.2), (other, 3.0)):
        r[col["measured_loss_db"]] = f"{float(r[col['limit_db']]) + over:.2f}"

    response = upload(alice, revision, as_csv(header, [first, other]), follow=True)

    failing = response.content.decode().split('id="failing-links"')[1].split("</table>")[0]
    assert failing.index(other[col["link_id"]]) < failing.index(first[col["link_id"]])
    assert "-3.00" in failing and "-0.20" in failing


def test_without_keep_valid_a_sheet_with_bad_rows_is_refused_row_by_row(alice, revision, filled):
    header, rows, _ = filled

    response = upload(alice, revision, as_csv(header, rows), keep_valid=False)

    html = response.content.decode()
    assert response.status_code == 400
    assert not MeasurementUpload.objects.exists()
    assert "Nothing was stored. 3 row(s) do not fit this revision&#x27;s test sheet." in html
    errors = html.split('id="upload-errors"')[1].split("</table>")[0]
    lines = [n for n in range(1, len(rows) + 2) if f'<tr><td class="num">{n}</td>' in errors]
    assert lines == [3, 4, len(rows) + 1]  # mW, unknown id, the duplicate (the last line)
    assert "<code>measured_loss_db</code>" in errors and "<code>fiber_id</code>" in errors


def test_the_budget_limit_is_kept_with_the_upload_and_judges_against_the_expected_loss(alice, revision):
    header, rows = sheet(revision)
    col = {c: i for i, c in enumerate(header)}
    row = rows[0]
    row[col["measured_loss_db"]] = f"{float(row[col['expected_loss_db']]) + 0.01:.2f}"
    assert float(row[col["measured_loss_db"]]) < float(row[col["limit_db"]])  # passes the PMD limit

    upload(alice, revision, as_csv(header, [row]), test_limit="budget")
    upload(alice, revision, as_csv(header, [row]), test_limit="pmd")

    budget, pmd = MeasurementUpload.objects.order_by("id")
    assert (budget.test_limit, budget.counts["fibers"]["fail"]) == ("budget", 1)
    assert (pmd.test_limit, pmd.counts["fibers"]["pass"]) == ("pmd", 1)
    html = alice.get(url("measurements:measurement", revision.design_id, 1, budget.pk)).content.decode()
    assert "The design&#x27;s worst-case loss" in html and 'data-metric="fibers-fail">1<' in html


def test_the_verdicts_download_as_csv_per_fiber_and_the_upload_as_sent(alice, revision, filled):
    header, rows, col = filled
    data = as_csv(header, rows)
    upload(alice, revision, data)
    stored = MeasurementUpload.objects.get()

    response = alice.get(url("measurements:measurement_results_csv", revision.design_id, 1, stored.pk))
    verdicts = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    sent = alice.get(url("measurements:measurement_uploaded_csv", revision.design_id, 1, stored.pk))

    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    assert len(verdicts) == len(rows) - 1
    by_id = {v["fiber_id"]: v for v in verdicts}
    assert by_id[rows[0][col["fiber_id"]]]["status"] == "fail"
    assert by_id[rows[4][col["fiber_id"]]]["status"] == "not-measured"
    assert by_id[rows[5][col["fiber_id"]]]["status"] == "pass"
    assert sent.content == data


# --- Bad files --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data, message",
    [
        (b"", "The submitted file is empty."),
        (b"%PDF-1.4\n\xff\xfe\x00binary", "is not UTF-8 text"),
        (
            b"link_id,fiber,loss_db\n1,1,0.41\n",
            "Wrong header: missing column(s) fiber_id, measured_loss_db in the header.",
        ),
        (b"fiber_id,measured_loss_db\n", "The CSV has a header but no rows."),
        (b"fiber_id,measured_loss_db\nNOPE,0.3\n", "None of the rows fits this revision"),
        (b"fiber_id,measured_loss_db\n\x00,1\n", "NUL characters"),
    ],
)
def test_a_bad_file_is_a_form_error_and_loses_nothing_stored_before(alice, revision, filled, data, message):
    header, rows, _ = filled
    upload(alice, revision, as_csv(header, rows))
    before = MeasurementUpload.objects.get()

    response = upload(alice, revision, data, name="bad.csv")

    html = response.content.decode()
    assert response.status_code == 400
    assert message.replace("'", "&#x27;") in html
    assert 'role="alert"' in html
    assert list(MeasurementUpload.objects.all()) == [before]
    assert before.filename in html  # the earlier upload is still listed


def test_a_file_over_the_size_limit_is_a_form_error(alice, revision, filled, settings):
    header, rows, _ = filled
    settings.API_MAX_UPLOAD_BYTES = 64

    response = upload(alice, revision, as_csv(header, rows))

    assert response.status_code == 400
    assert "the limit is 64 bytes" in response.content.decode()
    assert not MeasurementUpload.objects.exists()


# --- Who may do what --------------------------------------------------------------------------


@pytest.fixture
def uploaded(alice, revision, filled):
    header, rows, _ = filled
    upload(alice, revision, as_csv(header, rows), name="row-A.csv")
    alice.logout()
    return MeasurementUpload.objects.get()


def _pages(revision, upload_id) -> list[str]:
    d = revision.design_id
    return [
        url("workspace:section", d, 1, "cabling"),
        url("measurements:measurements", d, 1),
        url("measurements:measurement", d, 1, upload_id),
        url("measurements:measurement_results_csv", d, 1, upload_id),
        url("measurements:measurement_uploaded_csv", d, 1, upload_id),
    ]


def test_a_read_only_sharer_sees_the_results_but_cannot_upload(client, users, revision, uploaded, filled):
    DesignShare.objects.create(design=revision.design, user=users.bob, access=Access.READ)
    client.force_login(users.bob)

    for page in _pages(revision, uploaded.pk):
        assert client.get(page).status_code == 200, page
    revision_html = client.get(url("workspace:section", revision.design_id, 1, "cabling")).content.decode()
    list_html = client.get(url("measurements:measurements", revision.design_id, 1)).content.decode()
    header, rows, _ = filled

    assert "row-A.csv" in revision_html and 'id="measurement-form"' not in revision_html
    assert "uploading results needs write access" in list_html and 'id="measurement-form"' not in list_html
    assert upload(client, revision, as_csv(header, rows)).status_code == 404
    assert MeasurementUpload.objects.count() == 1


def test_a_write_sharer_may_upload(client, users, revision, filled):
    DesignShare.objects.create(design=revision.design, user=users.bob, access=Access.WRITE)
    client.force_login(users.bob)
    header, rows, _ = filled

    assert upload(client, revision, as_csv(header, rows)).status_code == 302
    assert MeasurementUpload.objects.get().uploaded_by == users.bob


def test_charlie_gets_404_for_every_page_and_the_upload(client, users, revision, uploaded, filled):
    client.force_login(users.charlie)
    header, rows, _ = filled

    for page in _pages(revision, uploaded.pk):
        assert client.get(page).status_code == 404, page
    assert upload(client, revision, as_csv(header, rows)).status_code == 404
    assert MeasurementUpload.objects.count() == 1


def test_an_upload_of_another_revision_is_a_404(alice, revision, uploaded):
    from .test_views import compute_now

    alice.force_login(revision.design.owner)
    compute_now(revision.design, revision.design.owner)
    assert alice.get(url("measurements:measurement", revision.design_id, 2, uploaded.pk)).status_code == 404


def test_anonymous_users_are_sent_to_sign_in(client, revision, uploaded, filled):
    header, rows, _ = filled
    for page in _pages(revision, uploaded.pk)[1:]:
        response = client.get(page)
        assert response.status_code == 302 and response.url.startswith("/accounts/login/?next="), page
    assert upload(client, revision, as_csv(header, rows)).status_code == 302
    assert MeasurementUpload.objects.count() == 1
