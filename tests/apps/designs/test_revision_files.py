"""The browser's downloads of rendered files: straight from the API when stored or cheap; otherwise a page that
shows the background build's progress and then downloads the file.

GIVEN alice's computed design, made "large" by DOWNLOAD_INLINE_MAX_CABLES = 0
"""

from __future__ import annotations

import pytest

from apps.designs.services import design_compute_enqueue, design_create
from apps.jobs.models import Job
from apps.jobs.runner import run_job

pytestmark = pytest.mark.django_db

SPEC = {
    "name": "f",
    "servers": {"model": "dgx-h100", "count": 16},
    "compute_fabric": {"technology": "infiniband", "switch": "qm9700"},
}


@pytest.fixture
def design(users, client, settings):
    settings.DOWNLOAD_INLINE_MAX_CABLES = 0
    design = design_create(user=users.alice, spec=SPEC)
    assert run_job(str(design_compute_enqueue(design=design, user=users.alice).pk)) == "succeeded"
    client.force_login(users.alice)
    return design


def test_the_revision_page_marks_files_built_in_the_background(client, design):
    page = client.get(f"/designs/{design.pk}/revisions/1/files/").content.decode()
    assert (
        f'href="/designs/{design.pk}/revisions/1/files/labels.pdf">labels.pdf</a> <span class="muted">'
        f"(built in the background)</span>" in page
    )
    assert f'href="/api/v1/designs/{design.pk}/revisions/1/downloads/links.csv" download' in page


def test_a_large_file_opens_its_build_page_which_downloads_it_when_done(client, design):
    r = client.get(f"/designs/{design.pk}/revisions/1/files/labels.pdf")
    job = Job.objects.get(kind="export")
    assert r.status_code == 302 and r["Location"] == f"/designs/{design.pk}/jobs/{job.pk}/"
    assert client.get(f"/designs/{design.pk}/revisions/1/files/labels.pdf")["Location"] == r["Location"]  # same job

    page = client.get(r["Location"]).content.decode()
    assert "Building labels.pdf of r1" in page and 'data-on-done="download"' in page
    status_url = f"/designs/{design.pk}/jobs/{job.pk}/status/"
    assert client.get(status_url).json()["file_url"] is None

    assert run_job(str(job.pk)) == "succeeded"
    status = client.get(status_url).json()
    assert status["status"] == "succeeded" and status["file_url"] == f"/api/v1/jobs/{job.pk}/file"
    f = client.get(status["file_url"])
    assert f.status_code == 200 and b"".join(f.streaming_content).startswith(b"%PDF")
    page = client.get(r["Location"]).content.decode()
    assert f'href="/api/v1/jobs/{job.pk}/file" download>Download labels.pdf</a>' in page

    stored = client.get(f"/designs/{design.pk}/revisions/1/files/labels.pdf")
    assert stored["Location"] == f"/api/v1/designs/{design.pk}/revisions/1/downloads/labels.pdf"
    assert Job.objects.filter(kind="export").count() == 1


def test_another_user_cannot_start_a_build(client, design, users):
    client.force_login(users.charlie)
    assert client.get(f"/designs/{design.pk}/revisions/1/files/labels.pdf").status_code == 404
    assert not Job.objects.filter(kind="export").exists()


def test_the_files_section_lists_every_download_the_registry_names_for_the_design(client, design):
    """One list of a revision's files (deliverables/registry.py): the page shows the stored files, spec.json
    included, and every rendered file the design has; the API lists the same."""
    from apps.exports.services import deliverable_applies
    from deliverables.registry import DOWNLOADS

    page = client.get(f"/designs/{design.pk}/revisions/1/files/").content.decode()
    listed = client.get(f"/api/v1/designs/{design.pk}/revisions/1/downloads/").json()["results"]
    expected = [k for k in DOWNLOADS if deliverable_applies(k, design.spec)]
    assert "workloads.pdf" not in expected and "spec.json" in expected
    assert [item["kind"] for item in listed] == expected
    for kind in expected:
        assert f">{kind}</a>" in page, kind
