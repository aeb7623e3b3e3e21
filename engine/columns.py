"""The columns of a design's link and cable rows, defined once.

Each is named twice: as links.csv / cables.csv name it (the engine's rows, DesignResult.link_rows and
CableSchedule) and as a revision stores it (apps/designs: LinkRecord, CableRecord). Everything else that lists
these columns (the stored rows, the pages' and the API's tables, the CSV downloads) derives its list from here.
"""

from __future__ import annotations

ENDS = ("a_device", "a_port", "a_rack", "a_u", "b_device", "b_port", "b_rack", "b_u")

# (links.csv column, stored column), in row order: what every design has ...
_LINK = (
    ("id", "link_id"),
    ("network", "network"),
    ("plane", "plane"),
    ("tier", "tier"),
    ("speed_gbps", "speed_gbps"),
    *((end, end) for end in ENDS),
    ("run_length_m", "length_m"),
)
# ... and what a design with a physical layer adds after them.
_LINK_PHYSICAL = (
    ("medium", "medium"),
    ("a_part", "a_part"),
    ("b_part", "b_part"),
    ("channel", "cables"),
    ("fibers", "fibers"),
    ("polarity", "polarity"),
    ("loss_db", "loss_db"),
    ("margin_db", "margin_db"),
    ("status", "status"),
)
# (cables.csv column, stored column), in row order.
_CABLE = (
    ("id", "cable_id"),
    ("network", "network"),
    ("tier", "tier"),
    ("type", "kind"),
    ("part", "part"),
    ("ordered_length_m", "length_m"),
    *((end, end) for end in ENDS),
    ("label_a", "label_a"),
    ("label_b", "label_b"),
    ("links", "links"),
)

# The data hall of each end (1-based, docs/site-model.md; empty/NULL for an unplaced end): a design over several
# halls adds these after the cable schedule's columns (deliverables cables.csv / cable-schedule.csv,
# deliverables/cabling.py) and the table downloads'; a one-hall design's files keep their columns. Every stored
# link and cable row ends with them (the API's and the pages' tables: a technician reads the hall off the row).
HALL_COLUMNS = ("a_hall", "b_hall")

# Which link a row is, as every table that shows less than the whole row names it first (stored names; the loss
# budget, the worst links and the revision comparison add their own figures after it).
LINK_IDENTITY = ("link_id", "network", "tier", "a_device", "a_port", "b_device", "b_port")

LINK_COLUMNS = tuple(csv for csv, _ in _LINK)
LINK_PHYSICAL_COLUMNS = tuple(csv for csv, _ in _LINK_PHYSICAL)
CABLE_COLUMNS = tuple(csv for csv, _ in _CABLE)

# The stored rows: the revision first, then every column of the row (the physical ones empty without a layer),
# then each end's hall.
LINK_DB_COLUMNS = ("revision_id", *(db for _, db in _LINK + _LINK_PHYSICAL), *HALL_COLUMNS)
CABLE_DB_COLUMNS = ("revision_id", *(db for _, db in _CABLE), *HALL_COLUMNS)
