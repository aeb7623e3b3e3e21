"""Real worker processes for the artifact store's integration tests: the jobs tests' fixtures, reused."""

from tests.apps.exports.s3server import s3_server, s3_store  # noqa: F401 - fixtures
from tests.apps.jobs.conftest import (  # noqa: F401 - fixtures and hooks pytest picks up from here
    pytest_configure,
    pytest_unconfigure,
    start_worker,
)
