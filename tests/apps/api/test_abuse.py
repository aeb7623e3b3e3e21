"""Abuse suite (issue 20): every reported case replayed as an attacker sent it, through the API, the browser's
forms and the CLI. Each must end in a 4xx or a form error naming the field (or, for the CSV cases, bytes that
begin with the neutralising '), and the server must stay healthy. Bounded: the biggest input is a few hundred
kilobytes and the only computes are small designs, so the module runs in well under a minute.

The elapsed time of every refusal is printed (pytest -s) for reading, never asserted (brief: no timed tests).
"""

from __future__ import annotations

import base64
import csv
import io
import json
import time
from dataclasses import replace

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from apps.exports.renderers import iter_cables_csv, iter_test_sheet_csv
from engine.outputs import write_links_csv
from engine.pipeline import compute_design
from engine.spec import parse_spec
from tests.apps.api.conftest import SMALL_SPEC, compute_now, error_of, rev_url
from tests.apps.designs.test_forms import posted

pytestmark = pytest.mark.django_db


def timed(call):
    t = time.perf_counter()
    response = call()
    print(f"  {time.perf_counter() - t:.3f} s")
    return response


def create(client, spec: dict):
    return timed(lambda: client.post("/api/v1/designs/", {"spec": spec}, format="json"))


def refused(response, path: str, status: int = 400) -> str:
    """The message at `path` of a 4xx error body."""
    assert response.status_code == status, response.content[:400]
    fields = {f["path"]: f["message"] for f in error_of(response)["fields"]}
    assert path in fields, fields
    return fields[path]


def spec(**changes) -> dict:
    out = json.loads(json.dumps(SMALL_SPEC))
    for key, value in changes.items():
        out[key] = {**out[key], **value} if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def nested(depth: int) -> object:
    value: object = 1
    for _ in range(depth):
        value = {"x": value}
    return value


@pytest.fixture(autouse=True)
def _healthy_after(client):
    yield
    assert client.get("/healthz").status_code == 200


# --- counts: the billion-appliance specs and the cost guard --------------------------------------------


@pytest.mark.parametrize("section, field", [("inband", "management_servers"), ("storage_fabric", "appliances")])
def test_a_billion_appliances_is_a_400_at_the_field(alice, section, field):
    response = create(alice, spec(**{section: {"enabled": True, field: 1_000_000_000}}))
    assert refused(response, f"{section}.{field}").startswith("must be at most")


def test_two_million_servers_is_a_400_at_the_field(alice):
    assert "at most" in refused(create(alice, spec(servers={"model": "dgx-h100", "count": 2_000_000})), "servers.count")


def test_a_design_over_the_size_limit_is_refused_at_save(alice, settings):
    settings.DESIGN_MAX_LINKS = 100
    message = refused(create(alice, spec()), "servers.count")
    assert "limit is 100 (DESIGN_MAX_LINKS)" in message


def test_the_largest_in_band_network_the_schema_admits_is_refused_from_its_plan(alice):
    response = create(alice, spec(inband={"enabled": True, "management_servers": 100_000}))
    assert "do not fit" in refused(response, "inband")


# --- catalog keys and feasibility at save ----------------------------------------------------------------


@pytest.mark.parametrize(
    "changes, path, words",
    [
        ({"servers": {"model": "dgx-z9"}}, "servers.model", "unknown server model"),
        ({"compute_fabric": {"switch": "qm0"}}, "compute_fabric.switch", "unknown switch model"),
        ({"workloads": ["no-such-workload"]}, "workloads[0].preset", "unknown preset"),
        ({"servers": {"model": "dgx-h100", "count": 16_384}}, "compute_fabric.tiers", "65,536 ports per plane"),
    ],
)
def test_what_a_compute_would_refuse_is_refused_at_create(alice, changes, path, words):
    response = create(alice, spec(**changes))
    assert words in refused(response, path)


def test_the_form_refuses_an_unbuildable_spec_at_its_field(client, users):
    from apps.designs.forms import SpecForm

    client.force_login(users.alice)
    data = posted(SpecForm(spec=parse_spec(SMALL_SPEC).to_dict()), servers__count="16384", save="1")
    response = timed(lambda: client.post("/designs/new/blank/", data))
    assert response.status_code == 400
    assert "65,536 ports per plane" in " ".join(response.context["form"].errors["compute_fabric__tiers"])


def test_the_cli_refuses_an_unknown_switch_with_its_field(tmp_path):
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec(compute_fabric={"switch": "qm0"})))
    with pytest.raises(CommandError, match=r"compute_fabric.switch: unknown switch model 'qm0'"):
        call_command("plan", str(path), "--out", str(tmp_path / "out"), "--deliverables", "none")


# --- text: NUL, surrogates, lengths ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "changes, path",
    [
        ({"name": "a\x00b"}, "name"),
        ({"description": "a\x00b"}, "description"),
        ({"layout": {"site": "D\x00C"}}, "layout.site"),
        ({"name": "n" * 201}, "name"),
        ({"layout": {"site": "S" * 25}}, "layout.site"),
        ({"layout": {"site": "=1+2"}}, "layout.site"),
    ],
)
def test_bad_text_in_the_spec_is_a_400_at_the_field(alice, changes, path):
    refused(create(alice, spec(**changes)), path)


def test_a_lone_surrogate_in_the_json_body_is_a_400(alice):
    body = json.dumps({"spec": spec()}).replace('"Small H100 fabric"', '"bad \\ud800 name"')
    response = timed(lambda: alice.generic("POST", "/api/v1/designs/", body, content_type="application/json"))
    assert "unpaired surrogate" in refused(response, "name")


def test_a_nul_in_the_api_name_is_a_400(alice):
    response = alice.post("/api/v1/designs/", {"spec": spec(), "name": "x\x00y"}, format="json")
    refused(response, "name")


def test_workloads_nested_900_deep_are_a_400_and_nothing_is_stored(alice):
    response = create(alice, spec(workloads=[nested(900)]))
    assert response.status_code == 400
    assert any("deeper than" in f["message"] for f in error_of(response)["fields"])
    assert alice.get("/api/v1/designs/").json()["results"] == []


# --- YAML in the spec editor ----------------------------------------------------------------------------

BOMB = "\n".join(
    [
        "name: x",
        "servers: {model: dgx-h100, count: 8}",
        "compute_fabric: {technology: infiniband, switch: qm9700}",
        "workloads:",
        "  - &l0 [" + ", ".join(["lol"] * 10) + "]",
    ]
    + [f"  - &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]" for i in range(1, 8)]
)


@pytest.mark.parametrize(
    "text, words",
    [
        (BOMB, "line 5, column 5: anchors"),
        ("name: " + "[" * 500 + "]" * 500, "nested deeper than"),
        ("name: x\nworkloads: !!set {a, b}\n", "line 2, column 12: the tag"),
    ],
)
def test_the_yaml_editor_refuses_bombs_deep_nesting_and_tags_with_line_and_column(client, users, text, words):
    from apps.designs.services import design_create

    design = design_create(user=users.alice, spec=SMALL_SPEC)
    client.force_login(users.alice)
    response = timed(lambda: client.post(f"/designs/{design.pk}/edit/", {"spec_yaml": text, "save": "1"}))
    assert response.status_code == 400
    assert words in " ".join(response.context["yaml_form"].errors["spec_yaml"])
    assert client.get(f"/designs/{design.pk}/edit/").status_code == 200
    assert client.get(f"/designs/{design.pk}/spec.yaml").status_code == 200


def test_a_yaml_field_of_the_form_refuses_aliases(client, users):
    from apps.designs.forms import SpecForm

    client.force_login(users.alice)
    data = posted(SpecForm(spec=parse_spec(SMALL_SPEC).to_dict()), workloads="- &a [1]\n- *a\n", save="1")
    response = client.post("/designs/new/blank/", data)
    assert response.status_code == 400
    assert "line 1, column 3" in " ".join(response.context["form"].errors["workloads"])


# --- cursors and filters ----------------------------------------------------------------------------------


def _cursor(payload: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(payload).encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    "table, payload",
    [
        ("links", {"o": "length_m", "v": 10**400, "id": 1}),
        ("links", {"o": "length_m", "v": float("inf"), "id": 1}),
        ("links", {"o": "link_id", "id": 10**30}),
        ("cables", {"o": "part", "v": "a\u0000b", "id": 1}),
        ("cables", {"o": "part", "v": "\ud800", "id": 1}),
    ],
)
def test_a_tampered_cursor_is_a_400(alice, computed, table, payload):
    order = payload["o"]
    text = json.dumps(payload, allow_nan=True).replace("Infinity", "1e999")
    cursor = base64.urlsafe_b64encode(text.encode("utf-8", "surrogatepass")).decode().rstrip("=")
    response = timed(lambda: alice.get(rev_url(computed, 1, f"{table}/?order={order}&cursor={cursor}")))
    assert "not a cursor" in refused(response, "cursor")


def test_a_tampered_cursor_in_the_browser_table_is_a_400(client, users, computed):
    client.force_login(users.alice)
    cursor = _cursor({"o": "length_m", "v": 10**400, "id": 1})
    response = client.get(f"/designs/{computed.pk}/revisions/1/links/?order=length_m&cursor={cursor}")
    assert response.status_code == 400


@pytest.mark.parametrize(
    "query, path", [("q=L" + "9" * 40, None), ("plane=99999999999", "plane"), ("device=a%00b", "device")]
)
def test_out_of_range_filters_are_a_400_or_an_empty_page(alice, computed, query, path):
    response = alice.get(rev_url(computed, 1, f"links/?{query}"))
    if path is None:
        assert response.status_code == 200 and response.json()["results"] == []
    else:
        refused(response, path)


# --- workloads ----------------------------------------------------------------------------------------------


def test_a_workload_without_a_step_time_plans_with_a_workloads_pdf(tmp_path):
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec(workloads=[{"preset": "gpt3-175b-hpn", "parallelism": {"data": 4}}])))
    call_command("plan", str(path), "--out", str(tmp_path / "out"), "--deliverables", "workloads.pdf")
    pdf = (tmp_path / "out" / "workloads.pdf").read_bytes()
    assert pdf.startswith(b"%PDF") and len(pdf) > 1000


def test_an_implausible_step_time_is_a_warning_at_its_field(alice):
    response = create(
        alice,
        spec(
            servers={"model": "dgx-h100", "count": 64},
            workloads=[{"preset": "llama-70b-dp512", "target_step_time_s": 2}],
        ),
    )
    assert response.status_code == 201
    (warning,) = response.json()["warnings"]
    assert warning["path"] == "workloads[0].target_step_time_s"
    assert "TFLOP/s per GPU" in warning["message"] and "Llama 3" in warning["message"]


# --- CSV cells ------------------------------------------------------------------------------------------------

HYPERLINK = "=HYPERLINK(<near>)"


@pytest.fixture
def labelled(alice, users):
    """A computed design whose cable label template starts with a formula."""
    response = create(alice, spec(physical={"labels": {"cable": HYPERLINK}}))
    assert response.status_code == 201, response.content[:300]
    from apps.designs.models import Design

    design = Design.objects.get(pk=response.json()["id"])
    compute_now(design, users.alice)
    return design


def test_a_formula_label_template_is_neutralised_in_every_cables_csv(alice, labelled):
    for kind in ("cables.csv", "cable-schedule.csv"):
        data = b"".join(alice.get(rev_url(labelled, 1, f"downloads/{kind}")).streaming_content)
        assert b",'=HYPERLINK(" in data and b",=HYPERLINK(" not in data, kind
        raw = b"".join(alice.get(rev_url(labelled, 1, f"downloads/{kind}?csv=raw")).streaming_content)
        assert b",=HYPERLINK(" in raw and b"'=HYPERLINK(" not in raw, kind


def test_the_browser_table_csv_is_neutralised_and_raw_on_request(client, users, labelled):
    client.force_login(users.alice)
    data = b"".join(client.get(f"/designs/{labelled.pk}/revisions/1/cables.csv").streaming_content)
    assert b",'=HYPERLINK(" in data
    raw = b"".join(client.get(f"/designs/{labelled.pk}/revisions/1/cables.csv?csv=raw").streaming_content)
    assert b",=HYPERLINK(" in raw
    assert client.get(f"/designs/{labelled.pk}/revisions/1/cables.csv?csv=nope").status_code == 400


def test_the_cli_writes_neutralised_csvs_unless_raw(tmp_path):
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec(physical={"labels": {"cable": HYPERLINK}})))
    call_command("plan", str(path), "--out", str(tmp_path / "safe"), "--deliverables", "cables.csv")
    assert b",'=HYPERLINK(" in (tmp_path / "safe" / "cables.csv").read_bytes()
    call_command("plan", str(path), "--out", str(tmp_path / "raw"), "--deliverables", "cables.csv", "--csv", "raw")
    assert b"'=HYPERLINK(" not in (tmp_path / "raw" / "cables.csv").read_bytes()


def test_a_site_beginning_with_a_formula_is_neutralised_in_the_test_sheet_and_cables():
    # The spec refuses such a site at save; a result made with one anyway (an older spec) still writes safe bytes.
    s = parse_spec(SMALL_SPEC)
    result = compute_design(replace(s, layout=replace(s.layout, site="=1+2")))
    sheet = "".join(iter_test_sheet_csv(result)).encode()
    cables = "".join(iter_cables_csv(result)).encode()
    links = io.StringIO()
    write_links_csv(result, links)
    for data in (sheet, cables, links.getvalue().encode()):
        assert b",'=1+2." in data and b",=1+2." not in data
    assert b",=1+2." in "".join(iter_cables_csv(result, raw=True)).encode()


def test_a_custom_parts_formula_name_is_neutralised_in_bom_csv(alice, users):
    switch = {
        "name": "=SUM(1+2)",
        "vendor": "Acme",
        "os": {"nvue": "swp", "sonic": "ethernet-lane"},
        "technology": ["ethernet"],
        "cages": 32,
        "form_factor": "osfp",
        "speeds": {"400": 2, "200": 4},
        "rack_units": 1,
        "power_kw": 1.5,
    }
    assert (
        alice.post(
            "/api/v1/parts/", {"section": "switches", "key": "acme-x64", "body": switch}, format="json"
        ).status_code
        == 201
    )
    response = create(
        alice,
        {
            "name": "roce",
            "servers": {"model": "hgx-8gpu", "count": 32},
            "compute_fabric": {"technology": "ethernet", "switch": "acme-x64"},
        },
    )
    assert response.status_code == 201, response.content[:300]
    from apps.designs.models import Design

    design = Design.objects.get(pk=response.json()["id"])
    compute_now(design, users.alice)
    data = b"".join(alice.get(rev_url(design, 1, "downloads/bom.csv")).streaming_content)
    cells = [c for row in csv.reader(io.StringIO(data.decode())) for c in row]
    # the switch line's description starts with the part's name: neutralised, and no cell starts a formula
    assert any(c.startswith("'=SUM(1+2)") for c in cells)
    assert not any(c[:1] in ("=", "+", "-", "@") for c in cells)


def test_a_custom_part_key_beginning_with_a_formula_is_refused(alice):
    body = {
        "name": "x",
        "vendor": "Acme",
        "os": {"nvue": "swp", "sonic": "ethernet-lane"},
        "technology": ["ethernet"],
        "cages": 32,
        "form_factor": "osfp",
        "speeds": {"400": 2},
        "rack_units": 1,
        "power_kw": 1.5,
    }
    response = alice.post("/api/v1/parts/", {"section": "switches", "key": "=x", "body": body}, format="json")
    refused(response, "key")


def test_an_exported_test_sheet_uploads_back_with_the_prefix_stripped(alice, labelled, settings):
    # read in the request, as a small sheet is (a large one is read by its job: tests/hostile)
    settings.MEASUREMENTS_READ_IN_REQUEST_BYTES = 10 * 1024 * 1024
    sheet = b"".join(alice.get(rev_url(labelled, 1, "downloads/test-sheet.csv")).streaming_content).decode()
    rows = list(csv.reader(io.StringIO(sheet)))
    header, body = rows[0], rows[1:]
    m = header.index("measured_loss_db")
    notes = header.index("notes")
    for row in body:
        row[m] = "0.1"
        row[notes] = "'=looks like a formula"  # as our own export would have written "=looks like a formula"
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([header, *body])
    response = alice.generic(
        "POST", rev_url(labelled, 1, "measurements/"), out.getvalue().encode(), content_type="text/csv"
    )
    assert response.status_code == 201, response.content[:300]
    assert response.json()["rows"] == len(body)


def test_the_abuse_suite_leaves_the_server_healthy(client):
    t = time.perf_counter()
    assert client.get("/healthz").status_code == 200
    print(f"  healthz {time.perf_counter() - t:.3f} s")


def test_the_edit_page_shows_the_step_time_warning_at_its_field(client, users):
    from apps.designs.services import design_create

    design = design_create(
        user=users.alice,
        spec=spec(
            servers={"model": "dgx-h100", "count": 64},
            workloads=[{"preset": "llama-70b-dp512", "target_step_time_s": 2}],
        ),
    )
    client.force_login(users.alice)
    html = client.get(f"/designs/{design.pk}/edit/").content.decode()
    warnings = html[html.index('id="id_workloads_warnings"') :]
    assert "Warning: [0].target_step_time_s: a 2 s step implies 860 TFLOP/s per GPU" in warnings[:600]


def test_a_spec_stored_deep_before_the_limits_still_opens(client, users):
    from apps.designs.models import Design

    stored = {**parse_spec(SMALL_SPEC).to_dict(), "workloads": [nested(900)]}
    design = Design.objects.create(owner=users.alice, name="old", spec=stored)
    client.force_login(users.alice)
    page = client.get(f"/designs/{design.pk}/edit/")
    assert page.status_code == 200 and "nested too deeply" in page.content.decode()
    assert client.get(f"/designs/{design.pk}/spec.yaml").status_code == 200
