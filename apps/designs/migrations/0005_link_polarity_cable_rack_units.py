# links.csv and cables.csv read the same from the database as the CLI writes them (the first-hour issue): a
# link's polarity and a cable's rack units, which the engine always had, are stored too. Rows stored before
# this keep polarity "" and no rack units (their revision's snapshot backfill fills what it can).
#
# On PostgreSQL every text column of the row tables collates "C" (0004), the new one too; ADD COLUMN on the
# partitioned parent reaches every partition, and a column no index uses changes collation without a rewrite.
from django.db import migrations, models


def polarity_collate_c(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute('ALTER TABLE "designs_linkrecord" ALTER COLUMN "polarity" TYPE varchar(16) COLLATE "C"')


class Migration(migrations.Migration):

    dependencies = [
        ('designs', '0004_row_partitions_c_collation_revisionless_indexes'),
    ]

    operations = [
        migrations.AddField(
            model_name='cablerecord',
            name='a_u',
            field=models.IntegerField(null=True),
        ),
        migrations.AddField(
            model_name='cablerecord',
            name='b_u',
            field=models.IntegerField(null=True),
        ),
        migrations.AddField(
            model_name='linkrecord',
            name='polarity',
            field=models.CharField(blank=True, default='', max_length=16),
        ),
        migrations.RunPython(polarity_collate_c, migrations.RunPython.noop),
    ]
