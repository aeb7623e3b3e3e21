"""A large revision's QoS configuration set is built by a worker into the artifact store, like the other large
deliverables: the file list and every file answer 202 with the build job in Location until configs.zip is stored,
then 200 from the store; the page shows the build's progress and then the report, read out of the archive.

GIVEN alice's RoCE design (8 generic 8-GPU servers on SN5600), made "large" by DOWNLOAD_INLINE_MAX_CABLES = 0;
      each test has a cache of its own (tests/apps/api/conftest.py)
Workers are stood in for by the job runner, run here synchronously (the same code a worker runs).
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from apps.designs.models import RevisionSnapshot
from apps.exports.models import Artifact
from apps.jobs.models import Job, JobStatus
from apps.jobs.runner import run_job
from apps.qos import selectors as qos_selectors
from tests.apps.api.conftest import rev_url

from .test_qos import roce, roce_computed  # noqa: F401 - fixtures

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _large(settings):
    settings.DOWNLOAD_INLINE_MAX_CABLES = 0


def test_the_list_and_a_file_are_202_naming_one_build_job_then_200_from_the_store(alice, roce_computed):
    listing = alice.get(rev_url(roce_computed, tail="configs/"))
    one = alice.get(rev_url(roce_computed, tail="configs/policy.json"))

    assert listing.status_code == one.status_code == 202
    job = listing.json()
    assert listing["Location"] == job["url"] and one.json()["id"] == job["id"] and job["kind"] == "export"
    assert Job.objects.filter(kind="export").count() == 1 and not Artifact.objects.exists()

    assert run_job(job["id"]) == "succeeded"
    rev = roce_computed.revisions.get(number=1)
    artifact = Artifact.objects.get(kind="configs.zip", revision=rev)
    assert cache.get(qos_selectors._report_key(artifact.key)) is not None  # the worker read the report out

    listing = alice.get(rev_url(roce_computed, tail="configs/"))
    one = alice.get(rev_url(roce_computed, tail="configs/policy.json"))
    assert listing.status_code == one.status_code == 200
    assert json.loads(one.content)["mode"] == "dcqcn" and one["ETag"].startswith('"')
    names = {f["name"] for f in listing.json()["results"]}
    assert {"policy.json", "summary.json", "CF-SU01-L01.nvue.txt"} <= names
    assert Job.objects.filter(kind="export").count() == 1


def test_a_revision_without_a_snapshot_is_a_409_and_queues_nothing(alice, roce_computed):
    RevisionSnapshot.objects.filter(revision__design=roce_computed).delete()

    r = alice.get(rev_url(roce_computed, tail="configs/"))

    assert r.status_code == 409 and r.json()["error"]["code"] == "revision_not_reproducible"
    assert not Job.objects.filter(kind="export").exists()


def test_bob_without_a_share_gets_neither_the_list_nor_a_job(bob, roce_computed):
    assert bob.get(rev_url(roce_computed, tail="configs/")).status_code == 404
    assert not Job.objects.filter(kind="export").exists()


# --- the browser's pages ----------------------------------------------------------------------------------


@pytest.fixture
def browser(client, users):
    client.force_login(users.alice)
    return client


def _page(design, tail: str = "") -> str:
    return f"/designs/{design.pk}/revisions/1/qos/{tail}"


def test_the_report_fragment_shows_the_builds_progress_then_the_report(browser, roce_computed):
    building = browser.get(_page(roce_computed, "?fragment=1"))

    html = building.content.decode()
    assert building.status_code == 202
    assert "Building configs.zip of r1" in html and "data-job-status-url=" in html
    job = Job.objects.get(kind="export")

    run_job(str(job.pk))
    done = browser.get(_page(roce_computed, "?fragment=1"))
    assert done.status_code == 200 and 'id="qos-warnings"' in done.content.decode()
    assert "CF-SU01-L01.nvue.txt" in done.content.decode()


def test_a_failed_build_is_shown_with_a_retry_and_not_queued_again_by_the_reload(browser, roce_computed):
    browser.get(_page(roce_computed, "?fragment=1"))
    Job.objects.filter(kind="export").update(status=JobStatus.FAILED, error="the worker ran out of memory")

    shown = browser.get(_page(roce_computed, "?fragment=1")).content.decode()
    assert "the worker ran out of memory" in shown and 'id="qos-retry"' in shown
    assert Job.objects.filter(kind="export").count() == 1

    retried = browser.get(_page(roce_computed, "?fragment=1&retry=1"))
    assert retried.status_code == 202 and Job.objects.filter(kind="export").count() == 2
    # the page on its own redirects a retry to itself, so its reload when the build ends does not retry again
    page = browser.get(_page(roce_computed, "?retry=1"))
    assert page.status_code == 302 and page["Location"] == _page(roce_computed)


def test_a_file_link_before_the_set_is_built_leads_to_the_qos_page(browser, roce_computed):
    r = browser.get(f"/designs/{roce_computed.pk}/revisions/1/configs/policy.json")

    assert r.status_code == 302 and r["Location"] == _page(roce_computed)
    assert not Job.objects.filter(kind="export").exists()  # the page queues it, when it is opened
    page = browser.get(r["Location"])
    assert page.status_code == 202 and "policy.json can be downloaded when it is ready" in page.content.decode()


def test_a_set_removed_by_the_retention_is_built_again_though_its_report_is_cached(browser, roce_computed):
    """The report is shown only while its archive is stored: its file links must have something to serve."""
    run_job(str(_queued_build(browser, roce_computed).pk))
    assert browser.get(_page(roce_computed, "?fragment=1")).status_code == 200
    Artifact.objects.all().delete()  # the retention sweep, days later; the report stays in the cache
    Job.objects.update(finished_at=timezone.now() - timedelta(days=3))

    again = browser.get(_page(roce_computed, "?fragment=1"))

    assert again.status_code == 202 and "Building configs.zip of r1" in again.content.decode()
    assert Job.objects.filter(kind="export").count() == 2


def _queued_build(client, design) -> Job:
    assert client.get(_page(design, "?fragment=1")).status_code == 202
    return Job.objects.get(kind="export", status=JobStatus.QUEUED)


def test_a_build_the_web_cannot_read_is_explained_not_queued_again(browser, roce_computed):
    """Web and worker not sharing the store: the job succeeded, the archive is not readable here. The page says
    so rather than queueing a build on every reload."""
    run_job(str(_queued_build(browser, roce_computed).pk))
    Artifact.objects.all().delete()  # what this process sees when the worker stored it elsewhere

    r = browser.get(_page(roce_computed, "?fragment=1"))

    assert r.status_code == 409 and "must share the store" in r.content.decode()
    assert Job.objects.filter(kind="export").count() == 1


def test_a_full_job_quota_is_shown_and_queues_nothing(browser, roce_computed, settings):
    settings.JOB_MAX_QUEUED_PER_USER = 0

    r = browser.get(_page(roce_computed, "?fragment=1"))

    assert r.status_code == 409 and "could not be queued" in r.content.decode()
    assert not Job.objects.filter(kind="export").exists()


def test_a_worker_that_builds_under_another_key_fails_the_job_saying_why(browser, roce_computed):
    """A worker of another release (renderer version) stores the archive where the web would never look: the job
    fails with the reason instead of succeeding uselessly."""
    job = _queued_build(browser, roce_computed)
    Job.objects.filter(pk=job.pk).update(params={**job.params, "key": "0" * 64})

    assert run_job(str(job.pk)) == "failed"
    assert "renderer version" in Job.objects.get(pk=job.pk).error


def test_a_catalog_error_while_rendering_is_a_409_not_a_500(roce_computed, monkeypatch):
    from engine.errors import CatalogError

    def broken(**kwargs):
        raise CatalogError("part 'sn5600' is not in the catalog")

    monkeypatch.setattr(qos_selectors, "artifact_build", broken)
    with pytest.raises(qos_selectors.QosPlanError) as caught:
        qos_selectors.qos_archive_build(revision=roce_computed.revisions.get(number=1))
    assert caught.value.code == "revision_not_reproducible" and "sn5600" in caught.value.message
