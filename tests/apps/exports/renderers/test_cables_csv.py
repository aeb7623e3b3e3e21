"""cables.csv: the fast line builder (engine/cable_schedule.py, CableSchedule.schedule_csv_lines) writes exactly what csv.writer writes
for the same rows, whatever the label templates: port in the middle of the end label, padded ports,
labels that do not name their own end first, and templates that need quoting (the checked path)."""

from __future__ import annotations

import csv
import io

import pytest

PANELS = {"tiers": {"leaf-spine": {"medium": "single-mode", "cabling": "panels", "trunk_base": 8}}}

TEMPLATES = {
    "default": {},
    "port-first-padded": {"end": "<port:03>@<device>.<grid>-<ru:02>", "cable": "<cable> <near> to <far>"},
    "not-own-end-first": {"end": "<device>-<port>-<rack>", "own_end_first": False},
    "comma-in-label": {"end": "<device>, <port>"},  # every label needs quoting
    "quote-in-label": {"cable": '<near> "to" <far>'},
    "no-port": {"end": "<device>-<ru>"},  # the end template does not name the port
}


def _result(labels: dict):
    from engine.pipeline import compute_design
    from engine.presets import load_preset
    from engine.spec import parse_spec

    d = load_preset("dgx-h100-superpod-4su")
    d["physical"] = dict(PANELS, labels=labels) if labels else PANELS
    return compute_design(parse_spec(d))


def _reference(result) -> str:
    from apps.exports.renderers import CABLE_CSV_COLUMNS, DesignView

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CABLE_CSV_COLUMNS)
    w.writerows(DesignView(result).cable_rows())
    return buf.getvalue()


@pytest.mark.parametrize("name", list(TEMPLATES))
def test_cables_csv_lines_equal_csv_writer_for_any_label_template(name):
    from apps.exports.renderers import iter_cables_csv
    from engine.cable_schedule import CableSchedule

    result = _result(TEMPLATES[name])
    fast = CableSchedule(result)._fast_setup() is not None
    assert fast == (name in ("default", "port-first-padded", "not-own-end-first"))
    assert "".join(iter_cables_csv(result)) == _reference(result)


def test_a_port_that_needs_quoting_goes_through_csv_writer(design):
    """A row whose port holds a comma is quoted by csv.writer; the other rows stay on the fast path."""
    from apps.exports.renderers import CABLE_CSV_COLUMNS, DesignView

    v = DesignView(design)
    rows = v.ph.cable_rows
    i = next(i for i, r in enumerate(rows) if r[4][0] != "panel" and r[5][0] != "panel" and r[1] != "trunk")
    saved = rows[i]
    rows[i] = [*saved[:4], (saved[4][0], "1,2"), *saved[5:]]
    try:
        lines = list(v.cable_csv_lines())
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(DesignView(design).cable_rows())
        assert "".join(lines) == buf.getvalue()
        assert '"1,2"' in lines[i]
        assert len(CABLE_CSV_COLUMNS) == len(next(csv.reader([lines[i]])))
    finally:
        rows[i] = saved


def test_label_pair_equals_the_cable_template_both_ways():
    from engine.cable_schedule import _label_pair as label_pair
    from engine.physical.labels import CABLE_PLACEHOLDERS, compile_template

    for template in ("<near>/<far>", "<cable> <near>/<far>", "<cable:08>|<tier><near>", "{<near>}/<far>"):
        compiled = compile_template(template, CABLE_PLACEHOLDERS)
        for own in (True, False):
            la = compiled.format("n1", "f2", "C000007", "")
            lb = compiled.format("f2", "n1", "C000007", "") if own else la
            assert label_pair(compiled, own)("n1", "f2", "C000007") == f"{la},{lb}"
