"""Hostile input at every entry point (issue 44): each is refused with a clear 400, form error or CLI message,
never a 500, a traceback or minutes of work, and nothing is stored.

Rows are entry points (browser, API, CLI), columns the attacks: a YAML alias bomb (where YAML is read), nesting
3,000 deep (YAML) or 200,000 deep (JSON), a body over the size limit, the wrong type. The CSV (formula cells) and
PDF (markup) columns are test_csv_formulas.py and test_pdf_markup.py. The elapsed time of each refusal is printed
(pytest -s) for reading, never asserted (timing targets live in bench/).
"""

from __future__ import annotations

import io
import json
import time

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.apps.api.conftest import SMALL_SPEC, compute_now, error_of, rev_url

pytestmark = pytest.mark.django_db

# Eight levels of ten aliases each: 10**8 strings from about 600 bytes (PyYAML's safe_load expands them all).
BOMB_LINES = ["a0: &a0 [" + ", ".join(["lol"] * 10) + "]"] + [
    f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)
]
BOMB = "\n".join(BOMB_LINES) + "\n"
PART_BOMB = "sku: BOMB-1\ndescription: x\n" + "\n".join(f"x{line}" for line in BOMB_LINES) + "\n"
DEEP_YAML = "sku: DEEP-1\nvalue: " + "[" * 3000 + "]" * 3000 + "\n"
DEEP_JSON = "[" * 200_000 + "]" * 200_000


def deep_object(depth: int) -> str:
    return '{"x":' * depth + "1" + "}" * depth


def timed(call):
    t = time.perf_counter()
    out = call()
    print(f"  {time.perf_counter() - t:.3f} s")
    return out


def fields(response) -> dict[str, str]:
    assert 400 <= response.status_code < 500, (response.status_code, response.content[:300])
    return {f["path"]: f["message"] for f in error_of(response).get("fields", [])}


@pytest.fixture(autouse=True)
def _healthy_after(client):
    yield
    assert client.get("/healthz").status_code == 200


# --- spec ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, words",
    [(BOMB, "anchors"), ("name: " + "[" * 3000 + "]" * 3000, "nested deeper"), ("- a\n- b\n", "mapping")],
    ids=["alias-bomb", "deep", "wrong-type"],
)
def test_the_spec_editor_refuses(client, users, text, words):
    from apps.designs.services import design_create

    design = design_create(user=users.alice, spec=SMALL_SPEC)
    client.force_login(users.alice)
    r = timed(lambda: client.post(f"/designs/{design.pk}/edit/", {"spec_yaml": text, "save": "1"}))
    assert r.status_code == 400 and words in r.content.decode()


@pytest.mark.parametrize(
    "body, status",
    [(DEEP_JSON, 400), ('{"spec": ' + deep_object(200_000) + "}", 400), ("[1, 2]", 400), ("x" * (3 << 20), 413)],
    ids=["deep-array", "deep-object", "wrong-type", "oversized"],
)
def test_the_api_refuses_a_spec_body(alice, body, status):
    r = timed(lambda: alice.post("/api/v1/designs/", data=body, content_type="application/json"))
    assert r.status_code == status, r.content[:300]
    assert alice.get("/api/v1/designs/").json()["results"] == []


@pytest.mark.parametrize(
    "text, words", [(BOMB, "anchors"), ("name: " + "[" * 3000 + "]" * 3000, "nested deeper")], ids=["bomb", "deep"]
)
def test_the_cli_refuses_a_spec_file(tmp_path, text, words):
    path = tmp_path / "spec.yaml"
    path.write_text(text)
    with pytest.raises(CommandError) as exc:
        timed(lambda: call_command("plan", str(path), "--out", str(tmp_path / "out")))
    assert words in str(exc.value)


# --- custom parts ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body, words",
    [
        (PART_BOMB, "anchors"),
        (DEEP_YAML, "nested deeper"),
        ("sku: BIG\ndescription: " + "x" * (70 * 1024), "limit"),
        ("- just\n- a list\n", "YAML mapping"),
    ],
    ids=["alias-bomb", "deep", "oversized", "wrong-type"],
)
def test_the_catalog_page_refuses_a_custom_part_body(client, users, body, words):
    from apps.catalog.models import CustomPart

    client.force_login(users.alice)
    post = {"action": "part", "section": "transceivers", "key": "", "body": body}
    r = timed(lambda: client.post("/designs/catalog/", post))
    assert r.status_code == 400 and words in r.content.decode()
    assert not CustomPart.objects.exists()
    assert client.get("/designs/catalog/").status_code == 200


@pytest.mark.parametrize(
    "body, path",
    [
        ('{"section": "transceivers", "body": ' + deep_object(200_000) + "}", None),
        (json.dumps({"section": "transceivers", "body": json.loads(deep_object(50))}), "body"),
        (json.dumps({"section": "transceivers", "body": ["a", "list"]}), "body"),
    ],
    ids=["deep-200000", "deep-50", "wrong-type"],
)
def test_the_api_refuses_a_custom_part_body(alice, body, path):
    from apps.catalog.models import CustomPart

    r = timed(lambda: alice.post("/api/v1/parts/", data=body, content_type="application/json"))
    found = fields(r)
    if path:
        assert path in found, found
    assert not CustomPart.objects.exists()


@pytest.mark.parametrize(
    "text, words",
    [(BOMB, "anchors"), ("transceivers: " + "[" * 3000 + "]" * 3000, "nested deeper"), ("- a\n", "mapping")],
    ids=["alias-bomb", "deep", "wrong-type"],
)
def test_plan_refuses_a_catalog_file(tmp_path, text, words):
    path = tmp_path / "catalog.yaml"
    path.write_text(text)
    with pytest.raises(CommandError) as exc:
        timed(lambda: call_command("plan", "preset:gb200-nvl72-1su", "--catalog", str(path), "--out", str(tmp_path)))
    assert words in str(exc.value) and str(path) in str(exc.value)


def test_plan_refuses_a_catalog_file_over_the_size_limit(tmp_path, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    path = tmp_path / "catalog.yaml"
    path.write_text("servers: {}\n# " + "x" * 20_000 + "\n")
    with pytest.raises(CommandError, match="the limit is 10,000"):
        call_command("plan", "preset:gb200-nvl72-1su", "--catalog", str(path), "--out", str(tmp_path))


# --- price lists -----------------------------------------------------------------------------------------


def test_the_catalog_page_refuses_a_price_list_of_too_many_lines(client, users):
    from apps.catalog.models import PriceList

    client.force_login(users.alice)
    text = "\n".join(f"P{i},1" for i in range(20_001))
    r = timed(lambda: client.post("/designs/catalog/", {"action": "prices", "currency": "USD", "prices": text}))
    assert r.status_code == 400 and "the limit is 20,000" in r.content.decode()
    assert not PriceList.objects.exists()


@pytest.mark.parametrize(
    "body", ['{"currency": "USD", "prices": ' + deep_object(200_000) + "}", '{"currency": "USD", "prices": [1]}']
)
def test_the_api_refuses_a_price_list(alice, body):
    r = timed(lambda: alice.put("/api/v1/price-list/", data=body, content_type="application/json"))
    assert 400 <= r.status_code < 500, r.content[:300]


# --- uploads: as-built, counters, utilization, measured results ------------------------------------------


@pytest.fixture
def rev(users):
    from apps.designs.services import design_create

    design = design_create(user=users.alice, spec=SMALL_SPEC)
    compute_now(design, users.alice)
    return design


@pytest.mark.parametrize("where", ["request", "job"])
@pytest.mark.parametrize(
    "fmt, body, content_type",
    [
        ("lldpctl&device=s1", DEEP_JSON, "application/json"),
        ("nvue&device=s1&port=swp1", deep_object(200_000), "application/json"),
        ("csv", "device,port,neighbor_device,neighbor_port\na,b,c," + "d" * 10_000 + "\n", "text/csv"),
        ("lldpctl&device=s1", '"just a string"', "application/json"),
    ],
    ids=["lldpctl-deep", "nvue-deep", "csv-huge-cell", "lldpctl-wrong-type"],
)
def test_the_asbuilt_upload_refuses(alice, rev, fmt, body, content_type, where, settings):
    """A file up to ASBUILT_READ_IN_REQUEST_BYTES is read in the request (a 400); a larger one is stored as
    received and the job that reads it refuses it (the job fails saying why; nothing is kept)."""
    from apps.commissioning.models import AsBuiltUpload
    from apps.jobs.models import Job
    from apps.jobs.runner import run_job

    settings.ASBUILT_READ_IN_REQUEST_BYTES = 10**9 if where == "request" else 0
    url = rev_url(rev, 1, f"asbuilt/?format={fmt}")
    r = timed(lambda: alice.post(url, data=body.encode(), content_type=content_type))
    if where == "request":
        assert r.status_code == 400, r.content[:300]
    else:
        assert r.status_code == 202, r.content[:300]
        job_id = r.json()["job"]["id"]
        assert timed(lambda: run_job(job_id)) == "failed"
        assert "was refused and not kept" in Job.objects.get(pk=job_id).error
    assert not AsBuiltUpload.objects.exists()


def test_the_asbuilt_upload_refuses_an_oversized_file(alice, rev, settings):
    settings.API_MAX_UPLOAD_BYTES = 10_000
    url = rev_url(rev, 1, "asbuilt/?format=csv")
    r = alice.post(
        url, data=b"device,port,neighbor_device,neighbor_port\n" + b"a,b,c,d\n" * 2000, content_type="text/csv"
    )
    assert r.status_code == 413, r.content[:300]


def test_the_cli_refuses_a_deep_lldpctl_file(rev, tmp_path):
    path = tmp_path / "lldp.json"
    path.write_text(DEEP_JSON)
    err = io.StringIO()
    with pytest.raises(SystemExit) as exit_:
        timed(
            lambda: call_command(
                "import-asbuilt", str(rev.pk), str(path), "--format", "lldpctl", "--device", "s1", stderr=err
            )
        )
    assert exit_.value.code == 1 and "refused (file): nested deeper than 64 levels" in err.getvalue()


@pytest.mark.parametrize("where", ["request", "job"])
@pytest.mark.parametrize("fmt", ["nvue&device=s1&interface=swp1", "sonic&device=s1"])
def test_the_counters_upload_refuses_deep_json(alice, rev, fmt, where, settings):
    """Read in the request up to COUNTERS_READ_IN_REQUEST_BYTES (a 400), else by its job (which fails saying why;
    nothing is kept)."""
    from apps.counters.models import CounterSnapshot
    from apps.jobs.models import Job
    from apps.jobs.runner import run_job

    settings.COUNTERS_READ_IN_REQUEST_BYTES = 10**9 if where == "request" else 0
    url = rev_url(rev, 1, f"counters/?format={fmt}")
    r = timed(lambda: alice.post(url, data=deep_object(200_000), content_type="text/plain"))
    if where == "request":
        assert r.status_code == 400, r.content[:300]
        assert "nested deeper" in r.content.decode()
    else:
        assert r.status_code == 202, r.content[:300]
        assert timed(lambda: run_job(r.json()["id"])) == "failed"
        error = Job.objects.get(pk=r.json()["id"]).error
        assert "was refused and not kept (file)" in error and "nested deeper" in error
    assert not CounterSnapshot.objects.exists()


@pytest.mark.parametrize(
    "snapshot", [deep_object(200_000), '"a string"', "[1, 2]"], ids=["deep", "wrong-type-text", "wrong-type-list"]
)
def test_the_utilization_upload_refuses(alice, rev, snapshot):
    body = '{"kind": "prometheus", "snapshot": ' + snapshot + "}"
    r = timed(lambda: alice.post(rev_url(rev, 1, "utilization/"), data=body, content_type="application/json"))
    assert r.status_code == 400, r.content[:300]


@pytest.mark.parametrize(
    "text",
    ["fiber_id,measured_loss_db\nF1," + "9" * 10_000 + "\n", 'fiber_id,measured_loss_db\n"F1,0.5\n'],
    ids=["huge-cell", "unclosed-quote"],
)
def test_the_measurement_upload_refuses(alice, rev, text):
    from apps.measurements.models import MeasurementUpload

    r = timed(lambda: alice.post(rev_url(rev, 1, "measurements/"), data=text.encode(), content_type="text/csv"))
    assert r.status_code == 400, r.content[:300]
    assert not MeasurementUpload.objects.exists()


# --- the same uploads from the browser's forms ----------------------------------------------------------


@pytest.mark.parametrize(
    "fmt, body",
    [("lldpctl", DEEP_JSON), ("nvue", deep_object(200_000)), ("lldpctl", '"just a string"')],
    ids=["lldpctl-deep", "nvue-deep", "wrong-type"],
)
def test_the_asbuilt_form_refuses(client, users, rev, fmt, body, settings):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from apps.commissioning.models import AsBuiltUpload

    settings.ASBUILT_READ_IN_REQUEST_BYTES = 10**9  # read here: the form's own answer
    client.force_login(users.alice)
    form = {
        "asbuilt-file": SimpleUploadedFile("dump.json", body.encode()),
        "asbuilt-format": fmt,
        "asbuilt-device": "s1",
    }
    r = timed(lambda: client.post(f"/designs/{rev.pk}/revisions/1/asbuilt/", form))
    assert r.status_code == 400 and "Nothing was stored" in r.content.decode()
    assert not AsBuiltUpload.objects.exists()


@pytest.mark.parametrize(
    "fmt, body, words",
    [
        ("nvue", deep_object(200_000), "nested deeper than 64 levels"),
        ("sonic", DEEP_JSON, "nested deeper than 64 levels"),
        ("nvue", "[1, 2]", "expected a JSON object"),
    ],
    ids=["deep", "deep-array", "wrong-type"],
)
def test_the_counters_form_refuses(client, users, rev, fmt, body, words, settings):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from apps.counters.models import CounterSnapshot

    settings.COUNTERS_READ_IN_REQUEST_BYTES = 10**9  # read in the request (a larger file: its job refuses it)

    client.force_login(users.alice)
    form = {
        "counters-file": SimpleUploadedFile("c.json", body.encode()),
        "counters-format": fmt,
        "counters-device": "s1",
        "counters-interface": "swp1",
    }
    r = timed(lambda: client.post(f"/designs/{rev.pk}/revisions/1/counters/", form))
    assert r.status_code == 400 and words in r.content.decode()
    assert not CounterSnapshot.objects.exists()


def test_the_measurements_form_refuses_a_file_the_csv_module_cannot_read(client, users, rev):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from apps.measurements.models import MeasurementUpload

    client.force_login(users.alice)
    body = "fiber_id,measured_loss_db\nF1," + "9" * 10_000 + "\n"
    form = {"file": SimpleUploadedFile("m.csv", body.encode(), content_type="text/csv"), "test_limit": "pmd"}
    r = timed(lambda: client.post(f"/designs/{rev.pk}/revisions/1/measurements/", form))
    assert r.status_code == 400 and "cell 2 is 10,000 characters; the limit is 4,096" in r.content.decode()
    assert not MeasurementUpload.objects.exists()


def test_the_api_refuses_a_custom_part_body_larger_than_a_part(alice):
    from apps.catalog.models import CustomPart

    body = {"name": "Big", "cages": 32, "speeds": {"400": 2}, "rack_units": 1, "vendor": "x" * 70_000}
    r = timed(lambda: alice.post("/api/v1/parts/", {"section": "switches", "key": "big", "body": body}, format="json"))
    assert "the limit is 65,536" in fields(r)["body"]
    assert not CustomPart.objects.exists()


def test_the_cli_refuses_a_spec_file_over_the_size_limit(tmp_path, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    path = tmp_path / "spec.yaml"
    path.write_text("name: x\n# " + "x" * 20_000 + "\n")
    with pytest.raises(CommandError, match="the limit is 10,000"):
        call_command("plan", str(path), "--out", str(tmp_path / "out"))
