"""HTTP conventions a client relies on: If-Match / ETag on writes, the job list, Retry-After while a job runs,
and the API's JSON 404 on every /api/ path."""

from __future__ import annotations

import pytest

from apps.designs.services import design_create, design_share
from apps.jobs.models import Job
from tests.apps.api.conftest import SMALL_SPEC, error_of

# --- If-Match / ETag -------------------------------------------------------------------------------


def _refused_412(response):
    assert response.status_code == 412, response.content[:300]
    error = error_of(response)
    assert error["code"] == "precondition_failed" and error["fields"][0]["path"] == "If-Match"


def test_a_design_write_with_a_stale_etag_is_refused_and_changes_nothing(alice, design):
    url = f"/api/v1/designs/{design.pk}/"
    first = alice.get(url)
    etag = first["ETag"]
    # another client renames it in between
    renamed = alice.patch(url, {"name": "theirs"}, format="json", HTTP_IF_MATCH=etag)
    assert renamed.status_code == 200 and renamed["ETag"] != etag
    assert alice.get(url)["ETag"] == renamed["ETag"]
    # our write, based on what we read first, must not overwrite theirs
    _refused_412(alice.patch(url, {"name": "mine"}, format="json", HTTP_IF_MATCH=etag))
    assert alice.get(url).json()["name"] == "theirs"
    _refused_412(alice.delete(url, HTTP_IF_MATCH=etag))
    # without If-Match the last write wins, as before; "*" matches any state
    assert alice.patch(url, {"name": "mine"}, format="json").status_code == 200
    assert alice.patch(url, {"name": "again"}, format="json", HTTP_IF_MATCH="*").status_code == 200
    assert alice.delete(url, HTTP_IF_MATCH=alice.get(url)["ETag"]).status_code == 204


def test_the_qos_policy_takes_if_match(alice, design):
    url = f"/api/v1/designs/{design.pk}/qos/"
    etag = alice.get(url)["ETag"]
    changed = alice.put(url, {"policy": None}, format="json", HTTP_IF_MATCH=etag)
    assert changed.status_code == 200 and changed["ETag"] == etag  # the same (default) policy: the same tag
    alice.patch(f"/api/v1/designs/{design.pk}/", {"spec": {**SMALL_SPEC, "qos": {"mode": "lossy"}}}, format="json")
    _refused_412(alice.put(url, {"policy": None}, format="json", HTTP_IF_MATCH=etag))


def test_a_share_write_takes_if_match(alice, design):
    url = f"/api/v1/designs/{design.pk}/shares/bob/"
    _refused_412(alice.put(url, {"access": "read"}, format="json", HTTP_IF_MATCH="*"))  # no share yet
    created = alice.put(url, {"access": "read"}, format="json")
    etag = created["ETag"]
    assert alice.put(url, {"access": "write"}, format="json", HTTP_IF_MATCH=etag).status_code == 200
    _refused_412(alice.put(url, {"access": "read"}, format="json", HTTP_IF_MATCH=etag))
    _refused_412(alice.delete(url, HTTP_IF_MATCH=etag))
    assert alice.get(f"/api/v1/designs/{design.pk}/shares/").json()["results"][0]["access"] == "write"


SWITCH = {
    "name": "Lab switch",
    "vendor": "Acme",
    "os": {"nvue": "swp", "sonic": "ethernet-lane"},
    "technology": ["ethernet"],
    "cages": 32,
    "form_factor": "osfp",
    "speeds": {"400": 2, "200": 4},
    "rack_units": 1,
    "power_kw": 1.5,
}


def test_a_custom_part_write_takes_if_match(alice, db):
    created = alice.post("/api/v1/parts/", {"section": "switches", "key": "lab-sw", "body": SWITCH}, format="json")
    assert created.status_code == 201, created.content[:300]
    url = created["Location"]
    etag = alice.get(url)["ETag"]
    body = {"section": "switches", "key": "lab-sw", "body": {**SWITCH, "cages": 64}}
    replaced = alice.put(url, body, format="json", HTTP_IF_MATCH=etag)
    assert replaced.status_code == 200 and replaced["ETag"] != etag
    _refused_412(alice.put(url, body, format="json", HTTP_IF_MATCH=etag))
    _refused_412(alice.delete(url, HTTP_IF_MATCH=etag))
    assert alice.delete(url, HTTP_IF_MATCH=replaced["ETag"]).status_code == 204


def test_the_price_list_takes_if_match(alice, db):
    etag = alice.get("/api/v1/price-list/")["ETag"]
    first = alice.put("/api/v1/price-list/", {"prices": {"MQM9700-NS2F": "1.00"}}, format="json", HTTP_IF_MATCH=etag)
    assert first.status_code == 200 and first["ETag"] != etag
    stale = alice.put("/api/v1/price-list/", {"prices": {"MQM9700-NS2F": "2.00"}}, format="json", HTTP_IF_MATCH=etag)
    _refused_412(stale)
    assert alice.get("/api/v1/price-list/").json()["prices"] == {"MQM9700-NS2F": "1.00"}


def test_the_schema_declares_if_match_412_and_etag(client, db):
    schema = client.get("/api/schema/?format=json").json()
    for path, method in [
        ("/api/v1/designs/{design_id}/", "patch"),
        ("/api/v1/designs/{design_id}/", "delete"),
        ("/api/v1/designs/{design_id}/qos/", "put"),
        ("/api/v1/designs/{design_id}/shares/{username}/", "put"),
        ("/api/v1/parts/{part_id}/", "put"),
        ("/api/v1/price-list/", "put"),
    ]:
        op = schema["paths"][path][method]
        assert "If-Match" in {p["name"] for p in op["parameters"]}, (path, method)
        assert "412" in op["responses"], (path, method)
    assert "ETag" in schema["paths"]["/api/v1/designs/{design_id}/"]["get"]["responses"]["200"]["headers"]


# --- the job list ----------------------------------------------------------------------------------


def _job(design, user, status="succeeded", kind="compute"):
    return Job.objects.create(kind=kind, status=status, design=design, created_by=user)


def test_the_job_list_finds_jobs_by_design_and_status_and_shows_only_visible_ones(alice, bob, users):
    mine = design_create(user=users.alice, spec=SMALL_SPEC)
    shared = design_create(user=users.bob, spec=SMALL_SPEC)
    private = design_create(user=users.bob, spec=SMALL_SPEC)
    design_share(design=shared, user=users.alice, access="read")
    a = _job(mine, users.alice, "running")
    b = _job(mine, users.alice, "failed")
    c = _job(shared, users.bob, "running")
    hidden = _job(private, users.bob, "running")

    def ids(query=""):
        response = alice.get(f"/api/v1/jobs/{query}")
        assert response.status_code == 200, response.content[:300]
        return [j["id"] for j in response.json()["results"]]

    assert ids() == [str(c.pk), str(b.pk), str(a.pk)]  # newest first; bob's private design's job not listed
    assert ids(f"?design={mine.pk}") == [str(b.pk), str(a.pk)]
    assert ids(f"?design={mine.pk}&status=running") == [str(a.pk)]
    assert ids("?status=running") == [str(c.pk), str(a.pk)]
    assert str(hidden.pk) in [j["id"] for j in bob.get("/api/v1/jobs/").json()["results"]]
    assert alice.get(f"/api/v1/jobs/?design={private.pk}").status_code == 404
    refused = alice.get("/api/v1/jobs/?status=done")
    assert refused.status_code == 400 and error_of(refused)["fields"][0]["path"] == "status"


def test_the_job_list_pages_with_a_cursor(alice, users):
    design = design_create(user=users.alice, spec=SMALL_SPEC)
    jobs = [_job(design, users.alice) for _ in range(5)]
    seen, url = [], "/api/v1/jobs/?limit=2"
    while url:
        page = alice.get(url).json()
        seen += [j["id"] for j in page["results"]]
        url = page["next"]
    assert seen == [str(j.pk) for j in reversed(jobs)]
    bad = alice.get("/api/v1/jobs/?cursor=nonsense")
    assert bad.status_code == 400 and error_of(bad)["fields"][0]["path"] == "cursor"


# --- Retry-After -----------------------------------------------------------------------------------


@pytest.mark.parametrize("status", ["queued", "running"])
def test_a_job_that_is_not_finished_says_when_to_poll_again(alice, design, users, status):
    job = _job(design, users.alice, status)
    response = alice.get(f"/api/v1/jobs/{job.pk}/")
    assert response.status_code == 200 and int(response["Retry-After"]) >= 1


def test_a_finished_job_has_no_retry_after(alice, design, users):
    job = _job(design, users.alice, "succeeded")
    assert "Retry-After" not in alice.get(f"/api/v1/jobs/{job.pk}/")


# --- JSON 404 everywhere under /api/ ---------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    ["/api/v2/designs/", "/api/v2", "/api/", "/api", "/api/v1", "/api/v1/nope/", "/api/nothing/here?x=1"],
)
@pytest.mark.parametrize("method", ["get", "post", "delete"])
def test_every_unknown_api_path_is_a_json_404(anon, alice, path, method, db):
    for client in (anon, alice):
        response = getattr(client, method)(path)
        assert response.status_code == 404, (path, response.status_code)
        assert response["Content-Type"].startswith("application/json")
        assert error_of(response)["code"] == "not_found"


# --- Idempotency-Key -------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["", " ", "x" * 256, "two words", "caf\u00e9", "tab\there"])
def test_a_malformed_idempotency_key_is_refused_and_creates_nothing(alice, users, key):
    from apps.designs.models import Design

    response = alice.post("/api/v1/designs/", {"spec": SMALL_SPEC}, format="json", HTTP_IDEMPOTENCY_KEY=key)
    assert response.status_code == 400, (key, response.status_code)
    error = error_of(response)
    assert error["code"] == "invalid_idempotency_key" and error["fields"][0]["path"] == "Idempotency-Key"
    assert not Design.objects.filter(owner=users.alice).exists()


# --- unknown query parameters ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "method, path, param",
    [
        ("post", "/api/v1/designs/?x=1", "x"),
        ("get", "/api/v1/designs/{id}/?verbose=1", "verbose"),
        ("get", "/api/v1/jobs/?stauts=running", "stauts"),
        ("get", "/api/v1/designs/{id}/revisions/1/links/?netwrok=compute", "netwrok"),
    ],
)
def test_an_undeclared_query_parameter_is_a_400_naming_it(alice, computed, method, path, param):
    url = path.format(id=computed.pk)
    response = alice.post(url, {"spec": SMALL_SPEC}, format="json") if method == "post" else alice.get(url)
    assert response.status_code == 400, response.content[:300]
    assert [f["path"] for f in error_of(response)["fields"]] == [param]


def test_format_is_the_whitelisted_query_parameter(alice, computed):
    assert alice.get(f"/api/v1/designs/{computed.pk}/?format=json").status_code == 200


@pytest.mark.parametrize(
    "tail, param",
    [("bom.csv?rack=zzz", "rack"), ("links.csv?page_size=a4", "page_size"), ("bom.pdf?test_limit=pmd", "test_limit")],
)
def test_a_download_option_of_another_kind_is_a_400(alice, computed, tail, param):
    response = alice.get(f"/api/v1/designs/{computed.pk}/revisions/1/downloads/{tail}")
    assert response.status_code == 400 and error_of(response)["fields"][0]["path"] == param


def test_csv_is_accepted_by_every_download_kind(alice, computed):
    # generated clients send the parameter's default (csv=safe) with every download
    response = alice.get(f"/api/v1/designs/{computed.pk}/revisions/1/downloads/summary.json?csv=safe")
    assert response.status_code == 200


# --- JSON types of a spec --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "servers, path",
    [({"model": "dgx-h100", "count": "3"}, "servers.count"), ({"model": "dgx-h100", "count": 3.0}, "servers.count")],
)
def test_a_number_of_the_wrong_json_type_is_refused_as_the_docs_say(alice, servers, path):
    response = alice.post("/api/v1/designs/", {"spec": {**SMALL_SPEC, "servers": servers}}, format="json")
    assert response.status_code == 400, response.content[:300]
    error = error_of(response)
    assert error["code"] == "invalid_spec" and [f["path"] for f in error["fields"]] == [path]


def test_a_patched_spec_is_type_checked_too(alice, design):
    bad = {**SMALL_SPEC, "servers": {"model": "dgx-h100", "count": "32"}}
    response = alice.patch(f"/api/v1/designs/{design.pk}/", {"spec": bad}, format="json")
    assert response.status_code == 400 and error_of(response)["fields"][0]["path"] == "servers.count"


# --- one vocabulary --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "query, param",
    [("status=no_medium", "status"), ("network=nonexistent", "network"), ("tier=nonexistent", "tier")],
)
def test_an_unknown_filter_value_is_a_400_not_an_empty_page(alice, computed, query, param):
    response = alice.get(f"/api/v1/designs/{computed.pk}/revisions/1/links/?{query}")
    assert response.status_code == 400, response.content[:300]
    assert error_of(response)["fields"][0]["path"] == param


def test_loss_budget_counts_use_the_links_status_values(alice, computed):
    counts = alice.get(f"/api/v1/designs/{computed.pk}/revisions/1/loss-budget/").json()["counts"]
    assert set(counts) == {"pass", "marginal", "fail", "n/a", "no-medium"}
    for status, n in counts.items():
        page = alice.get(f"/api/v1/designs/{computed.pk}/revisions/1/links/?status={status}&limit=1000")
        assert page.status_code == 200 and len(page.json()["results"]) == min(n, 1000), status
