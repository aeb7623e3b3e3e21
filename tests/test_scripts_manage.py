"""./scripts/manage: the README's way to run management commands and the CLI on a fresh checkout, with the
development defaults of ./scripts/run (no DJANGO_SECRET_KEY needed), while production settings stay strict."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _env(tmp_path: Path, **extra) -> dict:
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in {
            "DJANGO_SECRET_KEY",
            "DJANGO_DEBUG",
            "DATABASE_URL",
            "CELERY_BROKER_URL",
            "REDIS_URL",
            "DJANGO_SETTINGS_MODULE",
        }
    }
    env.update(FABRICDESIGN_VAR_DIR=str(tmp_path), FABRICDESIGN_VENV=str(Path(sys.executable).parents[1]), **extra)
    return env


def test_it_creates_the_first_user_without_a_secret_key(tmp_path):
    env = _env(tmp_path, DJANGO_SUPERUSER_PASSWORD="a-long-passphrase-4-test")
    subprocess.run([ROOT / "scripts" / "manage", "migrate", "-v", "0"], env=env, check=True, timeout=300)

    made = subprocess.run(
        [
            ROOT / "scripts" / "manage",
            "createsuperuser",
            "--noinput",
            "--username",
            "ada",
            "--email",
            "ada@example.com",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    listed = subprocess.run(
        [
            ROOT / "scripts" / "manage",
            "shell",
            "-v",
            "0",
            "-c",
            "from django.contrib.auth import get_user_model as m; "
            "print(list(m().objects.values_list('username', 'is_superuser')))",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert made.returncode == 0, made.stderr
    assert "Traceback" not in made.stderr
    assert listed.stdout.strip() == "[('ada', True)]"


def test_production_settings_still_need_a_secret_key(tmp_path):
    refused = subprocess.run(
        [ROOT / "scripts" / "manage", "check"],
        env=_env(tmp_path, DJANGO_DEBUG="false"),
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert refused.returncode != 0
    assert "DJANGO_SECRET_KEY" in refused.stderr
