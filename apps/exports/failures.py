"""A revision's blast radius (engine/blast_radius.py): what each kind of single failure does to its GPUs.

Read from the revision's devices, links, racks and physical paths (trunks, patch panels) through `revision_result` (the one accessor of a revision's engine
result), worked out once per revision fingerprint and kept in the cache like the other results recomputed from a
revision (apps/designs/revision_cache.py).
"""

from __future__ import annotations

import json

from django.core.cache import cache

from apps.designs.models import Revision
from apps.designs.revision_cache import compute_once, revision_fingerprint, revision_key, store_blob
from engine.blast_radius import blast_radius_of

from .services import revision_result

_VERSION = 3  # bump when the stored shape or its words change


def revision_blast_radius(*, revision: Revision) -> dict:
    """BlastRadius.to_dict() of the revision, with its number. SpecError when it no longer computes."""
    key = revision_key("blastradius", _VERSION, revision_fingerprint(revision))

    def ready() -> bytes | None:
        return cache.get(key)

    def compute() -> bytes:
        result = revision_result(revision=revision)
        blob = json.dumps(blast_radius_of(result).to_dict()).encode()
        store_blob(key, blob)
        return blob

    return {"revision": revision.number, **json.loads(compute_once(key + ":lock", ready, compute))}
