# Custom parts move from the api app to this one. The table keeps its name (api_custompart) and its rows: only
# Django's model state moves (api.0006 forgets the model there), so no data is copied and nothing is locked.
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("api", "0005_rate_counter"),
        ("catalog", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="CustomPart",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False,
                                                   verbose_name="ID")),
                        ("section", models.CharField(choices=[
                            ("servers", "Servers"), ("switches", "Switches"), ("transceivers", "Transceivers"),
                            ("cables", "Cables"), ("cords", "Cords"), ("trunks", "Trunks"), ("adapters", "Adapters"),
                            ("panels", "Panels"), ("cassettes", "Cassettes"), ("copper_cords", "Copper Cords"),
                            ("pmds", "Pmds")], max_length=24)),
                        ("key", models.CharField(max_length=64)),
                        ("body", models.JSONField()),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("updated_at", models.DateTimeField(auto_now=True)),
                        ("owner", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE,
                                                    related_name="custom_parts", to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        "db_table": "api_custompart",
                        "ordering": ["-id"],
                        "constraints": [models.UniqueConstraint(fields=("owner", "section", "key"),
                                                                name="custom_part_unique")],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
