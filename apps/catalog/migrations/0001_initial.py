# The price list moves from the api app to this one (its table keeps the name api_pricelist: only Django's
# model state moves), and every change to it now leaves an immutable PriceListVersion.
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def first_versions(apps, schema_editor):
    """Each existing price list becomes its owner's version 1. Until now every revision was priced with the list
    as it stood, so version 1 is dated back to the owner's first revision: those revisions keep the prices they
    showed before this migration, and only later changes (new versions) wait for an explicit reprice."""
    PriceList = apps.get_model("catalog", "PriceList")
    PriceListVersion = apps.get_model("catalog", "PriceListVersion")
    Revision = apps.get_model("designs", "Revision")
    for pl in PriceList.objects.all():
        first = Revision.objects.filter(design__owner_id=pl.owner_id).order_by("created_at").first()
        when = min(pl.updated_at, first.created_at) if first is not None else pl.updated_at
        PriceListVersion.objects.create(owner_id=pl.owner_id, number=1, currency=pl.currency, prices=pl.prices,
                                        created_at=when, created_by_id=pl.owner_id)


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ("api", "0002_measurementupload_test_limit_errors"),
        ("designs", "0004_row_partitions_c_collation_revisionless_indexes"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="PriceList",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False,
                                                   verbose_name="ID")),
                        ("currency", models.CharField(default="USD", max_length=8)),
                        ("prices", models.JSONField(default=dict)),
                        ("updated_at", models.DateTimeField(auto_now=True)),
                        ("owner", models.OneToOneField(on_delete=django.db.models.deletion.CASCADE,
                                                       related_name="price_list", to=settings.AUTH_USER_MODEL)),
                    ],
                    options={"db_table": "api_pricelist"},
                ),
            ],
            database_operations=[],
        ),
        migrations.CreateModel(
            name="PriceListVersion",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("number", models.PositiveIntegerField()),
                ("currency", models.CharField(max_length=8)),
                ("prices", models.JSONField(default=dict)),
                ("created_at", models.DateTimeField()),
                ("created_by", models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL,
                                                 related_name="+", to=settings.AUTH_USER_MODEL)),
                ("owner", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE,
                                            related_name="price_versions", to=settings.AUTH_USER_MODEL)),
            ],
            options={"ordering": ["-number"]},
        ),
        migrations.AddConstraint(
            model_name="pricelistversion",
            constraint=models.UniqueConstraint(fields=("owner", "number"), name="price_version_per_owner"),
        ),
        migrations.AddIndex(
            model_name="pricelistversion",
            index=models.Index(fields=["owner", "created_at"], name="price_version_owner_time"),
        ),
        migrations.RunPython(first_versions, migrations.RunPython.noop),
    ]
