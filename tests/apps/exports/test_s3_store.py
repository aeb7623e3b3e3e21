"""The s3 artifact store against a local S3-compatible server (moto): stored once, streamed back, or handed off
to the object store with a presigned URL.

GIVEN alice's small computed design and a fresh bucket
"""

from __future__ import annotations

import io
import urllib.request

import pytest
from django.core.files import File

from apps.designs.services import design_compute_enqueue, design_create
from apps.exports.artifacts import artifact_build, artifact_prune, artifact_storage
from apps.exports.models import Artifact
from apps.jobs.runner import run_job
from tests.apps.api.conftest import token_client

pytestmark = pytest.mark.django_db(transaction=True)

SPEC = {
    "name": "s3",
    "servers": {"model": "dgx-h100", "count": 16},
    "compute_fabric": {"technology": "infiniband", "switch": "qm9700"},
}


@pytest.fixture
def revision(users):
    design = design_create(user=users.alice, spec=SPEC)
    assert run_job(str(design_compute_enqueue(design=design, user=users.alice).pk)) == "succeeded"
    return design.revisions.get()


def test_the_storage_api_round_trips_through_the_bucket(s3_store):
    storage = artifact_storage()
    storage.save("3/k/a.csv", File(io.BytesIO(b"a" * 3_000_000)))

    assert storage.exists("3/k/a.csv") and storage.size("3/k/a.csv") == 3_000_000
    assert storage.open_stream("3/k/a.csv").read() == b"a" * 3_000_000
    assert storage.all_names() == ["3/k/a.csv"] and storage.listdir("3/k") == ([], ["a.csv"])
    storage.delete("3/k/a.csv")
    with pytest.raises(FileNotFoundError):
        storage.open_stream("3/k/a.csv")


def test_a_download_is_built_once_into_the_bucket_and_streamed_from_it(s3_store, revision, users):
    alice = token_client(users.alice)
    url = f"/api/v1/designs/{revision.design_id}/revisions/1/downloads/labels.pdf"

    first, second = alice.get(url), alice.get(url)

    data = b"".join(first.streaming_content)
    artifact = Artifact.objects.get()
    assert first.status_code == second.status_code == 200 and data.startswith(b"%PDF")
    assert artifact.store == "s3" and len(data) == artifact.size and b"".join(second.streaming_content) == data
    assert artifact_storage().all_names() == [artifact.name]


def test_with_redirects_the_client_fetches_the_file_from_a_presigned_url(s3_store, revision, users, settings):
    settings.ARTIFACT_S3_REDIRECT = True
    alice = token_client(users.alice)

    r = alice.get(f"/api/v1/designs/{revision.design_id}/revisions/1/downloads/labels.pdf")

    assert r.status_code == 302 and "Signature" in r["Location"] and r["Cache-Control"] == "private, no-store"
    with urllib.request.urlopen(r["Location"], timeout=30) as fetched:
        body = fetched.read()
        assert 'filename="s3-r1-labels.pdf"' in fetched.headers["Content-Disposition"]
    assert body.startswith(b"%PDF") and len(body) == Artifact.objects.get().size


def test_deleting_the_revision_and_the_retention_empty_the_bucket(s3_store, revision):
    artifact_build(revision=revision, kind="topology.dot", options={})
    artifact_build(revision=revision, kind="labels.pdf", options={})
    assert len(artifact_storage().all_names()) == 2

    Artifact.objects.filter(kind="labels.pdf").delete()
    assert len(artifact_storage().all_names()) == 1
    assert artifact_prune(max_bytes=0)["over_size"] == 1
    assert artifact_storage().all_names() == []
