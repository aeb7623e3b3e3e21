"""A large counter file or measured-results sheet is stored as received and read by its job, never in the web
request, as a large as-built file is (test_upload_worker.py): the request checks size and type only and answers
202 with the job in `Location`; the job reads it with its progress; a file it cannot read is refused there,
deleted (it never counts) and the job fails saying why. A small file is still read at once (201)."""

from __future__ import annotations

import csv
import io
from unittest import mock

import pytest

from apps.exports import services as exports
from tests.apps.api.conftest import SMALL_SPEC, compute_now, rev_url
from tests.apps.counters.helpers import errors_on, switch_links

pytestmark = pytest.mark.django_db

NEEDS_SHEET = pytest.mark.skipif(not exports.deliverable_available("test-sheet.csv"), reason="no test-sheet renderer")


@pytest.fixture
def design(users, settings):
    from apps.designs.services import design_create

    settings.COUNTERS_READ_IN_REQUEST_BYTES = 300
    settings.MEASUREMENTS_READ_IN_REQUEST_BYTES = 1_000
    design = design_create(user=users.alice, spec=SMALL_SPEC)
    compute_now(design, users.alice)
    return design


def _run(response):
    from apps.jobs.models import Job
    from apps.jobs.runner import run_job

    assert response.status_code == 202, response.content[:300]
    body = response.json()
    assert response["Location"] == body["url"] and body["status"] == "queued"
    job = Job.objects.get(pk=body["id"])
    run_job(str(job.pk))
    job.refresh_from_db()
    return job


# --- counters ------------------------------------------------------------------------------------------


def _post_counters(alice, design, text: str):
    from apps.counters import services

    with mock.patch.object(services, "parse_counters", side_effect=AssertionError("parsed in the web request")) as p:
        r = alice.post(rev_url(design, 1, "counters/?format=ibqueryerrors"), data=text, content_type="text/plain")
    assert p.call_count == 0
    return r


def test_a_large_counter_file_is_stored_unread_and_read_by_its_job(alice, design):
    from apps.counters.models import CounterReading, CounterSnapshot

    revision = design.revisions.get(number=1)
    links = switch_links(revision, n=6)
    text = errors_on(links, SymbolErrorCounter=7)
    assert len(text.encode()) > 300
    r = _post_counters(alice, design, text)
    snap = CounterSnapshot.objects.get()
    assert snap.read is False and snap.content == text and not CounterReading.objects.exists()
    assert alice.get(rev_url(design, 1, "counters/")).json()["snapshots"] == []  # not counted until read

    job = _run(r)
    assert job.status == "succeeded", job.error
    assert job.kind == "counters" and job.percent == 100
    snap.refresh_from_db()
    assert snap.read is True and snap.ports == 6 and snap.matched == 6
    assert CounterReading.objects.filter(snapshot=snap).count() == 6
    report = alice.get(rev_url(design, 1, "counters/")).json()
    assert [s["id"] for s in report["snapshots"]] == [snap.pk]


def test_a_large_counter_file_its_job_cannot_read_is_refused_there_and_never_counts(alice, design):
    from apps.counters.models import CounterSnapshot

    text = "this is not ibqueryerrors output\n" * 20
    job = _run(_post_counters(alice, design, text))
    assert job.status == "failed"
    assert job.error.startswith("the counter file was refused and not kept (file): "), job.error
    assert "Traceback" not in job.error
    assert not CounterSnapshot.objects.exists()
    assert alice.get(f"/api/v1/jobs/{job.pk}/").json()["error"] == job.error


def test_a_small_counter_file_is_still_read_in_the_request(alice, design):
    revision = design.revisions.get(number=1)
    text = errors_on(switch_links(revision, n=1), SymbolErrorCounter=7)
    assert len(text.encode()) <= 300
    r = alice.post(rev_url(design, 1, "counters/?format=ibqueryerrors"), data=text, content_type="text/plain")
    assert r.status_code == 201 and r.json()["matched"] == 1


def test_the_counter_request_still_refuses_what_it_can_tell_without_reading(alice, design):
    from apps.counters.models import CounterSnapshot

    big = "x" * 400
    assert _post_counters(alice, design, "   \n" * 200).status_code == 400  # empty
    r = alice.post(rev_url(design, 1, "counters/?format=ethtool"), data=big, content_type="text/plain")
    assert r.status_code == 400 and r.json()["error"]["fields"][0]["path"] == "device"
    assert not CounterSnapshot.objects.exists()


# --- measured results ----------------------------------------------------------------------------------


def _sheet(alice, design, loss: str = "0.5", header=("fiber_id", "link_id", "measured_loss_db")) -> str:
    r = alice.get(rev_url(design, 1, "downloads/test-sheet.csv"))
    sheet = (b"".join(r.streaming_content) if r.streaming else r.content).decode()
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(header)
    for row in csv.DictReader(io.StringIO(sheet)):
        w.writerow([row["fiber_id"], row["link_id"], loss])
    return out.getvalue()


def _post_sheet(alice, design, text: str, **query):
    from apps.api.views import downloads

    qs = "&".join(f"{k}={v}" for k, v in query.items())
    with mock.patch.object(
        downloads, "measurements_check_revision", side_effect=AssertionError("judged in the web request")
    ) as judged:
        r = alice.generic("POST", rev_url(design, 1, f"measurements/?{qs}"), text.encode(), content_type="text/csv")
    assert judged.call_count == 0
    return r


@NEEDS_SHEET
def test_a_large_measured_results_sheet_is_stored_unread_and_judged_by_its_job(alice, design):
    from apps.measurements.models import MeasurementUpload

    text = _sheet(alice, design)
    fibers = text.count("\n") - 1
    assert len(text.encode()) > 1_000
    r = _post_sheet(alice, design, text, filename="row-A.csv")
    upload = MeasurementUpload.objects.get()
    assert upload.read is False and upload.content == text and upload.rows == 0
    listed = alice.get(rev_url(design, 1, "measurements/")).json()
    assert listed["results"] == [] and listed["standing"] is None  # not listed nor counted until read
    assert alice.get(rev_url(design, 1, f"measurements/{upload.pk}/")).status_code == 404

    job = _run(r)
    assert job.status == "succeeded", job.error
    assert job.kind == "measurements" and job.percent == 100
    upload.refresh_from_db()
    assert upload.read is True and upload.rows == fibers and upload.counts["fibers"] == {"pass": fibers}
    listed = alice.get(rev_url(design, 1, "measurements/")).json()
    assert [m["id"] for m in listed["results"]] == [upload.pk]
    assert listed["standing"]["uploads"] == 1 and listed["standing"]["measured_fibers"] == fibers


@NEEDS_SHEET
def test_a_large_sheet_its_job_refuses_is_deleted_and_the_job_says_why(alice, design):
    from apps.measurements.models import MeasurementStanding, MeasurementUpload

    text = _sheet(alice, design, header=("fiber", "link_id", "loss"))
    job = _run(_post_sheet(alice, design, text, filename="wrong.csv"))
    assert job.status == "failed"
    assert job.error.startswith("wrong.csv was refused and not kept: Wrong header"), job.error
    assert "Traceback" not in job.error
    assert not MeasurementUpload.objects.exists()
    assert not MeasurementStanding.objects.filter(uploads__gt=0).exists()


@NEEDS_SHEET
def test_all_or_nothing_travels_with_the_job(alice, design):
    from apps.measurements.models import MeasurementUpload

    text = _sheet(alice, design) + "NOPE-1,L999999,0.4\n"
    job = _run(_post_sheet(alice, design, text, filename="strict.csv", reject_on_error="true"))
    assert job.status == "failed" and "1 row(s) do not fit" in job.error, job.error
    assert not MeasurementUpload.objects.exists()


@NEEDS_SHEET
def test_the_browser_form_hands_a_large_sheet_to_its_job_too(alice, design, client, users):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from apps.jobs.models import Job
    from apps.jobs.runner import run_job
    from apps.measurements import services
    from apps.measurements.models import MeasurementUpload

    text = _sheet(alice, design)
    client.force_login(users.alice)
    with mock.patch.object(services, "measurements_check_revision", side_effect=AssertionError("in the request")):
        r = client.post(
            f"/designs/{design.pk}/revisions/1/measurements/",
            {
                "file": SimpleUploadedFile("row-B.csv", text.encode(), "text/csv"),
                "test_limit": "pmd",
                "keep_valid": "on",
            },
        )
    assert r.status_code == 302, r.content[:500]
    upload = MeasurementUpload.objects.get()
    assert upload.read is False
    job = Job.objects.get(kind="measurements")
    assert job.params["upload_id"] == upload.pk
    page = f"/designs/{design.pk}/jobs/{job.pk}/"
    assert r["Location"] == f"{page}?follow=1"  # its progress, then the upload's page
    assert client.get(f"{page}status/").json()["revision_url"] is None
    assert client.get(r["Location"]).status_code == 200  # still running: the page's script follows it
    run_job(str(job.pk))
    done = f"/designs/{design.pk}/revisions/1/measurements/{upload.pk}/"
    assert client.get(f"{page}status/").json()["revision_url"] == done
    _assert_followed(client, r["Location"], page, done, title="Judging measured results")


def _assert_followed(client, location: str, page: str, done: str, *, title: str) -> None:
    """A job that finished before its page loaded still moves the user on, as the page's script does for a job still
    running (a quick worker once left the user on a finished job's page); its own page, asked for without
    ?follow, stays the job's record, headed with what it did."""
    assert client.get(location)["Location"] == done
    record = client.get(page)
    assert record.status_code == 200
    html = record.content.decode()
    assert title in html and "Computation" not in html and "View the result" in html


def test_the_browser_form_hands_a_large_counter_file_to_its_job_too(alice, design, client, users):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from apps.counters import services
    from apps.counters.models import CounterSnapshot
    from apps.jobs.models import Job
    from apps.jobs.runner import run_job

    text = errors_on(switch_links(design.revisions.get(number=1), n=6), SymbolErrorCounter=7)
    client.force_login(users.alice)
    with mock.patch.object(services, "parse_counters", side_effect=AssertionError("parsed in the request")):
        r = client.post(
            f"/designs/{design.pk}/revisions/1/counters/",
            {"counters-file": SimpleUploadedFile("sweep.txt", text.encode()), "counters-format": "ibqueryerrors"},
        )
    assert r.status_code == 302, r.content[:500]
    snap = CounterSnapshot.objects.get()
    assert snap.read is False and snap.filename == "sweep.txt"
    job = Job.objects.get(kind="counters")
    assert job.params["snapshot_id"] == snap.pk
    page = f"/designs/{design.pk}/jobs/{job.pk}/"
    assert r["Location"] == f"{page}?follow=1"
    run_job(str(job.pk))
    done = f"/designs/{design.pk}/revisions/1/commissioning/#counters"  # the workspace section that shows them
    assert client.get(f"{page}status/").json()["revision_url"] == done
    _assert_followed(client, r["Location"], page, done, title="Reading counters")
