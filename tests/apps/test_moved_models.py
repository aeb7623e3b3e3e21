"""Models moved between apps keep their tables and their rows (issue 15, item 4): a database migrated before the
move, holding rows, reads the same rows through the new app's model afterwards."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE_PARTS = [("api", "0005_rate_counter"), ("catalog", "0001_initial")]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    # (app, None) means "none of that app's migrations": no node of the state to build
    return executor.loader.project_state([t for t in targets if t[1] is not None]).apps


def _leaves():
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


@pytest.mark.django_db(transaction=True)
def test_custom_parts_stored_under_the_api_app_are_the_catalog_apps_after_the_move():
    old = _migrate(BEFORE_PARTS)
    user = old.get_model("auth", "User").objects.create(username="alice")
    body = {"sku": "X-1", "form_factor": "OSFP"}
    old.get_model("api", "CustomPart").objects.create(owner_id=user.pk, section="transceivers", key="X-1", body=body)
    _migrate(_leaves())

    from apps.catalog.models import CustomPart

    (part,) = CustomPart.objects.all()
    assert (part.owner_id, part.section, part.key, part.body) == (user.pk, "transceivers", "X-1", body)
    assert CustomPart._meta.db_table == "api_custompart"


# the measurements app before it existed: its own later migrations (0002 adds `read` to the moved table) undone too
BEFORE_MEASUREMENTS = [("api", "0006_custompart_moved_to_catalog"), ("measurements", None)]


@pytest.mark.django_db(transaction=True)
def test_measured_results_stored_under_the_api_app_are_the_measurements_apps_after_the_move():
    old = _migrate(BEFORE_MEASUREMENTS)
    user = old.get_model("auth", "User").objects.create(username="alice")
    design = old.get_model("designs", "Design").objects.create(owner_id=user.pk, name="d", spec={})
    revision = old.get_model("designs", "Revision").objects.create(design_id=design.pk, number=1, spec={}, summary={})
    old.get_model("api", "MeasurementUpload").objects.create(
        revision_id=revision.pk,
        uploaded_by_id=user.pk,
        filename="sheet.csv",
        size=3,
        rows=1,
        sha256="0" * 64,
        content="a\n1",
        counts={"pass": 1},
    )
    old.get_model("api", "MeasurementStanding").objects.create(revision_id=revision.pk, uploads=1, measured_fibers=1)
    _migrate(_leaves())

    from apps.measurements.models import MeasurementStanding, MeasurementUpload

    (upload,) = MeasurementUpload.objects.all()
    assert (upload.revision_id, upload.filename, upload.content, upload.counts) == (
        revision.pk,
        "sheet.csv",
        "a\n1",
        {"pass": 1},
    )
    assert MeasurementStanding.objects.get(revision_id=revision.pk).measured_fibers == 1
