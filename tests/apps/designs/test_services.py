"""Design services: create/update/share, compute enqueue (idempotency), compute-and-store, revision numbers,
compare."""

from __future__ import annotations

import threading
from unittest import mock

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import connection, transaction

from apps.designs import adapters
from apps.designs import services as design_services
from apps.designs.models import Access, CableRecord, DesignShare, LinkRecord, Revision
from apps.designs.partitions import partition_name, partitioned
from apps.designs.services import (
    design_compute_enqueue,
    design_compute_job,
    design_create,
    design_share,
    design_unshare,
    design_update,
    revision_compare,
)
from apps.jobs.models import Job, JobStatus
from apps.jobs.progress import DbProgress
from apps.jobs.runner import run_job
from apps.jobs.services import job_claim, job_request_cancel
from engine.errors import EngineInvariantError, SpecError
from engine.pipeline import compute_design
from tests.factories import SMALL_SPEC, DesignFactory, JobFactory, small_spec

pytestmark = pytest.mark.django_db


@pytest.fixture
def delay():
    with mock.patch("apps.jobs.tasks.run_job.delay") as delay:
        yield delay


def concurrent_connections() -> None:
    """Skip unless other threads' connections can wait for this one's locks: not so with in-memory SQLite
    (shared cache), which the test database is unless tests/apps/jobs (which makes it a file) is collected."""
    if connection.vendor == "sqlite" and "memory" in str(connection.settings_dict["NAME"]):
        pytest.skip("concurrent writers need a file or server database")


def claimed(**fields) -> Job:
    job = JobFactory(**fields)
    assert job_claim(job_id=job.pk)
    job.refresh_from_db()
    return job


def compute(job: Job) -> dict:
    return design_compute_job(job=job, progress=DbProgress(job.pk, attempt=job.attempts))


# ----- create, update, share ----------------------------------------------------------------------------------


def test_it_creates_a_design_with_the_normalized_spec(users):
    design = design_create(user=users.alice, spec=SMALL_SPEC)
    assert design.owner == users.alice and design.name == SMALL_SPEC["name"]
    assert design.spec == small_spec()


def test_it_creates_a_design_from_a_preset_with_a_new_name(users):
    design = design_create(user=users.alice, preset="dgx-h100-superpod-4su", name="Hall B")
    assert design.preset == "dgx-h100-superpod-4su" and design.name == design.spec["name"] == "Hall B"


def test_it_rejects_an_unknown_preset_or_no_spec(users):
    with pytest.raises(SpecError) as err:
        design_create(user=users.alice, preset="nope")
    assert err.value.errors[0].path == "preset"
    with pytest.raises(SpecError) as err:
        design_create(user=users.alice)
    assert err.value.errors[0].path == "spec"


def test_it_updates_the_spec_and_name(users):
    design = DesignFactory(owner=users.alice)
    design_update(design=design, spec={**SMALL_SPEC, "name": "Renamed"})
    design.refresh_from_db()
    assert design.name == design.spec["name"] == "Renamed"


def test_it_rejects_an_invalid_update_and_keeps_the_design(users):
    design = DesignFactory(owner=users.alice)
    with pytest.raises(SpecError):
        design_update(design=design, spec={**SMALL_SPEC, "servers": {"model": "dgx-h100", "count": -1}})
    design.refresh_from_db()
    assert design.spec == small_spec()


def test_it_shares_updates_and_unshares(users):
    design = DesignFactory(owner=users.alice)
    design_share(design=design, user=users.bob)
    design_share(design=design, user=users.bob, access=Access.WRITE)
    assert DesignShare.objects.get(design=design, user=users.bob).access == Access.WRITE
    design_unshare(design=design, user=users.bob)
    assert not DesignShare.objects.exists()
    with pytest.raises(SpecError):
        design_share(design=design, user=users.alice)


# ----- compute enqueue ------------------------------------------------------------------------------------------


def test_it_queues_a_snapshot_of_the_spec(users, delay, django_capture_on_commit_callbacks):
    design = DesignFactory(owner=users.alice)
    with django_capture_on_commit_callbacks(execute=True):
        job = design_compute_enqueue(design=design, user=users.alice)
    delay.assert_called_once_with(str(job.pk))
    design_update(design=design, spec={**SMALL_SPEC, "name": "Later edit"})
    job.refresh_from_db()
    assert job.kind == "compute" and job.status == JobStatus.QUEUED and job.design == design
    assert job.params["spec"]["name"] == SMALL_SPEC["name"]


def test_a_reused_idempotency_key_returns_the_first_job(users, delay, django_capture_on_commit_callbacks):
    design = DesignFactory(owner=users.alice)
    with django_capture_on_commit_callbacks(execute=True):
        first = design_compute_enqueue(design=design, user=users.alice, idempotency_key="k-1")
        again = design_compute_enqueue(design=design, user=users.alice, idempotency_key="k-1")
        other = design_compute_enqueue(design=design, user=users.alice, idempotency_key="k-2")
        plain = design_compute_enqueue(design=design, user=users.alice)
    assert again.pk == first.pk and len({first.pk, other.pk, plain.pk}) == 3
    assert delay.call_count == 3  # the reused key enqueued nothing


def test_a_key_reused_for_another_design_returns_that_designs_job(users, delay):
    first = design_compute_enqueue(design=DesignFactory(owner=users.alice), user=users.alice, idempotency_key="k")
    again = design_compute_enqueue(design=DesignFactory(owner=users.alice), user=users.alice, idempotency_key="k")
    assert again.pk == first.pk  # the caller (the API) answers 422 for it


def test_keys_are_per_user(users, delay):
    design = DesignFactory(owner=users.alice)
    design_share(design=design, user=users.bob, access=Access.WRITE)
    a = design_compute_enqueue(design=design, user=users.alice, idempotency_key="k")
    b = design_compute_enqueue(design=design, user=users.bob, idempotency_key="k")
    assert a.pk != b.pk


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_requests_with_one_key_make_one_job(users, delay):
    """GIVEN request A has created its job with key "k" but not committed yet
    WHEN request B with the same key arrives meanwhile
    THEN B waits for A (the unique key), then answers A's job: one job, one enqueue."""
    concurrent_connections()
    design = DesignFactory(owner=users.alice)
    created, release = threading.Event(), threading.Event()
    results = {}

    def request_a():
        try:
            with transaction.atomic():
                results["a"] = design_compute_enqueue(design=design, user=users.alice, idempotency_key="k")
                created.set()
                release.wait(10)
        finally:
            connection.close()

    def request_b():
        try:
            results["b"] = design_compute_enqueue(design=design, user=users.alice, idempotency_key="k")
        finally:
            connection.close()

    a = threading.Thread(target=request_a)
    a.start()
    assert created.wait(10)
    b = threading.Thread(target=request_b)
    b.start()
    b.join(0.5)  # B is blocked: on PostgreSQL by the unique key, on SQLite by A's write lock
    release.set()
    a.join(10)
    b.join(10)
    assert results["a"].pk == results["b"].pk
    assert Job.objects.filter(idempotency_key="k").count() == 1
    assert delay.call_count == 1


# ----- compute and store ----------------------------------------------------------------------------------------


def test_it_stores_the_revision_with_every_link_and_cable_and_succeeds_the_job():
    job = claimed()
    outcome = compute(job)
    rev = Revision.objects.get(design=job.design)
    assert outcome["revision"] == rev.number == 1 and outcome["revision_id"] == rev.pk
    assert rev.link_count == outcome["links"] == rev.summary["links_total"] == 581
    # every link has a part since the catalog holds the 100G QSFP28 parts of the in-band and OOB uplinks
    assert rev.cable_count == outcome["cables"] == rev.summary["cables_total"] == 581
    assert rev.summary["completeness"]["complete"] is True
    assert rev.spec == job.params["spec"] and rev.created_by == job.created_by
    assert rev.engine_version == rev.summary["engine_version"] and rev.catalog_version
    assert len(rev.spec_hash) == 64 and rev.compute_seconds > 0
    # The engine's second half (checks, summary) runs during the store, so only its first half adds up.
    assert outcome["compute_seconds"] >= outcome["compute_before_store_seconds"] > 0
    assert outcome["seconds"] >= outcome["compute_before_store_seconds"] + outcome["store_seconds"] - 0.01
    assert rev.compute_seconds == outcome["compute_seconds"]
    # Where the store's time went, table by table: the job's record for whoever tunes it.
    phases = outcome["store_phases"]
    assert {f"{t}.load" for t in (LinkRecord._meta.db_table, CableRecord._meta.db_table)} <= set(phases)
    assert all(v >= 0 for v in phases.values()) and sum(phases.values()) <= outcome["store_seconds"] + 0.01
    # and its peak memory at the end of each phase (VmHWM, MB; 0 where /proc is missing), never falling
    peaks = outcome["peak_mb"]
    assert {"engine first half", "engine second half", "snapshot encode", f"{LinkRecord._meta.db_table}.load"} <= set(
        peaks
    )
    assert peaks["engine second half"] >= peaks["engine first half"] >= 0

    links = list(LinkRecord.objects.filter(revision=rev).order_by("link_id").values_list(*adapters.LINK_DB_COLUMNS))
    cables = list(CableRecord.objects.filter(revision=rev).order_by("cable_id").values_list(*adapters.CABLE_DB_COLUMNS))
    result = compute_design(design_services.parse_spec(job.params["spec"]), design_services.load_catalog())
    assert links == list(adapters.link_db_rows(result, rev.pk))
    assert cables == list(adapters.cable_db_rows(result, rev.pk))

    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED and job.result == outcome


def test_a_design_computes_with_its_owners_custom_parts():
    """GIVEN alice's own 64-port InfiniBand switch "acme-x64" (an API custom part)
    WHEN her design that names it computes
    THEN the stored revision's leaves are that switch (the same parts every later recomputation uses)."""
    from apps.catalog.models import CustomPart

    design = DesignFactory()
    CustomPart.objects.create(
        owner=design.owner,
        section="switches",
        key="acme-x64",
        body={
            "name": "Acme X64",
            "vendor": "Acme",
            "os": {"ib": "ib-port"},
            "technology": ["infiniband"],
            "cages": 32,
            "form_factor": "osfp",
            "speeds": {"400": 2, "200": 4},
            "rack_units": 1,
            "power_kw": 1.5,
        },
    )
    spec = {
        "name": "c",
        "servers": {"model": "dgx-h100", "count": 8},
        "compute_fabric": {"technology": "infiniband", "switch": "acme-x64"},
    }
    job = claimed(design=design, params={"spec": spec})
    rev = Revision.objects.get(pk=compute(job)["revision_id"])
    assert rev.summary["networks"]["compute"]["switch_models"]["leaf"] == "acme-x64"


def test_a_big_store_refreshes_the_planner_statistics(monkeypatch):
    if connection.vendor != "postgresql":
        pytest.skip("ANALYZE is PostgreSQL's")
    monkeypatch.setattr(design_services, "ANALYZE_AFTER_ROWS", 500)
    rev_id = compute(claimed())["revision_id"]
    # Partitioned row tables (migration 0003): the new revision's own partitions, which its queries read.
    tables = [
        partition_name(t, rev_id) if partitioned(t) else t
        for t in (LinkRecord._meta.db_table, CableRecord._meta.db_table)
    ]
    with connection.cursor() as cur:
        cur.execute(
            "SELECT count(*) FROM pg_stat_user_tables WHERE relname IN (%s, %s) AND last_analyze IS NOT NULL", tables
        )
        assert cur.fetchone()[0] == 2


def test_revisions_are_numbered_per_design():
    first = claimed()
    compute(first)
    second = claimed(design=first.design)
    other = claimed()
    assert compute(second)["revision"] == 2
    assert compute(other)["revision"] == 1


def test_a_failure_while_storing_leaves_nothing_behind():
    job = claimed()
    with (
        mock.patch.object(adapters, "cable_db_rows", side_effect=RuntimeError("disk full")),
        pytest.raises(RuntimeError),
    ):
        compute(job)
    assert not Revision.objects.exists() and not LinkRecord.objects.exists()
    assert Job.objects.get(pk=job.pk).status == JobStatus.RUNNING  # the runner records the failure


def test_a_broken_invariant_found_while_storing_leaves_nothing_behind():
    """The engine's checks run while the rows are being stored; one that fails rolls the store back."""

    def partitions() -> int:
        with connection.cursor() as cur:
            cur.execute("SELECT count(*) FROM pg_class WHERE relname LIKE 'designs\\_%record\\_r%'")
            return cur.fetchone()[0]

    job = claimed()
    before = partitions() if partitioned(LinkRecord._meta.db_table) else 0
    with (
        mock.patch("engine.pipeline.verify", side_effect=EngineInvariantError("port X used twice")),
        pytest.raises(EngineInvariantError),
    ):
        compute(job)
    assert not Revision.objects.exists() and not LinkRecord.objects.exists() and not CableRecord.objects.exists()
    if partitioned(LinkRecord._meta.db_table):
        assert partitions() == before


def test_a_job_cancelled_before_storing_stores_nothing():
    job = claimed()
    job_request_cancel(job=job)
    with pytest.raises(design_services.JobCancelled):
        compute(job)
    assert not Revision.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_cancel_that_commits_during_the_store_rolls_the_revision_back():
    """GIVEN a job storing its revision
    WHEN the user's cancel commits from another connection before the store ends
    THEN the job is cancelled and no revision exists (PostgreSQL: SQLite holds the cancel until the store
         has committed, and the job then succeeded first)."""
    if connection.vendor != "postgresql":
        pytest.skip("SQLite serializes the cancel behind the store's write lock")
    job = JobFactory()
    real = adapters.cable_db_rows

    def cancel_meanwhile(result, revision_id):
        thread = threading.Thread(target=lambda: (job_request_cancel(job=job), connection.close()))
        thread.start()
        thread.join(10)
        return real(result, revision_id)

    with mock.patch.object(adapters, "cable_db_rows", cancel_meanwhile):
        assert run_job(str(job.pk)) == "cancelled"
    assert not Revision.objects.exists() and not LinkRecord.objects.exists() and not CableRecord.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_concurrent_stores_of_one_design_take_consecutive_numbers():
    """GIVEN two jobs of one design that finish computing at the same moment
    WHEN both store their revision at once
    THEN they take numbers 1 and 2, one after the other (no unique-constraint failure)."""
    concurrent_connections()
    first = claimed()
    second = claimed(design=first.design)
    real_lock = design_services._lock_revision_numbers
    past_the_lock = threading.Condition()
    arrived = []

    def lock_together(design_id):
        # Each store waits (up to 1 s) for the other to get past the lock too. With the lock the second
        # cannot until the first has committed; without it both would read the same highest number.
        real_lock(design_id)
        with past_the_lock:
            arrived.append(design_id)
            past_the_lock.notify_all()
            past_the_lock.wait_for(lambda: len(arrived) == 2, timeout=1)

    outcomes, errors = [], []

    def store(job):
        try:
            outcomes.append(compute(job)["revision"])
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)
        finally:
            connection.close()

    with mock.patch.object(design_services, "_lock_revision_numbers", lock_together):
        threads = [threading.Thread(target=store, args=(job,)) for job in (first, second)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    assert errors == []
    assert sorted(outcomes) == [1, 2]
    assert sorted(Revision.objects.values_list("number", flat=True)) == [1, 2]


# ----- the test hook ------------------------------------------------------------------------------------------


def test_the_test_stall_holds_the_computation_at_a_stage_and_keeps_reporting(settings):
    settings.JOB_TEST_STALL = "placement:0.5"
    job = claimed()
    calls = []
    progress = DbProgress(job.pk, attempt=job.attempts)
    real_report = DbProgress._report  # every report of the job's bar and its sub-ranges, before the throttle

    def record(self, stage, percent, *, final):
        calls.append(stage)
        real_report(self, stage, percent, final=final)

    with mock.patch.object(DbProgress, "_report", record):
        design_compute_job(job=job, progress=progress)
    assert calls.count("placement") >= 3  # the report, then one every 0.2 s while it waits


def test_a_malformed_test_stall_stops_the_run(settings):
    settings.JOB_TEST_STALL = "topology:soon"
    with pytest.raises(ImproperlyConfigured):
        compute(claimed())


# ----- compare --------------------------------------------------------------------------------------------------


def test_it_compares_two_revisions():
    job = claimed()
    compute(job)
    bigger = claimed(design=job.design, params={"spec": small_spec(servers={"model": "dgx-h100", "count": 32})})
    compute(bigger)
    old, new = Revision.objects.order_by("number")

    diff = revision_compare(old=old, new=new)
    assert (diff["old"], diff["new"]) == (1, 2)
    counts = {row["item"]: (row["old"], row["new"]) for row in diff["counts"]}
    assert counts["GPUs"] == (128, 256) and counts["Servers"] == (16, 32)
    assert counts["Links, all networks"] == (old.link_count, new.link_count)
    assert diff["links_added"] > 0
    assert diff["links_added"] - diff["links_removed"] == new.link_count - old.link_count

    same = revision_compare(old=old, new=old)
    assert same["counts"] == [] and same["links_added"] == same["links_removed"] == 0
