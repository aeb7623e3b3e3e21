"""What is derived from a revision's snapshot is kept in the cache (apps/designs/revision_cache.py).

GIVEN alice's computed RoCE design (12 NVUE switches) or IB design with an upload of measured results
WHEN switch files, the file list, configs.zip or an upload's page are asked for again
THEN the snapshot is not read again (the QoS set is stored once as configs.zip in the artifact store, its
     report read out of it); a change of the owner's custom parts changes nothing; a result over
     REVISION_CACHE_MAX_BYTES is served but not kept; concurrent misses compute once.
"""

from __future__ import annotations

import io
import json
import threading
import time
import uuid
import zipfile
from unittest import mock

import pytest
from django.core.cache import cache

import apps.exports.services as export_services
from apps.catalog.services import custom_part_save
from apps.designs.revision_cache import compute_once
from apps.exports import renderers
from apps.exports.models import Artifact
from apps.exports.services import configs_zip
from apps.measurements import services as measurements
from apps.measurements.services import (
    END_COLUMNS,
    measurement_create,
    measurement_report,
)
from apps.qos import selectors as qos_selectors
from apps.qos.selectors import (
    ConfigSet,
    config_files,
    qos_archive_stored,
    qos_report_stored,
    revision_config_download,
    revision_qos_plan,
    revision_qos_report,
)
from tests.apps.qos.test_qos_views import computed, roce  # noqa: F401 - fixtures

from .test_measurement_views import as_csv, sheet
from .test_views import alice, design, revision, url  # noqa: F401 - fixtures

SWITCH = {
    "name": "Acme X64",
    "vendor": "Acme",
    "os": {"nvue": "swp", "sonic": "ethernet-lane"},
    "technology": ["ethernet"],
    "cages": 32,
    "form_factor": "osfp",
    "speeds": {"400": 2, "200": 4},
    "rack_units": 1,
    "power_kw": 1.5,
}


@pytest.fixture(autouse=True)
def _private_cache(settings):
    # CI points the default cache at Redis, shared by every test: each test here starts with an empty one.
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"revision-cache-tests-{uuid.uuid4().hex}",
        }
    }


@pytest.fixture
def engine_calls():
    """Counts recomputations of a revision's design (the engine's compute, through revision_result)."""
    with (
        mock.patch.object(export_services, "revision_result", wraps=export_services.revision_result) as qos,
        mock.patch.object(measurements, "revision_result", wraps=measurements.revision_result) as meas,
    ):
        yield lambda: qos.call_count + meas.call_count


def _rev(computed_design):
    return computed_design.revisions.get(number=1)


# --- the QoS configuration set -----------------------------------------------------------------------


def _follow(client, path):
    """The browser's download: the page's link, redirected to the API's download of the stored set."""
    return client.get(path, follow=True)


def test_a_second_download_of_a_switch_file_does_not_recompute(alice, computed, engine_calls):
    first = _follow(alice, url("qos:config_file", computed.pk, 1, "CF-SU01-L01.nvue.txt"))
    assert first.status_code == 200 and engine_calls() == 1

    again = _follow(alice, url("qos:config_file", computed.pk, 1, "CF-SU01-L01.nvue.txt"))
    other = _follow(alice, url("qos:config_file", computed.pk, 1, "CF-S01.nvue.txt"))
    archive = _follow(alice, url("qos:config_file", computed.pk, 1, "configs.zip"))
    report = alice.get(url("qos:revision", computed.pk, 1) + "?fragment=1")
    missing = _follow(alice, url("qos:config_file", computed.pk, 1, "CF-NOPE.nvue.txt"))

    assert engine_calls() == 1  # one build stored the set; the report and every file are read from it
    assert again.content == first.content and again["Content-Disposition"] == first["Content-Disposition"]
    assert other.status_code == 200 and report.status_code == 200 and missing.status_code == 404
    zf = zipfile.ZipFile(io.BytesIO(b"".join(archive.streaming_content)))
    assert zf.read("configs/qos/switches/CF-SU01-L01.nvue.txt") == first.content
    assert Artifact.objects.filter(kind="configs.zip").count() == 1


def test_the_api_list_and_files_come_from_the_store_too(computed, users, engine_calls):
    from tests.apps.api.conftest import rev_url, token_client

    client = token_client(users.alice)
    listing = client.get(rev_url(computed, tail="configs/")).json()
    files = [client.get(f["url"]) for f in listing["results"][:3]]

    assert engine_calls() == 1
    assert all(r.status_code == 200 for r in files)
    assert [len(r.content) for r in files] == [f["size"] for f in listing["results"][:3]]


def test_a_config_file_has_a_strong_etag_and_revalidates(computed, users):
    from tests.apps.api.conftest import rev_url, token_client

    client = token_client(users.alice)
    first = client.get(rev_url(computed, tail="configs/policy.json"))
    again = client.get(rev_url(computed, tail="configs/policy.json"), HTTP_IF_NONE_MATCH=first["ETag"])
    other = client.get(rev_url(computed, tail="configs/summary.json"))
    archive = client.get(rev_url(computed, tail="configs/configs.zip"))

    artifact = Artifact.objects.get(kind="configs.zip")
    assert first.status_code == 200 and first["ETag"].startswith('"') and "immutable" in first["Cache-Control"]
    assert again.status_code == 304 and again["ETag"] == first["ETag"]
    assert other["ETag"] != first["ETag"]
    assert archive["ETag"] == f'"{artifact.sha256}"' and archive["Content-Length"] == str(artifact.size)


def test_the_stored_set_is_the_plans_files_byte_for_byte(computed, users):
    rev = _rev(computed)
    plan = revision_qos_plan(revision=rev)
    revision_qos_report(revision=rev)
    with ConfigSet(Artifact.objects.get(kind="configs.zip")) as config_set:
        assert config_set.files == config_files(plan)
    artifact = qos_archive_stored(revision=rev)
    for f, (_, text) in zip(config_files(plan), plan.files):
        assert revision_config_download(artifact=artifact, name=f.name) == (f, text.encode())


def test_the_report_read_from_the_archive_is_the_report_of_the_plan(computed):
    """The pages' report comes out of configs.zip (summary.json, policy.json, headroom.csv): it equals the report
    of the plan the archive was built from, so the two can never disagree."""
    plan = revision_qos_plan(revision=_rev(computed))
    from_plan = qos_selectors._report(plan.policy, plan.summary(), list(plan.headroom_table), config_files(plan))

    with ConfigSet(configs_zip(plan)) as config_set:
        assert config_set.report() == from_plan
    assert from_plan["lossless_ports"] == len(plan.headroom_table) > 0 and from_plan["worst_ports"]


def test_a_change_of_the_owners_custom_parts_changes_nothing(computed, users, engine_calls):
    """The configuration set is built from the revision's snapshot, which holds the catalog it was computed with:
    the owner's parts today play no part in it or in its key."""
    rev = _rev(computed)
    revision_qos_report(revision=rev)
    first = qos_archive_stored(revision=rev)
    assert first is not None and engine_calls() == 1

    custom_part_save(user=users.alice, section="switches", key="acme-x64", body=SWITCH)

    assert qos_archive_stored(revision=rev) == first
    assert Artifact.objects.filter(kind="configs.zip").count() == 1 and engine_calls() == 1


def test_an_evicted_report_is_read_again_from_the_stored_archive(computed, engine_calls):
    rev = _rev(computed)
    report = revision_qos_report(revision=rev)
    cache.clear()

    assert qos_report_stored(revision=rev) == report
    assert engine_calls() == 1


# --- compute_once ---------------------------------------------------------------------------------------


def test_compute_once_waits_for_the_holder_then_takes_its_result():
    calls = []

    def compute():
        calls.append(1)
        time.sleep(0.3)
        cache.set("k", "value")
        return "value"

    out: list = []
    threads = [
        threading.Thread(target=lambda: out.append(compute_once("k:lock", lambda: cache.get("k"), compute, poll=0.02)))
        for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)

    assert calls == [1] and out == ["value"] * 4 and cache.get("k:lock") is None


def test_a_waiter_computes_itself_when_the_holder_fails():
    started, calls = threading.Event(), []

    def failing():
        calls.append("holder")
        started.set()
        time.sleep(0.2)
        raise RuntimeError("no catalog")

    errors: list = []

    def holder():
        try:
            compute_once("k:lock", lambda: cache.get("k"), failing)
        except RuntimeError as exc:
            errors.append(exc)

    t = threading.Thread(target=holder)
    t.start()
    started.wait(5)
    value = compute_once("k:lock", lambda: cache.get("k"), lambda: calls.append("waiter") or "mine", poll=0.02)
    t.join(5)

    assert value == "mine" and calls == ["holder", "waiter"] and len(errors) == 1


def test_a_waiter_computes_itself_when_the_holder_died():
    cache.add("k:lock", "dead holder", timeout=1)  # a holder that never finishes: its lock expires
    t0 = time.monotonic()

    assert compute_once("k:lock", lambda: cache.get("k"), lambda: "mine", poll=0.05) == "mine"
    assert 0.5 < time.monotonic() - t0 < 5


# --- measured results -------------------------------------------------------------------------------------


def _uploaded(rev, user):
    header, rows = sheet(rev)
    col = {c: i for i, c in enumerate(header)}
    for r in rows:
        r[col["measured_loss_db"]] = "0.30"
    rows[0][col["measured_loss_db"]] = f"{float(rows[0][col['limit_db']]) + 0.5:.2f}"
    return measurement_create(revision=rev, user=user, data=as_csv(header, rows), filename="f.csv")


def test_an_uploads_page_is_judged_from_the_cached_limits_table(alice, revision, users, engine_calls):
    upload = _uploaded(revision, users.alice)
    at_upload = engine_calls()

    first = alice.get(url("measurements:measurement", revision.design_id, revision.number, upload.pk))
    assert engine_calls() == at_upload  # the upload's check filled the limits table its page reads
    again = alice.get(url("measurements:measurement", revision.design_id, revision.number, upload.pk))
    results = alice.get(url("measurements:measurement_results_csv", revision.design_id, revision.number, upload.pk))
    b"".join(results.streaming_content)

    assert engine_calls() == at_upload
    assert first.status_code == again.status_code == 200 and first.context["report"] == again.context["report"]


def test_the_report_from_the_cache_is_the_report_recomputed(revision, users, settings):
    upload = _uploaded(revision, users.alice)
    settings.REVISION_CACHE_MAX_BYTES = 0  # nothing kept: every report recomputed
    fresh = measurement_report(upload=upload)
    settings.REVISION_CACHE_MAX_BYTES = 64 * 1024 * 1024
    measurement_report(upload=upload)  # fills the cache
    cached = measurement_report(upload=upload)

    assert cached == fresh and fresh["failing_links"] and fresh["failing_links"][0]["a_device"]


@pytest.mark.parametrize("test_limit", ["pmd", "budget"])
def test_the_limits_table_holds_every_fiber_of_the_test_sheet_in_order(revision, test_limit):
    from apps.exports.services import revision_result

    rows = list(renderers.iter_test_rows(revision_result(revision=revision), test_limit=test_limit))
    table = measurements._limits_table(renderers, revision, test_limit)
    col = {c: i for i, c in enumerate(renderers.TEST_SHEET_COLUMNS)}
    ends: dict = {}
    for row in rows:
        ends.setdefault(row[col["link_id"]], tuple(row[col[k]] for k in END_COLUMNS))

    assert renderers.compare([], table.index) == renderers.compare([], rows)
    assert table.ends == ends


def test_a_set_removed_by_the_retention_is_built_again_though_its_report_is_cached(computed, users, engine_calls):
    from tests.apps.api.conftest import rev_url, token_client

    client = token_client(users.alice)
    assert client.get(rev_url(computed, tail="configs/policy.json")).status_code == 200
    Artifact.objects.all().delete()  # the retention sweep; the report stays in the cache

    again = client.get(rev_url(computed, tail="configs/policy.json"))
    assert again.status_code == 200 and json.loads(again.content)["mode"] == "dcqcn"
    assert engine_calls() == 2 and Artifact.objects.filter(kind="configs.zip").count() == 1


def test_a_set_whose_file_vanished_from_the_store_is_built_again(computed, users, engine_calls):
    """A file deleted from the store by hand (or a store restored from an older backup) forgets its row and is
    built again by the same request, not answered with an error."""
    from apps.exports.artifacts import artifact_storage
    from tests.apps.api.conftest import rev_url, token_client

    client = token_client(users.alice)
    assert client.get(rev_url(computed, tail="configs/policy.json")).status_code == 200
    gone = Artifact.objects.get(kind="configs.zip")
    artifact_storage().delete(gone.name)

    again = client.get(rev_url(computed, tail="configs/policy.json"))
    assert again.status_code == 200 and json.loads(again.content)["mode"] == "dcqcn"
    rebuilt = Artifact.objects.get(kind="configs.zip")
    assert rebuilt.pk != gone.pk and engine_calls() == 2
