"""One download contract: GET answers 200 with the file when it is stored or cheap to render, else 202 with the
build job in Location; stored files are streamed with a strong ETag, and revision resources are cacheable.

GIVEN alice's computed design (a few hundred cables: cheap, unless DOWNLOAD_INLINE_MAX_CABLES says otherwise)
Workers are stood in for by the job runner, run here synchronously (the same code a worker runs).
"""

from __future__ import annotations

import pytest
from django.http import FileResponse

from apps.exports.models import Artifact
from apps.jobs.models import Job
from apps.jobs.runner import run_job
from tests.apps.api.conftest import rev_url

pytestmark = pytest.mark.django_db

IMMUTABLE = "private, max-age=86400, immutable"


@pytest.fixture(autouse=True)
def _a_day(settings):
    settings.REVISION_HTTP_MAX_AGE_S = 86400


def body(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def test_a_cheap_file_is_rendered_once_then_served_from_the_store(alice, computed):
    first = alice.get(rev_url(computed, tail="downloads/labels.pdf"))
    second = alice.get(rev_url(computed, tail="downloads/labels.pdf"))

    data = body(first)
    assert first.status_code == second.status_code == 200
    assert data == body(second) and data.startswith(b"%PDF")
    artifact = Artifact.objects.get()
    assert artifact.kind == "labels.pdf" and artifact.size == len(data)
    assert first["ETag"] == second["ETag"] == f'"{artifact.sha256}"'
    assert first["Cache-Control"] == IMMUTABLE and first["Content-Length"] == str(artifact.size)
    assert "labels.pdf" in first["Content-Disposition"]


def test_if_none_match_answers_304_without_a_body(alice, computed):
    etag = alice.get(rev_url(computed, tail="downloads/test-sheet.csv"))["ETag"]

    again = alice.get(rev_url(computed, tail="downloads/test-sheet.csv"), HTTP_IF_NONE_MATCH=etag)
    other = alice.get(rev_url(computed, tail="downloads/test-sheet.csv"), HTTP_IF_NONE_MATCH='"stale"')

    assert again.status_code == 304 and again.content == b"" and again["ETag"] == etag
    assert again["Cache-Control"] == IMMUTABLE
    assert "Content-Type" not in again  # no body, no representation metadata (RFC 9110 15.4.5)
    assert other.status_code == 200


def test_a_large_file_not_stored_is_a_202_naming_its_build_job_then_a_200(alice, computed, settings):
    settings.DOWNLOAD_INLINE_MAX_CABLES = 0
    url = rev_url(computed, tail="downloads/cabling-plan.pdf")

    r = alice.get(url)
    again = alice.get(url)  # asked twice while building: the same job

    assert r.status_code == again.status_code == 202
    job = r.json()
    assert r["Location"] == job["url"] and again.json()["id"] == job["id"] and job["kind"] == "export"
    assert Job.objects.filter(kind="export").count() == 1 and not Artifact.objects.exists()
    assert alice.get(job["url"]).json()["status"] == "queued"

    assert run_job(job["id"]) == "succeeded"
    done = alice.get(job["url"]).json()
    assert done["status"] == "succeeded" and done["file_url"]
    stored = alice.get(url)
    from_job = alice.get(done["file_url"])
    assert stored.status_code == from_job.status_code == 200
    data = body(stored)
    assert data == body(from_job) and data.startswith(b"%PDF")
    assert Artifact.objects.count() == 1


def test_the_bom_files_revalidate_because_a_reprice_changes_them(alice, computed):
    r = alice.get(rev_url(computed, tail="downloads/bom.csv"))
    assert r.status_code == 200 and r["Cache-Control"] == "private, no-cache" and r["ETag"].startswith('"')
    assert alice.get(rev_url(computed, tail="downloads/bom.csv"), HTTP_IF_NONE_MATCH=r["ETag"]).status_code == 304


def test_new_prices_build_a_new_bom_file_and_leave_the_other_deliverables(alice, computed, users):
    from apps.catalog.services import price_list_save

    before = alice.get(rev_url(computed, tail="downloads/bom.csv"))
    alice.get(rev_url(computed, tail="downloads/labels.pdf"))
    price_list_save(owner=users.alice, currency="USD", prices={"MQM9700-NS2F": "30000"})
    alice.post(rev_url(computed, tail="reprice/"))

    after = alice.get(rev_url(computed, tail="downloads/bom.csv"))
    assert after["ETag"] != before["ETag"] and b"30000" in body(after)
    assert sorted(Artifact.objects.values_list("kind", flat=True)) == ["bom.csv", "bom.csv", "labels.pdf"]


def test_a_renderer_change_builds_a_new_artifact_instead_of_serving_the_stale_one(alice, computed, monkeypatch):
    from apps.exports import artifacts

    first = alice.get(rev_url(computed, tail="downloads/topology.dot"))
    artifacts.renderer_version.cache_clear()
    monkeypatch.setattr(artifacts, "RENDERER_SOURCES", (*artifacts.RENDERER_SOURCES, "README.md"))
    try:
        second = alice.get(rev_url(computed, tail="downloads/topology.dot"))
    finally:
        artifacts.renderer_version.cache_clear()
    assert first.status_code == second.status_code == 200
    assert Artifact.objects.filter(kind="topology.dot").values("renderer_version").distinct().count() == 2


def test_with_accel_redirect_nginx_sends_the_file(alice, computed, settings):
    settings.ARTIFACT_ACCEL_REDIRECT = "/_artifacts/"
    if settings.ARTIFACT_STORE != "files":
        pytest.skip("X-Accel-Redirect serves the files store only")
    r = alice.get(rev_url(computed, tail="downloads/labels.pdf"))
    artifact = Artifact.objects.get()
    assert r.status_code == 200 and r["X-Accel-Redirect"] == f"/_artifacts/{artifact.name}" and r.content == b""
    assert r["ETag"] == f'"{artifact.sha256}"' and "labels.pdf" in r["Content-Disposition"]


def test_a_file_removed_by_retention_is_a_410_at_its_job_and_rebuilt_by_the_download(alice, computed, settings):
    settings.DOWNLOAD_INLINE_MAX_CABLES = 0
    job = alice.get(rev_url(computed, tail="downloads/labels.pdf")).json()
    run_job(job["id"])
    Artifact.objects.all().delete()

    assert alice.get(f"/api/v1/jobs/{job['id']}/file").status_code == 410
    assert alice.get(rev_url(computed, tail="downloads/labels.pdf")).status_code == 202


def test_another_user_gets_neither_the_file_nor_its_job(alice, bob, computed, settings):
    settings.DOWNLOAD_INLINE_MAX_CABLES = 0
    job = alice.get(rev_url(computed, tail="downloads/labels.pdf")).json()
    run_job(job["id"])
    assert bob.get(rev_url(computed, tail="downloads/labels.pdf")).status_code == 404
    assert bob.get(f"/api/v1/jobs/{job['id']}/file").status_code == 404


@pytest.mark.parametrize(
    "tail", ["summary/", "links/?limit=5", "cables/?limit=5", "downloads/links.csv", "downloads/summary.json"]
)
def test_immutable_revision_resources_carry_a_strong_etag_and_answer_304(alice, computed, tail):
    r = alice.get(rev_url(computed, tail=tail))
    assert r.status_code == 200 and r["Cache-Control"] == IMMUTABLE
    assert r["ETag"].startswith('"') and not r["ETag"].startswith("W/")
    again = alice.get(rev_url(computed, tail=tail), HTTP_IF_NONE_MATCH=r["ETag"])
    assert again.status_code == 304 and again.content == b""


def test_each_page_of_links_has_its_own_etag(alice, computed):
    first = alice.get(rev_url(computed, tail="links/?limit=5"))
    nxt = alice.get(first.json()["next"])
    assert first["ETag"] != nxt["ETag"]
    assert alice.get(first.json()["next"], HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 200


def test_the_bom_json_is_revalidated_and_changes_its_etag_on_reprice(alice, computed, users):
    from apps.catalog.services import price_list_save

    r = alice.get(rev_url(computed, tail="bom/"))
    assert r["Cache-Control"] == "private, no-cache"
    assert alice.get(rev_url(computed, tail="bom/"), HTTP_IF_NONE_MATCH=r["ETag"]).status_code == 304
    price_list_save(owner=users.alice, currency="USD", prices={"MQM9700-NS2F": "30000"})
    alice.post(rev_url(computed, tail="reprice/"))
    assert alice.get(rev_url(computed, tail="bom/"), HTTP_IF_NONE_MATCH=r["ETag"]).status_code == 200


def test_a_file_missing_from_the_store_is_built_again_not_a_500(alice, computed):
    from apps.exports.artifacts import artifact_storage

    first = alice.get(rev_url(computed, tail="downloads/labels.pdf"))
    artifact_storage().delete(Artifact.objects.get().name)

    again = alice.get(rev_url(computed, tail="downloads/labels.pdf"))
    assert first.status_code == again.status_code == 200 and body(again).startswith(b"%PDF")
    assert Artifact.objects.count() == 1


def test_after_a_change_of_store_the_other_stores_files_are_not_served(alice, computed, settings):
    alice.get(rev_url(computed, tail="downloads/labels.pdf"))
    other = "database" if settings.ARTIFACT_STORE == "files" else "files"
    Artifact.objects.update(store=other)

    r = alice.get(rev_url(computed, tail="downloads/labels.pdf"))
    assert r.status_code == 200 and body(r).startswith(b"%PDF")
    assert sorted(Artifact.objects.values_list("store", flat=True)) == sorted([other, settings.ARTIFACT_STORE])


def test_the_database_store_streams_the_file_with_its_length_and_etag(alice, computed, settings):
    settings.ARTIFACT_STORE = "database"
    settings.STORAGES = {**settings.STORAGES, "artifacts": {"BACKEND": "apps.exports.storage.DatabaseStorage"}}

    first = alice.get(rev_url(computed, tail="downloads/labels.pdf"))
    second = alice.get(rev_url(computed, tail="downloads/labels.pdf"))

    artifact = Artifact.objects.get(kind="labels.pdf", store="database")
    data = body(first)
    # the chunks straight from the store, not a file object read through a buffer (FileResponse)
    assert first.streaming and not isinstance(first, FileResponse)
    assert data.startswith(b"%PDF") and len(data) == artifact.size
    assert first["Content-Length"] == str(artifact.size) and first["ETag"] == f'"{artifact.sha256}"'
    assert body(second) == data
