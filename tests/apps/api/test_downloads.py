"""Downloads of every deliverable with content types and file names; uploads of measured results."""

from __future__ import annotations

import csv
import io

import pytest

from apps.designs.models import Revision
from apps.designs.services import design_share
from apps.exports import services as exports
from apps.measurements.models import MeasurementUpload
from tests.apps.api.conftest import error_of, rev_url


def _body(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


@pytest.mark.parametrize("kind, count_field", [("links.csv", "link_count"), ("cables.csv", "cable_count")])
def test_table_csvs_stream_every_row_with_a_file_name(alice, computed, kind, count_field):
    response = alice.get(rev_url(computed, 1, f"downloads/{kind}"))
    assert response.status_code == 200 and response.streaming
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == f'attachment; filename="small-h100-fabric-r1-{kind}"'
    rows = list(csv.reader(io.StringIO(_body(response).decode())))
    rev = Revision.objects.get(design=computed, number=1)
    assert len(rows) == getattr(rev, count_field) + 1
    prefix = "L" if kind == "links.csv" else "C"
    assert rows[0][0] == "id"  # the CLI's header: public ids, as the UI, labels and test sheet print them
    ids = [int(r[0].removeprefix(prefix)) for r in rows[1:]]
    assert all(r[0].startswith(prefix) for r in rows[1:]) and ids == sorted(ids)


def test_links_csv_values_match_the_api_rows(alice, computed):
    api_row = alice.get(rev_url(computed, 1, "links/?limit=1")).json()["results"][0]
    rows = list(csv.DictReader(io.StringIO(_body(alice.get(rev_url(computed, 1, "downloads/links.csv"))).decode())))
    first = rows[0]
    assert first["a_device"] == api_row["a_device"] and float(first["run_length_m"]) == api_row["length_m"]
    assert first["status"] == api_row["status"]


def test_summary_and_spec_download_as_json(alice, computed):
    summary = alice.get(rev_url(computed, 1, "downloads/summary.json"))
    assert summary["Content-Type"] == "application/json"
    assert summary["Content-Disposition"].endswith('-r1-summary.json"')
    assert summary.json()["gpus"] == 256
    assert alice.get(rev_url(computed, 1, "downloads/spec.json")).json()["servers"]["count"] == 32


def test_the_download_list_names_every_file(alice, computed):
    items = alice.get(rev_url(computed, 1, "downloads/")).json()["results"]
    kinds = {i["kind"]: i for i in items}
    # no workloads in this design: no workloads.pdf (listed only where it downloads)
    every = {"links.csv", "cables.csv", "summary.json", "spec.json"} | set(exports.DELIVERABLES)
    assert every - {"workloads.pdf"} == set(kinds)
    assert kinds["links.csv"]["available"] is True
    assert kinds["bom.pdf"]["content_type"] == "application/pdf"
    assert alice.get(kinds["summary.json"]["url"]).status_code == 200


@pytest.mark.parametrize("kind", sorted(set(exports.DELIVERABLES) - {"workloads.pdf"}))
def test_rendered_deliverables_download_or_answer_501(alice, computed, kind):
    response = alice.get(rev_url(computed, 1, f"downloads/{kind}"))
    if not exports.deliverable_available(kind):
        assert response.status_code == 501
        assert error_of(response)["code"] == "not_implemented"
        return
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"] == exports.DELIVERABLES[kind].content_type
    assert response["Content-Disposition"] == f'attachment; filename="small-h100-fabric-r1-{kind}"'
    body = _body(response)
    if kind.endswith(".pdf"):
        assert body.startswith(b"%PDF")
    elif kind.endswith(".zip"):
        assert body.startswith(b"PK\x03\x04")
    else:
        assert body.decode().count("\n") >= 1


def test_the_workload_report_needs_workloads_in_the_spec(alice, computed):
    # a file the design cannot have is a 404 (and not listed), as topology.ibnetdiscover without InfiniBand
    response = alice.get(rev_url(computed, 1, "downloads/workloads.pdf"))
    assert response.status_code == 404 and "workloads" in error_of(response)["message"]


def test_a_missing_renderer_is_a_501_not_a_500(alice, computed, monkeypatch):
    monkeypatch.setitem(
        exports.DELIVERABLES, "bom.pdf", exports.Deliverable("bom.pdf", "application/pdf", "render_nothing", True)
    )
    response = alice.get(rev_url(computed, 1, "downloads/bom.pdf"))
    assert response.status_code == 501
    assert "bom.pdf" in error_of(response)["message"]


@pytest.mark.skipif(not exports.deliverable_available("cabling-plan.pdf"), reason="no cabling-plan renderer")
def test_options_the_renderer_refuses_are_a_400(alice, computed):
    response = alice.get(rev_url(computed, 1, "downloads/cabling-plan.pdf?rack=NOPE"))
    assert response.status_code == 400
    assert error_of(response)["fields"][0]["path"] == "rack"


def test_downloads_follow_the_designs_permissions_and_know_their_kinds(alice, bob, anon, computed):
    url = rev_url(computed, 1, "downloads/links.csv")
    assert bob.get(url).status_code == 404
    assert anon.get(url).status_code == 401
    response = alice.get(rev_url(computed, 1, "downloads/secrets.txt"))
    assert response.status_code == 404 and error_of(response)["code"] == "not_found"


def _filled_test_sheet(client, design, loss: str = "0.5") -> str:
    """The revision's test sheet with every fiber measured at `loss` dB."""
    sheet = _body(client.get(rev_url(design, 1, "downloads/test-sheet.csv"))).decode()
    rows = list(csv.DictReader(io.StringIO(sheet)))
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["fiber_id", "link_id", "measured_loss_db"])
    for r in rows:
        w.writerow([r["fiber_id"], r["link_id"], loss])
    return out.getvalue()


MEASURED = "link_id,fiber,loss_db\n1,1,0.41\n1,2,0.38\n2,1,0.52\n"


def _upload(client, design, text, content_type="text/csv", **query):
    qs = "&".join(f"{k}={v}" for k, v in query.items())
    return client.generic("POST", rev_url(design, 1, f"measurements/?{qs}"), text.encode(), content_type=content_type)


@pytest.fixture
def basic_check_only(monkeypatch):
    """A build without the renderers' test-sheet parser: uploads are only checked for CSV shape."""

    def unavailable(**kwargs):
        raise exports.DeliverableUnavailable("measurements")

    monkeypatch.setattr("apps.api.views.downloads.measurements_check_revision", unavailable)


@pytest.mark.skipif(not exports.deliverable_available("test-sheet.csv"), reason="no test-sheet renderer")
def test_a_filled_test_sheet_uploads_and_is_judged_against_the_design(alice, computed):
    text = _filled_test_sheet(alice, computed)
    response = _upload(alice, computed, text, filename="otdr-row-A.csv")
    assert response.status_code == 201, response.content[:500]
    body = response.json()
    fibers = text.count("\n") - 1
    assert body["rows"] == fibers and body["filename"] == "otdr-row-A.csv" and body["uploaded_by"] == "alice"
    assert body["counts"]["fibers"] == {"pass": fibers}
    assert MeasurementUpload.objects.get(pk=body["id"]).content == text
    listed = alice.get(rev_url(computed, 1, "measurements/")).json()["results"]
    assert [m["id"] for m in listed] == [body["id"]]
    failing = _upload(alice, computed, _filled_test_sheet(alice, computed, loss="9.9")).json()
    assert failing["counts"]["fibers"] == {"fail": fibers}


@pytest.mark.skipif(not exports.deliverable_available("test-sheet.csv"), reason="no test-sheet renderer")
def test_results_that_do_not_fit_the_test_sheet_are_a_400_naming_the_line(alice, computed):
    response = _upload(alice, computed, "fiber_id,measured_loss_db\nNOPE-1,0.4\n")
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "invalid_upload"
    assert (error["fields"][0]["path"], error["fields"][0]["line"]) == ("fiber_id", 2)
    assert _upload(alice, computed, MEASURED).status_code == 400  # no fiber_id / measured_loss_db columns


@pytest.mark.skipif(not exports.deliverable_available("test-sheet.csv"), reason="no test-sheet renderer")
def test_a_revision_whose_custom_parts_no_longer_load_still_renders_from_its_snapshot(alice, users, computed):
    """Parts valid when saved can clash with a newer shipped catalog (here: a switch with no cages at all); the
    revision renders from its stored snapshot, so its test sheet and uploads against it are unaffected."""
    from apps.catalog.models import CustomPart

    text = _filled_test_sheet(alice, computed)
    before = b"".join(alice.get(rev_url(computed, 1, "downloads/test-sheet.csv")).streaming_content)
    CustomPart.objects.create(owner=users.alice, section="switches", key="broken", body={"name": "Broken"})
    assert _upload(alice, computed, text).status_code == 201
    after = alice.get(rev_url(computed, 1, "downloads/test-sheet.csv"))
    assert after.status_code == 200
    assert b"".join(after.streaming_content) == before


def test_a_revision_without_a_snapshot_is_a_409_naming_the_backfill(alice, computed):
    from apps.designs.models import RevisionSnapshot

    RevisionSnapshot.objects.filter(revision__design=computed).delete()
    response = alice.get(rev_url(computed, 1, "downloads/test-sheet.csv"))
    assert response.status_code == 409, response.content[:300]
    assert error_of(response)["code"] == "revision_not_reproducible"
    assert "snapshot backfill" in error_of(response)["message"]


def _with_bad_rows(text: str) -> str:
    """The filled sheet with three bad rows: a unit that is not dB (line 2), an unknown fiber id (line 3),
    and a duplicate of line 4 added at the end."""
    lines = text.splitlines()
    first = lines[1].split(",")
    lines[1] = ",".join([*first[:2], "0.5 mW"])
    lines[2] = ",".join(["L999999:A1-B1", *lines[2].split(",")[1:]])
    lines.append(lines[3])
    return "\n".join(lines) + "\n"


@pytest.mark.skipif(not exports.deliverable_available("test-sheet.csv"), reason="no test-sheet renderer")
def test_bad_rows_are_listed_and_the_valid_ones_kept_by_default(alice, computed):
    clean = _filled_test_sheet(alice, computed)
    text, fibers = _with_bad_rows(clean), clean.count("\n") - 1

    response = _upload(alice, computed, text)

    assert response.status_code == 201, response.content[:500]
    body = response.json()
    assert body["rows"] == fibers - 2 and body["error_count"] == 3
    assert [(e["line"], e["column"]) for e in body["errors"]] == [
        (2, "measured_loss_db"),
        (3, "fiber_id"),
        (fibers + 2, "fiber_id"),
    ]
    assert "not an insertion loss in dB" in body["errors"][0]["message"]
    assert "duplicate of line 4" in body["errors"][2]["message"]
    assert body["counts"]["fibers"] == {"pass": fibers - 2, "not-measured": 2}
    stored = MeasurementUpload.objects.get(pk=body["id"])
    assert (stored.rows, stored.error_count, stored.content) == (fibers - 2, 3, text)
    listed = alice.get(rev_url(computed, 1, "measurements/")).json()["results"]
    assert [(m["id"], m["error_count"]) for m in listed] == [(body["id"], 3)] and "errors" not in listed[0]


@pytest.mark.skipif(not exports.deliverable_available("test-sheet.csv"), reason="no test-sheet renderer")
def test_reject_on_error_refuses_the_whole_sheet_naming_every_bad_row(alice, computed):
    clean = _filled_test_sheet(alice, computed)
    text, fibers = _with_bad_rows(clean), clean.count("\n") - 1

    response = _upload(alice, computed, text, reject_on_error="true")

    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "invalid_upload" and error["message"] == "3 row(s) do not fit this revision's test sheet."
    assert [(f["line"], f["path"]) for f in error["fields"]] == [
        (2, "measured_loss_db"),
        (3, "fiber_id"),
        (fibers + 2, "fiber_id"),
    ]
    assert not MeasurementUpload.objects.exists()
    good = _upload(alice, computed, clean, reject_on_error="true")
    assert good.status_code == 201 and good.json()["error_count"] == 0 and good.json()["errors"] == []


@pytest.mark.skipif(not exports.deliverable_available("test-sheet.csv"), reason="no test-sheet renderer")
@pytest.mark.parametrize(
    "text, message",
    [
        ("link_id,fiber,loss_db\n1,1,0.41\n", "Wrong header: missing column(s) fiber_id, measured_loss_db"),
        ("fiber_id,measured_loss_db\n", "The CSV has a header but no rows."),
        ("fiber_id,measured_loss_db\nNOPE-1,0.4\nNOPE-2,0.5\n", "None of the rows fits this revision's test sheet"),
    ],
)
def test_a_sheet_with_nothing_usable_is_a_400_even_when_valid_rows_are_kept(alice, computed, text, message):
    response = _upload(alice, computed, text)
    assert response.status_code == 400 and message in error_of(response)["message"]
    assert not MeasurementUpload.objects.exists()


def test_reject_on_error_must_be_a_boolean(alice, computed, basic_check_only):
    response = _upload(alice, computed, MEASURED, reject_on_error="maybe")
    assert response.status_code == 400 and error_of(response)["fields"][0]["path"] == "reject_on_error"


def test_without_the_parser_any_well_formed_csv_is_kept(alice, computed, basic_check_only):
    response = _upload(alice, computed, MEASURED)
    assert response.status_code == 201 and response.json()["rows"] == 3 and response.json()["counts"] == {}
    assert response.json()["error_count"] == 0 and response.json()["errors"] == []


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty"),
        ("link_id,loss_db\n", "no rows"),
        ("link_id,loss_db\n1,0.4,extra\n", "columns"),
        ("a,b\n\x00,1\n", "NUL"),
    ],
)
def test_bad_uploads_are_a_400(alice, computed, basic_check_only, text, message):
    response = _upload(alice, computed, text)
    assert response.status_code == 400
    assert message in error_of(response)["message"]


def test_an_upload_over_the_cap_is_a_413_and_json_is_a_415(alice, computed, settings):
    settings.API_MAX_UPLOAD_BYTES = 64
    assert _upload(alice, computed, MEASURED * 10).status_code == 413
    assert _upload(alice, computed, '{"a": 1}', content_type="application/json").status_code == 415


def test_uploads_need_write_access(bob, users, computed, basic_check_only):
    design_share(design=computed, user=users.bob, access="read")
    assert _upload(bob, computed, MEASURED).status_code == 404
    design_share(design=computed, user=users.bob, access="write")
    assert _upload(bob, computed, MEASURED).status_code == 201


def test_an_ethernet_design_offers_no_infiniband_file(alice, users):
    from apps.designs.services import design_create
    from tests.apps.api.conftest import compute_now

    spec = {
        "name": "Small RoCE fabric",
        "servers": {"model": "dgx-h100", "count": 32},
        "compute_fabric": {"technology": "ethernet", "switch": "sn5600"},
    }
    design = design_create(user=users.alice, spec=spec)
    compute_now(design, users.alice)
    kinds = {i["kind"] for i in alice.get(rev_url(design, 1, "downloads/")).json()["results"]}
    assert "topology.ibnetdiscover" not in kinds and "topology.dot" in kinds
    assert alice.get(rev_url(design, 1, "downloads/topology.ibnetdiscover")).status_code == 404
