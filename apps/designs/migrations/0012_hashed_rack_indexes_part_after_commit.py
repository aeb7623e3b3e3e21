# On PostgreSQL: the row tables' rack indexes are keyed on hashtext(column), the cable part index leaves the parent
# (each partition gets its own (part, cable_id) index after the store commits, as the other sort orders do), and the
# row ids' sequences hand each backend 1,000 ids at a time.
#
# Why: all three are server work inside a store's transaction (the attach's index builds and the COPY), measured on
# a stored 128K revision (397,184 links, 510,964 cables; backend CPU seconds, one process, medians of 5):
# - (part, cable_id) was the attach's dearest index, 0.46 s of the cables' ~1.9 s: a low-cardinality text key (1,498
#   parts, long shared prefixes) that falls through to cable_id on most comparisons. It serves the sort by part and
#   the part filter only, like the (length_m, cable_id) and (kind, cable_id) indexes that are already built after
#   the commit (partitions.sort_index_keys); until it exists a part page sorts or scans the revision.
# - (a_rack) 0.25 s against (hashtext(a_rack)) 0.21 s for the cables, 0.18 s against 0.15 s for the links, each
#   of the two ends. A rack is only ever matched whole (the rack filter, the table search's exact rack), so the
#   pages name the same expression beside the plain equality (apps/designs/tables.py _HASHED_KEYS); the device
#   indexes stay on the text, which serves the search's device-name prefix.
# - nextval() at the default CACHE 1 locks and updates the sequence's page for every row the COPY loads: the COPY
#   of the cables took 0.82 s against 0.76 s with CACHE 1000, of the links 0.67 s against 0.62 s. Ids are surrogate
#   keys no page or file shows; a backend's unused ids are skipped when it exits.
# Together the COPY and ATTACH of both tables took 4.84 s of backend CPU before and 4.11 s after (docs/
# scale-benchmarks.md, Stop 52).
#
# Django's model state is untouched, as in 0004 and 0011: SQLite keeps the indexes the models declare.
from django.db import migrations

# table -> {index name: (old key, new key or None to leave the parent)}; keys as PostgreSQL writes them.
INDEXES = {
    "designs_linkrecord": {
        "link_a_rack": ("a_rack", "hashtext(a_rack)"),
        "link_b_rack": ("b_rack", "hashtext(b_rack)"),
    },
    "designs_cablerecord": {
        "cable_a_rack": ("a_rack", "hashtext(a_rack)"),
        "cable_b_rack": ("b_rack", "hashtext(b_rack)"),
        "cable_part": ("part, cable_id", None),
    },
}
# The partition's own index that replaces cable_part (partitions.sort_index_keys: suffix and key).
PART_SUFFIX, PART_KEY = "by_part", '"part", "cable_id"'
ID_CACHE = {True: 1000, False: 1}


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _partitioned(cur, table: str) -> bool:
    cur.execute("SELECT relkind = 'p' FROM pg_class WHERE oid = to_regclass(%s)", [table])
    row = cur.fetchone()
    return bool(row and row[0])


def _revision_partitions(cur, table: str) -> list[str]:
    cur.execute(
        "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
        "WHERE i.inhparent = to_regclass(%s) AND c.relname ~ %s ORDER BY c.relname",
        [table, f"^{table}_r[0-9]+$"],
    )
    return [r[0] for r in cur.fetchall()]


def rekey(cur, *, new: bool) -> None:
    for table, indexes in INDEXES.items():
        if not _partitioned(cur, table):
            continue
        # Backwards, each partition's own part index goes first: the parent's new index would adopt it as its copy.
        owns = [_q(f"{c}_{PART_SUFFIX}") for c in _revision_partitions(cur, table)] if "cable_part" in indexes else []
        for own in owns if not new else ():
            cur.execute(f"DROP INDEX IF EXISTS {own}")
        for name, keys in indexes.items():
            key = keys[1] if new else keys[0]
            cur.execute(f"DROP INDEX IF EXISTS {_q(name)}")  # and its copies on every partition
            if key is not None:  # built on every partition too
                cur.execute(f"CREATE INDEX {_q(name)} ON {_q(table)} ({key})")
        for child, own in zip(_revision_partitions(cur, table), owns) if new else ():
            # the stored revisions' part pages stay indexed
            cur.execute(f"CREATE INDEX IF NOT EXISTS {own} ON {_q(child)} ({PART_KEY})")
        cur.execute("SELECT pg_get_serial_sequence(%s, 'id')", [table])
        sequence = cur.fetchone()[0]
        if sequence:
            cur.execute(f"ALTER SEQUENCE {sequence} CACHE {ID_CACHE[new]}")


def _run(schema_editor, *, new: bool) -> None:
    conn = schema_editor.connection
    if conn.vendor != "postgresql":
        return
    with conn.cursor() as cur:
        rekey(cur, new=new)


def forward(apps, schema_editor):
    _run(schema_editor, new=True)


def backward(apps, schema_editor):
    _run(schema_editor, new=False)


class Migration(migrations.Migration):

    dependencies = [("designs", "0011_hashed_network_tier_indexes")]

    operations = [migrations.RunPython(forward, backward)]
