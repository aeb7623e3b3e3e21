"""Records apps/api/examples.json: the request and response examples of the OpenAPI schema, as the server answers.

Not part of the suite (pytest collects test_*.py only); run it after an answer's shape changes, then regenerate
docs/openapi.yaml:

    ./scripts/test tests/apps/api/record_examples.py -q
    DJANGO_DEBUG=true .venv/bin/python manage.py spectacular --validate --fail-on-warn --file docs/openapi.yaml

It drives the API through its test client as a procurement tool would (a small design computed by the job runner,
the code a worker runs), and keeps each operation's request body and JSON answer with lists cut to their first
RECORDED_ITEMS items. tests/apps/api/test_api_examples.py then validates every example against its schema.
"""

from __future__ import annotations

import csv
import io
import json
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from apps.api.auth import token_create
from apps.api.schema_examples import EXAMPLES
from apps.commissioning.services import commissioning_refresh
from apps.jobs.runner import run_job
from tests.apps.api.conftest import SMALL_SPEC
from tests.apps.api.test_catalog import SWITCH
from tests.apps.api.test_utilization import _snapshot
from tests.apps.counters.helpers import errors_on, ibqueryerrors, switch_links

HOST = "fabric.example.com"
RECORDED_ITEMS = 2
PORTS_IN_SNAPSHOT = 4


def _trim(value):
    # Only lists of objects (pages, BOM lines, rows) are cut: a list of scalars is a value with its own
    # length rule (the QoS sl2vl table has exactly 16 entries), so cutting it would break the example.
    if isinstance(value, list) and any(isinstance(v, dict) for v in value):
        return [_trim(v) for v in value[:RECORDED_ITEMS]]
    if isinstance(value, list):
        return [_trim(v) for v in value]
    if isinstance(value, dict):
        return {k: _trim(v) for k, v in value.items()}
    return value


class Recorder:
    def __init__(self, client: APIClient):
        self.client = client
        self.examples: dict[str, dict] = {}

    def __call__(self, op, method, path, body=None, *, expect, text=None, content_type="text/plain", **headers):
        send = getattr(self.client, method.lower())
        if text is not None:
            r = self.client.generic(method, path, text.encode(), content_type=content_type, secure=True, **headers)
        elif body is not None:
            r = send(path, body, format="json", secure=True, **headers)
        else:
            r = send(path, secure=True, **headers)
        assert r.status_code == expect, (op, r.status_code, r.content[:800])
        entry = self.examples.setdefault(op, {"summary": f"{method} {path}"})
        if body is not None:
            entry["request"] = body
        if r.get("Content-Type", "").startswith("application/json") and r.content:
            answer = {"summary": f"{method} {path}", "value": _trim(r.json())}
            if body is not None:
                answer["request"] = body
            entry.setdefault("responses", {})[str(r.status_code)] = answer
        return r.json() if r.get("Content-Type", "").startswith("application/json") and r.content else None


def _filled_test_sheet(sheet: str) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["fiber_id", "link_id", "measured_loss_db"])
    for i, row in enumerate(csv.DictReader(io.StringIO(sheet))):
        # the first value typed with a decimal comma, so the answer also shows a listed bad row
        w.writerow([row["fiber_id"], row["link_id"], "0.41" if i else "0,41"])
    return out.getvalue()


@pytest.mark.django_db
def test_record_api_examples(settings, users, tmp_path):
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, HOST]
    settings.MEDIA_ROOT = str(tmp_path / "media")
    settings.ARTIFACT_FILES_DIR = str(tmp_path / "artifacts")
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    _, key = token_create(user=users.alice, name="procurement sync")
    alice = APIClient(HTTP_HOST=HOST)
    alice.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    call = Recorder(alice)

    # who am I, tokens (made from a browser sign-in)
    call("me_retrieve", "GET", "/api/v1/me/", expect=200)
    browser = APIClient(HTTP_HOST=HOST)
    browser.force_login(users.alice)
    session = Recorder(browser)
    token = session("tokens_create", "POST", "/api/v1/tokens/", {"name": "nightly BOM export"}, expect=201)
    session("tokens_list", "GET", "/api/v1/tokens/", expect=200)
    session("tokens_retrieve", "GET", f"/api/v1/tokens/{token['id']}/", expect=200)
    call.examples.update(session.examples)

    # catalog, custom parts, presets
    call("catalog_list", "GET", "/api/v1/catalog/switches/", expect=200)
    part = call(
        "parts_create", "POST", "/api/v1/parts/", {"section": "switches", "key": "acme-x64", "body": SWITCH}, expect=201
    )
    call("parts_list", "GET", "/api/v1/parts/", expect=200)
    call("parts_retrieve", "GET", f"/api/v1/parts/{part['id']}/", expect=200)
    replaced = {"section": "switches", "key": "acme-x64", "body": {**SWITCH, "power_kw": 1.6}}
    call("parts_replace", "PUT", f"/api/v1/parts/{part['id']}/", replaced, expect=200)
    presets = call("presets_list", "GET", "/api/v1/presets/", expect=200)
    call("presets_retrieve", "GET", f"/api/v1/presets/{presets['results'][0]['key']}/", expect=200)

    # a design, computed by the job runner (what a worker runs)
    design = call(
        "designs_create",
        "POST",
        "/api/v1/designs/",
        {"name": "Hall B", "spec": SMALL_SPEC},
        expect=201,
        HTTP_IDEMPOTENCY_KEY="po-2026-0001",
    )
    d = f"/api/v1/designs/{design['id']}"
    call("designs_list", "GET", "/api/v1/designs/", expect=200)
    call("designs_retrieve", "GET", f"{d}/", expect=200)
    job = call("designs_compute", "POST", f"{d}/compute/", {}, expect=202, HTTP_IDEMPOTENCY_KEY="po-2026-0001-c")
    assert run_job(job["id"]) == "succeeded"
    call("designs_compute", "POST", f"{d}/compute/", {}, expect=200)  # nothing to compute: the revision that has it
    call("jobs_retrieve", "GET", f"/api/v1/jobs/{job['id']}/", expect=200)
    call("jobs_list", "GET", f"/api/v1/jobs/?design={design['id']}", expect=200)

    r1 = f"{d}/revisions/1"
    call("revisions_list", "GET", f"{d}/revisions/", expect=200)
    call("revisions_retrieve", "GET", f"{r1}/", expect=200)
    call("revisions_summary", "GET", f"{r1}/summary/", expect=200)
    bom = call("revisions_bom", "GET", f"{r1}/bom/?spares_percent=5", expect=200)
    call("revisions_links", "GET", f"{r1}/links/?limit=2&order=-length_m", expect=200)
    call("revisions_cables", "GET", f"{r1}/cables/?limit=2&network=compute", expect=200)
    call("revisions_loss_budget", "GET", f"{r1}/loss-budget/", expect=200)
    call("revisions_fibers", "GET", f"{r1}/fibers/", expect=200)
    call("revisions_warnings", "GET", f"{r1}/warnings/", expect=200)
    call("revisions_downloads_list", "GET", f"{r1}/downloads/", expect=200)
    call("revisions_configs_list", "GET", f"{r1}/configs/", expect=200)
    call("revisions_spares", "GET", f"{r1}/spares/?spares_percent=5&spares_afr_percent=switch:2", expect=200)
    call("revisions_blast_radius", "GET", f"{r1}/blast-radius/", expect=200)

    # prices: a list for the BOM's parts, then the revision repriced with it
    parts = [line["part"] for line in bom["lines"]]
    prices = {"currency": "USD", "prices": {p: "100.00" for p in parts[:1]}}
    prices["prices"].update({p: "250.50" for p in parts[1:2]})
    call("price_list_replace", "PUT", "/api/v1/price-list/", prices, expect=200)
    call("price_list_retrieve", "GET", "/api/v1/price-list/", expect=200)
    call("revisions_reprice", "POST", f"{r1}/reprice/", expect=200)
    call("revisions_order", "GET", f"{r1}/order/?spares_percent=5", expect=200)
    call("revisions_mark_ordered", "POST", f"{r1}/ordered/", {"spares_percent": "5"}, expect=201)
    call("designs_ordered_baseline", "GET", f"{d}/ordered/", expect=200)
    call("designs_lead_times_update", "PATCH", f"{d}/lead-times/", {"lead_times": {parts[0]: 42}}, expect=200)
    call("designs_lead_times", "GET", f"{d}/lead-times/", expect=200)

    # a change, computed again, and what it changes in the order
    spec = {**SMALL_SPEC, "servers": {**SMALL_SPEC["servers"], "count": 64}}
    call("designs_update", "PATCH", f"{d}/", {"spec": spec}, expect=200)
    again = alice.post(f"{d}/compute/", {}, format="json", secure=True).json()
    assert run_job(again["id"]) == "succeeded"
    call("designs_bom_diff", "GET", f"{d}/bom-diff/?old=1&new=2", expect=200)
    call("designs_order_delta", "GET", f"{d}/order-delta/?old=ordered&new=2", expect=200)

    # QoS policy: what GET answers can be sent back as it is
    qos = call("designs_qos_retrieve", "GET", f"{d}/qos/", expect=200)
    call("designs_qos_update", "PUT", f"{d}/qos/", {"policy": qos["policy"]}, expect=200)

    # sharing
    call("designs_shares_put", "PUT", f"{d}/shares/bob/", {"access": "read"}, expect=200)
    call("designs_shares_list", "GET", f"{d}/shares/", expect=200)

    # files: an export in the background (cancelled while queued), a download too big to render inline
    export = call(
        "revisions_exports_create",
        "POST",
        f"{r1}/exports/",
        {"kind": "bom.csv", "options": {"spares_percent": "5"}},
        expect=202,
    )
    call("jobs_cancel", "POST", f"/api/v1/jobs/{export['id']}/cancel/", expect=200)
    # measured results: the test sheet filled in and uploaded, listed, withdrawn
    got = alice.get(f"{r1}/downloads/test-sheet.csv", secure=True)
    sheet = (b"".join(got.streaming_content) if got.streaming else got.content).decode()
    settings.MEASUREMENTS_READ_IN_REQUEST_BYTES = 10**9  # judged in the request: the 201
    upload = call(
        "revisions_measurements_upload",
        "POST",
        f"{r1}/measurements/?filename=hall-b-otdr.csv",
        expect=201,
        text=_filled_test_sheet(sheet),
        content_type="text/csv",
    )
    call("revisions_measurements_list", "GET", f"{r1}/measurements/", expect=200)
    withdraw = f"{r1}/measurements/{upload['id']}/withdraw/"
    call("revisions_measurements_withdraw", "POST", withdraw, {"withdrawn": True}, expect=200)
    settings.MEASUREMENTS_READ_IN_REQUEST_BYTES = 0  # as for a sheet too large to judge in the request: the 202
    url = f"{r1}/measurements/?filename=hall-c-otdr.csv"
    call(
        "revisions_measurements_upload",
        "POST",
        url,
        expect=202,
        text=_filled_test_sheet(sheet),
        content_type="text/csv",
    )
    settings.DOWNLOAD_INLINE_MAX_CABLES = 0  # as for a revision too big to render in the request
    call("revisions_download", "GET", f"{r1}/downloads/cabling-plan.pdf", expect=202)
    # r2's QoS configuration set is not built yet: a worker builds configs.zip first
    call("revisions_configs_list", "GET", f"{d}/revisions/2/configs/", expect=202)
    call("revisions_config_file", "GET", f"{d}/revisions/2/configs/policy.json", expect=202)

    # utilization: two counter readings of a few ports
    from apps.designs.models import Revision

    rev1 = Revision.objects.get(design_id=design["id"], number=1)
    snap, *_ = _snapshot(rev1)
    snap = {**snap, "before": snap["before"][:PORTS_IN_SNAPSHOT], "after": snap["after"][:PORTS_IN_SNAPSHOT]}
    body = {"kind": "counters", "label": "job 42", "snapshot": snap}
    made = call("revisions_utilization_import", "POST", f"{r1}/utilization/", body, expect=201)
    call("revisions_utilization_list", "GET", f"{r1}/utilization/", expect=200)
    call("revisions_utilization_retrieve", "GET", f"{r1}/utilization/{made['id']}/", expect=200)

    # as-built: a CSV of the first planned links, one of them cabled to the wrong port
    links = list(rev1.links.filter(network="compute").order_by("link_id")[:3])
    rows = ["device,port,neighbor_device,neighbor_port"]
    rows += [f"{lk.a_device},{lk.a_port},{lk.b_device},{lk.b_port}" for lk in links[:2]]
    rows.append(f"{links[2].a_device},{links[2].a_port},{links[2].b_device},{links[1].b_port}")
    text = "\n".join(rows) + "\n"
    call("revisions_asbuilt_upload", "POST", f"{r1}/asbuilt/?format=csv&filename=walk-1.csv", expect=202, text=text)
    call.examples.pop("revisions_asbuilt_upload")  # its 202 declares no body shape yet: nothing to illustrate
    commissioning_refresh(revision=rev1)  # what the queued "asbuilt" job runs
    call("revisions_asbuilt_results", "GET", f"{r1}/asbuilt/", expect=200)
    call("revisions_asbuilt_fixlist", "GET", f"{r1}/asbuilt/fix-list/?format=json", expect=200)

    # error counters: a clean baseline, then a sweep two hours later with symbol errors
    t0 = timezone.now() - timedelta(hours=3)
    stamp = lambda t: t.isoformat(timespec="seconds").replace("+00:00", "Z")  # noqa: E731
    counters = f"{r1}/counters/?format=ibqueryerrors"
    alice.generic("POST", f"{counters}&taken_at={stamp(t0)}", ibqueryerrors({}).encode(), "text/plain", secure=True)
    sweep = errors_on(switch_links(rev1, 2), SymbolErrorCounter=1200)
    url = f"{counters}&taken_at={stamp(t0 + timedelta(hours=2))}&filename=sweep-2.txt"
    call("revisions_counters_import", "POST", url, expect=201, text=sweep)
    call("revisions_counters_report", "GET", f"{r1}/counters/", expect=200)
    settings.COUNTERS_READ_IN_REQUEST_BYTES = 0  # as for a file too large to read in the request: the 202
    url = f"{counters}&taken_at={stamp(t0 + timedelta(hours=3))}&filename=sweep-3.txt"
    call("revisions_counters_import", "POST", url, expect=202, text=sweep)
    call("revisions_commissioning_progress", "GET", f"{r1}/commissioning/progress/", expect=200)

    # design alternatives: a study of a small requirement, run as a worker runs it, and a pick
    study = call(
        "alternatives_create",
        "POST",
        "/api/v1/alternatives/",
        {"requirement": {"server_model": "dgx-h100", "gpus": 256, "technology": "infiniband", "max_candidates": 2}},
        expect=202,
    )
    assert run_job(study["job"]) == "succeeded"
    call("alternatives_retrieve", "GET", study["url"], expect=200)
    call("alternatives_candidates", "GET", f"{study['url']}candidates/", expect=200)
    call("alternatives_pick", "POST", f"{study['url']}candidates/1/pick/", {}, expect=201)

    # an error answer: a spec the topology refuses
    bad = {"spec": {**SMALL_SPEC, "servers": {"model": "dgx-h100", "count": "32"}}}
    call("designs_create", "POST", "/api/v1/designs/", bad, expect=400)
    call.examples["designs_create"]["request"] = {"name": "Hall B", "spec": SMALL_SPEC}  # the one that succeeds

    Path(EXAMPLES).write_text(json.dumps(dict(sorted(call.examples.items())), indent=1, sort_keys=False) + "\n")
