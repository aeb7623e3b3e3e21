# CustomPart now lives in the catalog app (catalog.0002 took it over with its table, api_custompart): only Django's
# model state forgets it here; no table changes.
from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("api", "0005_rate_counter"),
        ("catalog", "0002_custompart_moved_from_api"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[migrations.DeleteModel(name="CustomPart")],
                                            database_operations=[]),
    ]
