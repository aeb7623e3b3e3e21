# Each stored link and cable row records the data hall of both ends (issue 41: over several halls the API's and
# the pages' tables name the hall a technician walks to). Rows stored before this keep NULL; ADD COLUMN on the
# partitioned parent reaches every partition, and a NULL column is added without a rewrite.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('designs', '0009_revision_snapshot'),
    ]

    operations = [
        migrations.AddField(
            model_name='cablerecord',
            name='a_hall',
            field=models.PositiveSmallIntegerField(null=True),
        ),
        migrations.AddField(
            model_name='cablerecord',
            name='b_hall',
            field=models.PositiveSmallIntegerField(null=True),
        ),
        migrations.AddField(
            model_name='linkrecord',
            name='a_hall',
            field=models.PositiveSmallIntegerField(null=True),
        ),
        migrations.AddField(
            model_name='linkrecord',
            name='b_hall',
            field=models.PositiveSmallIntegerField(null=True),
        ),
    ]
