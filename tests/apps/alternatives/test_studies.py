"""Studies of design alternatives through the API and the page: queued as jobs (never run in the request),
owner-only, and a picked candidate's computed revision shows exactly the figures its row showed."""

from __future__ import annotations

from unittest import mock

import pytest

from apps.alternatives.models import Candidate, Study
from apps.catalog.services import price_list_save
from apps.designs.models import Revision
from apps.designs.pricing import revision_pricing
from apps.designs.snapshots import revision_snapshot
from apps.jobs.models import Job, JobStatus
from apps.jobs.runner import run_job
from engine.alternatives.judge import figures

pytestmark = pytest.mark.django_db

# 256 DGX H100 GPUs on InfiniBand, the first two candidates: small enough to compute in a test.
REQUIREMENT = {
    "server_model": "dgx-h100",
    "gpus": 256,
    "technology": "infiniband",
    "workloads": [{"preset": "llama-70b-tp8-pp4-dp16", "name": "w70", "parallelism": {"data": 8}}],
    "objectives": ["cost", "blast_radius"],
    "max_candidates": 2,
}
# Test prices (not market figures) for every part the two candidates order.
PRICES = {
    "MQM9700-NS2F": "30000",
    "MMA4Z00-NS": "1000",
    "MMA4Z00-NS-FLT": "1000",
    "MFP7E10-N007": "100",
    "MFP7E10-N010": "100",
    "MFP7E10-N015": "100",
}


@pytest.fixture(autouse=True)
def _no_broker():
    with mock.patch("apps.jobs.tasks.run_job.delay"):
        yield


def _create(api_client, user, requirement=REQUIREMENT):
    api_client.force_authenticate(user)
    return api_client.post("/api/v1/alternatives/", {"requirement": requirement}, format="json")


def test_a_study_is_queued_not_computed_in_the_request(api_client, users):
    r = _create(api_client, users.alice)
    assert r.status_code == 202, r.content
    body = r.json()
    assert body["status"] == "queued" and body["candidates"] == []
    job = Job.objects.get(pk=body["job"])
    assert job.kind == "alternatives" and job.status == JobStatus.QUEUED
    assert not Candidate.objects.exists()


def test_a_bad_requirement_is_a_400_naming_the_fields(api_client, users):
    r = _create(api_client, users.alice, {**REQUIREMENT, "servers": 32, "max_oversubscription": {"compute": "x"}})
    assert r.status_code == 400
    paths = {f["path"] for f in r.json()["error"]["fields"]}
    assert paths == {"requirement.servers", "requirement.max_oversubscription.compute"}
    assert not Study.objects.exists()


def test_a_stranger_gets_404_everywhere(api_client, client, users):
    study_id = _create(api_client, users.alice).json()["id"]
    api_client.force_authenticate(users.charlie)
    for url in (f"/api/v1/alternatives/{study_id}/", f"/api/v1/alternatives/{study_id}/candidates/"):
        assert api_client.get(url).status_code == 404
    assert api_client.post(f"/api/v1/alternatives/{study_id}/candidates/1/pick/").status_code == 404
    client.force_login(users.charlie)
    assert client.get(f"/alternatives/{study_id}/").status_code == 404


def test_the_picked_candidates_revision_shows_the_figures_its_row_showed(api_client, client, users):
    price_list_save(owner=users.alice, currency="USD", prices=PRICES)
    body = _create(api_client, users.alice).json()
    assert run_job(body["job"]) == "succeeded"

    polled = api_client.get(body["url"]).json()
    assert polled["status"] == "succeeded" and polled["currency"] == "USD"
    rows = polled["candidates"]
    assert [r["label"] for r in rows] == [
        "qm9700 · 1:1 · 1 plane · auto tiers · direct · media auto",
        "qm9700 · 1:1 · 1 plane · 3 tiers · direct · media auto",
    ]
    assert [(r["figures"]["cost"], r["pareto"]) for r in rows] == [("923200.00", True), ("1564800.00", False)]
    assert api_client.get(f"{body['url']}candidates/").json() == rows

    # the page shows the same rows, the plot with the front marked
    client.force_login(users.alice)
    page = client.get(body["page_url"]).content.decode()
    assert (
        "923200.00" in page
        and "on-front" in page
        and "pt verdict-fits" in page
        and "style=" not in page
        and "<script>" not in page
    )

    picked = api_client.post(rows[1]["pick_url"])
    assert picked.status_code == 201, picked.content
    job = picked.json()["job"]
    assert run_job(job["id"]) == "succeeded"
    revision = Revision.objects.get(design_id=picked.json()["design"], number=1)
    shown = figures(revision_snapshot(revision), revision_pricing(revision=revision).prices)
    assert shown == rows[1]["figures"]
    assert Candidate.objects.get(study_id=body["id"], index=2).picked_design_id == revision.design_id


def test_the_page_form_queues_a_study_and_names_bad_fields(client, users):
    client.force_login(users.alice)
    bad = client.post("/alternatives/", {"server_model": "dgx-h100", "gpus": 0, "max_oversubscription": "1:1"})
    assert bad.status_code == 200 and not Study.objects.exists()
    too_big = client.post(
        "/alternatives/",
        {
            "server_model": "dgx-h100",
            "gpus": 256,
            "workloads": ["llama-70b-tp8-pp4-dp16"],
            "max_oversubscription": "1:1",
            "max_candidates": 2,
        },
    )
    assert "more than the design&#x27;s 256" in too_big.content.decode() and not Study.objects.exists()
    ok = client.post(
        "/alternatives/",
        {"server_model": "dgx-h100", "gpus": 256, "max_oversubscription": "2:1", "max_candidates": 2},
    )
    study = Study.objects.get()
    assert ok.status_code == 302 and ok["Location"] == f"/alternatives/{study.pk}/"
    assert study.job.status == JobStatus.QUEUED


def test_a_cancelled_study_never_runs(client, api_client, users):
    body = _create(api_client, users.alice).json()
    client.force_login(users.charlie)
    assert client.post(f"/alternatives/{body['id']}/cancel/").status_code == 404
    client.force_login(users.alice)
    page = client.get(body["page_url"]).content.decode()
    assert f'action="/alternatives/{body["id"]}/cancel/"' in page
    assert client.post(f"/alternatives/{body['id']}/cancel/").status_code == 302
    assert Job.objects.get(pk=body["job"]).status == JobStatus.CANCELLED
    run_job(body["job"])  # a late delivery
    assert api_client.get(body["url"]).json()["status"] == "cancelled"
    assert not Candidate.objects.exists()


def test_a_pick_can_become_the_next_revision_of_a_design_she_may_change(api_client, users):
    from tests.factories import DesignFactory

    mine, theirs = DesignFactory(owner=users.alice), DesignFactory(owner=users.charlie)
    body = _create(api_client, users.alice).json()
    assert run_job(body["job"]) == "succeeded"
    pick = f"{body['url']}candidates/1/pick/"
    assert api_client.post(pick, {"design": theirs.pk}, format="json").status_code == 404
    r = api_client.post(pick, {"design": mine.pk}, format="json")
    assert r.status_code == 201 and r.json()["design"] == mine.pk
    mine.refresh_from_db()
    assert mine.spec["compute_fabric"]["planes"] == 1 and mine.spec["servers"]["count"] == 32
