# MeasurementUpload and MeasurementStanding now live in the measurements app (measurements.0001 took them over with
# their tables): only Django's model state forgets them here; no table changes.
from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("api", "0006_custompart_moved_to_catalog"),
        ("measurements", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="MeasurementStanding"),
                migrations.DeleteModel(name="MeasurementUpload"),
            ],
            database_operations=[],
        ),
    ]
