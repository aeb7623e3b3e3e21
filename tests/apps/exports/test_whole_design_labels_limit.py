"""A whole-design labels.pdf larger than the export job can build in time is refused with what to ask for instead
(labels per row or rack), when asked for where the stored cable count already shows it, else by the worker as a
plain job failure: never a traceback or a job dying at its time limit.

GIVEN alice's small computed design (SPEC of test_artifacts) and a label limit lowered around its label count
"""

from __future__ import annotations

from unittest import mock

import pytest

from apps.designs.services import design_compute_enqueue, design_create
from apps.exports import services as export_services
from apps.exports.models import Artifact
from apps.jobs.models import Job, JobStatus
from apps.jobs.runner import run_job
from deliverables import labels

from .test_artifacts import SPEC, store  # noqa: F401 - fixture

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def revision(users, store):
    with mock.patch("apps.jobs.tasks.run_job.delay"):
        design = design_create(user=users.alice, spec=SPEC)
        assert run_job(str(design_compute_enqueue(design=design, user=users.alice).pk)) == "succeeded"
        rev = design.revisions.get()
        assert rev.cable_count > 0
        return rev


def test_a_sheet_whose_cables_alone_pass_the_limit_is_refused_when_asked_for(revision, users, monkeypatch):
    monkeypatch.setattr(labels, "MAX_WHOLE_DESIGN_LABELS", 2 * revision.cable_count - 1)
    with pytest.raises(ValueError, match=r"^options\.row: this design has at least .* per row .* per rack"):
        export_services.export_enqueue(revision=revision, kind="labels.pdf", user=users.alice)
    assert not Job.objects.filter(kind="export").exists()


def test_a_sheet_of_one_rack_is_still_queued_and_built(revision, users, monkeypatch):
    monkeypatch.setattr(labels, "MAX_WHOLE_DESIGN_LABELS", 1)
    rack = export_services.revision_result(revision=revision).racks[0].id
    with mock.patch("apps.jobs.tasks.run_job.delay"):
        job = export_services.export_enqueue(
            revision=revision, kind="labels.pdf", user=users.alice, options={"rack": rack}
        )
    assert run_job(str(job.pk)) == "succeeded"


def test_a_sheet_over_the_limit_by_its_panel_labels_fails_in_the_worker_with_the_advice(revision, users, monkeypatch):
    """Twice the cables is under the limit, so the request is queued; the worker counts every label and stops."""
    with mock.patch("apps.jobs.tasks.run_job.delay"):
        job = export_services.export_enqueue(revision=revision, kind="labels.pdf", user=users.alice)
    monkeypatch.setattr(labels, "MAX_WHOLE_DESIGN_LABELS", 2 * revision.cable_count)  # the floor passes
    result = export_services.revision_result(revision=revision)
    if labels.count_labels(result) <= 2 * revision.cable_count:
        monkeypatch.setattr(labels, "MAX_WHOLE_DESIGN_LABELS", labels.count_labels(result) - 1)
    assert run_job(str(job.pk)) == "failed"
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED
    assert job.error.startswith("labels.pdf: this design has") and "options.row" in job.error
    assert "Traceback" not in job.error
    assert not Artifact.objects.exists()
