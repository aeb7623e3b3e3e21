"""Frozen revisions (issue 15): every page, API answer and file of a stored revision comes from its snapshot.

GIVEN alice's design computed twice (r1, r2), with nothing rendered yet (empty artifact store and caches)
WHEN the engine's compute cannot run at all
THEN every page, API endpoint and deliverable of r1 still answers, and export jobs build every file;
AND WHEN the shipped catalog data, alice's custom parts and her price list all change
THEN every deliverable of r1, rendered again from an empty cache, is byte-identical to the first rendering
(PDFs in reportlab's invariant mode), until alice explicitly reprices r1: then only the priced BOM changes.
"""

from __future__ import annotations

import csv
import io
from contextlib import contextmanager
from unittest import mock

import pytest
from django.core.cache import cache
from django.test import Client

from apps.designs import services as design_services
from apps.designs import snapshots
from apps.exports.models import Artifact
from apps.exports.services import ARCHIVES, DELIVERABLES, deliverable_applies
from tests.apps.api.conftest import SMALL_SPEC, compute_now, rev_url

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _invariant_pdfs(monkeypatch, settings, tmp_path):
    from reportlab import rl_config

    monkeypatch.setattr(rl_config, "invariant", 1)  # no creation date or random document id in the PDFs
    settings.MEDIA_ROOT = str(tmp_path / "media")


@contextmanager
def engine_compute_forbidden():
    """The engine's compute raises wherever it is entered (compute_design, start_design, the store's halves)."""

    def boom(*args, **kwargs):
        raise AssertionError("the engine's compute ran for a stored revision")

    with (
        mock.patch("engine.pipeline._start_design", boom),
        mock.patch("engine.pipeline.check_design", boom),
        mock.patch("engine.pipeline.finish_design", boom),
        mock.patch.object(design_services, "start_design", boom),
        mock.patch.object(design_services, "finish_design", boom),
    ):
        yield


def empty_caches() -> None:
    """Nothing rendered or decoded before: no artifact, no cached derived result, no decoded snapshot."""
    Artifact.objects.all().delete()
    cache.clear()
    snapshots._cache.clear()


def body(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def kinds_of(revision) -> list[str]:
    return [k for k in DELIVERABLES if deliverable_applies(k, revision.spec)]


def render_all(alice, design, number: int = 1) -> dict[str, bytes]:
    """Every file of the revision through the API's download endpoint (rendered inline: a small design)."""
    out = {}
    revision = design.revisions.get(number=number)
    for kind in [*kinds_of(revision), "links.csv", "cables.csv", "summary.json", "spec.json"]:
        r = alice.get(rev_url(design, number, f"downloads/{kind}"))
        assert r.status_code == 200, (kind, r.status_code, body(r)[:300])
        out[kind] = body(r)
    listing = alice.get(rev_url(design, number, "configs/"))
    assert listing.status_code == 200, body(listing)[:300]
    for f in listing.json()["results"]:
        r = alice.get(rev_url(design, number, f"configs/{f['name']}"))
        assert r.status_code == 200, (f["name"], body(r)[:300])
        out[f"configs/{f['name']}"] = body(r)
    return out


def run_export(alice, design, kind: str, number: int = 1) -> bytes:
    from apps.jobs.runner import run_job

    r = alice.post(rev_url(design, number, "exports/"), {"kind": kind}, format="json")
    assert r.status_code in (200, 202), (kind, body(r)[:300])
    job_id = r.json()["id"]
    if r.status_code == 202:
        assert run_job(job_id) == "succeeded", (kind, alice.get(f"/api/v1/jobs/{job_id}/").json())
    f = alice.get(f"/api/v1/jobs/{job_id}/file")
    assert f.status_code == 200, (kind, body(f)[:300])
    return body(f)


@pytest.fixture
def design(users):
    """alice's small design with a workload, so that it has every file (workloads.pdf too)."""
    from apps.designs.services import design_create

    spec = {
        **SMALL_SPEC,
        "servers": {"model": "dgx-h100", "count": 64},  # the workload preset needs 512 GPUs
        "compute_fabric": {**SMALL_SPEC["compute_fabric"], "scalable_unit": 32},
        "workloads": ["llama-70b-tp8-pp4-dp16"],
    }
    return design_create(user=users.alice, spec=spec)


@pytest.fixture
def computed(design, users):
    compute_now(design, users.alice)
    return design


@pytest.fixture
def twice(computed, users):
    """alice's design computed twice: r1 and r2."""
    compute_now(computed, users.alice)
    return computed


def test_every_page_answer_and_file_of_a_stored_revision_renders_without_the_engine(alice, users, twice):
    design = twice
    browser = Client()
    browser.force_login(users.alice)
    empty_caches()
    with engine_compute_forbidden():
        base = f"/designs/{design.pk}/revisions/1/"
        pages = [
            base,
            base + "links/",
            base + "cables/",
            base + "links.csv",
            base + "cables.csv",
            base + "qos/",
            base + "measurements/",
            f"/designs/{design.pk}/compare/?old=1&new=2",
            f"/designs/{design.pk}/",
        ]
        for url in pages:
            r = browser.get(url)
            assert r.status_code == 200, (url, r.status_code)
        for kind in kinds_of(design.revisions.get(number=1)):
            r = browser.get(base + f"files/{kind}")
            assert r.status_code == 302 and "/downloads/" in r["Location"], (kind, r.status_code)

        for tail in (
            "",
            "summary/",
            "bom/",
            "order/",
            "links/",
            "cables/",
            "loss-budget/",
            "fibers/",
            "warnings/",
            "downloads/",
            "measurements/",
            "configs/",
        ):
            r = alice.get(rev_url(design, 1, tail))
            assert r.status_code == 200, (tail, r.status_code, body(r)[:300])
        for tail in ("order-delta/?old=1&new=2", "change-order.csv?old=1&new=2", "change-order.pdf?old=1&new=2"):
            r = alice.get(f"/api/v1/designs/{design.pk}/{tail}")
            assert r.status_code == 200, (tail, r.status_code, body(r)[:300])
        assert alice.get(rev_url(design, 1, "order/")).json().get("split_available", True) is not False

        files = render_all(alice, design)
        assert files["bom.pdf"].startswith(b"%PDF") and files["labels.pdf"].startswith(b"%PDF")

        # A measured test sheet uploaded against the revision is compared with its stored limits.
        sheet = files["test-sheet.csv"].decode()
        rows = list(csv.DictReader(io.StringIO(sheet)))
        filled = io.StringIO()
        writer = csv.writer(filled, lineterminator="\n")
        writer.writerow(["fiber_id", "link_id", "measured_loss_db"])
        for row in rows:
            writer.writerow([row["fiber_id"], row["link_id"], "0.5"])
        upload = alice.generic(
            "POST", rev_url(design, 1, "measurements/"), filled.getvalue().encode(), content_type="text/csv"
        )
        assert upload.status_code == 201, body(upload)[:300]

        # Export jobs (the worker's path), from an empty store again.
        empty_caches()
        for kind in list(kinds_of(design.revisions.get(number=1))) + list(ARCHIVES):
            assert run_export(alice, design, kind)


def test_a_revision_renders_the_same_after_the_catalog_custom_parts_and_prices_change(
    alice, users, computed, monkeypatch, tmp_path
):
    from apps.catalog.models import CustomPart
    from apps.catalog.services import price_list_save
    from engine import catalog as hardware
    from engine.physical import catalog as media

    design = computed
    empty_caches()
    first = render_all(alice, design)
    first["configs.zip"] = run_export(alice, design, "configs.zip")

    # The shipped catalog changes (a switch renamed and its power changed; a transceiver described anew) ...
    original_read = hardware._read

    def changed_read(name):
        doc, raw = original_read(name)
        if name == "switches.yaml":
            doc = {**doc, "switches": {**doc["switches"]}}
            doc["switches"]["qm9700"] = {**doc["switches"]["qm9700"], "name": "Renamed switch", "power_kw": 9.9}
            raw += b"# changed"
        return doc, raw

    media_dir = tmp_path / "media-data"
    media_dir.mkdir()
    for f in media.DATA_DIR.iterdir():
        text = f.read_text()
        if f.name == "transceivers.yaml":
            text = text.replace("description: ", "description: CHANGED ", 1)
        (media_dir / f.name).write_text(text)
    monkeypatch.setattr(hardware, "_read", changed_read)
    monkeypatch.setattr(media, "DATA_DIR", media_dir)
    hardware._shipped.cache_clear()
    monkeypatch.setattr(hardware, "_shipped", hardware._shipped.__wrapped__)
    assert hardware.load_catalog().switches["qm9700"].name == "Renamed switch"
    # ... alice's custom parts change (one that would no longer even load beside the catalog) ...
    CustomPart.objects.create(owner=users.alice, section="switches", key="broken", body={"name": "Broken"})
    # ... and her price list gets a new version.
    assert price_list_save(owner=users.alice, currency="EUR", prices={"MQM9700-NS2F": "100"}) is not None

    empty_caches()
    with engine_compute_forbidden():
        second = render_all(alice, design)
        second["configs.zip"] = run_export(alice, design, "configs.zip")
    assert second.keys() == first.keys()
    assert [k for k in first if first[k] != second[k]] == []

    # An explicit reprice is the one change: only the priced BOM follows it.
    assert alice.post(rev_url(design, 1, "reprice/")).status_code == 200
    empty_caches()
    with engine_compute_forbidden():
        third = render_all(alice, design)
        third["configs.zip"] = run_export(alice, design, "configs.zip")
    changed = sorted(k for k in first if first[k] != third[k])
    assert changed == ["bom.csv", "bom.pdf"]
    assert b"100.00" in third["bom.csv"] and b"100.00" not in first["bom.csv"]
