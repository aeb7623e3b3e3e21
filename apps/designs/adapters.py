"""The only place that sees both ORM rows and engine results."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from itertools import repeat

from engine.columns import CABLE_DB_COLUMNS as CABLE_DB_COLUMNS  # the stored rows' columns, as loaded
from engine.columns import LINK_DB_COLUMNS as LINK_DB_COLUMNS
from engine.result import DesignDraft, DesignResult

_NO_PHYSICAL = ("", "", "", "", 0, "", None, None, "")


def spec_hash(normalized: str) -> str:
    return hashlib.sha256(normalized.encode()).hexdigest()


def link_db_rows(result: DesignDraft | DesignResult, revision_id: int) -> Iterator[tuple]:
    """LINK_DB_COLUMNS rows, streamed: the links.csv row (DesignResult.link_rows) typed for the database
    (integer link id, NULL for a device without a rack unit) plus the physical stage's fields and each end's hall.

    Built here from the links directly rather than by re-parsing link_rows(), which formats ids as text:
    this runs 400,000 times for a 128K-GPU design, inside the COPY that stores it.
    """
    if len(result.links) != len(result.lengths_m):
        raise ValueError(f"{len(result.links)} links but {len(result.lengths_m)} run lengths")
    physical = result.physical
    extra = physical.link_db_fields_all() if physical is not None else repeat(_NO_PHYSICAL)
    racks = result.racks
    # each device's (name, rack id, U, 1-based hall); an unplaced one has no rack, U or hall
    ends = [
        (d.name, "", None, None) if p is None else (d.name, racks[p.rack].id, p.u, racks[p.rack].hall + 1)
        for d, p in zip(result.devices, result.places)
    ]
    # the link unpacked, not read field by field: a named field costs a lookup, and this row has eleven
    for (lid, network, plane, tier, a, a_port, _, b, b_port, _, speed), length, fields in zip(
        result.links, result.lengths_m, extra
    ):
        name_a, rack_a, u_a, hall_a = ends[a]
        name_b, rack_b, u_b, hall_b = ends[b]
        medium, a_part, b_part, cables, fibers, polarity, loss, margin, status = fields
        yield (
            revision_id,
            lid,
            network,
            plane,
            tier,
            speed,
            name_a,
            a_port,
            rack_a,
            u_a,
            name_b,
            b_port,
            rack_b,
            u_b,
            length,
            medium,
            a_part,
            b_part,
            cables,
            fibers,
            polarity,
            loss,
            margin,
            status,
            hall_a,
            hall_b,
        )


def cable_count(result: DesignDraft | DesignResult) -> int:
    """How many rows cable_db_rows yields, without rendering them."""
    physical = result.physical
    return len(physical.cable_rows) if physical is not None and hasattr(physical, "cable_db_rows") else 0


def cable_db_rows(result: DesignDraft | DesignResult, revision_id: int) -> Iterator[tuple]:
    physical = result.physical
    if physical is None or not hasattr(physical, "cable_db_rows"):
        return iter(())
    return physical.cable_db_rows(result, revision_id)
