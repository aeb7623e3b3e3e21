"""Revision snapshots (apps/designs/snapshots.py): written with the revision, read back as computed, and given
once to revisions stored before them by the backfill, which never mixes a recomputation with stored rows."""

from __future__ import annotations

from unittest import mock

import pytest
from django.core.management import call_command
from django.db import connection

from apps.designs import services as design_services
from apps.designs import snapshots
from apps.designs.models import LinkRecord, RevisionSnapshot, SnapshotState
from apps.designs.snapshots import SnapshotUnavailable, revision_snapshot, snapshot_backfill_all
from apps.designs.tasks import backfill_snapshots
from engine.pipeline import compute_design
from engine.spec import parse_spec

from .test_views import alice, compute_now, design, revision, url  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_decodes():
    snapshots._cache.clear()


def test_a_compute_stores_the_snapshot_with_the_revision(revision):
    snap = RevisionSnapshot.objects.get(revision=revision)

    assert snap.state == SnapshotState.COMPLETE and not snap.backfilled and snap.size == len(bytes(snap.document))
    assert snap.checks  # the invariant checks it passed
    result = revision_snapshot(revision)
    assert len(result.links) == revision.link_count and len(result.physical.cable_rows) == revision.cable_count
    assert result.summary == revision.summary and result.checks == tuple(snap.checks)


def test_a_failed_store_leaves_no_snapshot(design, users):
    from apps.jobs.models import Job
    from apps.jobs.runner import run_job

    job = design_services.design_compute_enqueue(design=design, user=users.alice)
    with mock.patch.object(design_services, "snapshot_save", side_effect=RuntimeError("disk full")):
        assert run_job(str(job.pk)) == "failed"
    assert Job.objects.get(pk=job.pk).status == "failed"
    assert not design.revisions.exists() and not RevisionSnapshot.objects.exists()


def test_reading_a_snapshot_never_computes(revision):
    with mock.patch("engine.pipeline._start_design", side_effect=AssertionError("computed")):
        assert len(revision_snapshot(revision).links) == revision.link_count


def _stored_before_snapshots(revision):
    RevisionSnapshot.objects.filter(revision=revision).delete()


def test_the_backfill_gives_an_old_revision_its_snapshot_once(revision):
    _stored_before_snapshots(revision)
    with pytest.raises(SnapshotUnavailable, match="snapshot backfill"):
        revision_snapshot(revision)

    call_command("snapshot_backfill")

    snap = RevisionSnapshot.objects.get(revision=revision)
    assert snap.state == SnapshotState.COMPLETE and snap.backfilled and snap.catalog_version
    expected = compute_design(parse_spec(revision.spec))
    assert revision_snapshot(revision).links == expected.links
    assert snapshot_backfill_all() == {"complete": 0, "rows-only": 0}  # nothing left to do


def test_an_old_revision_whose_rows_differ_from_a_recomputation_shows_its_stored_rows_only(alice, revision):
    _stored_before_snapshots(revision)
    # As if the catalog had changed since it was stored: one stored link is longer than a recomputation makes it.
    LinkRecord.objects.filter(revision=revision, link_id=1).update(length_m=99.5)

    assert backfill_snapshots() == {"complete": 0, "rows-only": 1}

    snap = RevisionSnapshot.objects.get(revision=revision)
    assert snap.state == SnapshotState.ROWS_ONLY and snap.document is None
    assert "not reproducible with catalog" in snap.note and "links" in snap.note and "cables" not in snap.note
    with pytest.raises(SnapshotUnavailable, match="not reproducible with catalog"):
        revision_snapshot(revision)
    page = alice.get(url("revision", revision.design_id, revision.number)).content.decode()
    assert "Stored rows only" in page and "not reproducible with catalog" in page
    # its stored rows are still what it shows
    links = alice.get(url("links_csv", revision.design_id, revision.number))
    text = b"".join(links.streaming_content).decode() if links.streaming else links.content.decode()
    assert "99.5" in text.splitlines()[1]
    api = alice.get(f"/api/v1/designs/{revision.design_id}/revisions/{revision.number}/downloads/labels.pdf")
    assert api.status_code == 409 and "not reproducible with catalog" in api.json()["error"]["message"]


def test_a_revision_stored_before_snapshots_says_its_files_are_being_prepared(alice, revision):
    _stored_before_snapshots(revision)
    page = alice.get(url("revision", revision.design_id, revision.number)).content.decode()
    assert "its files are being prepared" in page


def test_the_snapshot_is_one_per_revision(revision):
    from django.db import IntegrityError, transaction

    with pytest.raises(IntegrityError), transaction.atomic():
        RevisionSnapshot.objects.create(revision=revision, document=b"")


def test_a_second_revision_is_decoded_from_its_own_snapshot(design, users):
    first = compute_now(design, users.alice)
    design.spec = {**design.spec, "servers": {"model": "dgx-h100", "count": 12}}
    design.save()
    second = compute_now(design, users.alice)
    assert len(revision_snapshot(first).devices) != len(revision_snapshot(second).devices)
    assert connection.vendor in ("postgresql", "sqlite")
