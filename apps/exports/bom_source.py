"""The exports app's BOM source for apps.designs.orders (registered from ExportsConfig.ready()): a revision's full
result from its snapshot and the BOM renderer's lines, which the ordered BOM splits per network and per SU."""

from __future__ import annotations

from typing import Any

from apps.designs.models import Revision
from engine.orders.bom import compute_bom

from .services import revision_result


def revision_bom(revision: Revision) -> tuple[dict, Any]:
    result = revision_result(revision=revision)
    return result.summary, compute_bom(result)
