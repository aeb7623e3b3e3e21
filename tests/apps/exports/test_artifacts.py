"""The artifact store's lifecycle: built once, deleted with its revision, kept bounded by size and age.

GIVEN alice's small computed design and the store of each kind (files under a test folder, the database)
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.designs.services import design_create
from apps.exports.artifacts import artifact_build, artifact_prune, artifact_storage
from apps.exports.models import Artifact, StoredChunk
from apps.jobs.runner import run_job

pytestmark = pytest.mark.django_db(transaction=True)  # files are deleted on commit

SPEC = {
    "name": "a",
    "servers": {"model": "dgx-h100", "count": 16},
    "compute_fabric": {"technology": "infiniband", "switch": "qm9700"},
}


@pytest.fixture(params=["files", "database"])
def store(request, settings, tmp_path):
    settings.ARTIFACT_STORE = request.param
    settings.STORAGES = {
        **settings.STORAGES,
        "artifacts": {
            "files": {
                "BACKEND": "apps.exports.storage.AtomicFileSystemStorage",
                "OPTIONS": {"location": str(tmp_path / "artifacts")},
            },
            "database": {"BACKEND": "apps.exports.storage.DatabaseStorage"},
        }[request.param],
    }
    return request.param


@pytest.fixture
def revision(users):
    from apps.designs.services import design_compute_enqueue

    design = design_create(user=users.alice, spec=SPEC)
    job = design_compute_enqueue(design=design, user=users.alice)
    assert run_job(str(job.pk)) == "succeeded"
    return design.revisions.get()


def names() -> list[str]:
    return sorted(artifact_storage().all_names())


def test_a_build_is_stored_once_and_found_again(store, revision):
    first = artifact_build(revision=revision, kind="labels.pdf", options={})
    again = artifact_build(revision=revision, kind="labels.pdf", options={})
    a4 = artifact_build(revision=revision, kind="labels.pdf", options={"page_size": "a4"})

    assert again.pk == first.pk and a4.pk != first.pk
    assert names() == sorted([first.name, a4.name])
    with artifact_storage().open(first.name) as fh:
        assert fh.read(4) == b"%PDF"


def test_deleting_the_revision_deletes_its_files(store, revision):
    artifact_build(revision=revision, kind="labels.pdf", options={})
    artifact_build(revision=revision, kind="test-sheet.csv", options={})
    assert len(names()) == 2

    revision.design.delete()

    assert not Artifact.objects.exists() and names() == []
    assert not StoredChunk.objects.exists()


def test_retention_deletes_what_was_unused_too_long_then_the_least_recently_used_over_the_size(store, revision):
    old = artifact_build(revision=revision, kind="labels.pdf", options={})
    mid = artifact_build(revision=revision, kind="test-sheet.csv", options={})
    new = artifact_build(revision=revision, kind="topology.dot", options={})
    now = timezone.now()
    Artifact.objects.filter(pk=old.pk).update(used_at=now - timedelta(days=40))
    Artifact.objects.filter(pk=mid.pk).update(used_at=now - timedelta(days=2))

    out = artifact_prune(max_bytes=new.size, max_age_days=30)

    assert out["aged"] == 1 and out["over_size"] == 1
    assert list(Artifact.objects.values_list("pk", flat=True)) == [new.pk] and names() == [new.name]


def test_retention_deletes_stored_files_no_row_names_once_they_are_an_hour_old(store, revision):
    from django.core.files.base import ContentFile

    kept = artifact_build(revision=revision, kind="topology.dot", options={})
    storage = artifact_storage()
    storage.save("9/orphan/bom.csv", ContentFile(b"left by a build killed before its row"))

    assert artifact_prune()["orphans"] == 0  # it may be a build between its save and its row
    if store == "files":
        import os

        os.utime(storage.path("9/orphan/bom.csv"), (0, 0))
    else:
        StoredChunk.objects.filter(name="9/orphan/bom.csv").update(created_at=timezone.now() - timedelta(hours=2))
    assert artifact_prune()["orphans"] == 1
    assert names() == [kept.name]


def test_retention_deletes_the_files_export_jobs_wrote_before_the_store_once_they_are_an_hour_old(settings, tmp_path):
    import os

    settings.MEDIA_ROOT = str(tmp_path / "media")
    old_dir = tmp_path / "media" / "exports" / "41"
    old_dir.mkdir(parents=True)
    (old_dir / "labels.pdf").write_bytes(b"%PDF built by an export job before the artifact store")
    (old_dir / "cabling-plan.pdf.part").write_bytes(b"%PDF left by a failed one")
    young = tmp_path / "media" / "exports" / "42" / "bom.pdf"
    young.parent.mkdir()
    young.write_bytes(b"%PDF being written by a worker of the previous release")
    for path in old_dir.iterdir():
        os.utime(path, (0, 0))

    assert artifact_prune()["legacy"] == 2
    assert not old_dir.exists() and young.exists()
    os.utime(young, (0, 0))
    assert artifact_prune()["legacy"] == 1
    assert not (tmp_path / "media" / "exports").exists()
    assert artifact_prune()["legacy"] == 0


def test_the_beat_schedule_runs_the_retention_task_hourly(settings):
    from apps.exports.tasks import prune_artifacts

    entry = settings.CELERY_BEAT_SCHEDULE["prune-artifacts"]
    assert entry == {"task": prune_artifacts.name, "schedule": 3600.0}
