"""The job runner on PostgreSQL: a backend terminated in the middle of the bulk store's COPY is a transient
database error (psycopg's own OperationalError, which Django does not wrap): the job runs once more in the same
attempt and stores one complete revision, as the README promises, instead of failing with the driver's text."""

from __future__ import annotations

import psycopg
import pytest
from django.db import connection

from apps.designs import storage
from apps.designs.models import Revision
from apps.jobs.models import JobStatus
from apps.jobs.runner import run_job
from tests.apps.jobs.test_worker_integration import assert_fully_stored
from tests.factories import JobFactory

pytestmark = pytest.mark.django_db(transaction=True)

_TERMINATED_TEXTS = (
    "terminating connection due to administrator command",
    "server closed the connection unexpectedly",
)


@pytest.fixture
def postgresql():
    if connection.vendor != "postgresql":
        pytest.skip("terminating a backend mid-COPY needs PostgreSQL (DATABASE_URL=postgres://...)")


def test_a_backend_terminated_mid_copy_is_retried_once_and_the_job_succeeds(postgresql, monkeypatch):
    real_copy = storage._copy
    terminated: list[int] = []

    def copy_then_terminate(table, columns, rows, batch, on_batch):
        pid = connection.connection.info.backend_pid

        def rows_until_terminated():
            for n, row in enumerate(rows):
                if n == 50 and not terminated:
                    # From another session, as an operator or a failover would: the store's own connection dies.
                    with psycopg.connect(**connection.get_connection_params(), autocommit=True) as admin:
                        assert admin.execute("SELECT pg_terminate_backend(%s)", [pid]).fetchone() == (True,)
                    terminated.append(pid)
                yield row

        return real_copy(table, columns, rows_until_terminated(), batch, on_batch)

    monkeypatch.setattr(storage, "_copy", copy_then_terminate)
    job = JobFactory()

    assert run_job(str(job.pk)) == "succeeded"

    job.refresh_from_db()
    assert len(terminated) == 1
    assert job.status == JobStatus.SUCCEEDED and job.attempts == 1
    retries = [e["message"] for e in job.log if "database error, retrying once" in e["message"]]
    assert len(retries) == 1, job.log
    # Which text the driver reports is a race: if the server's termination notice is read before the next COPY
    # write, psycopg quotes it; if the write hits the closed socket first (seen in CI), it says the server closed
    # the connection (OperationalError rather than its subclass AdminShutdown). Both are the same event, a backend
    # gone mid-COPY, and both must be retried.
    assert any(text in retries[0] for text in _TERMINATED_TEXTS), retries[0]
    assert assert_fully_stored(job).number == 1
    assert Revision.objects.filter(design=job.design).count() == 1
