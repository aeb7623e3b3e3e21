"""Who may do what with alice's design:

alice    owner: everything
bob      shared read: sees the design, its jobs and revisions, downloads; cannot edit or compute
bob      shared write: also edits, computes and cancels; sharing and deleting stay alice's
charlie  outsider: every page and action is a 404, as if the design did not exist
nobody   (signed out): sent to the sign-in page
"""

from __future__ import annotations

import pytest

from apps.designs.models import Access, Design, DesignShare
from apps.jobs.models import Job, JobStatus

from .test_views import compute_now, design, revision, url  # noqa: F401 - fixtures

READS = [
    "detail",
    "spec_yaml",
    "job",
    "job_status",
    "revision",
    "links",
    "cables",
    "links_csv",
    "cables_csv",
    "compare",
]
WRITES = ["edit", "compute", "job_cancel"]
OWNER_ONLY = ["share", "unshare", "delete"]


def _args(name, rev, job, users):
    d = rev.design_id
    return {
        "detail": (d,),
        "spec_yaml": (d,),
        "edit": (d,),
        "compute": (d,),
        "delete": (d,),
        "share": (d,),
        "unshare": (d, users.bob.pk),
        "compare": (d,),
        "job": (d, job.pk),
        "job_status": (d, job.pk),
        "job_cancel": (d, job.pk),
        "revision": (d, 1),
        "links": (d, 1),
        "cables": (d, 1),
        "links_csv": (d, 1),
        "cables_csv": (d, 1),
    }[name]


def _request(client, name, rev, job, users):
    path = url(name, *_args(name, rev, job, users))
    if name in ("compute", "job_cancel", "delete", "share", "unshare"):
        return client.post(path, {"username": "bob", "access": "write"})
    if name == "edit":
        return client.get(path)
    return client.get(path + ("?old=1&new=2" if name == "compare" else ""))


@pytest.fixture
def world(users, revision):
    """alice's design with two revisions and a queued job."""
    compute_now(revision.design, users.alice)
    job = Job.objects.create(
        kind="compute", design=revision.design, created_by=users.alice, params={"spec": revision.spec}
    )
    return revision, job


@pytest.mark.parametrize("name", READS + WRITES + OWNER_ONLY)
def test_charlie_gets_404_for_everything_of_alices(client, users, world, name):
    rev, job = world
    client.force_login(users.charlie)

    assert _request(client, name, rev, job, users).status_code == 404


@pytest.mark.parametrize("name", READS)
def test_bob_with_read_access_can_look(client, users, world, name):
    rev, job = world
    DesignShare.objects.create(design=rev.design, user=users.bob, access=Access.READ)
    client.force_login(users.bob)

    assert _request(client, name, rev, job, users).status_code == 200


@pytest.mark.parametrize("name", WRITES + OWNER_ONLY)
def test_bob_with_read_access_cannot_change_anything(client, users, world, name):
    rev, job = world
    DesignShare.objects.create(design=rev.design, user=users.bob, access=Access.READ)
    client.force_login(users.bob)

    # The edit page says the design is shared read-only (403); every other change is the hidden design's 404.
    assert _request(client, name, rev, job, users).status_code == (403 if name == "edit" else 404)
    assert Job.objects.filter(design=rev.design).count() == 3  # two finished, one queued
    assert Job.objects.get(pk=job.pk).status == JobStatus.QUEUED
    assert Design.objects.filter(pk=rev.design_id).exists()


def test_bob_with_read_access_sees_no_edit_or_compute_buttons(client, users, world):
    rev, job = world
    DesignShare.objects.create(design=rev.design, user=users.bob, access=Access.READ)
    client.force_login(users.bob)

    html = client.get(url("detail", rev.design_id)).content.decode()

    assert "read only" in html
    assert url("edit", rev.design_id) not in html and url("compute", rev.design_id) not in html
    assert ">Cancel</button>" not in client.get(url("job", rev.design_id, job.pk)).content.decode()


@pytest.mark.parametrize("name, status", [("edit", 200), ("compute", 302), ("job_cancel", 302)])
def test_bob_with_write_access_edits_and_computes(client, users, world, name, status):
    rev, job = world
    DesignShare.objects.create(design=rev.design, user=users.bob, access=Access.WRITE)
    client.force_login(users.bob)

    assert _request(client, name, rev, job, users).status_code == status


@pytest.mark.parametrize("name", OWNER_ONLY)
def test_bob_with_write_access_cannot_share_or_delete(client, users, world, name):
    rev, job = world
    DesignShare.objects.create(design=rev.design, user=users.bob, access=Access.WRITE)
    client.force_login(users.bob)

    assert _request(client, name, rev, job, users).status_code == 404
    assert DesignShare.objects.get(user=users.bob).access == Access.WRITE


def test_charlie_does_not_see_alices_design_in_his_list(client, users, world):
    client.force_login(users.charlie)

    assert world[0].design.name not in client.get(url("list")).content.decode()


@pytest.mark.parametrize("name", READS + WRITES + OWNER_ONLY)
def test_signed_out_visitors_are_sent_to_sign_in(client, users, world, name):
    rev, job = world

    response = _request(client, name, rev, job, users)

    assert response.status_code == 302 and response.url.startswith("/accounts/login/?next=/designs/")


def test_healthz_and_the_sign_in_page_need_no_sign_in(client, db):
    assert client.get("/healthz").status_code == 200
    assert client.get("/accounts/login/").status_code == 200
