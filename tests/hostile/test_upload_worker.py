"""A large as-built file is stored as received and read by the "asbuilt" job, never in the web request: the
request checks only its size and type (ASBUILT_READ_IN_REQUEST_BYTES; a 32 MiB CSV took 53 s and +727 MB of a
gunicorn worker before its 202). The job reads it, with its progress, then classifies; a file it cannot read is
refused there, deleted (it never counts) and the job fails saying why."""

from __future__ import annotations

import csv
import io
from unittest import mock

import pytest

from tests.apps.api.conftest import SMALL_SPEC, compute_now, rev_url

pytestmark = pytest.mark.django_db


@pytest.fixture
def design(users, settings):
    from apps.designs.services import design_create

    settings.ASBUILT_READ_IN_REQUEST_BYTES = 1_000
    design = design_create(user=users.alice, spec=SMALL_SPEC)
    compute_now(design, users.alice)
    return design


def _as_built(design, rows: int) -> bytes:
    from apps.designs.models import LinkRecord

    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(["device", "port", "neighbor_device", "neighbor_port"])
    for link in LinkRecord.objects.filter(revision__design=design).order_by("id")[:rows]:
        w.writerow([link.a_device, link.a_port, link.b_device, link.b_port])
    return out.getvalue().encode()


def _post(alice, design, body: bytes):
    from apps.commissioning import services

    with mock.patch.object(services, "parse", side_effect=AssertionError("parsed in the web request")) as parse:
        r = alice.post(rev_url(design, 1, "asbuilt/?format=csv"), data=body, content_type="text/csv")
    assert parse.call_count == 0
    return r


def test_a_large_upload_is_stored_unread_and_read_by_the_job(alice, design):
    from apps.commissioning.models import AsBuiltUpload, CommissioningStanding
    from apps.jobs.models import Job, JobStatus
    from apps.jobs.runner import run_job

    body = _as_built(design, 60)
    assert len(body) > 1_000
    r = _post(alice, design, body)
    assert r.status_code == 202, r.content[:300]
    assert r.json()["upload"]["links"] is None
    upload = AsBuiltUpload.objects.get()
    assert upload.read is False and upload.content.encode() == body

    job = Job.objects.get(pk=r.json()["job"]["id"])
    assert run_job(str(job.pk)) == "succeeded"
    upload.refresh_from_db()
    assert upload.read is True and upload.links == 60
    assert CommissioningStanding.objects.get().counts["ok"] == 60
    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED


def test_a_large_upload_the_job_cannot_read_is_refused_there_and_never_counts(alice, design):
    from apps.commissioning.models import AsBuiltUpload, CommissioningStanding
    from apps.jobs.models import Job, JobStatus
    from apps.jobs.runner import run_job

    body = b"device,port,neighbour\n" + b"a,b,c\n" * 400
    r = _post(alice, design, body)
    assert r.status_code == 202, r.content[:300]
    job = Job.objects.get(pk=r.json()["job"]["id"])
    assert run_job(str(job.pk)) == "failed"
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED
    assert job.error.startswith("as-built was refused and not kept (file): line 1: the header lacks")
    assert "Traceback" not in job.error
    assert not AsBuiltUpload.objects.exists()
    assert CommissioningStanding.objects.get().state == "planned"
    assert alice.get(f"/api/v1/jobs/{job.pk}/").json()["error"] == job.error


def test_the_request_still_refuses_what_it_can_tell_from_size_and_type(alice, design, settings):
    settings.API_MAX_UPLOAD_BYTES = 5_000
    assert _post(alice, design, b"\xff\xfe" + b"x" * 2000).status_code == 400  # not UTF-8
    assert _post(alice, design, b"a,b\n" * 2000).status_code == 413  # over the upload limit
