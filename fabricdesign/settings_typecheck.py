"""The settings mypy's django-stubs plugin loads (pyproject.toml, [tool.django-stubs]); never served.

The plugin imports a settings module to learn the installed apps and their models. fabricdesign.settings refuses
to load without DJANGO_SECRET_KEY while DEBUG is off, which would make a bare `.venv/bin/mypy` fail on a
developer's machine; here a placeholder key fills in when none is set (CI's .ci/run and ./scripts/test set one).
Everything else is the real settings with their environment defaults, so the types mypy sees are production's.
"""

import os
import sys

from django.core.exceptions import ImproperlyConfigured

# A fixed key must never sign a real session: refuse to load anywhere but inside a mypy run.
if "mypy" not in sys.modules:
    raise ImproperlyConfigured("fabricdesign.settings_typecheck is for mypy only; use fabricdesign.settings")

os.environ.setdefault("DJANGO_SECRET_KEY", "mypy-only-placeholder-not-a-secret")

from fabricdesign.settings import *  # noqa: F403
