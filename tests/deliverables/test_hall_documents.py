"""Halls in the documents a cabling contractor works from (docs/site-model.md): cables.csv gives the hall of each
end, labels.csv the hall of each label, and the cabling plan names each rack's hall in a design over several halls; a one-hall design's files keep
their columns and titles."""

from __future__ import annotations

import csv
import io

import pytest

from engine.columns import HALL_COLUMNS

TWO_HALLS = {  # tests/engine/test_site_halls.py's design: pod 2 opens hall 2, spine-core links cross
    "name": "two halls",
    "servers": {"model": "dgx-h100", "count": 256},
    "compute_fabric": {"technology": "infiniband", "switch": "qm9700", "scalable_unit": 32, "tiers": 3},
    "site": {"max_racks_per_hall": 50},
}


@pytest.fixture(scope="module")
def two_halls():
    from engine.pipeline import compute_design
    from engine.spec import parse_spec

    return compute_design(parse_spec(TWO_HALLS))


def _hall_of_end(result, end) -> int:
    ri = end[1] if end[0] == "panel" else result.places[end[0]].rack
    return result.racks[ri].hall + 1


def _rows(lines) -> list[list[str]]:
    return list(csv.reader(io.StringIO("".join(lines))))


def test_cables_csv_gives_the_hall_of_each_end_over_several_halls(two_halls):
    from deliverables import CABLE_CSV_COLUMNS, iter_cables_csv

    header, *rows = _rows(iter_cables_csv(two_halls))
    assert tuple(header) == CABLE_CSV_COLUMNS + HALL_COLUMNS
    assert len(rows) == len(two_halls.physical.cable_rows)
    for row, raw in zip(rows, two_halls.physical.cable_rows):
        assert row[0] == f"C{raw[0]:06d}"
        assert (int(row[-2]), int(row[-1])) == (_hall_of_end(two_halls, raw[4]), _hall_of_end(two_halls, raw[5]))
    trunks_between = [r for r in rows if r[header.index("type")] == "trunk" and r[-2] != r[-1]]
    assert trunks_between and {(r[-2], r[-1]) for r in trunks_between} <= {("1", "2"), ("2", "1")}


def test_the_fast_lines_equal_csv_writer_over_the_rows_with_halls(two_halls):
    from deliverables import iter_cables_csv
    from deliverables.cabling import iter_cable_rows

    fast = _rows(iter_cables_csv(two_halls, raw=True))[1:]
    reference = [[str(c) for c in r] for r in iter_cable_rows(two_halls)]
    assert fast == reference


def test_a_rack_scoped_cables_csv_keeps_the_hall_columns(two_halls):
    from deliverables import iter_cables_csv

    rack = next(r for r in two_halls.racks if r.hall == 1 and r.kind == "spine")
    header, *rows = _rows(iter_cables_csv(two_halls, rack=rack.id))
    assert header[-2:] == list(HALL_COLUMNS)
    assert rows and all("2" in (r[-2], r[-1]) for r in rows)
    assert any(r[-2] != r[-1] for r in rows)  # its uplinks to the cores in the MDA, hall 1


def test_a_one_hall_design_keeps_its_cables_csv_columns(design):
    from deliverables import CABLE_CSV_COLUMNS, iter_cables_csv
    from deliverables.cabling import iter_cable_rows

    assert tuple(_rows(iter_cables_csv(design))[0]) == CABLE_CSV_COLUMNS
    assert len(next(iter_cable_rows(design))) == len(CABLE_CSV_COLUMNS)


def test_the_cabling_plan_names_each_rack_s_hall_over_several_halls(two_halls, design):
    from deliverables import DesignView
    from deliverables.cabling import _hall_lines

    v = DesignView(two_halls)
    for ri, r in enumerate(two_halls.racks):
        assert v.rack_title(ri).startswith(f"Hall {r.hall + 1} \u00b7 Row {r.row_name} \u00b7 ")
    (line,) = _hall_lines(v)
    assert line.startswith("Halls: 2 (Hall 1: ") and "a_hall" in line
    one = DesignView(design)
    assert one.rack_title(0).startswith("Row ") and _hall_lines(one) == []


def test_the_cabling_plan_of_two_halls_renders(two_halls, tmp_path):
    from deliverables import render_cabling_plan_pdf

    with open(tmp_path / "plan.pdf", "wb") as fh:
        pages = render_cabling_plan_pdf(two_halls, fh, {"date": "2026-01-15"})
    assert pages > 1


def test_labels_csv_names_each_label_s_hall_over_several_halls(two_halls):
    """A print run is split by hall: every label's row names the hall of the rack it goes on."""
    from deliverables import LABEL_CSV_COLUMNS, iter_labels_csv

    header, *rows = _rows(iter_labels_csv(two_halls))
    assert tuple(header) == (*LABEL_CSV_COLUMNS, "hall")
    hall_of = {r.id: r.hall + 1 for r in two_halls.racks}
    rack, hall = header.index("rack"), header.index("hall")
    assert rows and all(r[hall] == str(hall_of[r[rack]]) for r in rows)
    assert {r[hall] for r in rows} == {"1", "2"}


def test_a_one_hall_design_keeps_its_labels_csv_columns(design):
    from deliverables import LABEL_CSV_COLUMNS, iter_labels_csv

    assert tuple(_rows(iter_labels_csv(design))[0]) == LABEL_CSV_COLUMNS
