"""Background exports: big deliverables and the QoS configs archive are built by a worker into a file.

GIVEN alice's computed design
WHEN she asks for an export, a worker runs the job (here: the same runner, synchronously)
THEN the job's file_url serves the whole file, and nobody else can reach it.
"""

from __future__ import annotations

import csv
import io
import zipfile

import pytest

from tests.apps.api.conftest import rev_url

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")


def _run(job_id: str) -> str:
    from apps.jobs.runner import run_job

    return run_job(job_id)


def test_it_builds_a_cabling_plan_in_the_background_and_serves_it(alice, computed):
    r = alice.post(rev_url(computed, tail="exports/"), {"kind": "cabling-plan.pdf"}, format="json")
    assert r.status_code == 202 and r["Location"] == r.json()["url"]
    job_id = r.json()["id"]
    assert alice.get(f"/api/v1/jobs/{job_id}/file").status_code == 409  # not built yet
    assert _run(job_id) == "succeeded"
    job = alice.get(f"/api/v1/jobs/{job_id}/").json()
    assert job["status"] == "succeeded" and job["file_url"].endswith(f"/jobs/{job_id}/file")
    f = alice.get(f"/api/v1/jobs/{job_id}/file")
    body = b"".join(f.streaming_content)
    assert f.status_code == 200 and f["Content-Type"] == "application/pdf" and body.startswith(b"%PDF")
    assert "cabling-plan.pdf" in f["Content-Disposition"]


def test_the_configs_archive_holds_the_qos_files(alice, computed):
    job_id = alice.post(rev_url(computed, tail="exports/"), {"kind": "configs.zip"}, format="json").json()["id"]
    assert _run(job_id) == "succeeded"
    f = alice.get(f"/api/v1/jobs/{job_id}/file")
    names = zipfile.ZipFile(io.BytesIO(b"".join(f.streaming_content))).namelist()
    assert "configs/qos/policy.json" in names
    assert any(n.startswith("configs/qos/subnet-manager/") for n in names)  # InfiniBand design


def test_an_unknown_kind_is_a_400_naming_the_field(alice, computed):
    r = alice.post(rev_url(computed, tail="exports/"), {"kind": "bom.docx"}, format="json")
    assert r.status_code == 400 and r.json()["error"]["fields"][0]["path"] == "kind"


def test_a_bad_option_is_a_400_naming_it_once(alice, computed):
    r = alice.post(
        rev_url(computed, tail="exports/"), {"kind": "cabling-plan.pdf", "options": {"page_size": "A9"}}, format="json"
    )
    assert r.status_code == 400 and r.json()["error"]["fields"][0]["path"] == "options.page_size"


@pytest.mark.parametrize("options, path", [({"unknown": 1}, "options.unknown"), ({"page_size": "a4"}, "options")])
def test_options_for_the_configs_archive_are_a_400(alice, computed, options, path):
    r = alice.post(rev_url(computed, tail="exports/"), {"kind": "configs.zip", "options": options}, format="json")
    assert r.status_code == 400 and r.json()["error"]["fields"][0]["path"] == path


@pytest.mark.parametrize(
    "kind, options, path",
    [
        ("cabling-plan.pdf", {"rack": "zzz"}, "options.rack"),
        ("labels.pdf", {"row": "ZZ"}, "options.row"),
        ("bom.csv", {"rack": "DC1.A01"}, "options.rack"),  # bom files have no rack scope
        ("bom.pdf", {"prices": {"MQM9700-NS2F": "1"}}, "options.prices"),  # prices are never the caller's
        ("bom.pdf", {"currency": "XXX"}, "options.currency"),
        ("bom.pdf", {"price_version": 7}, "options.price_version"),  # no such version
        ("bom.pdf", {"spares_percent": 5}, "options.spares_percent"),  # a decimal string, as the schema says
        ("test-sheet.csv", {"test_limit": "best"}, "options.test_limit"),
        ("bom.csv", {"date": "2000-01-01", "label_stock": {}}, "options.label_stock"),  # was a 500 (schemathesis)
        ("labels.pdf", {"printer_dpi": 50}, "options.printer_dpi"),
        ("labels.pdf", {"printer_dpi": "fast"}, "options.printer_dpi"),
        ("bom.pdf", {"printer_dpi": 300}, "options.printer_dpi"),  # labels only
        ("labels.pdf", {"printer_dpi": 203, "label_stock": {"printer_dpi": 300}}, "options.printer_dpi"),
        ("labels.pdf", {"port_label_stock": {"preset": "no-such-stock"}}, "options.port_label_stock"),
        ("labels.pdf", {"port_label_stock": {"columns": 0}}, "options.port_label_stock"),
        ("labels.pdf", {"port_label_stock": "port-17x25-a4"}, "options.port_label_stock"),  # a mapping, as the schema
        ("labels.pdf", {"thin_cord_stock": {"preset": "wrap-2x1.5-letter"}}, "options.thin_cord_stock"),
        ("labels.pdf", {"cord_diameter_mm": {"aoc": 0}}, "options.cord_diameter_mm.aoc"),
        ("bom.csv", {"cord_diameter_mm": {"aoc": 4}}, "options.cord_diameter_mm"),  # labels only
        ("labels.csv", {"label_stock": {"preset": "avery-l7160", "colour": "red"}}, "options.label_stock"),
    ],
)
def test_export_options_are_checked_before_a_job_is_queued(alice, computed, kind, options, path):
    from apps.jobs.models import Job

    before = Job.objects.filter(kind="export").count()
    r = alice.post(rev_url(computed, tail="exports/"), {"kind": kind, "options": options}, format="json")
    assert r.status_code == 400, r.content[:300]
    error = r.json()["error"]
    assert error["fields"][0]["path"] == path, error
    assert "ValueError" not in error["message"]
    assert Job.objects.filter(kind="export").count() == before


def test_a_rack_of_the_design_is_accepted(alice, computed):
    from apps.designs.models import LinkRecord

    rack = LinkRecord.objects.filter(revision__design=computed).values_list("a_rack", flat=True).first()
    row = rack.rsplit(".", 1)[1].rstrip("0123456789")
    r = alice.post(
        rev_url(computed, tail="exports/"), {"kind": "labels.pdf", "options": {"rack": rack, "row": row}}, format="json"
    )
    assert r.status_code == 202, r.content[:300]
    assert _run(r.json()["id"]) == "succeeded"


def test_printer_dpi_and_the_port_label_stock_reach_the_labels(alice, computed):
    """printer_dpi sets the label printer's resolution of every label (the port stock's too), cord_diameter_mm
    the cords' thickness; the labels.csv names the stocks used."""
    r = alice.post(
        rev_url(computed, tail="exports/"),
        {
            "kind": "labels.csv",
            "options": {
                "printer_dpi": 203,
                "port_label_stock": {"preset": "port-17x25-a4", "columns": 9},
                # every cord as thick as copper: no label moves from the wrap stock to flags
                "cord_diameter_mm": dict.fromkeys(("aoc", "cord", "splitter", "trunk"), 9.43),
            },
        },
        format="json",
    )
    assert r.status_code == 202, r.content[:300]
    assert _run(r.json()["id"]) == "succeeded"
    body = b"".join(alice.get(f"/api/v1/jobs/{r.json()['id']}/file").streaming_content).decode()
    rows = list(csv.DictReader(io.StringIO(body)))
    # the default stock at 203 dpi ("+custom": not the shipped preset); this design has no patch panels, so
    # the port stock is accepted and checked but prints nothing
    assert rows and {row["stock"] for row in rows} == {"wrap-2x1.5-letter+custom"}


def test_a_bom_export_is_priced_with_a_named_price_version(alice, computed):
    alice.put("/api/v1/price-list/", {"currency": "EUR", "prices": {"MQM9700-NS2F": "100.00"}}, format="json")
    r = alice.post(
        rev_url(computed, tail="exports/"), {"kind": "bom.csv", "options": {"price_version": 1}}, format="json"
    )
    assert r.status_code == 202, r.content[:300]
    assert _run(r.json()["id"]) == "succeeded"
    body = b"".join(alice.get(f"/api/v1/jobs/{r.json()['id']}/file").streaming_content).decode()
    assert "EUR" in body and "100.00" in body


def test_another_user_cannot_start_or_fetch_an_export(alice, bob, computed):
    assert bob.post(rev_url(computed, tail="exports/"), {"kind": "bom.pdf"}, format="json").status_code == 404
    job_id = alice.post(rev_url(computed, tail="exports/"), {"kind": "bom.pdf"}, format="json").json()["id"]
    _run(job_id)
    assert bob.get(f"/api/v1/jobs/{job_id}/file").status_code == 404
