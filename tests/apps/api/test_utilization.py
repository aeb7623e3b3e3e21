"""Utilization snapshots through the API: import one, read the reports; the design's permissions apply.

The design (tests/apps/api/conftest.py SMALL_SPEC): 32 DGX H100, one SU, 8 leaves (rails 1-8), 2 tiers. The
snapshot: every leaf uplink at 50 % of 400G, every uplink to the fourth spine at 100 %, rail 6 silent.
"""

from __future__ import annotations

import pytest

from tests.apps.api.conftest import error_of, rev_url

pytestmark = pytest.mark.django_db

INTERVAL_S = 20
FULL = 400e9 / 8 * INTERVAL_S


def _snapshot(revision, idle_rail=6, hot_spine_index=4):
    rows = list(revision.links.filter(tier="leaf-spine").values_list("a_device", "a_port", "b_device"))
    spines = sorted({b for _, _, b in rows})
    hot = spines[hot_spine_index - 1]
    before, after = [], []
    for leaf, port, spine in rows:
        rail = int(leaf.rsplit("-L", 1)[1])
        util = 0.0 if rail == idle_rail else 1.0 if spine == hot else 0.5
        before.append({"device": leaf, "port": port, "tx_bytes": 5_000})
        after.append({"device": leaf, "port": port, "tx_bytes": 5_000 + util * FULL})
    return {"interval_s": INTERVAL_S, "before": before, "after": after}, hot, len(rows), len(spines)


def test_an_imported_snapshot_names_the_hot_spine_and_the_idle_rail(alice, computed):
    rev = computed.revisions.get(number=1)
    snap, hot, ports, spines = _snapshot(rev)
    r = alice.post(
        rev_url(computed, tail="utilization/"), {"kind": "counters", "label": "job 7", "snapshot": snap}, format="json"
    )
    assert r.status_code == 201, r.content[:500]
    body = r.json()
    # by hand: 7 busy rails x (ports per leaf, of which 2 per leaf go to the hot spine)
    per_leaf = ports // 8
    busy = 7 * ((per_leaf - per_leaf // spines) * 0.5 + (per_leaf // spines) * 1.0)
    assert body["totals"]["ports"] == ports
    assert body["totals"]["average"] == pytest.approx(busy / ports)
    named = {(i["dimension"], i["name"], i["kind"]) for i in body["imbalance"]}
    assert named == {("rail", "6", "idle"), ("spine", hot, "hot")}
    assert body["report"]["groups"]["tier"][0]["tier"] == "leaf-spine"
    listed = alice.get(rev_url(computed, tail="utilization/")).json()
    assert [s["id"] for s in listed] == [body["id"]] and listed[0]["label"] == "job 7" and "report" not in listed[0]
    one = alice.get(body["url"])
    assert one.status_code == 200 and one.json()["report"]["imbalance"] == body["imbalance"]


def test_a_snapshot_with_no_port_of_the_design_is_a_400_naming_the_entries(alice, computed):
    snap = {"interval_s": 10, "before": [{"device": "NOPE", "port": "1", "tx_bytes": 1}], "after": []}
    r = alice.post(rev_url(computed, tail="utilization/"), {"kind": "counters", "snapshot": snap}, format="json")
    assert r.status_code == 400
    err = error_of(r)
    assert err["code"] == "invalid_snapshot"
    assert {"path": "snapshot.before[0]", "message": "no port '1' on a device 'NOPE' in this design"} in err["fields"]
    assert alice.get(rev_url(computed, tail="utilization/")).json() == []


def test_an_unknown_kind_is_a_400_naming_the_field(alice, computed):
    r = alice.post(rev_url(computed, tail="utilization/"), {"kind": "csv", "snapshot": {}}, format="json")
    assert r.status_code == 400 and error_of(r)["fields"][0]["path"] == "kind"


def test_snapshots_follow_the_designs_permissions(alice, bob, anon, computed, users):
    from apps.designs.services import design_share

    rev = computed.revisions.get(number=1)
    snap, *_ = _snapshot(rev)
    url = rev_url(computed, tail="utilization/")
    payload = {"kind": "counters", "snapshot": snap}
    assert anon.get(url).status_code == 401
    assert bob.get(url).status_code == 404  # charlie-style outsider: not shared
    assert bob.post(url, payload, format="json").status_code == 404
    design_share(design=computed, user=users.bob, access="read")
    created = alice.post(url, payload, format="json").json()
    assert bob.get(url).status_code == 200 and bob.get(created["url"]).status_code == 200
    assert bob.post(url, payload, format="json").status_code == 404  # reading is not importing
    design_share(design=computed, user=users.bob, access="write")
    assert bob.post(url, payload, format="json").status_code == 201


def test_a_snapshot_of_another_revision_is_a_404(alice, computed):
    rev = computed.revisions.get(number=1)
    snap, *_ = _snapshot(rev)
    created = alice.post(
        rev_url(computed, tail="utilization/"), {"kind": "counters", "snapshot": snap}, format="json"
    ).json()
    assert alice.get(rev_url(computed, 2, f"utilization/{created['id']}/")).status_code == 404


def test_the_monitoring_files_download_from_the_api(alice, computed, tmp_path):
    import shutil
    import subprocess

    r = alice.get(rev_url(computed, 1, "downloads/prometheus-rules.yaml"))
    body = b"".join(r.streaming_content) if r.streaming else r.content
    assert r.status_code == 200 and b"groups:" in body and b"fabric:port_utilization:ratio_rate1m" in body
    if shutil.which("promtool"):  # the file as served, not only as the engine writes it
        (tmp_path / "rules.yaml").write_bytes(body)
        out = subprocess.run(["promtool", "check", "rules", str(tmp_path / "rules.yaml")], capture_output=True)
        assert out.returncode == 0, out.stdout + out.stderr
    r = alice.get(rev_url(computed, 1, "downloads/grafana-dashboard.json"))
    assert r.status_code == 200 and r["Content-Type"] == "application/json"


def test_a_link_that_failed_its_loss_test_is_named_behind_the_idle_rail(alice, computed):
    """GIVEN a measured test sheet in which one fiber of a rail-6 leaf's uplink fails its limit
    WHEN a snapshot with rail 6 silent is imported
    THEN the idle rail's first likely cause is that failed link, by id and ends."""
    import csv
    import io

    sheet = alice.get(rev_url(computed, 1, "downloads/test-sheet.csv"))
    text = (b"".join(sheet.streaming_content) if sheet.streaming else sheet.content).decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    bad = next(r for r in rows if r["tier"] == "leaf-spine" and r["a_device"].endswith("-L06"))
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=["fiber_id", "measured_loss_db"])
    w.writeheader()
    w.writerow({"fiber_id": bad["fiber_id"], "measured_loss_db": f"{float(bad['limit_db']) + 1:.2f}"})
    up = alice.generic("POST", rev_url(computed, 1, "measurements/"), out.getvalue().encode(), content_type="text/csv")
    assert up.status_code == 201, up.content[:300]

    snap, *_ = _snapshot(computed.revisions.get(number=1))
    body = alice.post(
        rev_url(computed, tail="utilization/"), {"kind": "counters", "snapshot": snap}, format="json"
    ).json()
    rail = next(i for i in body["imbalance"] if i["dimension"] == "rail")
    assert rail["name"] == "6"
    assert rail["likely_causes"][0].startswith("commissioning: 1 link(s) here failed their loss test")
    assert (
        f"{bad['link_id']} {bad['a_device']} {bad['a_port']} - {bad['b_device']} {bad['b_port']}"
        in rail["likely_causes"][0]
    )
