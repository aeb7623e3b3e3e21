"""The only place that sees both ORM rows and engine results."""
from __future__ import annotations

import hashlib
from typing import Iterator

from engine.result import DesignResult

LINK_DB_COLUMNS = ("revision_id", "link_id", "network", "plane", "tier", "speed_gbps",
                   "a_device", "a_port", "a_rack", "a_u", "b_device", "b_port", "b_rack", "b_u", "length_m",
                   "medium", "a_part", "b_part", "cables", "fibers", "loss_db", "margin_db", "status")

CABLE_DB_COLUMNS = ("revision_id", "cable_id", "network", "tier", "kind", "part", "length_m",
                    "a_device", "a_port", "a_rack", "b_device", "b_port", "b_rack", "label_a", "label_b", "links")

_NO_PHYSICAL = ("", "", "", "", 0, None, None, "")


def spec_hash(normalized: str) -> str:
    return hashlib.sha256(normalized.encode()).hexdigest()


def link_db_rows(result: DesignResult, revision_id: int) -> Iterator[tuple]:
    physical = result.physical
    extra = physical.link_db_fields if physical is not None and hasattr(physical, "link_db_fields") else None
    for i, row in enumerate(result.link_rows()):
        link_id = int(row[0][1:])
        a_u = row[8] if row[8] != "" else None
        b_u = row[12] if row[12] != "" else None
        yield (revision_id, link_id, row[1], row[2], row[3], row[4], row[5], row[6], row[7], a_u,
               row[9], row[10], row[11], b_u, row[13]) + (extra(i) if extra else _NO_PHYSICAL)


def cable_db_rows(result: DesignResult, revision_id: int) -> Iterator[tuple]:
    physical = result.physical
    if physical is None or not hasattr(physical, "cable_db_rows"):
        return iter(())
    return ((revision_id,) + row for row in physical.cable_db_rows(result))
