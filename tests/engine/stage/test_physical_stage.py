"""The physical stage inside compute_design: media per cage, cables, budgets and roll-ups on whole designs.

A DGX H100 SU, compute fabric only:

    DGX (4 twin-port OSFP cages, flat-top)      leaf (32 twin-port cages, finned)     spine
    OSFP1P1 ── rail 1 ──────────────────────────► L01 1/1                        L01 17/1 ──► S01
    OSFP1P2 ── rail 2 ──────────────────────────► L02 1/1
    (one cage, two leaves: never a twin-port DAC)
"""
from __future__ import annotations

import csv
import io
from collections import Counter

import pytest

from engine.catalog import load_catalog
from engine.errors import SpecError
from engine.outputs import write_links_csv
from engine.pipeline import compute_design
from engine.spec import parse_spec

ALL_OPTICAL = {"default_tier": {"medium": "optical"}}


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def _design(catalog, *, servers=127, physical=None, reserved=1, managers=4, **compute):
    spec = {"name": "t", "servers": {"model": "dgx-h100", "count": servers},
            "compute_fabric": {"technology": "infiniband", "switch": "qm9700", "scalable_unit": 32,
                               "reserved_node_slots": reserved, "fabric_managers": managers, **compute}}
    if physical is not None:
        spec["physical"] = physical
    return compute_design(parse_spec(spec), catalog)


@pytest.fixture(scope="module")
def four_su_optical(catalog):
    return _design(catalog, physical=ALL_OPTICAL)


def test_it_counts_nvidias_published_cables_for_a_4_su_all_optical_design(four_su_optical):
    """H100 SuperPOD bill (optics-and-cabling.md D4, [S25]): one cable per link, 2,040 NDR cables =
    1,016 node-leaf + 1,024 leaf-spine; the 4 UFM cables come on top (H100-RA Tables 1 and 7)."""
    r = four_su_optical
    per_tier = Counter(r.links[i].tier for i, c in enumerate(r.physical.cables) if c)
    assert per_tier["node-leaf"] + per_tier["leaf-spine"] == 2040
    assert per_tier["ufm-leaf"] == 4
    assert all(len(c) == 1 for c in r.physical.cables)  # direct cords: one cable per link


def test_it_counts_one_transceiver_per_cage_end(four_su_optical):
    """127 DGX x 4 twin-port cages = 508 flat-top modules; the 32 leaves use 16 down cages (the last
    leaf cages half-filled count once) and 16 up cages each, and the 16 spines 32 cages each:
    32 x 32 + 16 x 32 = 1,536 finned modules; UFM appliances add 4 single-port modules."""
    bom = {line["sku"]: line["quantity"] for line in four_su_optical.summary["bom"]
           if line["category"] == "transceiver"}
    server_side = sum(q for sku, q in bom.items() if sku.endswith("-FLT"))
    assert server_side == 508
    finned_twin = sum(q for sku, q in bom.items() if sku.startswith(("MMA4Z00", "MMS4X00")) and not sku.endswith(
        ("-FLT", "NS400")))
    assert finned_twin == 1536


def test_no_twin_port_copper_ties_two_rails_to_one_leaf(four_su_optical, catalog):
    r = _design(catalog)  # auto media: copper allowed where it reaches
    for link, choice in zip(r.links, r.physical.choices):
        if link.tier == "node-leaf" and choice:
            assert choice.medium not in ("dac", "acc"), link


def test_every_optical_link_has_a_loss_budget_and_a_status(four_su_optical):
    r = four_su_optical
    for choice, budget, status in zip(r.physical.choices, r.physical.budgets, r.physical.statuses):
        if choice and choice.optical:
            assert budget is not None and budget.limit_db is not None
            assert status in ("pass", "marginal", "fail")
    counts = r.summary["loss_budget"]
    assert counts["pass"] + counts["marginal"] + counts["fail"] == sum(
        1 for c in r.physical.choices if c and c.optical)


def test_cable_lengths_are_rounded_up_never_down(four_su_optical):
    r = four_su_optical
    for (sku_len, run) in zip(r.physical.cords, r.lengths_m):
        if sku_len:
            assert sku_len[1] >= run


def test_each_cable_label_names_its_own_end_first(four_su_optical):
    rows = list(four_su_optical.physical.cable_rows_out(four_su_optical))
    assert rows
    for row in rows[:200]:
        label_a, label_b = row[14], row[15]
        near_a, far_a = label_a.split("/")
        near_b, far_b = label_b.split("/")
        assert (near_a, far_a) == (far_b, near_b)


def test_links_csv_gains_the_physical_columns(four_su_optical):
    buf = io.StringIO()
    write_links_csv(four_su_optical, buf)
    reader = csv.DictReader(io.StringIO(buf.getvalue()))
    row = next(reader)
    for col in ("medium", "a_part", "b_part", "channel", "fibers", "polarity", "loss_db", "margin_db", "status"):
        assert col in row
    assert row["medium"].startswith("fiber") and row["channel"].startswith("C")


def test_fiber_totals_count_eight_active_fibers_per_parallel_link(four_su_optical):
    fibers = four_su_optical.summary["fibers"]["total"]
    optical = sum(1 for c in four_su_optical.physical.choices if c and c.optical)
    assert fibers["active"] == 8 * optical


def test_panels_mode_routes_inter_rack_links_through_two_cords_and_a_trunk(catalog):
    r = _design(catalog, servers=31, physical={"default_tier": {"medium": "single-mode", "cabling": "panels"}})
    inter = [i for i, link in enumerate(r.links)
             if r.places[link.a].rack != r.places[link.b].rack and r.physical.choices[i]]
    assert inter
    kinds = {row[0]: row for row in r.physical.cable_rows}
    for i in inter[:50]:
        cord_a, trunk, cord_b = r.physical.cables[i]
        assert kinds[cord_a][1] == "cord" and kinds[trunk][1] == "trunk" and kinds[cord_b][1] == "cord"
    assert r.summary["trunks_total"] > 0


def test_a_bad_physical_policy_is_a_spec_error_at_its_path(catalog):
    with pytest.raises(SpecError) as exc:
        _design(catalog, physical={"tiers": {"leaf-spine": {"medium": "carrier-pigeon"}}})
    assert exc.value.errors[0].path.startswith("physical.tiers.leaf-spine")
