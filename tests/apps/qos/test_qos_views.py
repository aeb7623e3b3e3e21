"""The QoS pages: a design's policy as a form (edit, save, reset, errors at their fields, who may do what),
and a revision's QoS report and configuration files (warnings, headroom, one file per switch, configs.zip).

The design is 8 generic 8-GPU servers on Spectrum SN5600 (RoCE): 12 NVUE switches, computed in well
under a second. Permissions follow test_views_permissions.py: bob reads or writes as shared, charlie is an
outsider (404 everywhere), the signed-out visitor is sent to sign in.
"""

from __future__ import annotations

import io
import json
import re
import zipfile

import pytest

from apps.designs.adapters import spec_hash
from apps.designs.models import Access, Design, DesignShare, Revision
from apps.designs.services import design_create
from apps.jobs.models import Job
from apps.qos.forms import FIELDS, QosPolicyForm
from apps.qos.selectors import design_qos
from engine.qos.policy import QosPolicy
from tests.apps.designs.test_views import compute_now, url

ROCE = {
    "name": "tiny roce",
    "servers": {"model": "hgx-8gpu", "count": 8},
    "compute_fabric": {"technology": "ethernet", "switch": "sn5600"},
}
IB = {
    "name": "tiny ib",
    "servers": {"model": "dgx-h100", "count": 8},
    "compute_fabric": {"technology": "infiniband", "switch": "qm9700", "scalable_unit": 4},
}


@pytest.fixture
def roce(users) -> Design:
    return design_create(user=users.alice, spec=ROCE)


@pytest.fixture
def alice(client, users):
    client.force_login(users.alice)
    return client


def posted(design: Design, **changes) -> dict:
    """What the browser posts for the page as rendered, with some fields changed (by field name)."""
    state = design_qos(design=design)
    form = QosPolicyForm(technology=state.technology, stored=state.stored, policy=state.policy)
    data: dict = {}
    for f in FIELDS:
        value = form.initial.get(f.name)
        if value is True:
            data[f.name] = "on"
        elif isinstance(value, list) or value not in (None, "", False):
            data[f.name] = value
    for name, value in changes.items():
        if value is None:
            data.pop(name, None)
        else:
            data[name] = value
    return data


def _html(response) -> str:
    return response.content.decode()


def _input_value(html: str, name: str) -> str | None:
    m = re.search(rf'<input[^>]*name="{name}"[^>]*>', html)
    if not m:
        return None
    v = re.search(r'value="([^"]*)"', m.group(0))
    return v.group(1) if v else ""


def _errors_of(html: str, name: str) -> str:
    m = re.search(rf'<ul class="errorlist" id="id_{name}_errors"[^>]*>(.*?)</ul>', html, re.S)
    return m.group(1) if m else ""


# --- the policy form -----------------------------------------------------------------------------


def test_the_page_shows_the_technology_defaults_with_the_trade_off_explained(alice, roce):
    r = alice.get(url("qos:policy", roce.pk))
    html = _html(r)

    assert r.status_code == 200
    assert re.search(r'<input[^>]*name="mode"[^>]*value="dcqcn"[^>]*checked', html)
    assert _input_value(html, "roce__dscp") == "26" and _input_value(html, "cnp__dscp") == "48"
    assert _input_value(html, "ecn__min_bytes") == "150000" and _input_value(html, "ecn__max_bytes") == "1500000"
    assert _input_value(html, "dcqcn__rpg_time_reset") == "300" and _input_value(html, "mtu__switch") == "9216"
    # The PFC priorities follow the RoCE class: empty, the derived value as a placeholder.
    assert _input_value(html, "pfc__priorities") == ""
    assert "follows the classes: 3" in html
    assert "Meta" in html and "pause spreading" in html  # the mode trade-off
    assert "3 µs" in html and "30 µs at 400 Gb/s" in html  # ECN thresholds at line rate (C.4)
    assert "Save and compute" in html and "Reset to ethernet defaults" in html


def test_the_owner_changes_the_mode_and_a_dscp_and_saves(alice, roce):
    r = alice.post(url("qos:policy", roce.pk), posted(roce, mode="pfc-only", roce__dscp="24"))

    assert r.status_code == 302 and r["Location"] == url("qos:policy", roce.pk)
    roce.refresh_from_db()
    assert roce.spec["qos"] == {"mode": "pfc-only", "roce": {"dscp": [24]}}  # only what differs is stored
    policy = design_qos(design=roce).policy
    assert policy.mode == "pfc-only" and policy.host.roce_dscp == 24  # the hosts follow the class
    assert _input_value(_html(alice.get(url("qos:policy", roce.pk))), "roce__dscp") == "24"


def test_settings_that_follow_the_classes_keep_following_them(alice, roce):
    alice.post(url("qos:policy", roce.pk), posted(roce, roce__priority="4"))
    roce.refresh_from_db()
    policy = design_qos(design=roce).policy

    assert roce.spec["qos"] == {"roce": {"priority": 4}}
    assert policy.pfc.priorities == (4,) and policy.host.pfc_priorities == (4,)


def test_every_error_is_shown_next_to_its_field_and_nothing_typed_is_lost(alice, roce):
    data = posted(
        roce,
        roce__dscp="26, 99",
        cnp__scheduling="dwrr",
        cnp__weight="0",
        ecn__min_bytes="lots",
        infiniband__vlarb_low="0: 64, 1: 999",
    )
    r = alice.post(url("qos:policy", roce.pk), data)
    html = _html(r)

    assert r.status_code == 400
    assert "[1]: must be an integer from 0 to 63" in _errors_of(html, "roce__dscp")
    assert "a DWRR class needs a weight" in _errors_of(html, "cnp__weight")
    assert "must be an integer from 1 to 1000000000" in _errors_of(html, "ecn__min_bytes")
    assert "must map VL (0-14) to a weight (0-255)" in _errors_of(html, "infiniband__vlarb_low")
    assert _input_value(html, "roce__dscp") == "26, 99" and _input_value(html, "ecn__min_bytes") == "lots"
    assert _input_value(html, "infiniband__vlarb_low") == "0: 64, 1: 999"
    roce.refresh_from_db()
    assert roce.spec.get("qos") is None


def test_a_stored_policy_that_does_not_parse_is_shown_with_its_errors(alice, roce):
    Design.objects.filter(pk=roce.pk).update(spec={**roce.spec, "qos": {"roce": {"dscp": [99]}, "bogus": 1}})
    html = _html(alice.get(url("qos:policy", roce.pk)))

    assert _input_value(html, "roce__dscp") == "99"
    assert "must be an integer from 0 to 63" in _errors_of(html, "roce__dscp")
    assert "qos.bogus: unknown field" in html
    assert "The policy stored in the spec is not valid" in html


def test_reset_puts_back_the_defaults(alice, roce):
    alice.post(url("qos:policy", roce.pk), posted(roce, mode="lossy"))
    r = alice.post(url("qos:reset", roce.pk))

    assert r.status_code == 302
    roce.refresh_from_db()
    assert roce.spec.get("qos") is None
    assert design_qos(design=roce).policy == QosPolicy.defaults("ethernet")


def test_save_and_compute_queues_a_computation(alice, roce):
    r = alice.post(url("qos:policy", roce.pk), {**posted(roce, mode="pfc-only"), "compute": "1"})
    job = Job.objects.get(design=roce)

    assert r.status_code == 302 and r["Location"] == url("job", roce.pk, job.pk)
    assert job.params["spec"]["qos"] == {"mode": "pfc-only"}


def test_an_infiniband_design_folds_the_ethernet_sections(alice, users):
    design = design_create(user=users.alice, spec=IB)
    html = _html(alice.get(url("qos:policy", design.pk)))

    assert re.search(r'<details class="section" id="qos-infiniband"\s+open>', html)
    assert re.search(r'<details class="section" id="qos-ecn"\s+>', html)
    assert "Reset to infiniband defaults" in html


def test_a_reader_sees_the_form_disabled_and_cannot_save_or_reset(client, users, roce):
    DesignShare.objects.create(design=roce, user=users.bob, access=Access.READ)
    client.force_login(users.bob)
    html = _html(client.get(url("qos:policy", roce.pk)))

    assert re.search(r'<input[^>]*name="roce__dscp"[^>]*disabled', html)
    assert "Save and compute" not in html and "Reset to" not in html
    assert client.post(url("qos:policy", roce.pk), posted(roce, mode="lossy")).status_code == 404
    assert client.post(url("qos:reset", roce.pk)).status_code == 404
    roce.refresh_from_db()
    assert roce.spec.get("qos") is None


def test_a_writer_may_save(client, users, roce):
    DesignShare.objects.create(design=roce, user=users.bob, access=Access.WRITE)
    client.force_login(users.bob)

    assert client.post(url("qos:policy", roce.pk), posted(roce, mode="lossy")).status_code == 302
    roce.refresh_from_db()
    assert roce.spec["qos"] == {"mode": "lossy"}


def test_an_outsider_gets_404_everywhere(client, users, roce):
    rev = compute_now(roce, users.alice)
    client.force_login(users.charlie)

    for path in (
        url("qos:policy", roce.pk),
        url("qos:revision", roce.pk, rev.number),
        url("qos:config_file", roce.pk, rev.number, "policy.json"),
        url("qos:config_file", roce.pk, rev.number, "configs.zip"),
    ):
        assert client.get(path).status_code == 404, path
    assert client.post(url("qos:policy", roce.pk), posted(roce, mode="lossy")).status_code == 404
    assert client.post(url("qos:reset", roce.pk)).status_code == 404


def test_a_signed_out_visitor_is_sent_to_sign_in(client, roce):
    for path in (url("qos:policy", roce.pk), url("qos:revision", roce.pk, 1), url("qos:config_file", roce.pk, 1, "x")):
        r = client.get(path)
        assert r.status_code == 302 and r["Location"].startswith("/accounts/login/"), path


def test_the_design_page_and_the_spec_form_link_to_the_qos_page(alice, roce):
    link = f'href="{url("qos:policy", roce.pk)}"'
    assert link in _html(alice.get(url("detail", roce.pk)))
    assert link in _html(alice.get(url("edit", roce.pk)))


# --- the revision's QoS report and configuration files ---------------------------------------------


@pytest.fixture
def computed(roce, users):
    """alice's RoCE design with the default policy, computed (r1)."""
    compute_now(roce, users.alice)
    return roce


def _zip_from_the_export(design) -> zipfile.ZipFile:
    """configs.zip exactly as the background export writes it (apps.exports.services)."""
    from apps.exports.services import render_into, revision_result

    rev = design.revisions.get(number=1)
    result = revision_result(revision=rev)
    fh = io.BytesIO()
    render_into(kind="configs.zip", result=result, revision=rev, options={}, fh=fh)
    return zipfile.ZipFile(io.BytesIO(fh.getvalue()))


def test_the_revision_page_loads_its_qos_report(alice, computed):
    html = _html(alice.get(url("workspace:section", computed.pk, 1, "congestion")))

    assert 'id="qos-title"' in html
    assert f'data-qos-report-url="{url("qos:revision", computed.pk, 1)}?fragment=1"' in html
    assert "js/qos_report.js" in html


def test_the_report_shows_warnings_headroom_and_a_file_per_switch(alice, computed):
    r = alice.get(url("qos:revision", computed.pk, 1) + "?fragment=1")
    html = _html(r)

    assert r.status_code == 200 and "<html" not in html  # the fragment the revision page inserts
    assert "buffer-unknown" in html and "packet-buffer size unpublished" in html  # with its explanation
    assert 'id="qos-worst-ports"' in html and "D-Cable x2" in html and "D-Resp" in html
    for name in ("CF-SU01-L01.nvue.txt", "CF-S01.nvue.txt", "roce-qos-connectx-7.sh", "policy.json"):
        assert f'href="{url("qos:config_file", computed.pk, 1, name)}"' in html
    assert f'href="{url("qos:config_file", computed.pk, 1, "configs.zip")}"' in html
    assert "<html" in _html(alice.get(url("qos:revision", computed.pk, 1)))  # and a page of its own


def test_each_file_is_what_configs_zip_holds_for_it(alice, computed):
    export = _zip_from_the_export(computed)
    switch = alice.get(url("qos:config_file", computed.pk, 1, "CF-SU01-L01.nvue.txt"), follow=True)
    hosts = alice.get(url("qos:config_file", computed.pk, 1, "roce-qos-connectx-7.sh"), follow=True)
    policy = alice.get(url("qos:config_file", computed.pk, 1, "policy.json"), follow=True)

    assert switch.status_code == 200 and switch["Content-Type"] == "text/plain; charset=utf-8"
    assert switch["Content-Disposition"] == 'attachment; filename="CF-SU01-L01.nvue.txt"'
    assert switch.content == export.read("configs/qos/switches/CF-SU01-L01.nvue.txt")
    assert switch.content.decode().splitlines()[-1] == "nv config apply -y"
    assert hosts.content == export.read("configs/qos/hosts/roce-qos-connectx-7.sh")
    assert policy["Content-Type"] == "application/json" and json.loads(policy.content)["mode"] == "dcqcn"


def test_configs_zip_from_the_browser_holds_the_same_files_as_the_export(alice, computed):
    r = alice.get(url("qos:config_file", computed.pk, 1, "configs.zip"), follow=True)
    got = zipfile.ZipFile(io.BytesIO(b"".join(r.streaming_content)))  # streamed from the artifact store
    export = _zip_from_the_export(computed)

    assert r["Content-Type"] == "application/zip"
    assert r["Content-Disposition"] == 'attachment; filename="tiny-roce-r1-configs.zip"'
    assert got.namelist() == export.namelist()
    assert all(got.read(n) == export.read(n) for n in got.namelist())


def test_an_unknown_file_is_a_404(alice, computed):
    assert alice.get(url("qos:config_file", computed.pk, 1, "CF-NOPE.nvue.txt"), follow=True).status_code == 404
    assert alice.get(url("qos:config_file", computed.pk, 9, "policy.json"), follow=True).status_code == 404


def test_a_reader_may_download(client, users, computed):
    DesignShare.objects.create(design=computed, user=users.bob, access=Access.READ)
    client.force_login(users.bob)

    assert client.get(url("qos:revision", computed.pk, 1)).status_code == 200
    assert client.get(url("qos:config_file", computed.pk, 1, "CF-S01.nvue.txt"), follow=True).status_code == 200


def test_a_saved_policy_reaches_the_next_revisions_files(alice, users, roce):
    alice.post(url("qos:policy", roce.pk), posted(roce, mode="pfc-only", roce__dscp="24"))
    roce.refresh_from_db()
    compute_now(roce, users.alice)
    switch = alice.get(url("qos:config_file", roce.pk, 1, "CF-SU01-L01.nvue.txt"), follow=True).content.decode()
    hosts = alice.get(url("qos:config_file", roce.pk, 1, "roce-qos-connectx-7.sh"), follow=True).content.decode()

    assert "dscp 24 switch-priority 3" in switch and "dscp 26 switch-priority 3" not in switch
    assert "set,24,3" in hosts


def test_an_infiniband_revision_has_a_subnet_manager_file_and_no_headroom(alice, users):
    design = design_create(user=users.alice, spec=IB)
    compute_now(design, users.alice)
    html = _html(alice.get(url("qos:revision", design.pk, 1) + "?fragment=1"))

    assert "compute.opensm.conf" in html and "lossless by credit flow control" in html
    line = html.split('id="qos-line"')[1].split("</p>")[0]
    assert "PFC, ECN marking and DCQCN do not apply" in line and "PFC on priority" not in line
    body = alice.get(url("qos:config_file", design.pk, 1, "compute.opensm.conf"), follow=True).content.decode()
    assert "routing_engine" in body


def test_a_revision_whose_policy_does_not_parse_explains_why(alice, users, roce):
    """Only a revision stored before parse_spec checked the policy (and before snapshots) can hold one that does
    not parse: the snapshot backfill cannot recompute it, and the page says why."""
    from apps.designs.models import RevisionSnapshot
    from apps.designs.snapshots import snapshot_backfill_all

    compute_now(roce, users.alice)
    rev = roce.revisions.get(number=1)
    legacy = {**rev.spec, "qos": {"roce": {"dscp": [99]}}}
    Revision.objects.filter(pk=rev.pk).update(
        spec=legacy, spec_hash=spec_hash(json.dumps(legacy, sort_keys=True, separators=(",", ":")))
    )
    RevisionSnapshot.objects.filter(revision=rev).delete()
    snapshot_backfill_all()
    r = alice.get(url("qos:revision", roce.pk, 1) + "?fragment=1")

    assert r.status_code == 409 and "qos.roce.dscp[0]" in _html(r) and "not reproducible with catalog" in _html(r)
    assert alice.get(url("qos:config_file", roce.pk, 1, "policy.json"), follow=True).status_code == 409


# --- cross-field rules checked at save, for the design's switches ----------------------------------------------


def test_an_ecn_min_above_the_max_is_refused_at_its_field(alice, roce):
    r = alice.post(url("qos:policy", roce.pk), posted(roce, ecn__min_bytes="2000000", ecn__max_bytes="1500000"))

    assert r.status_code == 400
    assert "must be below the max threshold (2,000,000 B is not below 1,500,000 B)" in _errors_of(
        _html(r), "ecn__min_bytes"
    )
    roce.refresh_from_db()
    assert roce.spec.get("qos") is None


def test_dwrr_weights_are_percentages_on_nvue_and_relative_on_sonic(alice, roce):
    refused = alice.post(url("qos:policy", roce.pk), posted(roce, roce__weight="80"))  # 80 + 50 on NVUE (Cumulus)

    html = _html(refused)
    assert refused.status_code == 400
    for field in ("roce__weight", "default__weight"):
        assert "DWRR weights are percentages on NVUE and must add up to 100; these add up to 130" in _errors_of(
            html, field
        )
    saved = alice.post(url("qos:policy", roce.pk), posted(roce, ethernet_os="sonic", roce__weight="80"))
    assert saved.status_code == 302
    roce.refresh_from_db()
    assert roce.spec["qos"] == {"ethernet_os": "sonic", "roce": {"weight": 80}}


def test_a_dscp_clash_is_shown_at_the_class_that_was_edited(alice, roce):
    r = alice.post(url("qos:policy", roce.pk), posted(roce, roce__dscp="26, 48"))  # 48 is the CNP class's DSCP

    html = _html(r)
    assert r.status_code == 400
    assert "DSCP 48 is already in the cnp class" in _errors_of(html, "roce__dscp")
    assert not _errors_of(html, "cnp__dscp")


def test_a_policy_stored_before_a_rule_existed_still_opens_with_what_it_breaks(alice, roce):
    Design.objects.filter(pk=roce.pk).update(spec={**roce.spec, "qos": {"ecn": {"min_bytes": 2000000}}})

    r = alice.get(url("qos:policy", roce.pk))

    html = _html(r)
    assert r.status_code == 200
    problems = html.split('id="stored-problems"')[1].split("</div>")[0]
    assert "qos.ecn.min_bytes" in problems and "must be below the max threshold" in problems


# --- plain words and sources -----------------------------------------------------------------------------------


def test_help_texts_name_their_sources_in_words_that_link_to_the_sources_page(alice, roce):
    html = _html(alice.get(url("qos:policy", roce.pk)))

    assert "[CL-RoCE]" not in html and "(C.3)" not in html
    assert "NVIDIA&#x27;s Cumulus Linux RoCE guide</a>" in html
    assert f'href="{url("sources")}#CL-RoCE"' in html
    sources = _html(alice.get(url("sources")))
    assert 'id="CL-RoCE"' in sources and "RDMA over Converged Ethernet – RoCE" in sources


def test_a_design_whose_fabrics_share_a_technology_names_it_once(alice, users):
    spec = {**ROCE, "storage_fabric": {"enabled": True, "technology": "ethernet", "switch": "sn5600", "appliances": 4}}
    design = design_create(user=users.alice, spec=spec)

    html = _html(alice.get(url("qos:policy", design.pk)))

    assert "ethernet and ethernet" not in html
