"""Real worker processes for the artifact store's integration tests: the jobs tests' fixtures, reused."""
from tests.apps.jobs.conftest import (  # noqa: F401 - fixtures and hooks pytest picks up from here
    pytest_configure,
    pytest_unconfigure,
    start_worker,
)
