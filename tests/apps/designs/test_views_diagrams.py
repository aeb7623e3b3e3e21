"""The server-drawn SVG: the fabric diagram from a summary, rack elevations from the link rows and the stored
devices."""

from __future__ import annotations

import re

import pytest

from apps.designs import diagrams
from apps.designs.services import design_create
from engine.catalog import load_catalog

from .test_views import TINY, compute_now


def summary(**compute) -> dict:
    net = {
        "technology": "infiniband",
        "planes": 1,
        "tiers": 2,
        "port_speed_gbps": 400,
        "scalable_unit": 32,
        "scalable_units": 4,
        "pods": 0,
        "switch_models": {"leaf": "qm9700", "spine": "qm9700", "core": None},
        "switches": {"leaf": 32, "spine": 16, "core": 0},
        "links": {"node-leaf": 1016, "ufm-leaf": 4, "leaf-spine": 1024, "spine-core": 0},
        "oversubscription": {"leaf": "1:1", "spine": None},
    }
    net.update(compute)
    return {"servers": 127, "server_model": "dgx-h100", "networks": {"compute": net}, "rows": 6}


def texts(svg: str) -> list[str]:
    return re.findall(r"<text[^>]*>([^<]*)</text>", svg)


def test_the_fabric_diagram_draws_every_su_and_its_rails():
    """
     [          16 × qm9700 spine          ]
      |  ...  |        |  ...  |
    [R1..R8] SU1  ... [R1..R8] SU4
     [32 × dgx-h100] ... [31 × dgx-h100]
    """
    svg = str(diagrams.fabric_svg(summary()))

    words = texts(svg)
    assert [w for w in words if w.startswith("SU ")] == ["SU 1", "SU 2", "SU 3", "SU 4"]
    assert words.count("R8") == 4
    assert "31 × dgx-h100" in words  # the last SU holds the UFM slot
    assert any("leaf–spine: 1,024 links" in w for w in words)
    assert any("node–leaf: 1,016 links + 4 UFM" in w for w in words)
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label=')


def test_a_big_fabric_draws_a_few_sus_and_counts_the_rest():
    svg = str(
        diagrams.fabric_svg(
            summary(
                scalable_units=64,
                tiers=3,
                pods=16,
                switches={"leaf": 512, "spine": 512, "core": 256},
                links={"node-leaf": 16384, "leaf-spine": 16384, "spine-core": 16384},
            )
        )
    )

    words = texts(svg)
    assert "… 15 more pods" in words
    assert "pod 1" in words and words.count("32 × qm9700") == 2  # pod 1, and each of the others
    assert any("spine–core: 16,384 links" in w for w in words)


def test_two_planes_are_drawn_apart():
    svg = str(diagrams.fabric_svg(summary(planes=2, switches={"leaf": 64, "spine": 32, "core": 0})))

    assert any("plane A" in w for w in texts(svg)) and any("plane B" in w for w in texts(svg))
    assert "fd-p1" in svg


def test_no_compute_network_draws_nothing():
    assert diagrams.fabric_svg({"networks": {}}) is None


def test_other_networks_are_drawn_as_stacks():
    net = {
        "switches": {"leaf": 9, "spine": 9},
        "switch_models": {"leaf": "qm9700", "spine": "qm9700"},
        "links": {"node-leaf": 254, "appliance-leaf": 16, "leaf-spine": 243},
    }

    words = texts(str(diagrams.network_svg("storage", net)))

    assert "servers, storage appliances" in words
    assert "leaf-spine: 243 links" in words


@pytest.mark.parametrize(
    "role, kind",
    [
        ("server", "server"),
        ("leaf", "leaf"),
        ("spine", "spine"),
        ("core", "core"),
        ("oob", "oob"),
        ("oob-agg", "oob-agg"),
        ("pdu", "pdu"),
        ("ufm", "ufm"),
        ("storage-appliance", "storage"),
        ("mgmt-server", "mgmt"),
        ("something-new", "other"),
    ],
)
def test_device_kinds_follow_the_stored_roles(role, kind):
    assert diagrams.device_kind(role) == kind


def test_a_row_of_racks_is_one_query_over_the_link_rows(users, django_assert_num_queries):
    spec = {**TINY, "oob": {"enabled": True}}
    revision = compute_now(design_create(user=users.alice, spec=spec), users.alice)
    diagrams.rack_row(revision, "B")  # the stored devices' kinds and heights, read once per process

    with django_assert_num_queries(2):  # the snapshot's state (is it still the one read), the link rows
        row = diagrams.rack_row(revision, "B")

    rack = row.racks[0]
    server_u = load_catalog().servers["dgx-h100"].rack_units
    assert rack.id == "DC1.B01"
    assert [(d.name, d.u, d.height, d.kind) for d in rack.devices[:2]] == [
        ("DGX-SU01-N01", 1, server_u, "server"),
        ("DGX-SU01-N02", 1 + server_u, server_u, "server"),
    ]
    assert {d.kind for d in rack.zero_u} == {"pdu"}
    assert rack.devices[0].links > 0


def test_kinds_and_heights_are_the_revisions_not_todays_catalogs(users, monkeypatch):
    """The elevation reads the devices the revision stored: a catalog that changed since (here: one that can
    no longer be loaded at all) draws the same racks."""
    revision = compute_now(design_create(user=users.alice, spec=TINY), users.alice)
    before = diagrams.rack_row(revision, "B")
    diagrams._facts.clear()

    def no_catalog(*args, **kwargs):
        raise AssertionError("the elevation read today's catalog")

    monkeypatch.setattr("engine.catalog.load_catalog", no_catalog)
    after = diagrams.rack_row(revision, "B")

    assert after == before
    kinds = {d.kind for r in after.racks for d in r.devices}
    assert "server" in kinds and "other" not in kinds


def test_a_revision_with_only_its_stored_rows_draws_devices_it_cannot_name_as_other(users):
    from apps.designs.models import RevisionSnapshot, SnapshotState

    revision = compute_now(design_create(user=users.alice, spec=TINY), users.alice)
    RevisionSnapshot.objects.filter(revision=revision).update(
        state=SnapshotState.ROWS_ONLY, document=None, sha256="", note="not reproducible with catalog X"
    )

    row = diagrams.rack_row(revision, "B")

    assert {(d.kind, d.height) for r in row.racks for d in r.devices} == {("other", 1)}


def test_rows_are_paged_by_rack_position(users):
    revision = compute_now(design_create(user=users.alice, spec=TINY), users.alice)
    full = diagrams.rack_row(revision, "B")

    first = diagrams.rack_row(revision, "B", per_view=1)
    second = diagrams.rack_row(revision, "B", start=2, per_view=1)

    assert [r.id for r in first.racks] == [full.racks[0].id] and first.more and first.next_start == 2
    assert [r.id for r in second.racks] == [full.racks[1].id] and second.prev_start == 1


def test_the_first_server_row_is_the_default(users):
    revision = compute_now(design_create(user=users.alice, spec=TINY), users.alice)

    assert diagrams.first_server_row(revision) == "B"
    assert diagrams.row_names(revision) == [chr(65 + i) for i in range(revision.summary["rows"])]


def test_elevations_escape_every_name():
    view = diagrams.RowView(
        row="A",
        start=1,
        rack_units=10,
        more=False,
        racks=[diagrams.RackView("DC1.A01", devices=[diagrams.RackDevice('<script>"x"', 1, 2, "other", 3)])],
    )

    svg = str(diagrams.elevation_svg(view))

    assert "<script>" not in svg and "&lt;script&gt;&quot;x&quot;" in svg


def test_a_device_taller_than_the_gap_above_it_is_clamped():
    view = diagrams.RowView(
        row="A",
        start=1,
        rack_units=10,
        more=False,
        racks=[
            diagrams.RackView(
                "DC1.A01",
                devices=[diagrams.RackDevice("BIG", 1, 8, "server", 1), diagrams.RackDevice("TOP", 4, 1, "leaf", 1)],
            )
        ],
    )

    svg = str(diagrams.elevation_svg(view))

    assert "BIG · Server · U1–U3 · 1 links" in svg


def test_each_leaf_of_a_two_plane_fabric_reaches_its_own_planes_spines():
    """B300 on two planes (issue 39): plane B's leaves of SU 1 and 2 were drawn to a point between the spine
    blocks. Every uplink now ends inside its own plane's spine block, each at a place of its own."""
    svg = str(diagrams.fabric_svg(summary(planes=2, switches={"leaf": 64, "spine": 32, "core": 0}, scalable_units=4)))
    spines = {
        cls: (float(x), float(x) + float(w))
        for x, w, cls in re.findall(
            r'<rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)" height="[\d.]+" rx="[\d.]+" class="(fd-p\d)">'
            r"<title>\d+ spine switches",
            svg,
        )
    }
    assert set(spines) == {"fd-p0", "fd-p1"}
    uplinks = re.findall(
        r'class="(fd-p\d)"><title>SU \d+ leaf for rail \d+, plane [AB]</title></rect>(?:<text[^>]*>[^<]*</text>)?'
        r'<line x1="[\d.]+" y1="[\d.]+" x2="([\d.]+)"',
        svg,
    )
    assert len(uplinks) == 64
    for cls, x2 in uplinks:
        low, high = spines[cls]
        assert low < float(x2) < high, (cls, x2, spines[cls])
    assert len({x2 for cls, x2 in uplinks if cls == "fd-p1"}) == 32
