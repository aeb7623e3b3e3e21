"""Fixtures for the Django app tests only (tests/engine never loads this)."""

import pytest


@pytest.fixture(autouse=True)
def _static_files_without_collectstatic(settings):
    # Production uses WhiteNoise's manifest storage, which needs collectstatic
    # to have run; tests render templates straight from the source folders.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {
            "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        },
    }
