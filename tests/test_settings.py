"""Whole-settings behaviour, checked in a fresh interpreter per case.

Settings are read once per process, so each case imports them in a
subprocess with exactly the environment under test.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

PRINT_SETTINGS = (
    "import django, json; django.setup(); from django.conf import settings as s; "
    "print(json.dumps({'debug': s.DEBUG, 'db': s.DATABASES['default']['NAME'], "
    "'broker': s.CELERY_BROKER_URL, "
    "'folders': getattr(s, 'CELERY_BROKER_TRANSPORT_OPTIONS', {})}))"
)


def _run_settings(tmp_path, code=PRINT_SETTINGS, **env):
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DATABASE_", "CELERY_", "REDIS_", "FABRICDESIGN_"))
    }
    clean.update(
        DJANGO_SETTINGS_MODULE="fabricdesign.settings",
        FABRICDESIGN_VAR_DIR=str(tmp_path),
    )
    clean.update(env)
    return subprocess.run(
        [sys.executable, "-c", code],
        check=False,
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_it_refuses_to_start_without_a_secret_key_when_debug_is_off(tmp_path):
    result = _run_settings(tmp_path)

    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert "DJANGO_SECRET_KEY" in result.stderr


def test_it_uses_a_dev_secret_key_only_in_debug(tmp_path):
    result = _run_settings(tmp_path, DJANGO_DEBUG="true")

    assert result.returncode == 0, result.stderr


def test_it_rejects_a_debug_value_it_does_not_understand(tmp_path):
    result = _run_settings(tmp_path, DJANGO_DEBUG="maybe", DJANGO_SECRET_KEY="x")

    assert result.returncode != 0
    assert "DJANGO_DEBUG" in result.stderr


def test_defaults_are_sqlite_and_a_filesystem_broker_under_the_var_dir(tmp_path):
    result = _run_settings(tmp_path, DJANGO_SECRET_KEY="x")

    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout)
    assert shown["debug"] is False
    assert shown["db"] == str(tmp_path / "db.sqlite3")
    assert shown["broker"].startswith("filesystem://")
    for key in ("data_folder_in", "data_folder_out", "processed_folder"):
        folder = Path(shown["folders"][key])
        assert folder.is_dir()
        assert tmp_path in folder.parents


def test_a_server_broker_gets_no_filesystem_options(tmp_path):
    result = _run_settings(tmp_path, DJANGO_SECRET_KEY="x", CELERY_BROKER_URL="redis://127.0.0.1:6379/0")

    assert result.returncode == 0, result.stderr
    options = json.loads(result.stdout)["folders"]
    assert not {"data_folder_in", "data_folder_out", "processed_folder"} & set(options)
    assert not (tmp_path / "broker").exists()


def test_secret_key_can_come_from_a_file(tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("from-a-file\n")
    code = "import django; django.setup(); from django.conf import settings; print(settings.SECRET_KEY)"

    result = _run_settings(tmp_path, code=code, DJANGO_SECRET_KEY_FILE=str(secret))

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "from-a-file"


def test_the_test_conftest_does_not_import_django():
    # tests/engine must run with `pytest -p no:django`; the root conftest is
    # loaded for it too, so it may not pull Django in at import time.
    code = "import sys, tests.conftest; sys.exit('django' in sys.modules)"

    result = subprocess.run(
        [sys.executable, "-c", code],
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
    )

    assert result.returncode == 0, result.stderr


PRINT_ARTIFACTS = (
    "import django, json; django.setup(); from django.conf import settings as s; "
    "print(json.dumps(s.STORAGES['artifacts']))"
)


def test_the_artifact_store_defaults_to_atomic_files_under_the_var_dir(tmp_path):
    result = _run_settings(tmp_path, code=PRINT_ARTIFACTS, DJANGO_SECRET_KEY="x")

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "BACKEND": "apps.exports.storage.AtomicFileSystemStorage",
        "OPTIONS": {"location": str(tmp_path / "artifacts")},
    }


@pytest.mark.parametrize(
    "env, message",
    [
        ({"ARTIFACT_STORE": "ftp"}, "ARTIFACT_STORE='ftp': use one of files, database, s3"),
        ({"ARTIFACT_STORE": "s3"}, "ARTIFACT_STORE=s3 needs ARTIFACT_S3_BUCKET"),
    ],
)
def test_an_artifact_store_it_cannot_use_stops_startup(tmp_path, env, message):
    result = _run_settings(tmp_path, code=PRINT_ARTIFACTS, DJANGO_SECRET_KEY="x", **env)

    assert result.returncode != 0 and message in result.stderr
