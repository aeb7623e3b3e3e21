# Measured test results move from the api app to this one. The tables keep their names (api_measurementupload,
# api_measurementstanding) and their rows: only Django's model state moves (api.0007 forgets the models there).
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ("api", "0006_custompart_moved_to_catalog"),
        ("designs", "0004_row_partitions_c_collation_revisionless_indexes"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="MeasurementUpload",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False,
                                                   verbose_name="ID")),
                        ("filename", models.CharField(max_length=200)),
                        ("size", models.PositiveIntegerField()),
                        ("rows", models.PositiveIntegerField()),
                        ("counts", models.JSONField(default=dict)),
                        ("test_limit", models.CharField(default="pmd", max_length=8)),
                        ("errors", models.JSONField(blank=True, default=list)),
                        ("error_count", models.PositiveIntegerField(default=0)),
                        ("sha256", models.CharField(max_length=64)),
                        ("content", models.TextField()),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("withdrawn_at", models.DateTimeField(blank=True, null=True)),
                        ("revision", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE,
                                                       related_name="measurements", to="designs.revision")),
                        ("uploaded_by", models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL,
                                                          related_name="+", to=settings.AUTH_USER_MODEL)),
                        ("withdrawn_by", models.ForeignKey(blank=True, null=True,
                                                           on_delete=django.db.models.deletion.SET_NULL,
                                                           related_name="+", to=settings.AUTH_USER_MODEL)),
                    ],
                    options={"db_table": "api_measurementupload", "ordering": ["-id"]},
                ),
                migrations.CreateModel(
                    name="MeasurementStanding",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False,
                                                   verbose_name="ID")),
                        ("test_limit", models.CharField(default="pmd", max_length=8)),
                        ("counts", models.JSONField(default=dict)),
                        ("uploads", models.PositiveIntegerField(default=0)),
                        ("measured_fibers", models.PositiveIntegerField(default=0)),
                        ("updated_at", models.DateTimeField(auto_now=True)),
                        ("revision", models.OneToOneField(on_delete=django.db.models.deletion.CASCADE,
                                                          related_name="measured_standing", to="designs.revision")),
                    ],
                    options={"db_table": "api_measurementstanding"},
                ),
            ],
            database_operations=[],
        ),
    ]
