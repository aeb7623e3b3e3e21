"""revision_head, the hand-written read of a revision for its hot resources, keeps revision_get's access rule and
gives the same revision (and the same fingerprint) as the ORM does:

    alice owns the design            -> she gets it
    bob has it shared (read)         -> he gets it; once the share is gone, a 404
    charlie has nothing              -> a 404, as for a revision number that does not exist
    a share waiting for an account   -> grants nothing
"""

from __future__ import annotations

import pytest
from django.http import Http404

from apps.designs.models import DesignShare, Revision, RevisionSnapshot
from apps.designs.revision_cache import revision_fingerprint
from apps.designs.selectors import revision_get, revision_head
from tests.factories import DesignFactory


@pytest.fixture
def revision(users):
    design = DesignFactory(owner=users.alice, name="Hall A")
    return Revision.objects.create(
        design=design,
        number=1,
        spec=design.spec,
        spec_hash="a" * 64,
        engine_version="e1",
        catalog_version="c1",
        summary={"gpus": 128},
        link_count=12,
        cable_count=10,
        created_by=users.alice,
    )


def test_it_gives_the_owner_the_revision_revision_get_gives(users, revision):
    head = revision_head(user=users.alice, design_id=revision.design_id, number=1)
    full = revision_get(user=users.alice, design_id=revision.design_id, number=1)

    assert head.pk == full.pk
    for field in ("number", "design_id", "created_at", "spec", "spec_hash", "engine_version", "catalog_version"):
        assert getattr(head, field) == getattr(full, field), field
    assert (head.link_count, head.cable_count, head.created_by_id) == (12, 10, users.alice.pk)
    assert (head.design.name, head.design.owner_id) == ("Hall A", users.alice.pk)
    assert "summary" in head.get_deferred_fields()
    assert head.summary == {"gpus": 128}  # loaded on first use


def test_a_shared_user_gets_it_until_the_share_is_gone(users, revision):
    share = DesignShare.objects.create(design=revision.design, user=users.bob, username="bob")

    assert revision_head(user=users.bob, design_id=revision.design_id, number=1).pk == revision.pk

    share.delete()
    with pytest.raises(Http404):
        revision_head(user=users.bob, design_id=revision.design_id, number=1)


def test_an_outsider_a_pending_share_and_a_wrong_number_get_404(users, revision):
    DesignShare.objects.create(design=revision.design, user=None, username="dora")  # no such account yet

    for user, number in ((users.charlie, 1), (users.alice, 2)):
        with pytest.raises(Http404):
            revision_head(user=user, design_id=revision.design_id, number=number)
        with pytest.raises(Http404):
            revision_get(user=user, design_id=revision.design_id, number=number)


def test_its_fingerprint_is_the_one_the_orm_revision_has_with_or_without_a_snapshot(users, revision):
    def both():
        head = revision_head(user=users.alice, design_id=revision.design_id, number=1)
        return revision_fingerprint(head), revision_fingerprint(Revision.objects.get(pk=revision.pk))

    without = both()
    RevisionSnapshot.objects.create(revision=revision, sha256="b" * 64)
    with_snapshot = both()

    assert without[0] == without[1]
    assert with_snapshot[0] == with_snapshot[1]
    assert without[0] != with_snapshot[0]  # a backfilled snapshot makes a new fingerprint


def test_a_bare_revision_keeps_the_rule_and_names_the_revision_as_the_orm_does(users, revision):
    """revision_get(bare=True), a table page's read: the ETag fields, nothing else loaded, the same access rule."""
    share = DesignShare.objects.create(design=revision.design, user=users.bob, username="bob")
    full = Revision.objects.get(pk=revision.pk)

    for user in (users.alice, users.bob):
        bare = revision_get(user=user, design_id=revision.design_id, number=1, bare=True)
        assert (bare.pk, bare.number, bare.design_id, bare.created_at, bare.spec_hash) == (
            full.pk,
            1,
            full.design_id,
            full.created_at,
            full.spec_hash,
        )
        assert {"summary", "spec"} <= bare.get_deferred_fields()
    share.delete()
    DesignShare.objects.create(design=revision.design, user=None, username="dora")
    for user, number in ((users.bob, 1), (users.charlie, 1), (users.alice, 2)):
        with pytest.raises(Http404):
            revision_get(user=user, design_id=revision.design_id, number=number, bare=True)
