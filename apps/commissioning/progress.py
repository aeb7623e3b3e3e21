"""The as-built side of the per-rack and per-SU progress view (engine/asbuilt/progress.py): each planned link's
as-built class and where it is built. The counters app, the layer above, adds the error-counter flags and serves
the view (apps/counters/progress.py), since only it may read both.

The standing row keeps the classification's counts, not each link's class: the as-built job hands its classes
over (remember_asbuilt_classes, cached per revision and set of uploads), and a cache miss works them out again
from the stored uploads as the job does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from typing import TypeVar

from apps.designs.models import Revision
from apps.designs.revision_cache import cached_value, revision_fingerprint, revision_key, store_value
from apps.exports.services import revision_result
from engine.asbuilt.progress import LinkPlace, link_places

from .models import AsBuiltUpload
from .services import _planned, classify_uploads

_VERSION = 1  # bump when the cached shapes change

T = TypeVar("T")


def _key(kind: str, parts: tuple[str, ...], revision: Revision) -> str:
    return revision_key(kind, _VERSION, revision_fingerprint(revision), *parts)


def _cached(kind: str, parts: tuple[str, ...], revision: Revision, compute: Callable[[], T]) -> T:
    return cached_value(_key(kind, parts, revision), compute)


def asbuilt_link_classes(*, revision: Revision) -> dict[str, str]:
    """Planned link id ("L000001") -> its as-built class over every upload of the revision (empty before the
    first upload: every link unseen)."""
    uploads = list(
        AsBuiltUpload.objects.filter(revision=revision, read=True).order_by("id").values_list("id", "sha256")
    )
    if not uploads:
        return {}
    digest = _uploads_digest(uploads)

    def compute() -> dict[str, str]:
        rows = list(AsBuiltUpload.objects.filter(revision=revision, read=True).order_by("id"))
        return dict(classify_uploads(_planned(revision), rows).status)

    return _cached("asbuilt-classes", (digest,), revision, compute)


def remember_asbuilt_classes(*, revision: Revision, uploads: list[AsBuiltUpload], status: dict[str, str]) -> None:
    """Keep the classes the as-built job has just worked out (`uploads`: the AsBuiltUpload rows it read, oldest
    first), so the progress view of a large fabric reads them instead of classifying again in a request."""
    digest = _uploads_digest([(u.pk, u.sha256) for u in uploads])
    store_value(_key("asbuilt-classes", (digest,), revision), dict(status))


def _uploads_digest(uploads: Iterable[tuple[int, str]]) -> str:
    return hashlib.sha256(repr([(int(i), str(h)) for i, h in uploads]).encode()).hexdigest()[:32]


def revision_link_places(*, revision: Revision) -> list[LinkPlace]:
    """Every planned link with its ends' racks and SUs, from the revision's snapshot (cached per revision)."""
    return _cached("link-places", (), revision, lambda: link_places(revision_result(revision=revision)))
