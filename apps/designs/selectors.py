"""Reads that respect access: a user sees their own designs and those shared with them; others get 404."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from django.db import connection
from django.db.models import F, Q, QuerySet
from django.http import Http404

from apps.common.db import columns, partial_instance, row_instance

from .models import Access, Design, DesignShare, Revision, RevisionSnapshot
from .pricing import pricing_key_sql

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def design_list(*, user: User) -> QuerySet[Design]:
    return (
        Design.objects.filter(Q(owner=user) | Q(shares__user=user))
        .distinct()
        .select_related("owner")
        .order_by("-updated_at")
    )


def design_list_owned(*, user: User) -> QuerySet[Design]:
    """The user's own designs (newest change first): their list never depends on what others share."""
    return Design.objects.filter(owner=user).select_related("owner").order_by("-updated_at")


def design_list_shared(*, user: User) -> QuerySet[Design]:
    """Designs others shared with the user, in a list of their own that the user can leave."""
    # `access` is the user's own share (read or write), from the same join as the filter
    return (
        Design.objects.filter(shares__user=user)
        .exclude(owner=user)
        .annotate(access=F("shares__access"))
        .select_related("owner")
        .order_by("-updated_at")
    )


def design_get(*, user: User, design_id: int, write: bool = False) -> Design:
    """The design if the user may see it (write=True: may change it); otherwise Http404, never 403."""
    qs = Design.objects.select_related("owner")
    if write:
        qs = qs.filter(Q(owner=user) | Q(shares__user=user, shares__access=Access.WRITE))
    else:
        qs = qs.filter(Q(owner=user) | Q(shares__user=user))
    design = qs.filter(pk=design_id).distinct().first()
    if design is None:
        raise Http404("No such design.")
    return design


def design_can_write(*, user: User, design: Design) -> bool:
    return design.owner_id == user.id or design.shares.filter(user=user, access=Access.WRITE).exists()


def revision_get(
    *, user: User, design_id: int, number: int, defer: tuple[str, ...] = (), bare: bool = False
) -> Revision:
    """A revision of a design the user may see, with its design and owner, in one query (design_list's rule
    as a subquery); otherwise Http404. `defer`: fields not to load; `bare`: only its id, number, creation time and spec hash."""
    if bare:
        return _revision_bare(user=user, design_id=design_id, number=number)
    visible = design_list(user=user).filter(pk=design_id).values("pk")
    revisions = Revision.objects.select_related("design__owner", "created_by").defer(*defer)
    rev = revisions.filter(design_id=design_id, design__in=visible, number=number).first()
    if rev is None:
        raise Http404("No such revision.")
    return rev


BARE_FIELDS = ("id", "number", "design_id", "created_at", "spec_hash")


@lru_cache(maxsize=1)
def _bare_sql() -> str:
    qn = connection.ops.quote_name
    revisions, designs = qn(Revision._meta.db_table), qn(Design._meta.db_table)
    shares = qn(DesignShare._meta.db_table)
    return (
        f"SELECT {columns(Revision, BARE_FIELDS, 'r')} FROM {revisions} r JOIN {designs} d ON d.id = r.design_id "
        f"WHERE r.design_id = %s AND r.number = %s AND (d.owner_id = %s OR EXISTS "
        f"(SELECT 1 FROM {shares} sh WHERE sh.design_id = d.id AND sh.user_id = %s))"
    )


def _revision_bare(*, user: User, design_id: int, number: int) -> Revision:
    """revision_get(bare=True): what a link or cable page needs (its id, and what names it in an ETag), by
    revision_head's rule in one hand-written query. Every table page of the API runs it: the ORM's version, a
    subquery built and compiled per call, was a third of a cable page's CPU (bench/bench_api.py)."""
    if user is None or user.pk is None:
        raise Http404("No such revision.")
    with connection.cursor() as cursor:
        cursor.execute(_bare_sql(), [design_id, number, user.pk, user.pk])
        row = cursor.fetchone()
    if row is None:
        raise Http404("No such revision.")
    return row_instance(Revision, BARE_FIELDS, row)


# What revision_head loads of a revision: all but its summary (tens of KB of JSON), deferred.
HEAD_FIELDS = (
    "id",
    "number",
    "design_id",
    "created_at",
    "spec",
    "spec_hash",
    "engine_version",
    "catalog_version",
    "link_count",
    "cable_count",
    "created_by_id",
)


@lru_cache(maxsize=2)
def _head_sql(pricing: bool) -> str:
    qn = connection.ops.quote_name
    revisions, designs = qn(Revision._meta.db_table), qn(Design._meta.db_table)
    shares, snapshots = qn(DesignShare._meta.db_table), qn(RevisionSnapshot._meta.db_table)
    price_columns, price_joins = pricing_key_sql() if pricing else ("", "")
    return (
        f"SELECT {columns(Revision, HEAD_FIELDS, 'r')}, d.name, d.owner_id, s.id, s.sha256, s.state"
        f"{', ' + price_columns if pricing else ''} "
        f"FROM {revisions} r JOIN {designs} d ON d.id = r.design_id "
        f"LEFT JOIN {snapshots} s ON s.revision_id = r.id {price_joins} "
        f"WHERE r.design_id = %s AND r.number = %s AND (d.owner_id = %s OR EXISTS "
        f"(SELECT 1 FROM {shares} sh WHERE sh.design_id = d.id AND sh.user_id = %s))"
    )


def revision_head(*, user: User, design_id: int, number: int, pricing: bool = False) -> Revision:
    """revision_get's answer for the reads every client repeats (a revision's BOM, its stored files): the same
    rule (its design's owner, or a user it is shared with; else Http404) in one hand-written query.

    The ORM builds and compiles its SQL again on every call, which took 1.3-2.7 ms of CPU for revision_get's
    query, more than the rest of a 304; this one costs about a tenth of that. The revision comes with every
    column but its summary (HEAD_FIELDS; the summary loads on first use, in a query), `design` with only its id,
    name and owner id, and `snapshot_digest`, which revision_cache.revision_fingerprint then reads instead
    of querying. tests/apps/designs/test_selectors.py holds it to revision_get's rule.

    `pricing`: the same query also reads the price-list choice (pricing.pricing_key_sql) into `pricing_key`,
    which spares the BOM a second round trip to the database (a statement cost PostgreSQL about 0.5 ms of CPU
    with 20 clients on two cores, bench_artifacts.py, on top of the app's)."""
    if user is None or user.pk is None:
        raise Http404("No such revision.")
    with connection.cursor() as cursor:
        cursor.execute(_head_sql(pricing), [design_id, number, user.pk, user.pk])
        row = cursor.fetchone()
    if row is None:
        raise Http404("No such revision.")
    n = len(HEAD_FIELDS)
    rev = row_instance(Revision, HEAD_FIELDS, row[:n])
    name, owner_id, snapshot_id, sha256, state = row[n : n + 5]
    rev.design = partial_instance(Design, id=rev.design_id, name=name, owner_id=owner_id)
    rev.snapshot_digest = None if snapshot_id is None else (sha256, state)
    if pricing:
        rev.pricing_key = tuple(row[n + 5 : n + 8])
    return rev


def revision_halls(revision: Revision) -> int:
    """How many data halls the revision's racks stand in (its summary's `site` section; 1 without one). When the
    summary was left out of the instance (revision_head), only that key is read, not the whole summary."""
    if "summary" in revision.get_deferred_fields():
        halls = Revision.objects.filter(pk=revision.pk).values_list("summary__site__halls", flat=True).first()
    else:
        site = (revision.summary or {}).get("site")
        halls = site.get("halls", 1) if isinstance(site, dict) else 1
    return halls if isinstance(halls, int) and not isinstance(halls, bool) else 1


def revision_number_of(job: Any) -> int | None:
    """The number of the revision a job names in its params (`revision_id`), or None when it is gone."""
    return Revision.objects.filter(pk=job.params.get("revision_id")).values_list("number", flat=True).first()
