"""Patch panels on several tiers: each panel has rack units of its own, each port one cord, each label one cable.

128 DGX H100 (5 SUs with the UFM slot), single-mode optics, every tier through patch panels, 20 units kept
for panels (the case found by reading the outputs line by line):

    server rack            network rack (SU leaves)                 spine rack
    [DGX] --cord--> [PP node-leaf] ==trunk==> [PP node-leaf] --cord--> [leaf]
                                              [PP leaf-spine] <--cord-- [leaf]
                                                        ==trunk==> [PP leaf-spine] --cord--> [spine]

The node-leaf and leaf-spine panels of one network rack used to get the same rack units (1,024 panel ports
with two cords, 175 panels ordered and 131 placed).
"""

from __future__ import annotations

from collections import Counter

import pytest

from engine.cable_schedule import EndRenderer
from engine.catalog import load_catalog
from engine.errors import EngineInvariantError
from engine.pipeline import compute_design, start_design
from engine.spec import parse_spec
from engine.verify_cabling import verify_cabling
from tests.engine.conftest import spec

PANELS = {"default_tier": {"medium": "single-mode", "cabling": "panels"}}
SPEC = spec(compute_fabric={"reserved_node_slots": 1}, layout={"panel_units": 20}, physical=PANELS)


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


@pytest.fixture(scope="module", params=[False, True], ids=["default-trunks", "trunk-diversity"])
def design(catalog, request):
    """The design as planned by default, and with physical.trunk_diversity (each half of the spines on trunks and
    panels of its own): every invariant holds for both."""
    return compute_design(parse_spec({**SPEC, "physical": {**PANELS, "trunk_diversity": request.param}}), catalog)


def _panel_ends(result):
    for row in result.physical.cable_rows:
        for end in (row[4], row[5]):
            if end[0] == "panel":
                yield row, end


def test_no_panel_port_carries_two_cords(design):
    cords = Counter(end for row, end in _panel_ends(design) if row[1] == "cord")
    assert cords and max(cords.values()) == 1


def test_both_tiers_share_network_racks_on_units_of_their_own(design):
    """The same rack holds node-leaf and leaf-spine panels, and no two panels share a unit."""
    places = design.physical.panel_places
    tiers_by_rack: dict[int, set] = {}
    for p in places:
        tiers_by_rack.setdefault(p.rack, set()).add(p.tier)
    assert any(len(t) == 2 for t in tiers_by_rack.values())
    units = Counter((p.rack, u) for p in places for u in range(p.u, p.u + p.rack_units))
    assert max(units.values()) == 1


def test_every_placed_panel_is_ordered_and_every_ordered_panel_placed(design):
    ordered = sum(line["quantity"] for line in design.summary["bom"] if line["category"] == "panel")
    placed = {(p.rack, p.u) for p in design.physical.panel_places}
    used = {(end[1], end[2]) for _row, end in _panel_ends(design)}
    assert ordered == len(placed) == len(design.physical.panel_places)
    assert used <= placed


def test_every_cable_end_label_is_unique(design):
    labels = [label for row in design.physical.cable_rows_out(design) for label in (row[14], row[15])]
    assert len(labels) == len(set(labels))


def test_the_cabling_invariants_run_on_every_result(design):
    assert {"one-cable-per-port", "panels-placed-as-ordered", "unique-labels"} <= set(design.checks)


# --- the invariants catch what they promise -------------------------------------------------------------


@pytest.fixture()
def draft(catalog):
    return start_design(parse_spec(SPEC), catalog)


def _verify(draft):
    ph = draft.physical
    return verify_cabling(
        devices=draft.devices,
        places=draft.places,
        racks=draft.racks,
        physical=ph,
        rack_units=draft.spec.layout.rack_units,
        renderer=EndRenderer(draft, ph.policy.labels),
    )


@pytest.mark.parametrize("marks", [True, False], ids=["marks", "dict"])
def test_a_panel_port_with_two_cords_is_an_invariant_error(draft, monkeypatch, marks):
    """Panel ends are marked per (unit, port) in a bytearray by rack, or a dict past verify._MARKS_MAX."""
    if not marks:
        monkeypatch.setattr("engine.verify._MARKS_MAX", 0)
    rows = draft.physical.cable_rows
    i, j = [k for k, row in enumerate(rows) if row[1] == "cord" and row[5][0] == "panel"][:2]
    rows[j] = [*rows[j][:5], rows[i][5], *rows[j][6:]]
    with pytest.raises(EngineInvariantError, match=r"^patch panel DC1\.\S+ U\d+ port \d+ carries 2 cords$"):
        _verify(draft)


@pytest.mark.parametrize("marks", [True, False], ids=["marks", "dict"])
def test_a_device_port_with_two_cables_is_an_invariant_error(draft, monkeypatch, marks):
    """Device ends are marked per port name in a bytearray by device, or a dict past verify._MARKS_MAX."""
    if not marks:
        monkeypatch.setattr("engine.verify._MARKS_MAX", 0)
    rows = draft.physical.cable_rows
    i, j = [k for k, row in enumerate(rows) if row[1] == "cord" and row[4][0] != "panel"][:2]
    rows[j] = [*rows[j][:4], rows[i][4], *rows[j][5:]]
    dev, port = rows[i][4]
    with pytest.raises(EngineInvariantError, match=rf"^port {draft.devices[dev].name} {port} carries 2 cables$"):
        _verify(draft)


def test_a_cable_to_a_device_that_does_not_exist_is_an_invariant_error(draft):
    rows = draft.physical.cable_rows
    i = next(k for k, row in enumerate(rows) if row[1] == "cord" and row[4][0] != "panel")
    rows[i] = [*rows[i][:4], (len(draft.devices), rows[i][4][1]), *rows[i][5:]]
    with pytest.raises(EngineInvariantError, match=r"^a cable names a device or rack that does not exist$"):
        _verify(draft)


@pytest.mark.parametrize("marks", [True, False], ids=["marks", "dict"])
@pytest.mark.parametrize("kind", ["cord", "trunk"])
def test_a_cable_on_a_panel_that_is_not_placed_is_named(draft, monkeypatch, kind, marks):
    """The first cable in row order whose end names a unit no placed panel starts at: a cord's front port or a
    trunk's rear adapter. A cord's panel ends are marked in a bytearray by rack, or a dict past verify._MARKS_MAX."""
    if not marks:
        monkeypatch.setattr("engine.verify._MARKS_MAX", 0)
    rows = draft.physical.cable_rows
    i = next(k for k, row in enumerate(rows) if row[1] == kind and row[5][0] == "panel")
    _panel, rack, _u, port = rows[i][5]
    rows[i] = [*rows[i][:5], ("panel", rack, 99, port), *rows[i][6:]]
    with pytest.raises(EngineInvariantError, match=rf"^cable C{rows[i][0]:06d} ends on a patch panel at \S+ U99 "):
        _verify(draft)


@pytest.mark.parametrize("marks", [True, False], ids=["marks", "dict"])
def test_a_cord_on_a_unit_with_panels_in_other_racks_only_is_named(draft, monkeypatch, marks):
    """Placement is held per rack: a cord moved onto a unit where other racks have panels and its own rack has
    none is found, with the same port on that unit of those racks in use (marks per (unit, port) span racks)."""
    if not marks:
        monkeypatch.setattr("engine.verify._MARKS_MAX", 0)
    rows = draft.physical.cable_rows
    units_of: dict[int, set] = {}
    for pp in draft.physical.panel_places:
        units_of.setdefault(pp.rack, set()).add(pp.u)
    used = {(end[2], end[3]) for row, end in _panel_ends(draft) if row[1] == "cord"}
    i, rack, u, port = next(
        (k, row[5][1], u, port)
        for k, row in enumerate(rows)
        if row[1] == "cord" and row[5][0] == "panel"
        for u, port in sorted(used)
        if u not in units_of[row[5][1]]
    )
    rows[i] = [*rows[i][:5], ("panel", rack, u, port), *rows[i][6:]]
    with pytest.raises(EngineInvariantError, match=rf"^cable C{rows[i][0]:06d} ends on a patch panel at \S+ U{u} "):
        _verify(draft)


@pytest.mark.parametrize("marks", [True, False], ids=["marks", "dict"])
def test_a_cord_to_a_rack_that_does_not_exist_is_an_invariant_error(draft, monkeypatch, marks):
    if not marks:
        monkeypatch.setattr("engine.verify._MARKS_MAX", 0)
    rows = draft.physical.cable_rows
    i = next(k for k, row in enumerate(rows) if row[1] == "cord" and row[5][0] == "panel")
    _panel, _rack, u, port = rows[i][5]
    rows[i] = [*rows[i][:5], ("panel", len(draft.racks), u, port), *rows[i][6:]]
    with pytest.raises(EngineInvariantError, match=r"^a cable names a device or rack that does not exist$"):
        _verify(draft)


def test_panels_on_the_same_units_are_an_invariant_error(draft):
    places = draft.physical.panel_places
    first = places[0]
    k = next(k for k, p in enumerate(places) if p.rack == first.rack and p.u != first.u)
    places[k] = places[k]._replace(u=first.u)
    with pytest.raises(EngineInvariantError, match=r"patch panel at DC1\.\S+ U\d+ shares U\d+ with a "):
        _verify(draft)


def test_an_ordered_panel_that_is_not_placed_is_an_invariant_error(draft):
    places = draft.physical.panel_places
    # the last panel of a rack: no cable names it only when it holds spare trunk legs; drop one that none names
    named = {(end[1], end[2]) for row in draft.physical.cable_rows for end in (row[4], row[5]) if end[0] == "panel"}
    k = next((k for k, p in enumerate(places) if (p.rack, p.u) not in named), None)
    if k is None:
        k = len(places) - 1
    del places[k]
    with pytest.raises(EngineInvariantError, match=r"(placed and \d+ ordered|that is not placed)"):
        _verify(draft)


def test_a_label_template_that_cannot_tell_cables_apart_is_a_warning(catalog):
    """End labels without the port: every cable of a device reads the same near end. The user chose it, so it is
    a warning naming two cables, not an engine error."""
    data = spec(physical={**PANELS, "labels": {"end": "<site>.<grid>-<ru:02>", "cable": "<near>/<far>"}})
    r = compute_design(parse_spec(data), catalog)
    (w,) = [w for w in r.warnings if w.startswith("physical.labels")]
    assert "cables C" in w and "are both labelled" in w
    assert "unique-labels" not in r.checks


def test_two_cables_with_one_label_under_the_engines_templates_are_an_invariant_error(catalog):
    """Direct cabling, default labels (<site>.<grid>-<ru>:<port>). Give SU 2's first server rack and its leaf rack
    the ids of SU 1's: node N01 of each SU then reads the same at both cable ends, though no port is shared."""
    from dataclasses import replace

    draft = start_design(parse_spec(spec()), catalog)
    names = {d.name: d.idx for d in draft.devices}
    racks = list(draft.racks)
    for su1, su2 in (("DGX-SU01-N01", "DGX-SU02-N01"), ("CF-SU01-L01", "CF-SU02-L01")):
        a, b = draft.places[names[su1]].rack, draft.places[names[su2]].rack
        racks[b] = replace(racks[b], id=racks[a].id)
    draft = replace(draft, racks=tuple(racks))
    with pytest.raises(EngineInvariantError, match=r"^cables C\d+ and C\d+ are both labelled 'DC1\."):
        _verify(draft)


def test_two_devices_on_one_unit_whose_cables_read_alike_are_an_invariant_error(catalog):
    """The same clash found by rack and unit (the default template's fast path): SU 2's node N01 and leaf L01 are put
    on the units of SU 1's, so the cable from N01 OSFP1P1 to L01 port 1/1 of each SU carries the same label."""
    from dataclasses import replace

    draft = start_design(parse_spec(spec()), catalog)
    names = {d.name: d.idx for d in draft.devices}
    places = list(draft.places)
    for su1, su2 in (("DGX-SU01-N01", "DGX-SU02-N01"), ("CF-SU01-L01", "CF-SU02-L01")):
        places[names[su2]] = places[names[su1]]
    draft = replace(draft, places=tuple(places))
    with pytest.raises(EngineInvariantError, match=r"^cables C\d+ and C\d+ are both labelled 'DC1\."):
        _verify(draft)


def test_two_trunks_with_one_id_and_the_same_panels_are_an_invariant_error(draft):
    """Trunk labels lead with the trunk's id, so distinct ids are taken as distinct labels without rendering them;
    two trunks with one id have their labels rendered, and a second trunk between the same panels reads the
    same (a trunk's label names its panels, not ports)."""
    rows = draft.physical.cable_rows
    i, j = [k for k, row in enumerate(rows) if row[1] == "trunk"][:2]
    rows[j] = list(rows[i])
    with pytest.raises(EngineInvariantError, match=rf"^two trunks are labelled 'C{rows[i][0]:06d} DC1\."):
        _verify(draft)


def test_two_trunks_with_one_id_between_other_panels_read_apart(draft):
    rows = draft.physical.cable_rows
    trunks = [k for k, row in enumerate(rows) if row[1] == "trunk"]
    i = trunks[0]
    j = next(k for k in trunks if (rows[k][4], rows[k][5]) != (rows[i][4], rows[i][5]))
    rows[j] = [rows[i][0], *rows[j][1:]]
    assert "unique-labels" in _verify(draft)


_LABEL_WARNING = """
import json, sys
from engine.pipeline import compute_design
from engine.spec import parse_spec
data = json.loads(sys.argv[1])
print(json.dumps([w for w in compute_design(parse_spec(data)).warnings if w.startswith("physical.labels")]))
"""


def test_the_label_warning_names_the_same_cables_and_label_in_every_process():
    """The warning is part of a stored revision and of its comparisons: the label it quotes (a cable's two labels,
    taken from a set) must not change with the process's string hashing (PYTHONHASHSEED)."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    # a cable label of the far end only, and trunk labels of the near one: a clash between two cords whose far
    # ends read alike, found while both labels of each cord are compared
    data = spec(physical={**PANELS, "labels": {"end": "<site>.<grid>-<ru:02>", "cable": "<far>", "trunk": "<near>"}})
    root = str(Path(__file__).resolve().parents[2])
    seen = set()
    for seed in ("1", "2", "3", "4"):
        out = subprocess.run(
            [sys.executable, "-c", _LABEL_WARNING, json.dumps(data)],
            env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": root},
            capture_output=True,
            text=True,
            check=True,
        )
        seen.add(out.stdout)
    assert len(seen) == 1 and "are both labelled" in next(iter(seen))
