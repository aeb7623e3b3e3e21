"""The price-list key a BOM's ETag reads on every request, with the revision itself (revision_head(pricing=True)),
names what revision_pricing chooses:

alice's list: v1 (before r1), v2 and v3 (same instant, after r1)  -> r1 is priced with v1
bob reprices r1 with v3, then alice with v2                          -> the newest reprice, v2 by alice
alice's account is deleted                                           -> the reprice stays, by nobody
"""

from __future__ import annotations

from datetime import timedelta

from apps.catalog.models import PriceListVersion
from apps.designs.models import Revision, RevisionRepricing
from apps.designs.pricing import revision_pricing
from apps.designs.selectors import revision_head
from tests.factories import DesignFactory


def orm_key(revision) -> tuple:
    p = revision_pricing(revision=Revision.objects.get(pk=revision.pk))
    by = p.repricing.by.get_username() if p.repricing and p.repricing.by_id else None
    return (p.version.pk if p.version else None, p.repricing.pk if p.repricing else None, by)


def key(revision) -> tuple:
    """The key as the BOM reads it: in the same query as the revision (read as its owner)."""
    head = revision_head(user=revision.design.owner, design_id=revision.design_id, number=revision.number, pricing=True)
    return head.pricing_key


def version(owner, number: int, at) -> PriceListVersion:
    return PriceListVersion.objects.create(owner=owner, number=number, currency="EUR", prices={}, created_at=at)


def test_it_follows_revision_pricing_through_versions_and_reprices(users):
    design = DesignFactory(owner=users.alice)
    rev = Revision.objects.create(
        design=design, number=1, spec={}, spec_hash="x", engine_version="e", catalog_version="c", summary={}
    )
    assert key(rev) == orm_key(rev) == (None, None, None)

    v1 = version(users.alice, 1, rev.created_at - timedelta(days=1))
    later = rev.created_at + timedelta(days=1)
    v2, v3 = version(users.alice, 2, later), version(users.alice, 3, later)
    version(users.bob, 1, rev.created_at - timedelta(hours=1))  # another owner's list plays no part
    assert key(rev) == orm_key(rev) == (v1.pk, None, None)

    RevisionRepricing.objects.create(revision=rev, version=v3, by=users.bob)
    newest = RevisionRepricing.objects.create(revision=rev, version=v2, by=users.alice)
    assert key(rev) == orm_key(rev) == (v2.pk, newest.pk, "alice")

    RevisionRepricing.objects.filter(pk=newest.pk).update(by=None)  # what deleting alice's account leaves
    assert key(rev) == orm_key(rev) == (v2.pk, newest.pk, None)


def test_versions_made_at_the_same_instant_go_by_number(users):
    design = DesignFactory(owner=users.alice)
    rev = Revision.objects.create(
        design=design, number=1, spec={}, spec_hash="x", engine_version="e", catalog_version="c", summary={}
    )
    earlier = rev.created_at - timedelta(minutes=5)
    version(users.alice, 1, earlier)
    v2 = version(users.alice, 2, earlier)

    assert key(rev) == orm_key(rev) == (v2.pk, None, None)
