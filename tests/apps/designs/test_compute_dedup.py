"""design_compute_request: the same computation (spec, engine, catalog incl. the owner's custom parts) is not
computed twice unless forced. Computes run in process (run_job), as a worker would."""

from __future__ import annotations

from unittest import mock

import pytest

from apps.catalog.models import CustomPart
from apps.designs.services import design_compute_request, design_update
from apps.jobs.models import Job, JobStatus
from apps.jobs.runner import run_job
from tests.factories import DesignFactory, small_spec

pytestmark = pytest.mark.django_db

ACME = {
    "name": "Acme X64",
    "vendor": "Acme",
    "os": {"ib": "ib-port"},
    "technology": ["infiniband"],
    "cages": 32,
    "form_factor": "osfp",
    "speeds": {"400": 2, "200": 4},
    "rack_units": 1,
    "power_kw": 1.5,
}


@pytest.fixture(autouse=True)
def _no_broker():
    with mock.patch("apps.jobs.tasks.run_job.delay"):
        yield


def computed(design, user) -> int:
    outcome = design_compute_request(design=design, user=user)
    assert outcome.job is not None and not outcome.deduplicated
    assert run_job(str(outcome.job.pk)) == "succeeded"
    return Job.objects.get(pk=outcome.job.pk).result["revision"]


def test_the_same_computation_answers_with_the_existing_revision(users):
    design = DesignFactory(owner=users.alice)
    assert computed(design, users.alice) == 1
    again = design_compute_request(design=design, user=users.alice)
    assert again.deduplicated and again.job is None and again.revision.number == 1
    assert Job.objects.filter(design=design).count() == 1


def test_force_computes_again(users):
    design = DesignFactory(owner=users.alice)
    computed(design, users.alice)
    forced = design_compute_request(design=design, user=users.alice, force=True)
    assert not forced.deduplicated and forced.job.status == JobStatus.QUEUED
    assert run_job(str(forced.job.pk)) == "succeeded"
    assert Job.objects.get(pk=forced.job.pk).result["revision"] == 2


def test_a_queued_job_computing_the_same_is_the_answer_while_it_waits(users):
    design = DesignFactory(owner=users.alice)
    first = design_compute_request(design=design, user=users.alice).job
    again = design_compute_request(design=design, user=users.alice)
    assert again.deduplicated and again.job.pk == first.pk and again.revision is None
    Job.objects.filter(pk=first.pk).update(status=JobStatus.FAILED)  # a failed one is no answer
    assert design_compute_request(design=design, user=users.alice).job.pk != first.pk


def test_a_changed_spec_or_changed_custom_parts_compute_anew(users):
    design = DesignFactory(owner=users.alice)
    computed(design, users.alice)
    design_update(design=design, spec=small_spec(name="renamed"))
    assert computed(design, users.alice) == 2
    # The owner's custom parts are part of the catalog version, even parts this spec does not use.
    CustomPart.objects.create(owner=users.alice, section="switches", key="acme-x64", body=ACME)
    assert computed(design, users.alice) == 3
    assert design_compute_request(design=design, user=users.alice).revision.number == 3


def test_the_api_says_200_with_the_revision_and_the_browser_shows_it(users, client):
    from rest_framework.test import APIClient

    design = DesignFactory(owner=users.alice)
    computed(design, users.alice)
    api = APIClient()
    api.force_authenticate(user=users.alice)
    response = api.post(f"/api/v1/designs/{design.pk}/compute/")
    assert response.status_code == 200
    body = response.json()
    assert body["deduplicated"] is True and body["number"] == 1 and response["Location"] == body["url"]
    assert api.post(f"/api/v1/designs/{design.pk}/compute/", {"force": "yes"}, format="json").status_code == 400

    client.force_login(users.alice)
    page = client.post(f"/designs/{design.pk}/compute/", follow=True)
    assert page.redirect_chain[-1][0] == f"/designs/{design.pk}/revisions/1/"
    assert "Nothing new to compute: revision 1 has this exact spec" in page.content.decode()
    forced = client.post(f"/designs/{design.pk}/compute/", {"force": "1"})
    assert forced.status_code == 302 and "/jobs/" in forced["Location"]
