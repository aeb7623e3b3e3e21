"""A cancelled export job stops, is recorded cancelled and leaves no file in the artifact store, as a cancelled
compute leaves no revision (issue 15: export jobs notice a cancel the way the compute job does).

GIVEN alice's small computed design, an export job of its labels.pdf, and the store of each kind
"""

from __future__ import annotations

from unittest import mock

import pytest

from apps.designs.services import design_compute_enqueue, design_create
from apps.exports import services as export_services
from apps.exports.artifacts import artifact_storage
from apps.exports.models import Artifact
from apps.jobs.models import Job, JobStatus
from apps.jobs.progress import JobCancelled
from apps.jobs.runner import run_job
from apps.jobs.services import job_request_cancel

from .test_artifacts import SPEC, store  # noqa: F401 - fixture

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def export_job(users, store):
    with mock.patch("apps.jobs.tasks.run_job.delay"):
        design = design_create(user=users.alice, spec=SPEC)
        assert run_job(str(design_compute_enqueue(design=design, user=users.alice).pk)) == "succeeded"
        revision = design.revisions.get()
        return export_services.export_enqueue(revision=revision, kind="labels.pdf", user=users.alice)


def test_a_cancel_while_the_file_renders_stops_the_export_and_stores_nothing(export_job):
    real_render = export_services.render_into

    def render_then_cancel(**kwargs):
        real_render(**kwargs)
        job_request_cancel(job=export_job)  # the user cancels while the renderer runs

    with mock.patch.object(export_services, "render_into", render_then_cancel):
        assert run_job(str(export_job.pk)) == "cancelled"

    job = Job.objects.get(pk=export_job.pk)
    assert job.status == JobStatus.CANCELLED and job.result in (None, {})
    assert not Artifact.objects.exists()
    assert artifact_storage().all_names() == []


def test_a_stop_that_lands_just_after_the_file_is_stored_deletes_it_again(export_job):
    storage_class = type(artifact_storage())
    real_save = storage_class.save

    def save_then_stop(self, name, content, *args, **kwargs):
        real_save(self, name, content, *args, **kwargs)
        job_request_cancel(job=export_job)
        raise JobCancelled()  # as the watchdog raises it into the job's thread, before the row is written

    with mock.patch.object(storage_class, "save", save_then_stop):
        assert run_job(str(export_job.pk)) == "cancelled"

    assert Job.objects.get(pk=export_job.pk).status == JobStatus.CANCELLED
    assert not Artifact.objects.exists()
    assert artifact_storage().all_names() == []


def test_an_export_nobody_cancels_still_stores_its_file(export_job):
    assert run_job(str(export_job.pk)) == "succeeded"
    (artifact,) = Artifact.objects.all()
    assert artifact_storage().all_names() == [artifact.name]
    assert Job.objects.get(pk=export_job.pk).result["artifact_id"] == artifact.pk
