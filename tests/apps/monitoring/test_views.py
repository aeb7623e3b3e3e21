"""The utilization pages: alice imports a snapshot in the browser form and reads its report; a reader sees the
reports but gets no form; an outsider gets a 404. The revision page has the monitoring section."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.apps.api.conftest import compute_now

pytestmark = pytest.mark.django_db

SPEC = {
    "name": "Small H100 fabric",
    "servers": {"model": "dgx-h100", "count": 32},
    "compute_fabric": {"technology": "infiniband", "switch": "qm9700"},
}


@pytest.fixture
def revision(users):
    from apps.designs.services import design_create

    design = design_create(user=users.alice, spec=SPEC)
    compute_now(design, users.alice)
    return design.revisions.get(number=1)


def _prometheus(rev):
    rows = list(rev.links.filter(tier="leaf-spine").values_list("a_device", "a_port")[:40])
    result = [
        {
            "metric": {"fabric_device": leaf, "device": port, "__name__": "fabric:port_utilization:ratio_rate1m"},
            "values": [[0, "0.5"], [60, "0.97"]],
        }
        for leaf, port in rows
    ]
    return {"status": "success", "data": {"resultType": "matrix", "result": result}}


def _url(rev, tail="utilization/"):
    return f"/designs/{rev.design_id}/revisions/{rev.number}/{tail}"


def test_alice_imports_a_prometheus_snapshot_and_reads_the_report(client, users, revision):
    client.force_login(users.alice)
    upload = SimpleUploadedFile("range.json", json.dumps(_prometheus(revision)).encode(), "application/json")
    r = client.post(_url(revision), {"file": upload, "kind": "prometheus", "label": "after the job"})
    assert r.status_code == 302
    page = client.get(r["Location"])
    text = page.content.decode()
    assert page.status_code == 200
    assert "40 ports: average 73.5 %, peak 97.0 %" in text
    assert 'id="groups-tier"' in text and 'id="groups-rail"' in text
    section = client.get(f"/designs/{revision.design_id}/revisions/1/monitoring/").content.decode()
    assert 'id="monitoring"' in section and "prometheus-rules.yaml" in section and "after the job" in section


def test_a_file_that_is_not_json_is_refused_at_the_form(client, users, revision):
    client.force_login(users.alice)
    upload = SimpleUploadedFile("x.json", b"not json", "application/json")
    r = client.post(_url(revision), {"file": upload, "kind": "prometheus"})
    assert r.status_code == 400 and "The file is not JSON" in r.content.decode()
    assert not revision.utilization_snapshots.exists()


def test_a_reader_sees_reports_without_a_form_and_an_outsider_gets_404(client, users, revision):
    from apps.designs.services import design_share

    client.force_login(users.charlie)
    assert client.get(_url(revision)).status_code == 404
    design_share(design=revision.design, user=users.bob, access="read")
    client.force_login(users.bob)
    page = client.get(_url(revision))
    assert page.status_code == 200 and "needs write access" in page.content.decode()
    upload = SimpleUploadedFile("range.json", json.dumps(_prometheus(revision)).encode(), "application/json")
    assert client.post(_url(revision), {"file": upload, "kind": "prometheus"}).status_code == 404
