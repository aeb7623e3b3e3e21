"""Compute answers 202 with the job; jobs report status, stage, percent, error; cancel; Idempotency-Key."""

from __future__ import annotations

from apps.api.models import IdempotencyRecord
from apps.designs.models import Design
from apps.designs.services import design_share
from apps.jobs.models import Job
from apps.jobs.runner import run_job
from engine.spec import parse_spec
from tests.apps.api.conftest import SMALL_SPEC, error_of


def test_compute_answers_202_with_the_jobs_url(alice, design):
    response = alice.post(f"/api/v1/designs/{design.pk}/compute/")
    assert response.status_code == 202
    job = response.json()
    assert response["Location"] == job["url"] == f"http://testserver/api/v1/jobs/{job['id']}/"
    assert job["status"] == "queued" and job["kind"] == "compute" and job["design"] == design.pk
    assert job["revision"] is None and job["revision_url"] is None
    assert alice.get(job["url"]).json() == job


def test_a_finished_job_names_its_revision(alice, design):
    job = alice.post(f"/api/v1/designs/{design.pk}/compute/").json()
    assert run_job(job["id"]) == "succeeded"
    done = alice.get(job["url"]).json()
    assert done["status"] == "succeeded" and done["percent"] == 100 and done["stage"] == "done"
    assert done["revision"] == 1
    assert done["revision_url"] == f"http://testserver/api/v1/designs/{design.pk}/revisions/1/"
    assert done["started_at"] and done["finished_at"]
    assert alice.get(done["revision_url"]).status_code == 200


def test_a_failed_job_carries_the_error(alice, users):
    # The API refuses such a spec at save (test_abuse.py); one stored before that check fails its job cleanly.
    spec = parse_spec({**SMALL_SPEC, "compute_fabric": {"technology": "infiniband", "switch": "no-such-switch"}})
    design = {"id": Design.objects.create(owner=users.alice, name="old", spec=spec.to_dict()).pk}
    job = alice.post(f"/api/v1/designs/{design['id']}/compute/").json()
    run_job(job["id"])
    failed = alice.get(job["url"]).json()
    assert failed["status"] == "failed"
    assert "no-such-switch" in failed["error"]


def test_cancel_stops_a_queued_job(alice, design):
    job = alice.post(f"/api/v1/designs/{design.pk}/compute/").json()
    response = alice.post(f"{job['url']}cancel/")
    assert response.status_code == 200
    assert response.json()["status"] == "cancelled" and response.json()["cancel_requested"] is True
    assert run_job(job["id"]) == "duplicate"  # a worker that picks it up later does nothing


def test_jobs_follow_the_designs_permissions(alice, bob, anon, users, design):
    job = alice.post(f"/api/v1/designs/{design.pk}/compute/").json()
    assert bob.get(job["url"]).status_code == 404
    assert bob.post(f"{job['url']}cancel/").status_code == 404
    assert anon.get(job["url"]).status_code == 401
    design_share(design=design, user=users.bob, access="read")
    assert bob.get(job["url"]).status_code == 200
    assert bob.post(f"{job['url']}cancel/").status_code == 404
    assert bob.post(f"/api/v1/designs/{design.pk}/compute/").status_code == 404
    design_share(design=design, user=users.bob, access="write")
    assert bob.post(f"/api/v1/designs/{design.pk}/compute/").status_code == 202
    assert alice.get("/api/v1/jobs/00000000-0000-0000-0000-000000000000/").status_code == 404
    assert error_of(alice.get("/api/v1/jobs/not-a-uuid/"))["code"] == "not_found"


def test_a_retried_compute_with_the_same_key_gives_the_same_job(alice, design):
    url = f"/api/v1/designs/{design.pk}/compute/"
    first = alice.post(url, HTTP_IDEMPOTENCY_KEY="order-4711")
    again = alice.post(url, HTTP_IDEMPOTENCY_KEY="order-4711")
    assert first.status_code == again.status_code == 202
    assert again.json() == first.json() and again["Location"] == first["Location"]
    assert again["Idempotent-Replayed"] == "true"
    assert Job.objects.filter(design=design).count() == 1
    # No key: the same job while it is queued (deduplicated), a new one when forced.
    assert alice.post(url).json() == {**first.json(), "deduplicated": True}
    assert alice.post(url, {"force": True}, format="json").json()["id"] != first.json()["id"]


def test_a_key_reused_for_another_request_is_a_422(alice, design):
    other = alice.post("/api/v1/designs/", {"spec": {**SMALL_SPEC, "name": "Other"}}, format="json").json()
    alice.post(f"/api/v1/designs/{design.pk}/compute/", HTTP_IDEMPOTENCY_KEY="k1")
    response = alice.post(f"/api/v1/designs/{other['id']}/compute/", HTTP_IDEMPOTENCY_KEY="k1")
    assert response.status_code == 422
    error = error_of(response)
    assert error["code"] == "idempotency_key_reused" and error["fields"][0]["path"] == "Idempotency-Key"
    assert Job.objects.count() == 1


def test_a_compute_key_is_forgotten_after_a_day(alice, design):
    from datetime import timedelta

    from django.utils import timezone

    url = f"/api/v1/designs/{design.pk}/compute/"
    first = alice.post(url, HTTP_IDEMPOTENCY_KEY="nightly").json()
    IdempotencyRecord.objects.filter(key="nightly").update(created_at=timezone.now() - timedelta(hours=25))
    Job.objects.filter(pk=first["id"]).update(status="failed")  # long over (else the same job answers)
    later = alice.post(url, HTTP_IDEMPOTENCY_KEY="nightly")
    assert later.status_code == 202 and later.json()["id"] != first["id"] and "Idempotent-Replayed" not in later


def test_keys_belong_to_one_user(alice, bob, users, design):
    design_share(design=design, user=users.bob, access="write")
    url = f"/api/v1/designs/{design.pk}/compute/"
    a = alice.post(url, HTTP_IDEMPOTENCY_KEY="same").json()
    # Forced: without it Bob would get Alice's job, which computes the same (deduplicated).
    b = bob.post(url, {"force": True}, format="json", HTTP_IDEMPOTENCY_KEY="same").json()
    assert a["id"] != b["id"] and "Idempotent-Replayed" not in b


def test_a_retried_create_with_the_same_key_makes_one_design(alice):
    body = {"spec": SMALL_SPEC}
    first = alice.post("/api/v1/designs/", body, format="json", HTTP_IDEMPOTENCY_KEY="po-1")
    # The same JSON with other spacing and key order is the same request.
    again = alice.generic(
        "POST",
        "/api/v1/designs/",
        '{ "spec" : ' + __import__("json").dumps(dict(reversed(list(SMALL_SPEC.items())))) + " }",
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="po-1",
    )
    assert first.status_code == again.status_code == 201
    assert again.json()["id"] == first.json()["id"]
    assert Design.objects.count() == 1
    changed = alice.post(
        "/api/v1/designs/", {"spec": {**SMALL_SPEC, "name": "B"}}, format="json", HTTP_IDEMPOTENCY_KEY="po-1"
    )
    assert changed.status_code == 422
    assert Design.objects.count() == 1


def test_a_failed_request_does_not_use_up_its_key(alice):
    bad = alice.post("/api/v1/designs/", {"spec": {"name": "x"}}, format="json", HTTP_IDEMPOTENCY_KEY="retry-me")
    assert bad.status_code == 400
    assert not IdempotencyRecord.objects.filter(key="retry-me").exists()
    good = alice.post("/api/v1/designs/", {"spec": SMALL_SPEC}, format="json", HTTP_IDEMPOTENCY_KEY="retry-me")
    assert good.status_code == 201


def test_a_malformed_key_is_a_400(alice, design):
    for key in ("", "has space", "x" * 256, "ünïcode"):
        response = alice.post(f"/api/v1/designs/{design.pk}/compute/", HTTP_IDEMPOTENCY_KEY=key)
        assert response.status_code == 400, key
        assert error_of(response)["code"] == "invalid_idempotency_key"


def test_a_key_is_forgotten_after_a_day(alice):
    from datetime import timedelta

    from django.utils import timezone

    alice.post("/api/v1/designs/", {"spec": SMALL_SPEC}, format="json", HTTP_IDEMPOTENCY_KEY="daily")
    IdempotencyRecord.objects.filter(key="daily").update(created_at=timezone.now() - timedelta(hours=25))
    later = alice.post(
        "/api/v1/designs/", {"spec": {**SMALL_SPEC, "name": "Next day"}}, format="json", HTTP_IDEMPOTENCY_KEY="daily"
    )
    assert later.status_code == 201 and later.json()["name"] == "Next day"


def test_a_deduplicated_compute_answers_the_revision_its_schema_declares(alice, computed):
    """The 200 of a compute with nothing to compute has a declared body (a generated client returns it)."""
    import yaml

    from tests.apps.api.contract_recorder import SCHEMA_FILE

    schema = yaml.safe_load(SCHEMA_FILE.read_text())
    answers = schema["paths"]["/api/v1/designs/{design_id}/compute/"]["post"]["responses"]
    ref = answers["200"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    declared = schema["components"]["schemas"][ref]
    r = alice.post(f"/api/v1/designs/{computed.pk}/compute/")
    assert r.status_code == 200 and r.json()["deduplicated"] is True
    assert set(r.json()) == set(declared["properties"]) and set(declared["required"]) <= set(r.json())
    assert r["Location"] == r.json()["url"] and "Location" in answers["200"]["headers"]
