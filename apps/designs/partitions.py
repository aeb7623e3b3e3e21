"""Link and cable rows on PostgreSQL: one table partition per stored revision.

Migration 0003 makes both row tables LIST-partitioned by revision_id, with the old table as the DEFAULT
partition. A revision is stored into a new, index-free table which is then attached as its partition: the
attach builds each index in one sorted pass, about twice as fast as keeping ten indexes current row by
row while 400,000 rows stream in (bench/bench_store.py). All of it runs in the caller's transaction, so a
failed or cancelled store leaves no table behind. Page queries name one revision, so the planner reads
only that revision's partition and its own statistics.

Since migration 0004 the indexes leave revision_id out of their keys (a partition holds one revision: the
column would only add eight equal bytes to every key) and the text columns collate "C", so keys compare
byte by byte (a third faster to build) and a btree can serve the table search's device-name prefix.
A partition made here copies both from its parent (CREATE TABLE ... LIKE copies column collations). Since
migration 0011 the network and tier indexes are keyed on hashtext(column), which the attach builds in about
half the time of the text keys, and since 0012 the rack indexes too (apps/designs/tables.py names the same
expressions). The sort orders' indexes, the cable part's among them since 0012, are the partition's own, built
once the store has committed (build_sort_indexes).

Locks, for whoever changes this: attaching takes SHARE UPDATE EXCLUSIVE on the parent (readers and writers
go on; a second attach waits for the first commit) and ACCESS EXCLUSIVE on the DEFAULT partition, which
holds only rows written without a partition (tests, ad-hoc ORM inserts), scanned once per attach. Dropping
a partition takes ACCESS EXCLUSIVE on the parent, so it is tried with a short lock timeout and otherwise
left to the periodic sweep (drop_orphan_partitions); the rows are deleted either way.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

from django.db import DatabaseError, connection, transaction

from apps.common.db import column_field, column_name

log = logging.getLogger(__name__)

ROW_TABLES = ("designs_linkrecord", "designs_cablerecord")
_CHILD = re.compile(r"^(designs_linkrecord|designs_cablerecord)_r(\d+)$")
# Long enough to get past a page query, short enough not to queue every reader behind a store's attach.
DROP_LOCK_TIMEOUT = "300ms"


def partitioned(table: str) -> bool:
    """True when `table` is a partitioned PostgreSQL table (migration 0003 applied)."""
    if connection.vendor != "postgresql":
        return False
    with connection.cursor() as cur:
        cur.execute("SELECT relkind = 'p' FROM pg_class WHERE oid = to_regclass(%s)", [table])
        row = cur.fetchone()
    return bool(row and row[0])


def partition_name(table: str, revision_id: int) -> str:
    return f"{table}_r{int(revision_id)}"


def create_partition_table(table: str, revision_id: int) -> str:
    """A new, empty, unattached table shaped like `table` (columns, defaults, checks; no index) for one revision."""
    child = partition_name(table, revision_id)
    with connection.cursor() as cur:
        cur.execute(f"CREATE TABLE {_q(child)} (LIKE {_q(table)} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)")
        # Checked per row as it is loaded; it proves the partition bound, so attaching skips a scan of the rows.
        cur.execute(
            f"ALTER TABLE {_q(child)} ADD CONSTRAINT {_q(child + '_revision')} "
            f"CHECK (revision_id IS NOT NULL AND revision_id = {int(revision_id)})"
        )
    return child


# Memory for the attach's index builds (for the rest of the store's transaction). With the default 64 MB a build
# split between the backend and one parallel worker gives each 32 MB (at 1M GPUs each half sorted on disk, 120
# tapes): at 128K GPUs the link and cable index phases took 1.8-2.6 and 1.9-3.8 s, against 1.3-1.9 and 1.8-2.9 s
# with this (bench_store.py; docs/scale-benchmarks.md, Stop 49). The parallel worker stays: building in one process,
# to leave that core to the store's Python threads, made the store slower more often than faster.
ATTACH_INDEX_MEMORY = "256MB"


def attach_partition(table: str, child: str, revision_id: int) -> None:
    """Attach `child` as the partition of `revision_id`; PostgreSQL builds the parent's indexes on it."""
    with connection.cursor() as cur:
        cur.execute(f"SET LOCAL maintenance_work_mem = '{ATTACH_INDEX_MEMORY}'")
        cur.execute(f"ALTER TABLE {_q(table)} ATTACH PARTITION {_q(child)} FOR VALUES IN ({int(revision_id)})")


# A page query filters one revision's partition on a few low-cardinality columns (network, tier, status,
# medium) or on a rack or device, and sorts by an indexed key: row counts and the common values are all its
# plan needs, and a 3,000-row sample (10 x 300) gives them in about a fifth of the default 30,000's time.
ANALYZE_STATISTICS_TARGET = 10


def analyze_partitions(revision_id: int) -> None:
    """Fresh statistics for one revision's partitions, from a small fixed-size sample."""
    names = [partition_name(t, revision_id) for t in ROW_TABLES]
    with connection.cursor() as cur:
        cur.execute("SELECT relname FROM pg_class WHERE relname = ANY(%s)", [names])
        present = [r[0] for r in cur.fetchall()]
        if present:
            cur.execute(f"SET LOCAL default_statistics_target = {ANALYZE_STATISTICS_TARGET}")
            cur.execute("ANALYZE " + ", ".join(_q(n) for n in present))


def sort_index_keys(*, halls: bool = True) -> dict[str, dict[str, str]]:
    """{row table: {index suffix: key}} for each sort order of the tables (apps/designs/tables.py) but the
    id, whose index is the parent's, each but the cable part also within one tier (tier, key, id), and for the
    closed-set filters (kind, status, medium); with `halls` (a revision over several halls) the hall and crossing
    filters' too.
    A key is written as the page query's ORDER BY writes it, a nullable column as COALESCE(column, _NULL_SORTS_AS),
    or PostgreSQL would not match it."""
    from .models import CableRecord, LinkRecord
    from .tables import _NULL_SORTS_AS, CABLE_SORTS, LINK_SORTS

    keys: dict[str, dict[str, str]] = {}
    for model, sorts, id_field in ((LinkRecord, LINK_SORTS, "link_id"), (CableRecord, CABLE_SORTS, "cable_id")):
        table_keys = keys[model._meta.db_table] = {}
        for name in sorts:
            if name == id_field:
                continue
            field = column_field(model, name)
            column = _q(column_name(model, name))
            expr = f"(COALESCE({column}, {float(_NULL_SORTS_AS)!r}))" if field.null else column
            table_keys[f"by_{name}"] = f"{expr}, {_q(id_field)}"
            if name == "part":
                # The parent's (part, cable_id) until migration 0012: at 128K GPUs the attach's dearest build (0.46 s
                # of the cables' 1.9 s of server CPU), for the part sort and filter only. A tier-filtered page by
                # part reads this one too, as it did the parent's: there was never a (tier, part, cable_id).
                continue
            # the same within one tier (tables._SORT_INDEX_PREFIXES: a tier filter with this sort)
            table_keys[f"by_tier_{name}"] = f"{_q(column_name(model, 'tier'))}, {expr}, {_q(id_field)}"
    # The closed-set filters' (cable kind, link status and medium), in id order: a value the revision has few or
    # none of (an AOC in an all-cord fabric) scanned the whole partition for a page (137 ms at 397,184 cables), and
    # a common one walked the id index past every other row (the last page of status=pass at 524,288 GPUs, whose
    # last 107,844 links have no medium: 52 ms; bench/bench_tables.py). From these a page reads 100 entries.
    keys[CableRecord._meta.db_table]["by_kind"] = f"{_q('kind')}, {_q('cable_id')}"
    for name in ("status", "medium"):
        keys[LinkRecord._meta.db_table][f"by_{name}"] = f"{_q(name)}, {_q('link_id')}"
    # The hall filter's (either end in a hall): a page reads each end's (hall, id) or (hall, length, id) range and
    # merges the two (tables._page); the crossing filter's (ends in two halls): partial, only those rows. Without
    # them a page of one hall at 1M GPUs walked the other halls' rows (up to 0.5 s; crossing 0.7-1.6 s by length).
    # Other sorts of a hall (loss, margin, part) sort the hall's rows (docs/scale-benchmarks.md, Stop 53).
    # A revision in one hall has no use for them (every placed end is in hall 1, no row crosses): twelve builds saved.
    if not halls:
        return keys
    crossing = f" WHERE {_q('a_hall')} <> {_q('b_hall')}"
    for model, id_field in ((LinkRecord, "link_id"), (CableRecord, "cable_id")):
        table_keys = keys[model._meta.db_table]
        length = _q(column_name(model, "length_m"))
        for end in ("a_hall", "b_hall"):
            table_keys[f"by_{end}"] = f"{_q(end)}, {_q(id_field)}"
            table_keys[f"by_{end}_length_m"] = f"{_q(end)}, {length}, {_q(id_field)}"
        table_keys["by_crossing"] = _q(id_field) + crossing
        table_keys["by_crossing_length_m"] = f"{length}, {_q(id_field)}" + crossing
    return keys


def build_sort_indexes(revision_id: int) -> int:
    """Give one revision's partitions an index per sort order, those it lacks; returns how many were built.

    Run after the store commits, not at attach: each index is ~0.2 s for 400,000 rows, which the job's
    transaction would otherwise hold the revision back for. Until they exist a sorted page sorts the
    revision (55-200 ms at 400,000 links) instead of reading 100 index entries (2-3 ms). The build locks
    the partition against writes only; its rows are never written again anyway.
    """
    if connection.vendor != "postgresql":
        return 0
    built = 0
    wanted = sort_index_keys(halls=_spans_halls([revision_id]).get(revision_id, False))
    with transaction.atomic(), connection.cursor() as cur:
        # the attach's memory, not the 64 MB default: 11 builds at 128K GPUs took 5.1 s against 5.8 s (medians of
        # 3 under load 5.5; docs/scale-benchmarks.md, Stop 50)
        cur.execute(f"SET LOCAL maintenance_work_mem = '{ATTACH_INDEX_MEMORY}'")
        for table, keys in wanted.items():
            child = partition_name(table, revision_id)
            cur.execute("SELECT 1 FROM pg_class WHERE relname = %s AND relkind = 'r'", [child])
            if cur.fetchone() is None:
                continue
            cur.execute("SELECT indexname FROM pg_indexes WHERE tablename = %s", [child])
            present = {r[0] for r in cur.fetchall()}
            for suffix, key in keys.items():
                name = f"{child}_{suffix}"
                if name not in present:
                    columns, _, where = key.partition(" WHERE ")  # a partial index: its rows' condition
                    cur.execute(
                        f"CREATE INDEX {_q(name)} ON {_q(child)} ({columns})" + (f" WHERE {where}" if where else "")
                    )
                    built += 1
    return built


def _spans_halls(revision_ids: list[int]) -> dict[int, bool]:
    """{revision id: whether its racks stand in more than one hall} (its summary's site section, as
    selectors.revision_halls reads it); a revision not found is left out."""
    from .models import Revision

    found = Revision.objects.filter(pk__in=revision_ids).values_list("pk", "summary__site__halls")
    return {pk: isinstance(n, int) and not isinstance(n, bool) and n > 1 for pk, n in found}


def build_missing_sort_indexes() -> int:
    """build_sort_indexes for every stored revision whose partitions lack some (a worker stopped between
    the commit and the build, or the revision was stored before these indexes existed); returns the count."""
    if connection.vendor != "postgresql":
        return 0
    wanted = {halls: sort_index_keys(halls=halls) for halls in (False, True)}
    with connection.cursor() as cur:
        cur.execute(
            "SELECT c.relname, p.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
            "JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = ANY(%s)",
            [list(ROW_TABLES)],
        )
        children = cur.fetchall()
        cur.execute("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()")
        indexes = {r[0] for r in cur.fetchall()}
    of = {child: int(m.group(2)) for child, _table in children if (m := _CHILD.match(child))}
    halls = _spans_halls(sorted(set(of.values())))
    revisions = set()
    for child, table in children:
        rid = of.get(child)
        if rid is not None and any(
            f"{child}_{suffix}" not in indexes for suffix in wanted[halls.get(rid, False)].get(table, {})
        ):
            revisions.add(rid)
    built = 0
    for revision_id in sorted(revisions):
        try:
            built += build_sort_indexes(revision_id)
        except DatabaseError:  # one busy or vanished partition must not stop the others' indexes
            log.info("sort indexes of revision %s not built; the next sweep retries", revision_id, exc_info=True)
    return built


def drop_partitions(revision_ids: Iterable[int]) -> int:
    """Drop the partitions of revisions being deleted, if their parent's lock comes quickly; returns how many.

    Call it inside the deleting transaction, before the rows are deleted: a dropped partition has no rows
    left to delete one by one. A partition that cannot be dropped now keeps its rows for the ordinary
    DELETE, and the sweep drops the empty table later.
    """
    if connection.vendor != "postgresql":
        return 0
    names = [partition_name(t, r) for r in revision_ids for t in ROW_TABLES]
    if not names:
        return 0
    with connection.cursor() as cur:
        cur.execute("SELECT relname FROM pg_class WHERE relname = ANY(%s) AND relkind = 'r'", [names])
        present = [r[0] for r in cur.fetchall()]
    return sum(_drop(name) for name in present)


def drop_orphan_partitions() -> int:
    """Drop partitions whose revision is gone (a drop that timed out at delete time); returns how many."""
    if connection.vendor != "postgresql":
        return 0
    with connection.cursor() as cur:
        cur.execute(
            "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
            "WHERE i.inhparent IN (SELECT to_regclass(t) FROM unnest(%s::text[]) AS t)",
            [list(ROW_TABLES)],
        )
        children = [r[0] for r in cur.fetchall()]
        ids = {int(m.group(2)) for m in map(_CHILD.match, children) if m}
        cur.execute("SELECT id FROM designs_revision WHERE id = ANY(%s)", [sorted(ids)])
        alive = {r[0] for r in cur.fetchall()}
    dropped = 0
    for name in children:
        m = _CHILD.match(name)
        if m and int(m.group(2)) not in alive:
            dropped += _drop(name)
    return dropped


def _drop(name: str) -> int:
    try:
        with transaction.atomic(), connection.cursor() as cur:
            cur.execute(f"SET LOCAL lock_timeout = '{DROP_LOCK_TIMEOUT}'")
            cur.execute(f"DROP TABLE IF EXISTS {_q(name)}")
            cur.execute("SET LOCAL lock_timeout = DEFAULT")
        return 1
    except DatabaseError:
        log.info("partition %s is busy; it will be dropped by the next sweep", name)
        return 0


def _q(name: str) -> str:
    return connection.ops.quote_name(name)
