# PriceList now lives in the catalog app (catalog.0001 took it over with its table, api_pricelist): only Django's
# model state forgets it here; no table changes.
from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("api", "0003_measurement_withdraw_standing"),
        ("catalog", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[migrations.DeleteModel(name="PriceList")],
                                            database_operations=[]),
    ]
