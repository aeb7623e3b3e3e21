"""Reads that respect access: a user sees their own designs and those shared with them; others get 404."""

from __future__ import annotations

from django.db.models import F, Q, QuerySet
from django.http import Http404

from .models import Access, Design, Revision


def design_list(*, user) -> QuerySet[Design]:
    return (
        Design.objects.filter(Q(owner=user) | Q(shares__user=user))
        .distinct()
        .select_related("owner")
        .order_by("-updated_at")
    )


def design_list_owned(*, user) -> QuerySet[Design]:
    """The user's own designs (newest change first): their list never depends on what others share."""
    return Design.objects.filter(owner=user).select_related("owner").order_by("-updated_at")


def design_list_shared(*, user) -> QuerySet[Design]:
    """Designs others shared with the user, in a list of their own that the user can leave."""
    # `access` is the user's own share (read or write), from the same join as the filter
    return (
        Design.objects.filter(shares__user=user)
        .exclude(owner=user)
        .annotate(access=F("shares__access"))
        .select_related("owner")
        .order_by("-updated_at")
    )


def design_get(*, user, design_id: int, write: bool = False) -> Design:
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


def design_can_write(*, user, design: Design) -> bool:
    return design.owner_id == user.id or design.shares.filter(user=user, access=Access.WRITE).exists()


def revision_get(*, user, design_id: int, number: int, defer: tuple[str, ...] = (), bare: bool = False) -> Revision:
    """A revision of a design the user may see, with its design and owner, in one query (design_list's rule
    as a subquery); otherwise Http404. `defer`: fields not to load; `bare`: only its id, number, creation time and spec hash."""
    visible = design_list(user=user).filter(pk=design_id).values("pk")
    revisions = (
        Revision.objects.only("id", "number", "design_id", "created_at", "spec_hash")
        if bare
        else Revision.objects.select_related("design__owner", "created_by").defer(*defer)
    )
    rev = revisions.filter(design_id=design_id, design__in=visible, number=number).first()
    if rev is None:
        raise Http404("No such revision.")
    return rev


def revision_latest(*, design: Design) -> Revision | None:
    return design.revisions.order_by("-number").first()
