"""A full artifact store is a clear 507 naming the reason, with nothing stored, never a 500; an answer that
carries a secret (a new API token's key) is `no-store`.

The store is made full the way a disk is: the write of the file (or of the spool it is rendered into) fails with
ENOSPC.
"""

from __future__ import annotations

import errno

import pytest

from tests.apps.api.conftest import SMALL_SPEC, compute_now, error_of, rev_url

pytestmark = pytest.mark.django_db


def _no_space(*_args, **_kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


@pytest.fixture
def computed(users):
    from apps.designs.services import design_create

    design = design_create(user=users.alice, spec=SMALL_SPEC)
    compute_now(design, users.alice)
    return design


def _stored_files() -> list[str]:
    from apps.exports.artifacts import artifact_storage

    return artifact_storage().all_names()


@pytest.mark.parametrize("where", ["store", "spool"])
def test_a_download_rendered_into_a_full_store_is_a_507_and_stores_nothing(alice, computed, monkeypatch, where):
    from apps.exports import services, storage
    from apps.exports.models import Artifact

    if where == "store":
        monkeypatch.setattr(storage, "_write_all", _no_space)
    else:
        monkeypatch.setattr(services, "render_into", _no_space)
    r = alice.get(rev_url(computed, 1, "downloads/bom.pdf"))
    assert r.status_code == 507, r.content[:300]
    body = error_of(r)
    assert body["code"] == "insufficient_storage" and "file store is full" in body["message"]
    assert "No space left on device" in body["message"]
    assert not Artifact.objects.exists() and _stored_files() == []
    monkeypatch.undo()
    assert alice.get(rev_url(computed, 1, "downloads/bom.pdf")).status_code == 200


def test_a_background_build_into_a_full_store_fails_its_job_saying_why(computed, monkeypatch):
    from apps.exports import storage
    from apps.exports.models import Artifact
    from apps.jobs.models import JobStatus
    from apps.jobs.runner import run_job
    from tests.factories import JobFactory

    rev = computed.revisions.get()
    job = JobFactory(kind="export", design=computed, params={"revision_id": rev.pk, "kind": "labels.pdf"})
    monkeypatch.setattr(storage, "_write_all", _no_space)
    assert run_job(str(job.pk)) == "failed"
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED
    assert job.error.startswith("labels.pdf could not be stored: the server's file store is full")
    assert not Artifact.objects.exists() and _stored_files() == []


def test_the_qos_page_says_the_store_is_full(client, users, monkeypatch, settings):
    from apps.designs.services import design_create
    from apps.exports import storage
    from engine.presets import load_preset

    design = design_create(user=users.alice, spec=load_preset("hgx-roce-2su"))
    compute_now(design, users.alice)
    settings.DOWNLOAD_INLINE_MAX_CABLES = 100_000  # built here, in the request
    monkeypatch.setattr(storage, "_write_all", _no_space)
    client.force_login(users.alice)
    page = client.get(f"/designs/{design.pk}/revisions/1/qos/")
    assert page.status_code == 507
    assert "file store is full" in page.content.decode()


def test_a_new_api_tokens_key_is_never_cached(users):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(users.alice)
    r = client.post("/api/v1/tokens/", {"name": "ci"}, format="json")
    assert r.status_code == 201 and r.json()["key"]
    assert "no-store" in r["Cache-Control"]


def test_the_token_page_showing_a_new_key_is_never_cached(client, users):
    client.force_login(users.alice)
    r = client.post("/accounts/tokens/", {"name": "ci"})
    assert r.status_code == 200 and "no-store" in r["Cache-Control"]
