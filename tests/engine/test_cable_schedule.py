"""The one cable-row and label implementation (engine/cable_schedule.py): the installer's schedule, the stored
rows and the engine's cables.csv say the same thing about every cable, and the fast formatting paths say what
the plain ones say."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.cable_schedule import CABLE_COLUMNS, SCHEDULE_COLUMNS, CableSchedule
from engine.physical.labels import CABLE_PLACEHOLDERS, END_PLACEHOLDERS, compile_template, fast_format
from engine.pipeline import compute_design
from engine.spec import parse_spec

from .conftest import spec

PANELS = {"tiers": {"leaf-spine": {"medium": "single-mode", "cabling": "panels", "trunk_base": 8}}}


@pytest.fixture(scope="module")
def panelled():
    labels = {"end": "<device>:<port:03>@<grid>", "own_end_first": False}
    return compute_design(parse_spec(spec(physical=dict(PANELS, labels=labels))))


def test_the_schedule_leads_with_the_engine_columns_and_agrees_with_them_row_for_row(panelled):
    schedule = CableSchedule(panelled)
    engine_rows = list(panelled.physical.cable_rows_out(panelled))
    rows = list(schedule.schedule_rows())
    assert SCHEDULE_COLUMNS[: len(CABLE_COLUMNS)] == CABLE_COLUMNS
    assert len(rows) == len(engine_rows) > 0
    assert {r[3] for r in rows} >= {"trunk"}  # panels and trunks are covered, not only device-to-device cords
    assert [r[: len(CABLE_COLUMNS)] for r in rows] == engine_rows


def test_rows_in_a_given_order_are_the_same_rows(panelled):
    schedule = CableSchedule(panelled)
    every = list(schedule.schedule_rows())
    picked = [len(every) - 1, 0, len(every) // 2]
    assert list(schedule.schedule_rows(picked)) == [every[i] for i in picked]


def test_the_stored_rows_carry_the_same_labels(panelled):
    engine_rows = list(panelled.physical.cable_rows_out(panelled))
    stored = list(panelled.physical.cable_db_rows(panelled, 42))
    assert all(s[0] == 42 for s in stored)
    assert [(s[15], s[16]) for s in stored] == [(r[14][:128], r[15][:128]) for r in engine_rows]


def _stored(row: tuple, revision_id: int, hall: dict) -> tuple:
    """A cables.csv row as the database stores it: integer id, NULL for an unplaced end's U, each end's hall."""
    cid, *cells, la, lb, links = row
    ends = cells[5:9], cells[9:13]
    typed = [(*e[:3], None if e[3] == "" else e[3]) for e in ends]
    halls = [hall.get(e[2]) for e in ends]
    return (revision_id, int(cid[1:]), *cells[:5], *typed[0], *typed[1], la[:128], lb[:128], links[:256], *halls)


def _unplaced_first_server(result):
    server = next(d.idx for d in result.devices if d.role == "server")
    places = list(result.places)
    places[server] = None
    return replace(result, places=places)


@pytest.mark.parametrize("unplaced", [False, True])
def test_every_stored_row_is_the_cables_csv_row_typed_for_the_database(panelled, unplaced):
    result = _unplaced_first_server(panelled) if unplaced else panelled
    hall = {r.id: r.hall + 1 for r in result.racks}
    stored = list(CableSchedule(result).db_rows(42))
    expected = [_stored(r, 42, hall) for r in CableSchedule(result).rows()]
    assert stored == expected
    assert {r[4] for r in stored} >= {"trunk"} and any(None in (r[10], r[14]) for r in stored) == unplaced
    assert [tuple(map(type, r)) for r in stored] == [tuple(map(type, r)) for r in expected]


@pytest.mark.parametrize("end", ["<device>", "<port>/<device>/<port:03>", "{<device>}:<port:03>.<ru>"])
def test_stored_rows_carry_the_labels_of_any_end_template(panelled, end):
    """The stored rows' loop joins a device's label from its template's head, the port and its tail when the
    end template names the port once (the fixture's, and one here with braces and a tail), and
    formats each device's template otherwise (no port, the port twice): both say what cables.csv says."""
    ph = panelled.physical
    labels = replace(ph.policy.labels, end=end)
    result = replace(panelled, physical=replace(ph, policy=replace(ph.policy, labels=labels)))
    hall = {r.id: r.hall + 1 for r in result.racks}

    stored = list(CableSchedule(result).db_rows(42))
    assert stored == [_stored(r, 42, hall) for r in CableSchedule(result).rows()]
    assert (CableSchedule(result)._device_splits() is None) == (end.count("<port") != 1)


@pytest.mark.parametrize(
    "template",
    ["<near>/<far>", "<cable> <near>/<far>", "<cable:08>|<tier><near>", "{<near>}/<far>", "'<near>\"<far>"],
)
def test_fast_format_writes_what_format_writes(template):
    compiled = compile_template(template, CABLE_PLACEHOLDERS)
    args = ("DC1.A01-07:17", "DC1.B02-40:3", "C000012", "")
    assert fast_format(compiled, 4)(*args) == compiled.format(*args)


def test_fast_format_pads_as_the_template_says():
    compiled = compile_template("<ru:02>-<port:03>", END_PLACEHOLDERS)
    args = ("", "", "", 7, "4", "", "", "", "", "", "", "")
    assert fast_format(compiled, len(args))(*args) == "07-004"


class _OddId(int):
    """An int that prints itself otherwise than its digits (str), as no plain int does."""

    def __str__(self) -> str:
        return "odd"


@pytest.mark.parametrize("column", [0, 6])
def test_ids_that_are_not_plain_ints_are_stored_as_a_plain_int_would_be(panelled, column):
    """The stored rows' loop writes a cable's id and its one link's id with str.zfill, which only a plain int
    writes as f"{n:06d}" does: an id of another kind (here a cable id, then a link id) sends every row the
    general way, which writes the same cells for the same numbers."""
    ph = panelled.physical
    labels = replace(ph.policy.labels, cable="<cable> <near>/<far>")  # a label that prints the cable id
    plain = replace(panelled, physical=replace(ph, policy=replace(ph.policy, labels=labels)))
    rows = [list(r) for r in ph.cable_rows]
    single = next(r for r in rows if len(r[6]) == 1 and r[1] != "trunk")
    single[column] = _OddId(single[0]) if column == 0 else [_OddId(single[6][0])]
    odd = replace(plain, physical=replace(plain.physical, cable_rows=rows))

    expected = list(CableSchedule(plain).db_rows(42))
    assert list(CableSchedule(odd).db_rows(42)) == expected
    assert f"C{single[0]:06d} " in expected[rows.index(single)][15]
    assert not CableSchedule(odd)._plain_ids() and CableSchedule(plain)._plain_ids()


def _relabelled(result, **labels):
    ph = result.physical
    new = replace(ph.policy.labels, **labels)
    return replace(result, physical=replace(ph, policy=replace(ph.policy, labels=new)))


@pytest.mark.parametrize("own_end_first", [True, False])
@pytest.mark.parametrize(
    ("panel", "trunk"),
    [("<rack>-<ru:02>", "<cable> <near>/<far> <tier>"), ("{<grid>}:<port>/<ru>", "<near>|<far>|<cable:08>")],
)
def test_a_trunks_stored_row_is_the_general_rows(panelled, panel, trunk, own_end_first):
    """db_rows writes a trunk from memos of its panels (_trunk_db_row): every row, trunks and the cords at
    their panels included, is what the general _db_row writes, for panel labels with and without the port (the
    engine's trunk-end port, then the rear port trunk_ports names) and either end first."""
    result = _relabelled(panelled, panel=panel, trunk=trunk, own_end_first=own_end_first)
    hall = {r.id: r.hall + 1 for r in result.racks}
    general = CableSchedule(result)
    expected = [general._db_row(row, 42, hall) for row in result.physical.cable_rows]
    assert list(CableSchedule(result).db_rows(42)) == expected
    assert sum(r[4] == "trunk" for r in expected) > 1 and any(r[8] != "T" for r in expected if r[4] == "trunk")


@pytest.fixture(scope="module")
def two_hall_panels():
    data = {
        "name": "two halls",
        "servers": {"model": "dgx-h100", "count": 256},
        "compute_fabric": {"technology": "infiniband", "switch": "qm9700", "scalable_unit": 32, "tiers": 3},
        "site": {"max_racks_per_hall": 50},
        "physical": {"tiers": {t: {"cabling": "panels"} for t in ("leaf-spine", "spine-core")}},
    }
    return compute_design(parse_spec(data))


def test_trunks_between_two_halls_are_stored_as_the_general_rows_store_them(two_hall_panels):
    result = two_hall_panels
    hall = {r.id: r.hall + 1 for r in result.racks}
    expected = [CableSchedule(result)._db_row(row, 7, hall) for row in result.physical.cable_rows]
    assert list(CableSchedule(result).db_rows(7)) == expected
    assert any(r[18] != r[19] for r in expected if r[4] == "trunk")  # a trunk crosses the pathway


@pytest.mark.parametrize("own_end_first", [True, False])
@pytest.mark.parametrize("cable", ["<near>/<far>", "<near> - <far>", "<near><far>", "<far>/<near>", "{<near>}/<far>"])
def test_cable_labels_joined_without_the_format_are_the_general_rows(panelled, cable, own_end_first):
    """db_rows joins a cable label of the near end, a literal and the far end itself (no format call); every
    row is still the general _db_row's, for that shape, the far end first and a literal brace."""
    result = _relabelled(panelled, cable=cable, own_end_first=own_end_first)
    hall = {r.id: r.hall + 1 for r in result.racks}
    expected = [CableSchedule(result)._db_row(row, 42, hall) for row in result.physical.cable_rows]
    assert list(CableSchedule(result).db_rows(42)) == expected
    if cable == "<near>/<far>":  # each end's label first at its own end, or the A end's in both
        a_end, b_end = next(r for r in expected if r[4] != "trunk")[15].split("/")
        assert (b_end + "/" + a_end in [r[16] for r in expected]) is own_end_first
