"""The Commissioning section and the revision state in the browser's pages (Django test client; the real
browser walk is tests/browser/test_commissioning.py).

    a CSV as-built of every planned link, one pair crossed   -> cabling, 2 swapped, a fix list of 1 row: one
                                                                swap at the server both cables meet
    the same CSV corrected                                    -> cabling, no problem (links not yet measured)
    every fiber measured within its limit                     -> verified (the design list says so)
"""

from __future__ import annotations

import csv
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from pypdf import PdfReader

from apps.commissioning.models import AsBuiltUpload
from apps.commissioning.services import commissioning_refresh
from apps.designs.models import LinkRecord
from tests.apps.designs.test_measurement_views import as_csv, sheet
from tests.apps.designs.test_measurement_views import upload as upload_results
from tests.apps.designs.test_views import alice, design, revision, url  # noqa: F401 - fixtures


def asbuilt_csv(revision, cross: bool) -> bytes:
    links = list(LinkRecord.objects.filter(revision=revision).order_by("link_id"))
    rows = [[lk.a_device, lk.a_port, lk.b_device, lk.b_port] for lk in links]
    if cross:  # the first two links' far ends crossed
        rows[0][2:], rows[1][2:] = rows[1][2:], rows[0][2:]
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["device", "port", "neighbor_device", "neighbor_port"])
    w.writerows(rows)
    return out.getvalue().encode()


def post(client, revision, data: bytes, fmt="csv"):
    return client.post(
        f"/designs/{revision.design_id}/revisions/{revision.number}/asbuilt/",
        {"asbuilt-file": SimpleUploadedFile("asbuilt.csv", data), "asbuilt-format": fmt},
    )


def test_the_section_shows_classes_fix_list_and_the_state_moves_to_verified(alice, revision):
    page = alice.get(url("workspace:section", revision.design_id, revision.number, "commissioning")).content.decode()
    assert 'id="commissioning"' in page and 'data-state="planned"' in page and "No as-built file yet" in page

    r = post(alice, revision, asbuilt_csv(revision, cross=True))
    assert r.status_code == 302 and r["Location"].endswith("#commissioning")
    commissioning_refresh(revision=revision)  # what the queued job runs
    page = alice.get(url("workspace:section", revision.design_id, revision.number, "commissioning")).content.decode()
    assert 'data-state="cabling"' in page
    assert '<td data-metric="swapped">2</td>' in page and '<td data-metric="ok">' in page
    # The first two links (DGX-SU01-N01's first two rails) have their far ends crossed: both meet at the server.
    assert page.count('<tr data-class="swapped">') == 1
    assert "swap the cords at DGX-SU01-N01 OSFP1P1 and OSFP1P2 (DC1.B01-01): C000001 belongs on OSFP1P1" in page
    csv_text = alice.get(f"/designs/{revision.design_id}/revisions/{revision.number}/fix-list.csv").content.decode()
    assert len(csv_text.splitlines()) == 2 and "C000001 C000002" in csv_text
    pdf = alice.get(f"/designs/{revision.design_id}/revisions/{revision.number}/fix-list.pdf")
    assert pdf.content.startswith(b"%PDF")
    text = " ".join(" ".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(pdf.content)).pages)
    assert "swap the cords at DGX-SU01-N01 OSFP1P1 and OSFP1P2" in text and "C000001 C000002" in text

    post(alice, revision, asbuilt_csv(revision, cross=False))
    st = commissioning_refresh(revision=revision)
    assert st.fixes == [] and st.state == "cabling"  # no problem, but nothing measured yet

    header, rows = sheet(revision)
    col = {c: i for i, c in enumerate(header)}
    for row in rows:
        row[col["measured_loss_db"]] = "0.10"
    upload_results(alice, revision, as_csv(header, rows))
    assert commissioning_refresh(revision=revision).state == "verified"
    assert 'data-state="verified"' in alice.get("/designs/").content.decode()
    assert 'data-state="verified"' in alice.get(url("detail", revision.design_id)).content.decode()


def test_a_refused_file_says_why_and_stores_nothing(alice, revision):
    r = post(alice, revision, b"not,a,header\n")
    assert r.status_code == 400 and "Nothing was stored" in r.content.decode()
    r = post(alice, revision, b'{"lldp": {}}', fmt="lldpctl")
    assert r.status_code == 400 and "give the device" in r.content.decode()
    assert not AsBuiltUpload.objects.exists()


@pytest.mark.parametrize("who", ["bob", "charlie"])
def test_only_writers_upload(client, users, revision, who):
    from apps.designs.models import Access, DesignShare

    DesignShare.objects.create(design=revision.design, user=users.bob, access=Access.READ)
    client.force_login(getattr(users, who))
    assert post(client, revision, asbuilt_csv(revision, cross=False)).status_code == 404
    assert not AsBuiltUpload.objects.exists()
