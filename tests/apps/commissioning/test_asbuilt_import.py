"""The as-built import through the app: the ibsim fabric with its four mistakes (tests/engine/asbuilt) imported
through the CLI and through the API gives the same classification and fix list; the plan's own fabric imported
afterwards clears them; outsiders see nothing and readers cannot upload.

alice owns the design; bob has read access; charlie none.
"""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from apps.commissioning.models import AsBuiltUpload, CommissioningStanding
from apps.commissioning.services import commissioning_refresh
from apps.designs.models import Access, DesignShare
from apps.designs.services import design_create
from engine.catalog import load_catalog
from engine.pipeline import compute_design
from engine.spec import parse_spec
from tests.apps.designs.test_views import compute_now
from tests.engine.asbuilt.ibsim_fabric import Net, discover, need_tools, net_from_plan
from tests.engine.asbuilt.test_ibsim_asbuilt import ONE_SU, crossed_and_extra, mistaken

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    need_tools()
    work = tmp_path_factory.mktemp("ibsim-app")
    result = compute_design(parse_spec(ONE_SU), load_catalog())
    bad, _ = discover(mistaken(result), work, "bad")
    good, _ = discover(Net(net_from_plan(result)).text(), work, "good")
    crossed = discover(crossed_and_extra(result), work, "crossed")
    return bad, good, work, crossed


@pytest.fixture
def rev(users):
    design = design_create(user=users.alice, spec=ONE_SU)
    return compute_now(design, users.alice)


def test_the_cli_and_the_api_give_the_same_fix_list(users, rev, outputs, api_client, tmp_path):
    bad, good, work, _ = outputs
    (work / "bad.txt").write_text(bad)
    with pytest.raises(SystemExit) as exit_:
        call_command(
            "import-asbuilt", str(rev.design_id), str(work / "bad.txt"), "--format", "ibnetdiscover", "--width-only"
        )
    assert exit_.value.code == 3
    cli = CommissioningStanding.objects.get(revision=rev)
    assert cli.state == "cabling" and {f["problem"] for f in cli.fixes} == {1, 2, 3, 4}, [
        (f["class"], f["action"]) for f in cli.fixes[:6]
    ]
    assert cli.counts["missing"] == cli.counts["miswired"] == cli.counts["degraded"] == 0 + 1
    cli_fixes = cli.fixes
    AsBuiltUpload.objects.all().delete()
    CommissioningStanding.objects.all().delete()

    base = f"/api/v1/designs/{rev.design_id}/revisions/{rev.number}/asbuilt/"
    api_client.force_authenticate(users.alice)
    r = api_client.post(base + "?format=ibnetdiscover&width_only=true", data=bad.encode(), content_type="text/plain")
    assert r.status_code == 202, r.content
    commissioning_refresh(revision=rev)  # what the queued "asbuilt" job runs
    r = api_client.get(base + "fix-list/")
    assert r.status_code == 200 and r.json()["fixes"] == cli_fixes
    assert api_client.get(base).json()["counts"] == cli.counts
    csv_text = api_client.get(base + "fix-list/?format=csv").content.decode()
    assert csv_text.splitlines()[0].startswith("problem,class,rack,cable_id,label_a,label_b")
    assert len(csv_text.splitlines()) == len(cli_fixes) + 1
    assert api_client.get(base + "fix-list/?format=pdf").content.startswith(b"%PDF")

    # Fixed and imported again: the problems drop out.
    r = api_client.post(base + "?format=ibnetdiscover&width_only=true", data=good.encode(), content_type="text/plain")
    commissioning_refresh(revision=rev)
    st = api_client.get(base).json()
    assert st["problems"] == 0 and st["counts"]["ok"] == rev.link_count and st["state"] == "cabling"


def test_bad_input_names_the_field_and_outsiders_see_nothing(users, rev, api_client):
    base = f"/api/v1/designs/{rev.design_id}/revisions/{rev.number}/asbuilt/"
    api_client.force_authenticate(users.alice)
    r = api_client.post(base + "?format=lldpctl", data=b'{"lldp": {}}', content_type="application/json")
    assert r.status_code == 400 and r.json()["error"]["fields"][0]["path"] == "device"
    r = api_client.post(base + "?format=csv", data=b"a,b\n", content_type="text/csv")
    assert r.status_code == 400 and r.json()["error"]["fields"][0]["path"] == "file"
    assert not AsBuiltUpload.objects.exists()
    DesignShare.objects.create(design=rev.design, user=users.bob, access=Access.READ)
    api_client.force_authenticate(users.bob)
    assert api_client.get(base).status_code == 200
    assert api_client.post(base + "?format=csv", data=b"x", content_type="text/csv").status_code in (403, 404)
    api_client.force_authenticate(users.charlie)
    assert api_client.get(base).status_code == 404


def test_the_api_csv_and_pdf_carry_one_swap_per_crossed_pair_from_either_tool(users, rev, outputs, api_client):
    """The ibsim fabric described as a running one (tests/engine/asbuilt/test_ibsim_asbuilt.crossed_and_extra:
    pairs crossed at CF-SU01-L02 and at DGX-SU01-N07, an extra cable L03-L04), imported through the API from
    ibnetdiscover and then, alone, from iblinkinfo: the same fix list, and the CSV and the PDF say what it says."""
    from pypdf import PdfReader

    base = f"/api/v1/designs/{rev.design_id}/revisions/{rev.number}/asbuilt/"
    api_client.force_authenticate(users.alice)
    answers = []
    for fmt, text in zip(("ibnetdiscover", "iblinkinfo"), outputs[3]):
        AsBuiltUpload.objects.all().delete()
        r = api_client.post(base + f"?format={fmt}&width_only=true", data=text.encode(), content_type="text/plain")
        assert r.status_code == 202, r.content
        commissioning_refresh(revision=rev)
        answers.append(api_client.get(base + "fix-list/").json()["fixes"])
    assert answers[0] == answers[1]
    fixes = answers[0]
    assert sorted(f["class"] for f in fixes) == ["swapped", "swapped", "unexpected"]
    leaf = next(f for f in fixes if f["a_device"] == "CF-SU01-L02")
    assert leaf["action"].startswith("swap the cords at CF-SU01-L02 1/2 and 3/1 (")
    extra = next(f for f in fixes if f["class"] == "unexpected")
    assert (extra["a_port"], extra["b_port"]) == ("13/1", "13/2") and extra["rack"] and extra["b_rack"]

    csv_text = api_client.get(base + "fix-list/?format=csv").content.decode()
    assert len(csv_text.splitlines()) == 4 and leaf["action"] in csv_text and extra["action"] in csv_text
    pdf = api_client.get(base + "fix-list/?format=pdf").content
    text = " ".join(" ".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(pdf)).pages)
    assert "swap the cords at CF-SU01-L02 1/2 and 3/1" in text and "13/1 and" in text
