"""Fixtures for the Django app tests only (tests/engine never loads this)."""

import pytest


@pytest.fixture(autouse=True)
def _static_files_without_collectstatic(settings, tmp_path_factory):
    # Production uses WhiteNoise's manifest storage, which needs collectstatic
    # to have run; tests render templates straight from the source folders.
    # Artifacts go to a folder of the test's own, never the developer's var/.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
        "artifacts": {
            **settings.STORAGES["artifacts"],
            **(
                {"OPTIONS": {"location": str(tmp_path_factory.mktemp("artifacts"))}}
                if settings.ARTIFACT_STORE == "files"
                else {}
            ),
        },
    }
