"""The design pages, as a signed-in user meets them: create, edit, compute, follow the job, read
the result, filter the tables, compare revisions, share. Permission rules live in
test_views_permissions.py; the drawings in test_views_diagrams.py.

Computations run synchronously here (`compute_now` calls the job runner in-process); the
browser test in tests/browser runs them in a real worker.
"""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.urls import reverse

from apps.designs.forms import SpecForm
from apps.designs.models import Design, DesignShare, LinkRecord, Revision
from apps.designs.services import design_compute_enqueue, design_create
from apps.jobs.models import Job, JobStatus
from apps.jobs.runner import run_job
from apps.jobs.services import job_claim, job_fail
from engine.spec import SPEC_FIELDS, parse_spec

from .test_forms import posted

# 8 DGX H100 in 2 scalable units of 4, no other networks: computes in well under a second.
TINY = {
    "name": "tiny",
    "servers": {"model": "dgx-h100", "count": 8},
    "compute_fabric": {"technology": "infiniband", "switch": "qm9700", "scalable_unit": 4},
}


def compute_now(design: Design, user) -> Revision:
    """Queue a computation and run it here, as the worker would; returns the new revision."""
    job = design_compute_enqueue(design=design, user=user)
    assert run_job(str(job.pk)) == "succeeded", Job.objects.get(pk=job.pk).error
    return design.revisions.order_by("-number").first()


@pytest.fixture
def design(users) -> Design:
    return design_create(user=users.alice, spec=TINY)


@pytest.fixture
def revision(design, users) -> Revision:
    return compute_now(design, users.alice)


@pytest.fixture
def alice(client, users):
    client.force_login(users.alice)
    return client


def url(name: str, *args, **query) -> str:
    path = reverse(name if ":" in name else f"designs:{name}", args=args)
    return path + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def spec_post(spec: dict, **changes) -> dict:
    """Form data for the spec form, as a browser posts it, from a nested spec dict."""
    return posted(SpecForm(spec=spec), **changes)


# --- Sign-in ------------------------------------------------------------------------


def test_it_sends_anonymous_users_to_the_sign_in_page(client, db):
    response = client.get(url("list"))

    assert response.status_code == 302
    assert response.url == "/accounts/login/?next=/designs/"


def test_it_signs_in_with_a_password_and_lands_on_the_designs(client, users):
    users.alice.set_password("a-long-passphrase")
    users.alice.save()

    response = client.post("/accounts/login/", {"username": "alice", "password": "a-long-passphrase"})

    assert response.status_code == 302
    assert response.url == url("list")


def test_it_says_why_a_sign_in_failed(client, users):
    response = client.post("/accounts/login/", {"username": "alice", "password": "wrong"})

    assert response.status_code == 200
    assert "enter a correct username and password" in response.content.decode()


def test_the_sign_in_page_labels_its_inputs(client, db):
    html = client.get("/accounts/login/").content.decode()

    assert '<label for="id_username">' in html
    assert '<label for="id_password">' in html


def test_sign_out_is_a_post(alice):
    assert alice.get("/accounts/logout/").status_code == 405
    assert alice.post("/accounts/logout/").status_code == 302
    assert alice.get(url("list")).status_code == 302


def test_posts_need_a_csrf_token(users, design):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(users.alice)

    assert client.post(url("compute", design.pk)).status_code == 403
    assert not Job.objects.exists()


# --- List and create ------------------------------------------------------------------


def test_the_list_shows_my_designs_and_those_shared_with_me(alice, users):
    design_create(user=users.alice, spec={**TINY, "name": "mine"})
    shared = design_create(user=users.bob, spec={**TINY, "name": "bobs shared"})
    DesignShare.objects.create(design=shared, user=users.alice)
    design_create(user=users.charlie, spec={**TINY, "name": "charlies secret"})

    html = alice.get(url("list")).content.decode()

    assert "mine" in html and "bobs shared" in html
    assert "charlies secret" not in html


def test_the_new_page_offers_every_preset(alice):
    from engine.presets import list_presets

    html = alice.get(url("new")).content.decode()

    for key, name in list_presets().items():
        assert f'value="{key}"' in html and name in html


def test_it_creates_a_design_from_a_preset_and_opens_the_form(alice, users):
    response = alice.post(url("new"), {"preset": "dgx-h100-superpod-4su", "name": "Hall 3"})

    design = Design.objects.get(owner=users.alice)
    assert response.status_code == 302 and response.url == url("edit", design.pk)
    assert design.name == "Hall 3" and design.preset == "dgx-h100-superpod-4su"
    assert design.spec["servers"] == {"model": "dgx-h100", "count": 127}


def test_an_unknown_preset_is_a_form_error(alice):
    response = alice.post(url("new"), {"preset": "dgx-z900"})

    assert response.status_code == 400
    assert "Select a valid choice" in response.content.decode()
    assert not Design.objects.exists()


def test_the_blank_form_explains_every_field_from_the_spec_schema(alice):
    html = alice.get(url("new_blank")).content.decode()

    for key in ("servers", "compute_fabric", "layout"):
        for sub, field in SPEC_FIELDS[key].fields.items():
            if field.help and field.kind != "object":
                assert field.help.replace('"', "&quot;").replace("'", "&#x27;") in html, f"{key}.{sub}"
    assert 'aria-describedby="id_servers__count_helptext"' in html


def test_an_empty_blank_form_shows_each_missing_field_next_to_it(alice):
    response = alice.post(url("new_blank"), {})

    assert response.status_code == 400
    form = response.context["form"]
    assert form.errors["servers__count"] == ["is required"]
    assert form.errors["compute_fabric__technology"] == ["is required"]
    assert 'id="id_servers__count_errors"' in response.content.decode()
    assert not Design.objects.exists()


def test_the_blank_form_creates_a_design(alice, users):
    response = alice.post(url("new_blank"), spec_post(TINY))

    design = Design.objects.get(owner=users.alice)
    assert response.status_code == 302 and response.url == url("detail", design.pk)
    assert design.spec["compute_fabric"]["scalable_unit"] == 4


# --- Edit ---------------------------------------------------------------------------


def test_the_edit_form_shows_the_stored_spec(alice, design):
    response = alice.get(url("edit", design.pk))

    form = response.context["form"]
    assert form["servers__count"].value() == "8"
    assert form["compute_fabric__switch"].value() == "qm9700"
    assert "Advanced: edit YAML" in response.content.decode()


def test_a_bad_value_is_shown_next_to_its_field_and_nothing_is_saved(alice, design):
    data = spec_post(design.spec, servers__count="-3", compute_fabric__oversubscription__leaf="fast")

    response = alice.post(url("edit", design.pk), data)

    assert response.status_code == 400
    errors = response.context["form"].errors
    assert errors["servers__count"] == ["must be at least 1"]
    assert errors["compute_fabric__oversubscription__leaf"] == ['must be a ratio such as "1:1" or "3:1"']
    design.refresh_from_db()
    assert design.spec["servers"]["count"] == 8


def test_saving_the_form_updates_the_spec(alice, design):
    response = alice.post(url("edit", design.pk), spec_post(design.spec, servers__count="12", save="1"))

    assert response.status_code == 302 and response.url == url("detail", design.pk)
    design.refresh_from_db()
    assert design.spec["servers"]["count"] == 12


def test_save_and_compute_queues_a_job_and_opens_it(alice, design):
    response = alice.post(url("edit", design.pk), spec_post(design.spec, servers__count="12", compute="1"))

    job = Job.objects.get(design=design)
    assert response.status_code == 302 and response.url == url("job", design.pk, job.pk)
    assert job.status == JobStatus.QUEUED and job.params["spec"]["servers"]["count"] == 12


def test_the_yaml_editor_round_trips_the_stored_spec(alice, design):
    text = alice.get(url("edit", design.pk)).context["yaml_form"]["spec_yaml"].value()

    response = alice.post(url("edit", design.pk), {"spec_yaml": text.replace("count: 8", "count: 16")})

    assert response.status_code == 302
    design.refresh_from_db()
    assert design.spec["servers"]["count"] == 16


@pytest.mark.parametrize(
    "text, message",
    [
        ("servers: [unclosed", "Not valid YAML at line 1"),
        (
            (
                "name: x\nservers: {model: dgx-h100, count: 8}\ncompute_fabric: {technology: infiniband, switch: qm9700}\n"
                "colour: blue"
            ),
            "colour: unknown field",
        ),
        ("- just\n- a list", "must be a mapping of fields"),
    ],
)
def test_the_yaml_editor_reports_bad_specs(alice, design, text, message):
    response = alice.post(url("edit", design.pk), {"spec_yaml": text})

    assert response.status_code == 400
    assert message in " ".join(response.context["yaml_form"].errors["spec_yaml"])


# --- Compute and jobs -----------------------------------------------------------------


def test_compute_queues_a_job_with_a_snapshot_of_the_spec(alice, design, users):
    response = alice.post(url("compute", design.pk))

    job = Job.objects.get(design=design)
    assert response.url == url("job", design.pk, job.pk)
    assert job.kind == "compute" and job.created_by == users.alice
    assert job.params["spec"] == design.spec


def test_compute_must_be_a_post(alice, design):
    assert alice.get(url("compute", design.pk)).status_code == 405


def test_the_job_page_renders_the_progress_bar_for_polling(alice, design, users):
    job = design_compute_enqueue(design=design, user=users.alice)

    html = alice.get(url("job", design.pk, job.pk)).content.decode()

    assert f'data-job-status-url="{url("job_status", design.pk, job.pk)}"' in html
    assert 'aria-live="polite"' in html and "<progress" in html
    assert "js/job_progress.js" in html
    assert ">Cancel</button>" in html


def test_the_job_status_is_small_json(alice, design, users):
    job = design_compute_enqueue(design=design, user=users.alice)
    job_claim(job_id=job.pk)
    Job.objects.filter(pk=job.pk).update(stage="topology", percent=42.5)

    response = alice.get(url("job_status", design.pk, job.pk))

    assert response.json() == {
        "id": str(job.pk),
        "status": "running",
        "status_label": "Running",
        "stage": "topology",
        "percent": 42.5,
        "terminal": False,
        "error": "",
        "revision_url": None,
        "file_url": None,
    }
    assert "no-cache" in response["Cache-Control"]


def test_a_finished_job_points_at_its_revision(alice, design, users):
    revision = compute_now(design, users.alice)
    job = Job.objects.get(design=design)

    data = alice.get(url("job_status", design.pk, job.pk)).json()

    assert data["terminal"] and data["status"] == "succeeded"
    assert data["revision_url"] == url("revision", design.pk, revision.number)


def test_a_failed_job_shows_its_error(alice, design, users):
    job = design_compute_enqueue(design=design, user=users.alice)
    job_claim(job_id=job.pk)
    job_fail(job_id=job.pk, error="compute_fabric.switch: radix too small for 9000 servers")

    html = alice.get(url("job", design.pk, job.pk)).content.decode()

    assert "The computation failed" in html and "radix too small for 9000 servers" in html
    assert "data-job-status-url" not in html  # nothing left to poll


def test_a_spec_the_engine_cannot_build_fails_the_job_with_the_field_message(alice, users):
    # Saving refuses such a spec (test_abuse.py); one stored before that check still fails its job cleanly.
    spec = parse_spec(
        {
            **TINY,
            "servers": {"model": "dgx-h100", "count": 8},
            "compute_fabric": {**TINY["compute_fabric"], "switch": "nope"},
        }
    ).to_dict()
    design = Design.objects.create(owner=users.alice, name="old", spec=spec)
    job = design_compute_enqueue(design=design, user=users.alice)
    run_job(str(job.pk))

    html = alice.get(url("job", design.pk, job.pk)).content.decode()

    assert "unknown switch model" in html


def test_cancel_stops_a_queued_job(alice, design, users):
    job = design_compute_enqueue(design=design, user=users.alice)

    response = alice.post(url("job_cancel", design.pk, job.pk))

    assert response.url == url("job", design.pk, job.pk)
    job.refresh_from_db()
    assert job.status == JobStatus.CANCELLED


def test_a_cancel_that_loses_the_race_says_the_job_finished(alice, design, users):
    job = design_compute_enqueue(design=design, user=users.alice)
    run_job(str(job.pk))

    page = alice.post(url("job_cancel", design.pk, job.pk), follow=True).content.decode()

    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED
    assert "Too late to cancel: the job had already finished." in page
    assert "Cancelled." not in page


def test_the_design_page_shows_a_running_job(alice, design, users):
    design_compute_enqueue(design=design, user=users.alice)

    html = alice.get(url("detail", design.pk)).content.decode()

    assert 'data-on-done="reload"' in html


# --- Result page --------------------------------------------------------------------------


def test_the_result_page_shows_the_counts_at_a_glance(alice, revision):
    response = alice.get(url("revision", revision.design_id, revision.number))

    html = response.content.decode()
    s = revision.summary
    assert response.status_code == 200
    assert f'data-metric="gpus">{s["gpus"]}<' in html
    assert f'data-metric="cables">{s["cables_total"]}<' in html
    fabric = alice.get(url("workspace:section", revision.design_id, revision.number, "fabric"))
    compute = next(n for n in fabric.context["networks"] if n["key"] == "compute")
    assert compute["switches"] == {"leaf": 16, "spine": 1}  # 2 SUs x 8 rails; 64 uplinks fit one spine
    assert compute["cables"] == revision.cables.filter(network="compute").count()
    bom = alice.get(url("workspace:section", revision.design_id, revision.number, "bom")).content.decode()
    assert "Bill of materials" in bom and s["bom"][0]["sku"] in bom


def test_networks_and_tiers_keep_the_engines_order_whatever_the_json_column_kept(alice, users):
    # PostgreSQL's jsonb stores shorter keys first: "oob" before "compute", "ufm-leaf" before "node-leaf".
    spec = {**TINY, "inband": {"enabled": True}, "oob": {"enabled": True}}
    revision = compute_now(design_create(user=users.alice, spec=spec), users.alice)
    nets = revision.summary["networks"]
    shuffled = {k: {**nets[k], "links": dict(reversed(nets[k]["links"].items()))} for k in reversed(list(nets))}
    Revision.objects.filter(pk=revision.pk).update(summary={**revision.summary, "networks": shuffled})

    networks = alice.get(url("workspace:section", revision.design_id, 1, "fabric")).context["networks"]

    assert [n["key"] for n in networks] == ["compute", "inband", "oob"]
    assert [t["tier"] for t in networks[0]["tiers"]] == ["node-leaf", "leaf-spine"]


def test_the_result_page_draws_the_fabric_and_a_row_of_racks(alice, revision):
    response = alice.get(url("workspace:section", revision.design_id, revision.number, "fabric"))

    html = response.content.decode()
    assert 'id="fabric-diagram"><svg' in html
    assert response.context["elevation"].row == "B"  # the first server row
    assert ">DGX-SU01-N01</text>" in html


def test_the_row_selector_switches_rows(alice, revision):
    response = alice.get(url("workspace:section", revision.design_id, revision.number, "fabric", row="A"))

    assert response.context["elevation"].row == "A"
    assert "CF-S01" in response.content.decode()


def test_a_row_that_does_not_exist_is_a_message_not_an_error(alice, revision):
    response = alice.get(url("workspace:section", revision.design_id, revision.number, "fabric", row="ZZ", start="-4"))

    assert response.status_code == 200
    assert "That row or rack position is not in this design" in response.content.decode()
    assert response.context["elevation"].row == "B"


def test_the_result_page_lists_workload_verdicts(alice, users):
    spec = {
        **TINY,
        "servers": {"model": "dgx-h100", "count": 64},
        "compute_fabric": {**TINY["compute_fabric"], "scalable_unit": 32},
        "workloads": ["llama-70b-tp8-pp4-dp16"],
    }
    revision = compute_now(design_create(user=users.alice, spec=spec), users.alice)

    html = alice.get(url("workspace:section", revision.design_id, revision.number, "traffic")).content.decode()

    verdict = revision.summary["workloads"]["llama-70b-tp8-pp4-dp16"]["verdict"]["status"]
    assert "llama-70b-tp8-pp4-dp16" in html and f"verdict-{verdict}" in html


def test_an_unknown_revision_is_404(alice, revision):
    assert alice.get(url("revision", revision.design_id, 99)).status_code == 404


# --- Link and cable tables -------------------------------------------------------------------


def test_the_link_table_filters_by_network_and_tier(alice, revision):
    response = alice.get(url("links", revision.design_id, revision.number, network="compute", tier="leaf-spine"))

    rows = response.context["page"].rows
    assert response.status_code == 200 and rows
    assert {(r["network"], r["tier"]) for r in rows} == {("compute", "leaf-spine")}


def test_the_link_table_searches_by_device_prefix(alice, revision):
    rows = alice.get(url("links", revision.design_id, revision.number, q="DGX-SU02-N01")).context["page"].rows

    assert rows and all("DGX-SU02-N01" in (r["a_device"], r["b_device"]) for r in rows)


def test_the_link_table_pages_along_its_cursor(alice, revision):
    first = alice.get(url("links", revision.design_id, revision.number, limit=25)).context["page"]
    second = alice.get(url("links", revision.design_id, revision.number, limit=25, cursor=first.next_cursor)).context[
        "page"
    ]

    assert [r["link_id"] for r in first.rows] == list(range(1, 26))
    assert [r["link_id"] for r in second.rows] == list(range(26, 51))
    assert second.prev_cursor


@pytest.mark.parametrize(
    "query, message",
    [
        ({"plane": "x"}, "Enter a whole number."),
        ({"cursor": "not-a-cursor"}, "is not a cursor this table gave out"),
        ({"order": "colour"}, "Select a valid choice"),
        ({"network": "wifi"}, "Select a valid choice"),
        ({"limit": "100000"}, "Select a valid choice"),
    ],
)
def test_bad_table_filters_are_a_message_not_a_500(alice, revision, query, message):
    response = alice.get(url("links", revision.design_id, revision.number, **query))

    assert response.status_code == 400
    assert message in response.content.decode()


def test_the_cable_table_filters_by_part(alice, revision):
    part = revision.cables.values_list("part", flat=True).first()

    rows = alice.get(url("cables", revision.design_id, revision.number, part=part)).context["page"].rows

    assert rows and {r["part"] for r in rows} == {part}


def test_the_csv_download_has_every_filtered_row(alice, revision):
    response = alice.get(url("links_csv", revision.design_id, revision.number, network="compute", tier="node-leaf"))

    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert response["Content-Disposition"].startswith("attachment")
    assert rows[0][:3] == ["id", "network", "plane"]  # the header of the whole links.csv, as the CLI writes it
    assert len(rows) - 1 == revision.links.filter(network="compute", tier="node-leaf").count()


def test_a_bad_csv_filter_is_a_400(alice, revision):
    assert alice.get(url("cables_csv", revision.design_id, revision.number, network="wifi")).status_code == 400


def test_the_spec_downloads_as_yaml(alice, design):
    response = alice.get(url("spec_yaml", design.pk))

    assert response["Content-Type"].startswith("application/yaml")
    assert response.content.decode().startswith("schema_version: 1\nname: tiny\n")


# --- Revisions and comparison --------------------------------------------------------------


def test_the_design_page_lists_revisions_and_offers_a_comparison(alice, design, users):
    compute_now(design, users.alice)
    compute_now(design, users.alice)

    response = alice.get(url("detail", design.pk))

    html = response.content.decode()
    assert ">r1</a>" in html and ">r2</a>" in html
    assert response.context["compare_form"]["new"].value() == 2


def test_comparing_two_revisions_shows_what_changed(alice, design, users):
    compute_now(design, users.alice)
    design.spec = {**design.spec, "servers": {"model": "dgx-h100", "count": 4}}
    design.save()
    compute_now(design, users.alice)

    response = alice.get(url("compare", design.pk, old=1, new=2))

    diff = response.context["diff"]
    servers = next(c for c in diff["counts"] if c["item"] == "Servers")
    assert (servers["old"], servers["new"], servers["delta"]) == (8, 4, -4)
    assert diff["links_removed"] > 0
    assert 'id="compare-table"' in response.content.decode()


@pytest.mark.parametrize("query", [{"old": 1, "new": 1}, {"old": "x", "new": 1}, {"old": 1, "new": 9}, {}])
def test_a_bad_comparison_is_a_message(alice, revision, query):
    response = alice.get(url("compare", revision.design_id, **query))

    assert response.status_code == 400
    assert response.context["form"].errors


# --- Sharing and deleting --------------------------------------------------------------------


def test_the_owner_shares_a_design_by_username(alice, design, users):
    response = alice.post(url("share", design.pk), {"username": "bob", "access": "write"})

    assert response.url == url("detail", design.pk)
    assert DesignShare.objects.get(design=design, user=users.bob).access == "write"
    assert "bob" in alice.get(url("detail", design.pk)).content.decode()


@pytest.mark.parametrize(
    "data, message",
    [
        ({"username": "alice", "access": "read"}, "the owner already has full access"),
        ({"username": "bob", "access": "admin"}, "Select a valid choice"),
    ],
)
def test_a_bad_share_is_a_message(alice, design, data, message):
    response = alice.post(url("share", design.pk), data, follow=True)

    assert message in response.content.decode()
    assert not DesignShare.objects.exists()


def test_the_owner_unshares(alice, design, users):
    share = DesignShare.objects.create(design=design, user=users.bob)

    alice.post(url("unshare", design.pk, share.pk))

    assert not DesignShare.objects.exists()


def test_sharing_answers_the_same_whether_or_not_the_username_exists(alice, design, users):
    def answer(username):
        response = alice.post(url("share", design.pk), {"username": username, "access": "read"}, follow=True)
        page = response.content.decode()
        message = page[page.index('<ul class="messages"') : page.index("</ul>", page.index('<ul class="messages"'))]
        return response.status_code, message.replace(username, "NAME")

    assert answer("bob") == answer("nobody")
    assert set(DesignShare.objects.values_list("username", "user")) == {("bob", users.bob.pk), ("nobody", None)}
    html = alice.get(url("detail", design.pk)).content.decode()
    assert "Remove bob" in html and "Remove nobody" in html  # the owner's list tells them apart no more


def test_a_share_to_a_name_without_an_account_grants_nothing_until_that_account_exists(alice, design):
    from django.contrib.auth import get_user_model
    from django.test import Client

    alice.post(url("share", design.pk), {"username": "dave", "access": "read"})
    assert DesignShare.objects.get(username="dave").user is None
    dave = Client()
    dave.force_login(get_user_model().objects.create_user("dave"))
    assert dave.get(url("detail", design.pk)).status_code == 200


# --- Shared with you: a section of its own, which the recipient can leave ------------------------------


def test_shared_designs_are_listed_apart_and_the_recipient_can_leave_one(client, users):
    mine = design_create(user=users.bob, spec={**TINY, "name": "bobs own"})
    shared = design_create(user=users.alice, spec={**TINY, "name": "alices shared"})
    DesignShare.objects.create(design=shared, user=users.bob)
    client.force_login(users.bob)

    html = client.get(url("list")).content.decode()
    own_part, shared_part = html.split('id="shared-title"')
    assert "bobs own" in own_part and "alices shared" not in own_part
    assert "alices shared" in shared_part and "bobs own" not in shared_part
    assert 'data-access="read">read only<' in shared_part
    DesignShare.objects.filter(design=shared, user=users.bob).update(access="write")
    assert 'data-access="write">read and write<' in client.get(url("list")).content.decode()

    response = client.post(url("leave", shared.pk), follow=True)
    assert "You left" in response.content.decode()
    assert "alices shared" not in client.get(url("list")).content.decode()
    assert client.get(url("detail", shared.pk)).status_code == 404
    assert client.post(url("leave", mine.pk)).status_code == 404  # one's own design is deleted, not left


def test_the_list_is_paged_and_never_loads_a_spec(client, users):
    from apps.designs.views import DESIGNS_PER_PAGE

    for n in range(DESIGNS_PER_PAGE + 3):
        design_create(user=users.alice, spec={**TINY, "name": f"shared {n}"})
    for d in Design.objects.filter(owner=users.alice):
        DesignShare.objects.create(design=d, user=users.bob)
    design_create(user=users.bob, spec={**TINY, "name": "bobs own"})
    client.force_login(users.bob)

    first = client.get(url("list"))
    html = first.content.decode()
    assert html.count("Leave shared") == DESIGNS_PER_PAGE and "Page 1 of 2" in html
    rows = [*first.context["shared"].object_list, *first.context["designs"].object_list]
    assert rows and all("spec" in d.get_deferred_fields() for d in rows)
    assert f"{TINY['servers']['count']} × {TINY['servers']['model']}" in html  # shown without the spec
    assert client.get(url("list", shared_page=2)).content.decode().count("Leave shared") == 3


def test_the_owner_deletes_a_design(alice, design):
    response = alice.post(url("delete", design.pk))

    assert response.url == url("list")
    assert not Design.objects.exists()


# --- Admin -----------------------------------------------------------------------------------


def test_staff_see_designs_revisions_and_jobs_in_the_admin(client, users, revision):
    users.alice.is_staff = users.alice.is_superuser = True
    users.alice.save()
    client.force_login(users.alice)

    for model in ("designs/design", "designs/revision", "jobs/job"):
        assert client.get(f"/admin/{model}/").status_code == 200, model
    assert client.get(f"/admin/designs/revision/{revision.pk}/change/").status_code == 200


@pytest.mark.django_db
def test_the_revision_page_links_every_deliverable_and_draws_workload_charts(client, users):
    from apps.designs.services import design_compute_job, design_create
    from apps.jobs.models import Job
    from apps.jobs.progress import DbProgress
    from apps.jobs.services import job_claim

    spec = {
        "name": "w",
        "servers": {"model": "dgx-h100", "count": 64},  # 512 GPUs: TP 8 x PP 4 x DP 16
        "compute_fabric": {"technology": "infiniband", "switch": "qm9700"},
        "workloads": ["llama-70b-tp8-pp4-dp16"],
    }
    design = design_create(user=users.alice, spec=spec)
    job = Job.objects.create(kind="compute", created_by=users.alice, design=design, params={"spec": design.spec})
    assert job_claim(job_id=job.pk)
    design_compute_job(job=Job.objects.get(pk=job.pk), progress=DbProgress(job.pk))
    client.force_login(users.alice)
    page = client.get(f"/designs/{design.pk}/revisions/1/files/").content.decode()
    for kind in ("bom.pdf", "cabling-plan.pdf", "labels.pdf", "test-sheet.csv", "topology.dot", "workloads.pdf"):
        url = f"/api/v1/designs/{design.pk}/revisions/1/downloads/{kind}"
        assert url in page
    traffic = client.get(f"/designs/{design.pk}/revisions/1/traffic/").content.decode()
    assert traffic.count("<svg") >= 2  # the workload's two charts
    pdf = client.get(f"/api/v1/designs/{design.pk}/revisions/1/downloads/bom.pdf")
    assert pdf.status_code == 200 and b"".join(pdf.streaming_content if pdf.streaming else [pdf.content]).startswith(
        b"%PDF"
    )


# --- Compare: labels, order, row diff -------------------------------------------------------------------------


def test_compare_labels_counts_in_page_order_and_signs_a_part_that_disappeared(alice, design, users):
    """8 DGX H100 -> 4: the cluster figures come first, then the compute fabric's switches and links, then parts;
    every change is signed, and a part only the old revision had reads as its negative quantity."""
    compute_now(design, users.alice)
    design.spec = {**design.spec, "servers": {"model": "dgx-h100", "count": 4}}
    design.save()
    compute_now(design, users.alice)

    diff = alice.get(url("compare", design.pk, old=1, new=2)).context["diff"]

    sections = [c["section"] for c in diff["counts"]]
    assert sections[0] == "Cluster" and sections[-1] == "Parts"
    assert sections.index("Compute fabric") < sections.index("Parts")
    assert [c["item"] for c in diff["counts"][:2]] == ["GPUs", "Servers"]
    assert all(c["delta"] == c["new"] - c["old"] for c in diff["counts"] if c["delta"] is not None)
    from apps.designs.compare import revision_counts_diff

    old, new = design.revisions.order_by("number")
    new.summary = {**new.summary, "bom": [b for b in new.summary["bom"] if b["sku"] != old.summary["bom"][0]["sku"]]}
    gone = next(c for c in revision_counts_diff(old=old, new=new) if c["item"].startswith(old.summary["bom"][0]["sku"]))
    assert gone["new"] == 0 and gone["delta"] == -old.summary["bom"][0]["quantity"]


def test_compare_lists_the_links_added_removed_and_changed_page_by_page(alice, design, users):
    compute_now(design, users.alice)
    design.spec = {**design.spec, "servers": {"model": "dgx-h100", "count": 4}}
    design.save()
    compute_now(design, users.alice)
    diff = alice.get(url("compare", design.pk, old=1, new=2)).context["diff"]
    removed = diff["rows"]["links"]["removed"]

    page = alice.get(url("compare_rows", design.pk, "links", "removed", old=1, new=2))

    html = page.content.decode()
    assert page.status_code == 200 and removed > 0
    assert f"{removed:,} links removed" in html
    rows = html.split('id="row-diff-table"')[1].split("</table>")[0]
    assert rows.count("<tr>") == min(removed, 100) + 1  # the header row too
    assert "r1 L" in rows and "r2 L" not in rows
    if removed > 100:
        second = alice.get(url("compare_rows", design.pk, "links", "removed", old=1, new=2, page=2)).content.decode()
        assert 'id="page-prev"' in second
    assert alice.get(url("compare_rows", design.pk, "links", "renamed", old=1, new=2)).status_code == 404


def test_the_row_diff_matches_links_by_their_ports_and_sees_a_longer_cable(design, users):
    """Same topology, longer runs (more slack at each end): every link is matched, and the ones whose length changed
    are "changed" with their length named."""
    from apps.designs.compare import revision_diff_page, revision_row_diff

    compute_now(design, users.alice)
    layout = dict(design.spec.get("layout") or {})
    layout["slack_per_end_m"] = 3.0
    design.spec = {**design.spec, "layout": layout}
    design.save()
    compute_now(design, users.alice)
    old, new = design.revisions.order_by("number")

    diff = revision_row_diff(old=old, new=new)
    page = revision_diff_page(old=old, new=new, table="links", change="changed", page=1)

    assert diff.links["added"] == [] and diff.links["removed"] == []
    assert len(diff.links["changed"]) > 0
    assert all("length" in row["what"] for row in page["rows"])


def test_every_revision_after_the_first_links_to_the_previous_one(alice, design, users):
    compute_now(design, users.alice)
    compute_now(design, users.alice)

    first = alice.get(url("revision", design.pk, 1)).content.decode()
    second = alice.get(url("revision", design.pk, 2)).content.decode()

    assert 'id="compare-previous"' not in first
    assert "?old=1&amp;new=2" in second.split('id="compare-previous"')[1].split(">")[0]


# --- Tables: rows per page, matched counts, closed sets as selects --------------------------------------------


def test_a_table_opened_without_a_page_size_shows_the_size_it_uses(alice, revision):
    response = alice.get(url("links", revision.design_id, revision.number))

    html = response.content.decode()
    assert len(response.context["page"].rows) == 100
    assert '<option value="100" selected>100</option>' in html


def test_a_filtered_table_says_how_many_rows_matched(alice, revision):
    expected = LinkRecord.objects.filter(revision=revision, tier="leaf-spine").count()

    response = alice.get(url("links", revision.design_id, revision.number, tier="leaf-spine", limit=25))

    html = response.content.decode()
    assert response.context["matched"] == expected
    assert f'<strong data-metric="matched">{expected:,}</strong> of {revision.link_count:,} links match' in html
    unfiltered = alice.get(url("links", revision.design_id, revision.number)).content.decode()
    assert f'<span data-metric="matched">{revision.link_count:,}</span> links in this revision' in unfiltered


def test_a_filter_matching_more_rows_than_the_table_counts_says_more_than(alice, revision, monkeypatch):
    from apps.designs import views

    expected = LinkRecord.objects.filter(revision=revision, tier="leaf-spine").count()
    monkeypatch.setattr(views, "TABLE_MATCH_COUNT_LIMIT", expected - 1)

    html = alice.get(url("links", revision.design_id, revision.number, tier="leaf-spine")).content.decode()

    assert f'More than <strong data-metric="matched">{expected - 1:,}</strong> of {revision.link_count:,} links' in html
    monkeypatch.setattr(views, "TABLE_MATCH_COUNT_LIMIT", expected)
    exact = alice.get(url("links", revision.design_id, revision.number, tier="leaf-spine")).content.decode()
    assert f'<p class="muted" id="table-count"><strong data-metric="matched">{expected:,}</strong> of' in exact


def test_the_cable_type_is_a_choice_and_pages_go_back_and_forth(alice, revision):
    first = alice.get(url("cables", revision.design_id, revision.number, limit=25))
    html = first.content.decode()
    assert '<select name="kind"' in html and '<option value="cord">cord</option>' in html
    nxt = first.context["page"].next_cursor

    second = alice.get(url("cables", revision.design_id, revision.number, limit=25, cursor=nxt))
    back = alice.get(
        url("cables", revision.design_id, revision.number, limit=25, cursor=second.context["page"].prev_cursor)
    )

    assert 'rel="prev"' in second.content.decode()
    assert [r["cable_id"] for r in back.context["page"].rows] == [r["cable_id"] for r in first.context["page"].rows]
    assert alice.get(url("cables", revision.design_id, revision.number, kind="cordz")).status_code == 400


# --- Errors in view, the not-found page, the icon -------------------------------------------------------------


def test_a_broken_yaml_is_announced_at_the_top_of_the_page(alice, design):
    response = alice.post(url("edit", design.pk), {"spec_yaml": "servers: [unclosed"})

    html = response.content.decode()
    assert response.status_code == 400
    banner = html.split('id="yaml-errors-banner"')[1].split("</div>")[0]
    assert "The YAML was not saved: Not valid YAML at line 1" in banner and "[" not in banner.split(":", 1)[1][:3]
    assert html.index('id="yaml-errors-banner"') < html.index('<form method="post" class="spec-form"')
    assert "servers: [unclosed" in html  # the text is kept in the editor
    assert "js/errors_in_view.js" in html


def test_a_hidden_design_is_the_plain_not_found_page_even_in_debug(client, users, design, settings):
    settings.DEBUG = True
    client.force_login(users.charlie)

    response = client.get(url("detail", design.pk))

    html = response.content.decode()
    assert response.status_code == 404
    assert "<h1>Not found</h1>" in html
    assert "URLconf" not in html and "designs/&lt;int:pk&gt;" not in html


def test_the_site_has_an_icon(client, db):
    assert client.get("/favicon.ico").url.endswith("favicon.svg")
    assert "favicon.svg" in client.get("/accounts/login/").content.decode()


def test_the_new_design_page_describes_each_preset_and_preselects_one(alice):
    from engine.presets import DEFAULT_PRESET, preset_descriptions

    html = alice.get(url("new")).content.decode()

    for key, text in preset_descriptions().items():
        assert text and text.replace("'", "&#x27;") in html, key
    assert f'value="{DEFAULT_PRESET}"' in html
    checked = html.split(f'value="{DEFAULT_PRESET}"')[1].split(">")[0]
    assert "checked" in checked


def test_a_device_and_port_finds_the_link_at_that_port(alice, revision):
    link = LinkRecord.objects.filter(revision=revision, tier="leaf-spine").order_by("link_id").first()

    by_space = alice.get(url("links", revision.design_id, revision.number, q=f"{link.b_device} {link.b_port}"))
    by_colon = alice.get(url("links", revision.design_id, revision.number, q=f"{link.a_device}:{link.a_port}"))

    assert [r["link_id"] for r in by_space.context["page"].rows] == [link.link_id]
    assert link.link_id in [r["link_id"] for r in by_colon.context["page"].rows]
    page = alice.get(url("revision", revision.design_id, revision.number)).content.decode()
    assert 'id="device-search"' in page


def test_staff_share_a_design_by_username_in_the_admin(client, users, design):
    users.charlie.is_staff = users.charlie.is_superuser = True
    users.charlie.save()
    client.force_login(users.charlie)
    change = f"/admin/designs/design/{design.pk}/change/"
    page = client.get(change)
    assert page.status_code == 200
    form = page.context["adminform"].form
    data = {k: v for k, v in form.initial.items() if v is not None and not isinstance(v, (dict, list))}
    data.update(
        {
            "spec": json.dumps(design.spec),
            "owner": design.owner_id,
            "shares-TOTAL_FORMS": "1",
            "shares-INITIAL_FORMS": "0",
            "shares-0-username": "bob",
            "shares-0-access": "write",
            "revisions-TOTAL_FORMS": "0",
            "revisions-INITIAL_FORMS": "0",
        }
    )
    response = client.post(change, data)
    assert response.status_code == 302, response.context["adminform"].form.errors if response.context else ""
    assert DesignShare.objects.get(design=design).user == users.bob


def test_the_result_page_shows_the_extra_su_warning_the_notes_and_how_it_counts(alice, users):
    """9 slots (8 DGX + 1 reserved for UFM) in SUs of 4 need a third SU; 7 servers would fit two."""
    spec = {**TINY, "compute_fabric": {**TINY["compute_fabric"], "reserved_node_slots": 1}}
    revision = compute_now(design_create(user=users.alice, spec=spec), users.alice)

    html = alice.get(url("revision", revision.design_id, revision.number)).content.decode()

    (warning,) = [w for w in revision.summary["warnings"] if w.startswith("compute_fabric.reserved_node_slots")]
    assert "7 servers fit 2 SUs with the 1 reserved node slot" in warning and "+8 leaves" in warning
    assert warning in html
    fabric = alice.get(url("workspace:section", revision.design_id, revision.number, "fabric")).content.decode()
    assert 'id="counting"' in fabric and "How this design counts" in fabric
    node_leaf = revision.summary["counting"]["networks"]["compute"]["tiers"]["node-leaf"]
    assert node_leaf["links"] == 64 and node_leaf["links_per_plane"] == 64
    api = alice.get(f"/api/v1/designs/{revision.design_id}/revisions/{revision.number}/summary/")
    assert api.status_code == 200 and warning in api.json()["warnings"] and "counting" in api.json()


def test_the_design_page_lists_computations_apart_from_file_builds(alice, revision, users):
    """Six file builds after a computation: the computation stays listed, and each build says what it built."""
    from apps.jobs.models import Job

    for _ in range(6):
        Job.objects.create(kind="export", created_by=users.alice, design=revision.design, params={"kind": "labels.pdf"})

    html = alice.get(url("detail", revision.design_id)).content.decode()

    computes = html.split('id="compute-jobs"')[1].split("</ul>")[0]
    assert "Computation" in computes and "labels.pdf" not in computes
    others = html.split('id="other-jobs"')[1].split("</ul>")[0]
    assert others.count("Build of labels.pdf") == 5


def test_the_revision_page_names_the_switches_without_a_published_maximum_power(alice, users):
    """Issue 38: a switch with no published maximum (the SN2201 OOB switches) adds nothing to "Power (known)";
    the page says which models are left out rather than letting the sum read as complete."""
    design = design_create(user=users.alice, spec=TINY | {"oob": {"enabled": True}})
    revision = compute_now(design, users.alice)
    html = alice.get(url("revision", revision.design_id, revision.number)).content.decode()
    assert '<dd class="card-note" data-metric="power-unknown">+ unknown for sn2201' in html
    assert "(no published maximum)" in html and "(known figures only)" in html
