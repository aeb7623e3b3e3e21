# On PostgreSQL, the row tables' network and tier indexes are keyed on hashtext(column) instead of the text, and
# the link medium and status indexes are dropped.
#
# Why: these indexes are built while a store's transaction waits (ATTACH PARTITION, apps/designs/partitions.py).
# A text column of one to three distinct values leading a btree makes every comparison of the build fall through
# to the next column on the slow path (the leading key is variable-width, so the next column's offset is found by
# walking the tuple); an int4 key leaves every column at a fixed offset. On a stored 128K revision (397,184 links,
# 510,964 cables; CREATE INDEX alone, 2-core machine) (network, tier, link_id) took 0.36-0.47 s and the hashed key
# 0.16-0.22 s, (tier, link_id) 0.22-0.29 s against 0.13-0.22 s, (network, tier, cable_id) 0.49 s against 0.28 s.
# The page queries name the same expressions (apps/designs/tables.py) and keep the plain equality beside them,
# so two names with one hash would cost a page some extra index entries, never a wrong row.
#
# (medium) and (status) served no page: the page queries read each partition's (medium, link_id) and
# (status, link_id) indexes (partitions.sort_index_keys), built after the store commits; these two cost the
# store ~0.25 s at 128K and were never scanned (pg_stat_user_indexes after bench/bench_tables.py).
#
# Django's model state is untouched, as in 0004: SQLite keeps the indexes the models declare.
from django.db import migrations

# table -> {index name: (old key, new key or None to drop)}; keys as PostgreSQL writes them.
INDEXES = {
    "designs_linkrecord": {
        "link_net_tier": ("network, tier, link_id", "hashtext(network), hashtext(tier), link_id"),
        "link_tier": ("tier, link_id", "hashtext(tier), link_id"),
        "link_medium": ("medium", None),
        "link_status": ("status", None),
    },
    "designs_cablerecord": {
        "cable_net_tier": ("network, tier, cable_id", "hashtext(network), hashtext(tier), cable_id"),
    },
}


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _partitioned(cur, table: str) -> bool:
    cur.execute("SELECT relkind = 'p' FROM pg_class WHERE oid = to_regclass(%s)", [table])
    row = cur.fetchone()
    return bool(row and row[0])


def _rekey(schema_editor, *, new: bool) -> None:
    conn = schema_editor.connection
    if conn.vendor != "postgresql":
        return
    with conn.cursor() as cur:
        for table, indexes in INDEXES.items():
            if not _partitioned(cur, table):
                continue
            for name, keys in indexes.items():
                key = keys[1] if new else keys[0]
                cur.execute(f"DROP INDEX IF EXISTS {_q(name)}")  # and its copies on every partition
                if key is not None:  # built on every partition too
                    cur.execute(f"CREATE INDEX {_q(name)} ON {_q(table)} ({key})")


def forward(apps, schema_editor):
    _rekey(schema_editor, new=True)


def backward(apps, schema_editor):
    _rekey(schema_editor, new=False)


class Migration(migrations.Migration):

    dependencies = [("designs", "0010_row_halls")]

    operations = [migrations.RunPython(forward, backward)]
