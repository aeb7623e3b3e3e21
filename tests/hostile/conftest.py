"""The app tests' fixtures (static files without collectstatic, private caches and rate-limit counters, the
API clients), reused: the hostile-input tests drive the same entry points."""

from tests.apps.api.conftest import (  # noqa: F401 - fixtures
    _private_locmem_cache,
    _private_rate_limit_counters,
    alice,
)
from tests.apps.conftest import _static_files_without_collectstatic  # noqa: F401 - fixture
