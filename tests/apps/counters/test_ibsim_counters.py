"""Counter snapshots through ibsim (issue 29, "Done when").

GIVEN a 1-SU DGX H100 compute fabric whose leaf-spine links run through patch panels (cord, trunk, cord), its
planned ibnetdiscover file loaded into ibsim with upstream OpenSM running,
WHEN ibqueryerrors is read before and after symbol errors and a link-down are set (ibsim's PerformanceSet) on
two links that share a patch panel but not a trunk,
THEN exactly those two links are flagged and the first suspect is that panel; and when the counters are
cleared after reading (`ibqueryerrors -k`) the next snapshot reports a reset, not a negative delta. perfquery,
which names ports by LID, is matched through an ibnetdiscover of the running fabric.

    leaf CF-SU01-L01 ──cord── PP-B09-Uxx ══trunk T1══ PP-A01-Uxx ──cord── spine
                              (same panel)  ══trunk T2══  (T2's row records the panel its first legs use)
"""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta

import pytest
from django.utils import timezone

from apps.commissioning.models import AsBuiltUpload
from apps.counters.models import CounterSnapshot
from apps.counters.selectors import counter_report
from apps.counters.services import counter_snapshot_create
from apps.designs.models import CableRecord, LinkRecord
from apps.designs.services import design_create
from apps.exports.services import revision_result
from deliverables import write_deliverables
from engine.counters.lids import lid_names
from engine.ibnetdiscover import parse_ibnetdiscover
from engine.ifnames import ib_port_number
from engine.presets import load_preset

from ..designs.test_views import compute_now
from .ibsim import sim_fabric

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=False)]


def one_su_spec() -> dict:
    spec = load_preset("dgx-h100-superpod-4su")
    spec["name"] = "1-SU H100, leaf-spine through panels"
    spec["servers"]["count"] = 31
    spec["storage_fabric"] = {"enabled": False}
    spec["inband"] = {"enabled": False}
    spec["oob"] = {"enabled": False}
    spec["physical"] = {"tiers": {"leaf-spine": {"cabling": "panels"}}}
    return spec


def two_links_sharing_a_panel_not_a_trunk(revision):
    """(panel pair, [link ids], links patched into the pair): two leaf-spine links whose cords land on one panel
    pair, on two trunks of which one straddles two panels (its row records its first leg's panels, not this
    pair)."""
    trunks = {c.cable_id: c for c in CableRecord.objects.filter(revision=revision, kind="trunk")}
    cords = {c.cable_id: c for c in CableRecord.objects.filter(revision=revision, kind="cord")}
    by_panel: dict[tuple[str, str], dict[int, int]] = defaultdict(dict)  # panel pair -> trunk -> a link through it
    on_pair: dict[tuple[str, str], int] = defaultdict(int)
    for link in LinkRecord.objects.filter(revision=revision, tier="leaf-spine").order_by("link_id"):
        ids = [int(c[1:]) for c in link.cables.split()]
        if len(ids) == 3 and ids[1] in trunks:
            pair = (cords[ids[0]].b_device, cords[ids[2]].a_device)  # cord A ends on a panel, cord B starts on one
            by_panel[pair].setdefault(ids[1], link.link_id)
            on_pair[pair] += 1
    pair, per_trunk = next(
        (p, v)
        for p, v in sorted(by_panel.items())
        if len(v) >= 2 and any(trunks[t].a_device != p[0] for t in v)  # a trunk recorded on another panel
    )
    return pair, sorted(per_trunk.values())[:2], on_pair[pair]


@pytest.fixture
def revision(users):
    design = design_create(user=users.alice, spec=one_su_spec())
    return compute_now(design, users.alice)


def test_errors_on_two_links_through_one_panel_flag_them_and_name_the_panel(revision, users, tmp_path):
    result = revision_result(revision=revision)
    write_deliverables(result, tmp_path, only=["topology.ibnetdiscover"])
    netfile = tmp_path / "topology.ibnetdiscover"
    nodes = parse_ibnetdiscover(netfile.read_text()).by_description()
    panel, chosen, patched = two_links_sharing_a_panel_not_a_trunk(revision)
    links = {lk.link_id: lk for lk in LinkRecord.objects.filter(revision=revision, link_id__in=chosen)}
    t0 = timezone.now() - timedelta(hours=3)

    def snapshot(sim, at, *args):
        return counter_snapshot_create(
            revision=revision, user=users.alice, text=sim.run("ibqueryerrors", *args), fmt="ibqueryerrors", taken_at=at
        )

    with sim_fabric(netfile, tmp_path, attach=nodes["CF-S01"].name) as sim:
        baseline = snapshot(sim, t0)
        assert baseline.ports == 0 and baseline.networks == ["compute"]  # a clean fabric lists no port

        for link_id in chosen:
            lk = links[link_id]  # leaf (a) to spine (b): raise the errors on the leaf's port
            node, port = nodes[lk.a_device].name, ib_port_number(lk.a_port)
            sim.set_counter(node, port, "SymbolErrorCounter", 17)
            sim.set_counter(node, port, "LinkDownedCounter", 1)
        second = snapshot(sim, t0 + timedelta(hours=1), "-k")  # read, then clear (the baseline is noted first)
        assert second.matched == 2 and second.unmatched == []

        report = counter_report(revision=revision)
        assert report["counts"]["flagged"] == 2
        flagged = {lk["link"]: lk["flags"] for lk in report["links"] if lk["flags"]}
        assert flagged == {f"L{i:06d}": ["link-down", "rising-symbol-errors"] for i in chosen}
        top = report["groups"][0]
        # the two panels the links' cords land on hold the same flagged links: one suspect naming exactly both,
        # with its true population and ports (24-port MPO panels, one link a port), whatever panels the
        # straddling trunk's row records
        assert top["kind"] == "panel" and top["keys"] == sorted(panel)
        assert (top["population"], top["ports"]) == (patched, 24) and patched <= 24
        assert top["links"] == [f"L{i:06d}" for i in chosen]
        assert {g["kind"] for g in report["groups"]} >= {"panel", "part", "rack"}
        assert not [g for g in report["groups"] if g["kind"] == "trunk"]  # different trunks, by choice
        assert any("clean" in step for step in top["action"]) and any("polarity" in s for s in top["action"])

        third = snapshot(sim, t0 + timedelta(hours=2))  # after the clear: the counters went down

        # perfquery names the port by LID: an ibnetdiscover of the running fabric (an as-built upload) names it
        AsBuiltUpload.objects.create(
            revision=revision,
            format="ibnetdiscover",
            filename="discovered.txt",
            content=sim.run("ibnetdiscover"),
            size=0,
            links=0,
            sha256="",
        )
        leaf = links[chosen[0]]
        lid = next(k for k, v in lid_names(AsBuiltUpload.objects.get().content).items() if v == leaf.a_device)
        text = sim.run("perfquery", str(lid), str(ib_port_number(leaf.a_port)))
        pq = counter_snapshot_create(
            revision=revision,
            user=users.alice,
            text=text,
            fmt="perfquery",
            taken_at=t0 + timedelta(hours=2, minutes=30),
        )
        assert (pq.ports, pq.matched, pq.unmatched) == (1, 1, [])

    assert third.ports == 0
    report = counter_report(revision=revision)
    assert report["counts"]["flagged"] == 0
    resets = {lk["link"]: lk["resets"] for lk in report["links"] if lk["resets"]}
    assert set(resets) == {f"L{i:06d}" for i in chosen}
    for found in resets.values():
        assert {(r["end"], r["counter"]) for r in found} == {("a", "symbol_errors"), ("a", "link_downed")}
    for lk in report["links"]:
        for drift in lk["drift"].values():
            assert all(v >= 0 for iv in drift["intervals"] for v in iv["deltas"].values())
    assert CounterSnapshot.objects.filter(revision=revision).count() == 4
