"""The database's rate counters in an UNLOGGED table (PostgreSQL; elsewhere nothing changes).

Every API request updates its user's counter row, and the row stays locked until the statement commits. In a
logged table that commit waits for the WAL to reach the disk, so one user's requests passed through one fsync at a
time: with 10 clients on the one row, pgbench ran 512 statements/s at 19.5 ms each, 11,475/s at 0.87 ms unlogged
(here, two shared cores). A transaction that writes only unlogged tables writes no WAL and so waits for no flush.
What is given up is what a rate counter can lose: after a crash (not a clean restart) PostgreSQL empties the
table, so every window starts again with a full budget; a standby does not have the rows (it serves no writes).
"""

from django.db import migrations


def _persistence(word: str):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        table = schema_editor.quote_name(apps.get_model("api", "RateCounter")._meta.db_table)
        schema_editor.execute(f"ALTER TABLE {table} SET {word}")

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("api", "0007_measurements_moved_to_their_app"),
    ]

    operations = [migrations.RunPython(_persistence("UNLOGGED"), _persistence("LOGGED"))]
