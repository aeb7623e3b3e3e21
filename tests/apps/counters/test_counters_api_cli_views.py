"""Counters through the API, the CLI and the revision page: imports, the report, bad input, who may do what.

alice owns the design; bob reads it (shared read-only); charlie has no access.
"""

from __future__ import annotations

import json
from datetime import timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from apps.counters.models import CounterReading, CounterSnapshot
from apps.designs.models import Access, DesignShare
from apps.designs.services import design_create
from tests.factories import small_spec

from ..designs.test_views import compute_now
from .helpers import errors_on, ibqueryerrors, switch_links

CLEAN = ibqueryerrors({})
T0 = timezone.now() - timedelta(hours=5)


@pytest.fixture
def revision(users):
    design = design_create(user=users.alice, spec=small_spec())
    DesignShare.objects.create(design=design, user=users.bob, username="bob", access=Access.READ)
    return compute_now(design, users.alice)


def api(user) -> APIClient:
    c = APIClient()
    c.force_authenticate(user)
    return c


def url(revision) -> str:
    return f"/api/v1/designs/{revision.design_id}/revisions/{revision.number}/counters/"


def post(client, revision, text, **params):
    q = "&".join(f"{k}={v}" for k, v in params.items())
    return client.post(f"{url(revision)}?{q}", data=text, content_type="text/plain")


def test_the_api_imports_a_baseline_and_a_later_sweep_and_reports_the_flagged_links(revision, users):
    links = switch_links(revision)
    alice = api(users.alice)
    r = post(alice, revision, CLEAN, format="ibqueryerrors", taken_at=T0.isoformat().replace("+00:00", "Z"))
    assert r.status_code == 201, r.json()
    assert r.json()["ports"] == 0 and r.json()["networks"] == ["compute"]
    later = (T0 + timedelta(hours=2)).isoformat().replace("+00:00", "Z")
    r = post(
        alice,
        revision,
        errors_on(links, SymbolErrorCounter=40, LinkDownedCounter=1),
        format="ibqueryerrors",
        taken_at=later,
    )
    assert r.status_code == 201 and r.json()["matched"] == 2

    report = alice.get(url(revision)).json()
    assert report["counts"] == {"links_tracked": 2, "flagged": 2, "with_resets": 0}
    first = report["links"][0]
    assert first["flags"] == ["link-down", "rising-symbol-errors"]
    [iv] = first["drift"]["a"]["intervals"]
    assert iv["deltas"]["symbol_errors"] == 40 and iv["per_hour"]["symbol_errors"] == 20.0
    assert bob_reads_the_same(users, revision, report)


def bob_reads_the_same(users, revision, report) -> bool:
    return api(users.bob).get(url(revision)).json()["counts"] == report["counts"]


def test_a_counter_that_went_down_is_a_reset(revision, users):
    links = switch_links(revision, 1)
    alice = api(users.alice)
    for hours, value in ((0, 500), (1, 500), (2, 7)):
        at = (T0 + timedelta(hours=hours)).isoformat().replace("+00:00", "Z")
        assert (
            post(
                alice, revision, errors_on(links, SymbolErrorCounter=value), format="ibqueryerrors", taken_at=at
            ).status_code
            == 201
        )
    [link] = alice.get(url(revision)).json()["links"]
    assert [r["counter"] for r in link["resets"]] == ["symbol_errors"]
    last = link["drift"]["a"]["intervals"][-1]
    assert last["resets"] == ["symbol_errors"] and last["deltas"]["symbol_errors"] == 7  # not -493
    assert link["flags"] == ["rising-symbol-errors"]  # 7 new errors in an hour


@pytest.mark.parametrize(
    "params, text, field",
    [
        ({"format": "xml"}, CLEAN, "format"),
        ({"format": "ethtool"}, "NIC statistics:\n rx_packets: 1\n", "device"),
        ({"format": "ibqueryerrors"}, "not the tool's output\n", "file"),
        ({"format": "ibqueryerrors", "taken_at": "2999-01-01T00:00:00Z"}, CLEAN, "taken_at"),
        ({"format": "ibqueryerrors", "network": "storage"}, CLEAN, "network"),
    ],
)
def test_bad_input_is_a_400_naming_the_field_and_stores_nothing(revision, users, params, text, field):
    r = post(api(users.alice), revision, text, **params)
    assert r.status_code == 400, r.content
    assert field in str(r.json()["error"]["fields"])
    assert CounterSnapshot.objects.count() == 0


def test_readers_see_the_report_but_only_writers_import_and_strangers_see_nothing(revision, users):
    assert post(api(users.bob), revision, CLEAN, format="ibqueryerrors").status_code == 404
    assert api(users.bob).get(url(revision)).status_code == 200
    assert api(users.charlie).get(url(revision)).status_code == 404
    assert post(api(users.charlie), revision, CLEAN, format="ibqueryerrors").status_code == 404
    assert APIClient().get(url(revision)).status_code == 401
    assert CounterSnapshot.objects.count() == 0


def test_ports_not_in_the_plan_are_counted_and_listed_not_dropped(revision, users):
    text = ibqueryerrors({("some-other-switch", 3): {"SymbolErrorCounter": 2}})
    r = post(api(users.alice), revision, text, format="ibqueryerrors")
    assert r.status_code == 201
    assert (r.json()["ports"], r.json()["matched"], r.json()["unmatched"]) == (1, 0, ["some-other-switch 3"])


def test_the_cli_imports_prints_the_flags_and_exits_4_when_links_are_flagged(revision, tmp_path):
    links = switch_links(revision)
    (tmp_path / "t0.txt").write_text(CLEAN)
    (tmp_path / "t1.txt").write_text(errors_on(links, PortXmitDiscards=3, LinkDownedCounter=2))
    d, n = str(revision.design_id), str(revision.number)
    out = StringIO()
    call_command(
        "import-counters",
        d,
        str(tmp_path / "t0.txt"),
        "--format",
        "ibqueryerrors",
        "--taken-at",
        T0.isoformat(),
        stdout=out,
    )
    assert "0 of 0 ports matched" in out.getvalue()
    out = StringIO()
    with pytest.raises(SystemExit) as exit_:
        call_command(
            "import-counters", d, str(tmp_path / "t1.txt"), "--format", "ibqueryerrors", "--revision", n, stdout=out
        )
    assert exit_.value.code == 4
    text = out.getvalue()
    assert "2 of 2 ports matched" in text and "2 flagged" in text
    assert f"L{links[0].link_id:06d}" in text and "link went down" in text and "link flapping" not in text
    # 2 downs in 5 hours: flapping only under a stricter threshold, given for this report alone
    out = StringIO()
    with pytest.raises(SystemExit):
        call_command("import-counters", d, "--report", "--threshold", "flaps_per_hour=0.3", stdout=out)
    assert "link flapping" in out.getvalue()
    assert CounterSnapshot.objects.count() == 2


@pytest.mark.parametrize(
    "args, message",
    [
        (["--report", "--threshold", "nope=1"], "unknown threshold"),
        (["missing.txt", "--format", "ibqueryerrors"], "cannot read"),
        (["--format", "ibqueryerrors"], "give the counter file"),
    ],
)
def test_the_cli_says_what_is_wrong(revision, args, message):
    with pytest.raises(CommandError, match=message):
        call_command("import-counters", str(revision.design_id), *args, stdout=StringIO())


def test_the_revision_page_imports_through_its_form_and_shows_the_trend(client, revision, users):
    links = switch_links(revision, 1)
    client.force_login(users.alice)
    page = reverse("workspace:section", args=[revision.design_id, revision.number, "commissioning"])
    upload = reverse("counters:upload", args=[revision.design_id, revision.number])
    assert "No counters yet" in client.get(page).content.decode()
    for at, text in ((T0, CLEAN), (T0 + timedelta(hours=1), errors_on(links, SymbolErrorCounter=9))):
        f = StringIO(text)
        f.name = "sweep.txt"
        r = client.post(
            upload,
            {"counters-file": f, "counters-format": "ibqueryerrors", "counters-taken_at": f"{at:%Y-%m-%d %H:%M:%S}"},
        )
        assert r.status_code == 302, r.content.decode()[:2000]
    html = client.get(page).content.decode()
    assert 'id="counter-links"' in html and f'data-link="L{links[0].link_id:06d}"' in html
    assert '<svg class="counter-trend"' in html and "rising symbol errors" in html


def test_a_bad_upload_shows_the_error_at_its_field_and_stores_nothing(client, revision, users):
    client.force_login(users.alice)
    upload = reverse("counters:upload", args=[revision.design_id, revision.number])
    f = StringIO("NIC statistics:\n rx_packets: 1\n")
    f.name = "eth.txt"
    r = client.post(upload, {"counters-file": f, "counters-format": "ethtool"})
    assert r.status_code == 400
    assert "id_counters-device_errors" in r.content.decode()
    assert CounterSnapshot.objects.count() == 0 and CounterReading.objects.count() == 0


def test_a_reader_cannot_upload_through_the_page(client, revision, users):
    client.force_login(users.bob)
    upload = reverse("counters:upload", args=[revision.design_id, revision.number])
    f = StringIO(CLEAN)
    f.name = "sweep.txt"
    assert client.post(upload, {"counters-file": f, "counters-format": "ibqueryerrors"}).status_code == 404
    page = client.get(
        reverse("workspace:section", args=[revision.design_id, revision.number, "commissioning"])
    ).content.decode()
    assert 'id="counter-form"' not in page


NVUE_DOC = (Path(__file__).parents[2] / "engine" / "counters" / "data" / "nvue_swp1.json").read_text()


def test_nvue_and_ethtool_counters_match_the_in_band_ports_by_their_interface_names(revision, users):
    """The in-band leaf IB-L01 runs NVUE: its port 1 is swp1 (engine/ifnames.py), cabled to DGX-SU01-N01 slot1-p2.
    The baseline is the Cumulus user guide's example (4 carrier transitions); an hour later the link went down
    and up once and lost two blocks after FEC; the host's NIC saw the same link-down."""
    alice = api(users.alice)
    t0, t1 = T0.isoformat().replace("+00:00", "Z"), (T0 + timedelta(hours=1)).isoformat().replace("+00:00", "Z")
    assert post(alice, revision, NVUE_DOC, format="nvue", device="IB-L01", taken_at=t0).json()["matched"] == 1
    later = json.loads(NVUE_DOC)
    later["swp1"]["link"]["stats"]["carrier-transitions"] = 6
    later["swp1"]["link"]["phy-detail"]["effective-errors"] = 2
    r = post(alice, revision, json.dumps(later), format="nvue", device="IB-L01", taken_at=t1)
    assert r.status_code == 201 and r.json()["matched"] == 1
    host = "NIC statistics:\n     link_down_events_phy: {}\n     rx_pcs_symbol_err_phy: 0\n"
    for at, downs in ((t0, 3), (t1, 4)):
        r = post(
            alice,
            revision,
            host.format(downs),
            format="ethtool",
            device="DGX-SU01-N01",
            interface="slot1-p2",
            taken_at=at,
        )
        assert r.status_code == 201 and r.json()["matched"] == 1
    [link] = alice.get(url(revision)).json()["links"]
    assert link["ends"] == {"a": "DGX-SU01-N01 slot1-p2", "b": "IB-L01 1"}
    assert link["flags"] == ["uncorrectable-fec", "link-down"]
    assert link["drift"]["b"]["intervals"][0]["deltas"]["carrier_transitions"] == 2
    assert link["drift"]["a"]["intervals"][0]["deltas"]["link_downed"] == 1


def test_clearing_the_switch_counters_is_a_reset_of_every_counter_that_went_down(revision, users):
    alice = api(users.alice)
    cleared = json.loads(NVUE_DOC)
    for k in cleared["swp1"]["link"]["phy-detail"]:
        if k.startswith("phy-raw-errors-lane"):
            cleared["swp1"]["link"]["phy-detail"][k] = 10
    cleared["swp1"]["link"]["stats"]["carrier-transitions"] = 0
    for hours, text in ((0, NVUE_DOC), (1, json.dumps(cleared))):
        at = (T0 + timedelta(hours=hours)).isoformat().replace("+00:00", "Z")
        assert post(alice, revision, text, format="nvue", device="IB-L01", taken_at=at).status_code == 201
    [link] = alice.get(url(revision)).json()["links"]
    assert {r["counter"] for r in link["resets"]} == {"carrier_transitions", "fec_corrected"}
    assert link["flags"] == []  # 80 corrected errors in an hour after the clear: nothing rising


def test_flagged_links_whose_fibers_measured_close_to_their_limit_are_one_suspect(client, revision, users, settings):
    """The measured-results upload (the revision's own test sheet, filled in) joins the counters: two flagged
    links measured within 0.5 dB of their limit form the "measured loss" suspect."""
    from tests.apps.designs.test_measurement_views import as_csv, sheet, upload

    settings.MEASUREMENTS_READ_IN_REQUEST_BYTES = 10**9  # the sheet (420 KB) is judged in the request here

    links = switch_links(revision)
    labels = {f"L{lk.link_id:06d}" for lk in links}
    header, rows = sheet(revision)
    col = {c: i for i, c in enumerate(header)}
    for r in rows:
        lossy = r[col["link_id"]] in labels and r[col["limit_db"]]
        r[col["measured_loss_db"]] = f"{float(r[col['limit_db']]) - 0.2:.2f}" if lossy else "0.30"
    client.force_login(users.alice)
    assert upload(client, revision, as_csv(header, rows)).status_code == 302
    alice = api(users.alice)
    post(alice, revision, CLEAN, format="ibqueryerrors", taken_at=T0.isoformat().replace("+00:00", "Z"))
    post(alice, revision, errors_on(links, SymbolErrorCounter=50), format="ibqueryerrors")
    groups = alice.get(url(revision)).json()["groups"]
    loss = next(g for g in groups if g["kind"] == "loss")
    assert set(loss["links"]) == labels and loss["population"] == 2
    assert loss["key"] == "within 0.5 dB of their limit" and "clean and re-test" in loss["action"][0]


def test_the_app_wide_thresholds_apply_to_the_report(revision, users, settings):
    links = switch_links(revision, 1)
    alice = api(users.alice)
    for hours, value in ((0, 0), (1, 40)):
        at = (T0 + timedelta(hours=hours)).isoformat().replace("+00:00", "Z")
        post(alice, revision, errors_on(links, SymbolErrorCounter=value), format="ibqueryerrors", taken_at=at)
    assert alice.get(url(revision)).json()["counts"]["flagged"] == 1
    settings.COUNTER_THRESHOLDS = {"symbol_errors_per_hour": 100}  # what COUNTER_THRESHOLDS_FILE sets
    assert alice.get(url(revision)).json()["counts"]["flagged"] == 0


def test_the_port_map_given_with_an_as_built_upload_matches_counters_too(revision, users):
    """A host whose HCA describes itself in a way the plan cannot know: the as-built import's user map
    (device, GUID, port) names it, and the counter import uses the same map."""
    from apps.commissioning.models import AsBuiltUpload

    AsBuiltUpload.objects.create(
        revision=revision,
        uploaded_by=users.alice,
        format="csv",
        filename="map.csv",
        user_map="device,ident,port\nDGX-SU01-N01,0xabc123,OSFP1P1\n",
        size=0,
        links=0,
        sha256="",
        content="",
    )
    text = ibqueryerrors({("node without a planned name", 1): {"SymbolErrorCounter": 3}}).replace(
        "0x2c90000000000", "0xabc123"
    )
    r = post(api(users.alice), revision, text, format="ibqueryerrors")
    assert r.status_code == 201 and r.json()["matched"] == 1, r.json()
    [reading] = CounterReading.objects.all()
    assert reading.counters == {"symbol_errors": 3}


def test_perfquery_without_a_discovery_says_its_lids_are_unnamed(revision, users):
    text = "# Port counters: Lid 7 port 3 (CapMask: 0x1300)\nSymbolErrorCounter:..............4\n"
    r = post(api(users.alice), revision, text, format="perfquery")
    assert r.status_code == 201
    body = r.json()
    assert (body["ports"], body["matched"], body["unmatched"]) == (1, 0, ["lid 7 3"])
    assert any("LID" in n for n in body["notes"])
