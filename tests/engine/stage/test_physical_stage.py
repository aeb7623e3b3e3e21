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


def _design(catalog, **kw):
    return compute_design(parse_spec(_spec(**kw)), catalog)


def _spec(*, servers=127, physical=None, reserved=1, managers=4, **compute) -> dict:
    spec = {
        "name": "t",
        "servers": {"model": "dgx-h100", "count": servers},
        "compute_fabric": {
            "technology": "infiniband",
            "switch": "qm9700",
            "scalable_unit": 32,
            "reserved_node_slots": reserved,
            "fabric_managers": managers,
            **compute,
        },
    }
    if physical is not None:
        spec["physical"] = physical
    return spec


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
    bom = {
        line["sku"]: line["quantity"] for line in four_su_optical.summary["bom"] if line["category"] == "transceiver"
    }
    server_side = sum(q for sku, q in bom.items() if sku.endswith("-FLT"))
    assert server_side == 508
    finned_twin = sum(
        q for sku, q in bom.items() if sku.startswith(("MMA4Z00", "MMS4X00")) and not sku.endswith(("-FLT", "NS400"))
    )
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
    assert counts["pass"] + counts["marginal"] + counts["fail"] == sum(1 for c in r.physical.choices if c and c.optical)


def test_cable_lengths_are_rounded_up_never_down(four_su_optical):
    r = four_su_optical
    for sku_len, run in zip(r.physical.cords, r.lengths_m):
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
    inter = [
        i for i, link in enumerate(r.links) if r.places[link.a].rack != r.places[link.b].rack and r.physical.choices[i]
    ]
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


# ----- BOM: lines and their split by network and SU ----------------------------------------------------


def _recount_split(r):
    """physical.bom_split counted the plain way: every link and every cable row, one by one."""
    su_of = [d.su for d in r.devices]
    cages = set()
    for link, choice in zip(r.links, r.physical.choices):
        if choice is None:
            continue
        if choice.a_module:
            cages.add((choice.a_module, link.a, link.a_cage, link.network))
        if choice.b_module:
            cages.add((choice.b_module, link.b, link.b_cage, link.network))
    modules = Counter((m, net, su_of[dev]) for m, dev, _cage, net in cages)
    cables, lengths = Counter(), {}
    for _cid, _kind, part, length, a, _b, _lids, _tier, net in r.physical.cable_rows:
        cables[(part, net, 0 if a[0] == "panel" else su_of[a[0]])] += 1
        lengths.setdefault(part, length)
    return modules, cables, lengths


@pytest.mark.parametrize("which", ["small", "panels", "medium"])
def test_bom_split_equals_a_recount_from_links_and_cables(which, catalog, four_su_optical):
    if which == "small":
        r = four_su_optical
    elif which == "panels":
        r = _design(
            catalog, servers=64, physical={"tiers": {"leaf-spine": {"medium": "single-mode", "cabling": "panels"}}}
        )
    else:  # 2,048 DGX H100 (16K GPUs, three tiers, ~49,000 links)
        r = _design(catalog, servers=2048)
    split = r.physical.bom_split
    modules, cables, lengths = _recount_split(r)
    assert split.transceivers == dict(modules)
    assert split.cables == dict(cables)
    assert split.cable_lengths == lengths
    # keys are sorted (deterministic), and the split adds up to the BOM lines
    assert list(split.transceivers) == sorted(split.transceivers)
    assert list(split.cables) == sorted(split.cables)
    per_sku = Counter()
    for (sku, _net, _su), n in list(split.transceivers.items()) + list(split.cables.items()):
        per_sku[sku] += n
    bom = {
        line["sku"]: line["quantity"]
        for line in r.summary["bom"]
        if line["category"] not in ("switch", "appliance", "panel", "panel-insert")
    }
    assert per_sku == Counter(bom)
    if which == "panels":
        assert any(s == 0 and n for (_p, _net, s), n in split.cables.items())  # panel A ends: no SU
    sus = {d.su for d in r.devices if d.su}
    assert {s for _m, _net, s in split.transceivers if s} == sus


def test_bom_counts_shared_cages_once_and_warns_about_two_modules_in_one_cage(catalog):
    """A cage end is one module: two links through one cage count once. Two modules for one cage are
    both counted and reported; a cage serving two networks counts once in the BOM and once per
    network in the split."""
    from types import SimpleNamespace

    from engine.model import Device, Link
    from engine.physical_stage import _bom

    devices = [
        Device(0, "srv-a", "server", "dgx-h100", su=1),
        Device(1, "srv-b", "server", "dgx-h100", su=2),
        Device(2, "sw", "server", "dgx-h100"),
    ]
    m1 = SimpleNamespace(a_module="M1", b_module="M1", a_power_w=10.0, b_power_w=10.0)
    m2 = SimpleNamespace(a_module="M2", b_module=None, a_power_w=12.0, b_power_w=None)
    links = [
        Link(1, "compute", 1, "t", 0, "1/1", "c1", 2, "1", "x1", 400),  # srv-a c1 + sw x1: M1
        Link(2, "compute", 1, "t", 0, "1/2", "c1", 2, "2", "x1", 400),  # same two cages: no new module
        Link(3, "storage", 1, "t", 0, "2/1", "c1", 2, "3", "x2", 400),  # srv-a c1 again, other network
        Link(4, "compute", 1, "t", 1, "1/1", "c1", 2, "4", "x3", 400),  # srv-b c1: M2 at A, nothing at B
        Link(5, "compute", 1, "t", 1, "1/2", "c1", 2, "5", "x4", 400),  # srv-b c1 with M1 too: mixed
        Link(6, "compute", 1, "t", 1, "1/3", "c2", 2, "6", "x5", 400),  # no medium
    ]
    choices = [m1, m1, m1, m2, m1, None]
    warnings: list[str] = []
    lines, split = _bom(devices, links, choices, [], [], (), catalog, warnings)
    qty = {line["sku"]: line["quantity"] for line in lines}
    # M1: srv-a c1, sw x1, sw x2, srv-b c1, sw x4 = 5 cages; M2: srv-b c1
    assert qty == {"M1": 5, "M2": 1}
    assert next(line["watts"] for line in lines if line["sku"] == "M1") == 50.0
    assert len(warnings) == 1 and warnings[0].startswith("1 cage(s) would need two different modules")
    assert split.transceivers == {
        ("M1", "compute", 0): 2,
        ("M1", "compute", 1): 1,
        ("M1", "compute", 2): 1,
        ("M1", "storage", 0): 1,
        ("M1", "storage", 1): 1,
        ("M2", "compute", 2): 1,
    }
    assert split.cables == {} and split.cable_lengths == {}


def test_bom_cable_lines_keep_the_first_rows_description():
    from engine.catalog import load_catalog
    from engine.model import Device
    from engine.physical_stage import _bom

    devices = [Device(0, "a", "server", "dgx-h100", su=3), Device(1, "b", "server", "dgx-h100")]
    rows = [
        [1, "cord", "P-3M", 3.0, (0, "1"), (1, "1"), [1], "t", "compute"],
        [2, "splitter", "P-3M", 3, (1, "2"), (0, "2"), [2], "t", "storage"],
        [3, "dac", "D-1M", 1.5, ("panel", 0, 40, "1"), (1, "3"), [3], "t", "compute"],
        [4, "cord", "P-3M", 3.0, (0, "3"), (1, "4"), [4], "t", "compute"],
    ]
    lines, split = _bom(devices, [], [], rows, [], (), load_catalog(), [])
    by_sku = {line["sku"]: line for line in lines}
    assert by_sku["P-3M"]["quantity"] == 3 and by_sku["P-3M"]["description"] == "cord 3 m"
    assert by_sku["P-3M"]["category"] == "fiber"
    # parts no media choice names fall back to kind and length (supplier descriptions need a catalog family)
    assert by_sku["D-1M"] == {
        "sku": "D-1M",
        "description": "dac 1.5 m",
        "category": "copper",
        "quantity": 1,
        "watts": None,
        "unconfirmed": "",
    }
    assert split.cables == {("D-1M", "compute", 0): 1, ("P-3M", "compute", 3): 2, ("P-3M", "storage", 0): 1}
    assert split.cable_lengths == {"P-3M": 3.0, "D-1M": 1.5}


def _rows_in_runs() -> list[list]:
    """Cable rows (id, kind, part, length, a end, b end, link ids, tier, network), each changing one field of the
    row before, some to an equal value in another object; a run's key comes back after others."""
    p, p2 = "P-3M", "".join(["P-", "3M"])  # equal, two objects
    m, m2 = 3.0, float("3")
    return [
        [1, "cord", p, m, (0, "1"), (1, "1"), [1], "node-leaf", "compute"],
        [2, "cord", p, m, (2, "1"), (1, "2"), [2], "node-leaf", "compute"],  # A-end device
        [3, "cord", p2, m, (0, "2"), (1, "3"), [3], "node-leaf", "compute"],  # part: an equal one
        [4, "cord", p2, m2, ("panel", 1, 40, 1), (1, "4"), [4], "node-leaf", "compute"],  # length: an equal one
        [5, "splitter", p2, m2, (0, "3"), (1, "5"), [5], "node-leaf", "compute"],  # kind
        [6, "splitter", p2, m2, (0, "4"), (1, "6"), [6], "leaf-spine", "compute"],  # tier
        [7, "splitter", p2, m2, (0, "5"), (1, "7"), [7], "leaf-spine", "storage"],  # network
        [8, "trunk", "T-9M", 9.0, ("panel", 1, 40, "T"), ("panel", 2, 40, "T"), [4], "node-leaf", "compute"],
        [9, "cord", p, m, (2, "2"), (1, "8"), [9], "node-leaf", "compute"],  # the first key again
        [10, "cord", "P-2M", m, (2, "3"), (1, "9"), [10], "node-leaf", "compute"],  # part
        [11, "cord", "P-2M", 2.0, (2, "4"), (1, "10"), [11], "node-leaf", "compute"],  # length
    ]


def test_cable_lines_from_runs_of_rows_count_as_row_by_row():
    """_cable_lines counts the rows by runs of fields that are one object (the physical stage's rows share them).
    Here each row changes one field of the row before, some to an equal value in another object, and a run's key
    comes back after others: the counts are those of a count row by row, in first-row order."""
    from engine.physical_stage import _cable_lines

    rows = _rows_in_runs()
    su_of = [1, 0, 2]
    added: list[tuple] = []
    kinds: dict = {}
    split, lengths = _cable_lines(
        lambda category, sku, desc, n, unconfirmed: added.append((category, sku, desc, n)),
        rows,
        su_of,
        lambda kind, part, length: (f"{kind} {part} {length:g} m", ""),
        kinds,
    )
    per_line = Counter((r[1], r[2], r[3]) for r in rows)  # row by row, in first-row order
    assert [(sku, n) for _c, sku, _d, n in added] == [(k[1], n) for k, n in per_line.items()]
    assert added[0] == ("fiber", "P-3M", "cord P-3M 3 m", 5)
    assert split == Counter((r[2], r[8], 0 if r[4][0] == "panel" else su_of[r[4][0]]) for r in rows)
    assert split[("P-3M", "compute", 2)] == 2 and split[("P-3M", "compute", 0)] == 1
    assert list(kinds.items()) == list(Counter((r[8], r[7], r[1]) for r in rows).items())
    assert lengths == {"P-3M": 3.0, "T-9M": 9.0, "P-2M": 3.0}


def test_panel_links_read_off_leg_runs_are_those_of_their_link_slots(catalog, monkeypatch):
    """The panel pass steps the panel ports of a demand kept as a LegRun (one trunk) or LegRuns (several trunks,
    one MPO link a leg) itself: the cable rows, cables, budgets and trunks are those it makes from the LinkSlots
    they stand for (TrunkPlan.slots, read link by link)."""
    from dataclasses import replace

    import engine.physical_stage as stage
    from engine.physical import LegRuns

    spec = parse_spec(_spec(physical={"default_tier": {"medium": "single-mode", "cabling": "panels"}}))
    kept: list = []
    plan_trunks = stage.plan_trunks

    def keeping(*args, **kwargs):
        plan = plan_trunks(*args, **kwargs)
        kept.extend(plan.slot_runs)
        return plan

    monkeypatch.setattr(stage, "plan_trunks", keeping)
    runs = compute_design(spec, catalog).physical
    assert any(type(s) is LegRuns for s in kept)

    def as_link_slots(*args, **kwargs):
        plan = plan_trunks(*args, **kwargs)
        return replace(plan, slot_runs=plan.slots)

    monkeypatch.setattr(stage, "plan_trunks", as_link_slots)
    slots = compute_design(spec, catalog).physical
    assert runs.cable_rows == slots.cable_rows and runs.cables == slots.cables and runs.cords == slots.cords
    assert runs.budgets == slots.budgets and runs.statuses == slots.statuses and runs.trunks == slots.trunks
    assert runs.bom == slots.bom


def test_the_cabling_check_counts_the_rows_as_the_roll_up_does():
    """verify_cabling's pass over the cable rows counts them for the roll-up (_read_rows' `counts`) as _row_counts
    does, keys and A-end fields in first-row order, and reads them for its checks as it does without counting."""
    from engine.physical_stage import _row_counts
    from engine.verify_cabling import _read_rows

    rows = _rows_in_runs()
    units_at = [set(), {40}, {40}]
    counts: dict = {}
    read = _read_rows(rows, units_at, 3, counts)
    assert read == _read_rows(rows, units_at, 3) == ([8], 20, False)
    expected = _row_counts(rows)
    assert list(counts) == list(expected) and counts == expected
    assert [list(v.items()) for v in counts.values()] == [list(v.items()) for v in expected.values()]


@pytest.mark.parametrize("checked_first", [True, False], ids=["checks-then-roll-up", "roll-up-first"])
def test_the_roll_up_takes_the_checks_row_counts_only_before_it_starts(catalog, monkeypatch, checked_first):
    """finish_design runs the checks first: their pass over the cable rows hands its counts to the roll-up, which
    does not count the rows again. A roll-up that has started (the store runs both in threads) ignores counts
    handed over after it and counts the rows itself: the BOM is the same either way."""
    import engine.physical_stage as stage
    from engine.pipeline import check_design, finish_design, start_design

    spec = parse_spec(_spec(servers=31, physical={"default_tier": {"medium": "single-mode", "cabling": "panels"}}))
    reference = compute_design(spec, catalog)
    draft = start_design(spec, catalog)
    own_counts: list = []
    row_counts = stage._row_counts
    monkeypatch.setattr(stage, "_row_counts", lambda rows: own_counts.append(1) or row_counts(rows))
    if checked_first:
        result = finish_design(draft)
    else:
        result = finish_design(draft, checks=())
        assert not draft.physical.wants_row_counts()
        check_design(draft)
    assert own_counts == ([] if checked_first else [1])
    assert result.physical.bom == reference.physical.bom and result.physical.bom_split == reference.physical.bom_split
    assert result.physical.cable_kinds == reference.physical.cable_kinds


def test_links_by_rack_pair_count_as_link_by_link():
    """_roll_up's count of the links cabled directly by (network, tier, rack A, rack B, choice's number) by runs of
    links within each tier run: a tier named by another object, a key coming back after others, a run ending on
    any one field and a link between quarter-rate cages (~i in _Pass.direct) count as a Counter of the keys
    would; links not cabled directly (three cables, or none) are not read."""
    from engine.model import Link
    from engine.physical_stage import _links_by_rack_pair
    from engine.summary import tier_runs

    c1, c2, c3 = object(), object(), object()
    tier = "".join(["leaf-", "spine"])  # equal to "leaf-spine", another object
    rows = [  # (network, tier, a, b, choice, cables): each row changes one field of the row before
        ("compute", "leaf-spine", 0, 2, c1, (1,)),
        ("compute", "leaf-spine", 1, 2, c1, (2,)),  # devices 0 and 1 share rack 0: the same key
        ("compute", tier, 0, 2, c1, (3,)),  # the same key
        ("compute", "leaf-spine", 0, 2, c1, (3,)),  # the same key (a quarter-rate pair below)
        ("compute", "leaf-spine", 0, 3, c1, (4,)),  # rack B
        ("compute", "leaf-spine", 2, 3, c1, (5,)),  # rack A
        ("compute", "leaf-spine", 2, 3, c2, (6,)),  # choice
        ("compute", "leaf-spine", 2, 3, c2, (7, 8, 9)),  # through panels: not cabled directly
        ("compute", "leaf-spine", 2, 3, c2, (10,)),
        ("storage", "leaf-spine", 2, 3, c2, (11,)),  # network
        ("storage", "node-leaf", 2, 3, c2, (12,)),  # tier
        ("compute", "leaf-spine", 4, 2, None, ()),  # device 4 unplaced: rack -1, no medium
        ("compute", "leaf-spine", 0, 2, c1, (13,)),  # the first key again
        ("compute", "leaf-spine", 0, 3, c3, (14,)),  # a choice without a number (not optical)
    ]
    links = [Link(i, net, 0, t, a, "p", "c", b, "q", "d", 800) for i, (net, t, a, b, _c, _x) in enumerate(rows)]
    rack_of = [0, 0, 1, 2, -1]
    direct = [~i if i == 3 else i for i, r in enumerate(rows) if len(r[5]) == 1]
    racks = ([rack_of[r[2]] for r in rows], [rack_of[r[3]] for r in rows])
    numbers = {id(c1): 7, id(c2): 8}  # c3: not numbered (-1)
    counted = _links_by_rack_pair([r[4] for r in rows], direct, racks, tier_runs(links), numbers)
    expected = Counter(
        (r[0], r[1], rack_of[r[2]], rack_of[r[3]], numbers.get(id(r[4]), -1)) for r in rows if len(r[5]) == 1
    )
    assert counted == expected
    assert counted[("compute", "leaf-spine", 0, 1, 7)] == 5
    assert counted[("compute", "leaf-spine", 0, 2, -1)] == 1
    assert _links_by_rack_pair([r[4] for r in rows], [1], racks, tier_runs(links), numbers) == {
        ("compute", "leaf-spine", 0, 1, 7): 1
    }


@pytest.mark.parametrize(
    "physical",
    [ALL_OPTICAL, {"tiers": {"leaf-spine": {"cabling": "panels"}}}, None],
    ids=["all-optical", "leaf-spine-panels", "default"],
)
def test_the_media_pass_marks_count_the_cages_the_links_give(physical, catalog, monkeypatch):
    """The transceivers _bom counts from the marks the media pass leaves on the cages (run_physical) are those
    a pass over the links and their choices counts (_module_cages): per network and module by device, per
    module, the watts, in the same orders."""
    import engine.physical_stage as ps

    seen = []
    real_bom = ps._bom

    def spy(devices, links, choices, *args, module_cages=None, **kwargs):
        seen.append((module_cages, ps._cage_counts(*ps._module_cages(links, choices))))
        return real_bom(devices, links, choices, *args, module_cages=module_cages, **kwargs)

    monkeypatch.setattr(ps, "_bom", spy)
    _design(catalog, physical=physical)
    (marked, counted), *_ = seen
    assert marked is not None  # no cage was marked two ways
    split, by_module, watts, mixed = marked
    assert [(net, list(by_m)) for net, by_m in split.items()] == [(net, list(by_m)) for net, by_m in counted[0].items()]
    assert split == counted[0] and mixed == counted[3] == 0
    assert list(by_module.items()) == list(counted[1].items()) and sum(map(len, by_module.values()))
    assert list(watts.items()) == list(counted[2].items())


def test_worst_links_from_the_pass_budgets_rank_ties_by_first_use():
    """The worst links from the budgets the pass made (in the order it made them) are those a look over every
    link finds: equal margins are ranked by their budgets' first use in link order either way."""
    from types import SimpleNamespace

    from engine.physical_stage import _worst_links

    b1, b2, b3, b4 = (SimpleNamespace(margin_db=m) for m in (1.0, 0.5, 0.5, 2.0))
    links = [SimpleNamespace(id=n) for n in range(1, 9)]
    budgets = [b4, b3, b1, b2, None, b3, b2, b1]
    expected = [(0.5, 2), (0.5, 6), (0.5, 4), (0.5, 7), (1.0, 3)]
    assert _worst_links(links, budgets, 5) == expected
    assert _worst_links(links, budgets, 5, [b1, b2, b3, b4]) == expected  # b2 made before b3: a tie
    assert _worst_links(links, budgets, 2, [b4, b2, b1, b3]) == expected[:2]
    b2.margin_db = 0.25  # no tie among the budgets used: ranked by margin alone
    assert _worst_links(links, budgets, 3, [b1, b3, b4, b2]) == [(0.25, 4), (0.25, 7), (0.5, 2)]


@pytest.mark.parametrize("step", [1, 7, 50000, 49999])
def test_the_media_pass_reports_progress_at_the_multiples_of_50000_it_meets(step):
    """_media_links tests an index against the next multiple of 50,000 (_report_progress) instead of taking a
    modulo per link: it reports exactly the indexes a modulo finds, whatever indexes its pass skips (the other
    pass's links; steps of 7 and 49,999 meet some multiples and pass over others)."""
    from engine.physical_stage import _report_progress

    idx = range(3 * step % 11, 400_000, step)
    reported: list[int] = []
    report_at = 0
    for i in idx:
        if i >= report_at:
            report_at = _report_progress(lambda _name, at, _n: reported.append(at), i, 400_000)
    assert reported == [i for i in idx if i % 50000 == 0]
    assert reported or step == 50000  # a step of 50,000 from an offset of 4 meets none


def test_the_direct_links_added_after_the_pass_are_those_it_would_append_one_by_one():
    """The pass of the links not through panels hands back the links it skipped (no medium) and where each run of
    one pair of cage ends starts (whether quarter-rate); _direct_in_bulk adds its links to _Pass.direct as the pass
    appended them: in order, without the skipped, a link between quarter-rate cages as ~index."""
    from array import array

    from engine.physical_stage import _direct_in_bulk

    idx = array("i", [0, 2, 3, 5, 8, 9, 12, 13])
    plain = array("i")
    _direct_in_bulk(plain, idx, [], [(0, False), (5, False)])
    assert list(plain) == list(idx)
    direct = array("i", [1])  # the entries before stay first
    _direct_in_bulk(direct, idx, [3, 12], [(0, False), (5, True), (9, False), (13, True)])
    assert list(direct) == [1, 0, 2, ~5, ~8, 9, ~13]
    # a link skipped for want of a cage model comes before the first run (its cage ends are never compared)
    over_range = array("i")
    _direct_in_bulk(over_range, range(5), [0, 3], [(1, True), (4, False)])
    assert list(over_range) == [~1, ~2, 4]


@pytest.mark.parametrize("physical", [{"tiers": {"leaf-spine": {"cabling": "panels"}}, "trunk_diversity": True}, None])
def test_the_panel_links_demands_are_those_of_a_key_per_link(physical, catalog, monkeypatch):
    """_media_links looks a panel link's demand up when its racks, choice, network or tier change from the link
    before's (links come in runs of one demand): each demand holds the links a key built per link gives it, in
    link order (with trunk diversity a demand is looked up per link, as the spine group is per link pair)."""
    import engine.physical_stage as ps

    real = ps._tier_cables
    seen = []

    def spy(p, tier, groups, plan, units):
        seen.append(p)
        return real(p, tier, groups, plan, units)

    monkeypatch.setattr(ps, "_tier_cables", spy)
    _design(catalog, physical=physical or {"tiers": {"leaf-spine": {"cabling": "panels"}}})
    p = seen[0]
    rack_of = [-1 if pl is None else pl.rack for pl in p.places]
    groups = ps._spine_groups(p.links) if p.policy.trunk_diversity else {}
    expected: dict = {}
    for i, (lk, choice) in enumerate(zip(p.links, p.choices)):
        ra, rb = rack_of[lk.a], rack_of[lk.b]
        if choice is None or not choice.optical or ra == rb or ra < 0 or rb < 0 or lk.tier != "leaf-spine":
            continue
        key = (lk.tier, lk.network, ra, rb, p.demand_id[id(choice)], groups.get((lk.tier, lk.a, lk.b), 0))
        expected.setdefault(key, []).append(i)
    assert expected and {k: list(v) for k, v in p.demands.items()} == expected


def test_equal_channels_are_checked_once_and_get_the_same_problems(monkeypatch):
    """_Budgets builds a channel per choice, but its polarity and component checks (check_channel, a pure function
    of the channel's value) run once per distinct channel: two panel choices for one cage pair at two run lengths
    build equal channels (the cords at the panels do not depend on the run), which share one check's answer. Each
    choice keeps a channel object and loss budget of its own."""
    import engine.physical_stage as ps
    from engine.physical import select_media
    from engine.physical.channel import check_channel
    from tests.engine.physical.builders import Q3400_CAGE, policy, req

    media = load_catalog(with_media=True).media
    pol = policy(leaf_spine={"cabling": "panels", "medium": "single-mode"})
    c1, c2 = (select_media(req(Q3400_CAGE, Q3400_CAGE, run, aligned=True), pol, media) for run in (120.0, 180.0))
    assert c1 is not c2 and c1 != c2
    calls = []
    monkeypatch.setattr(ps, "check_channel", lambda ch: calls.append(ch) or check_channel(ch))
    budget_of = ps._Budgets(pol)
    b1, s1, p1 = budget_of(c1, True, 120.0)
    b2, s2, p2 = budget_of(c2, True, 180.0)
    ch1, ch2 = (budget_of.channels[(id(c), True, 1, 1)][0] for c in (c1, c2))
    assert ch1 == ch2 and ch1 is not ch2 and b1 is not b2
    assert len(calls) == 1
    for ch, status, problem in ((ch1, s1, p1), (ch2, s2, p2)):
        fresh = check_channel(ch)
        assert problem == (str(fresh[0]) if fresh else None)
        assert status == "fail" or not fresh
        assert budget_of.channels[(id(c1 if ch is ch1 else c2), True, 1, 1)][1] == tuple(fresh)


def test_a_switch_cage_end_is_worked_out_once_per_model_role_and_speed(catalog, monkeypatch):
    """The cage end of a switch depends on its model, role and the link speed alone: the physical stage works it
    out once for each such triple and hands every switch of it the same CageEnd, not once per switch. Appliances
    (servers, UFMs) keep theirs per cage."""
    import engine.physical_stage as ps
    from engine.model import APPLIANCE_ROLES

    asked = []
    real = ps._cage_end

    def counted(d, cage, speed, *rest):
        asked.append((d.model, d.role, speed) if d.role not in APPLIANCE_ROLES else None)
        return real(d, cage, speed, *rest)

    monkeypatch.setattr(ps, "_cage_end", counted)
    r = _design(catalog, physical=ALL_OPTICAL)
    switch_asks = [k for k in asked if k is not None]
    switches = sum(d.role not in APPLIANCE_ROLES for d in r.devices)
    assert switch_asks and len(switch_asks) == len(set(switch_asks)) < switches
