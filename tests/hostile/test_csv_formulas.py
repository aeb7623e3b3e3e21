"""Every CSV the app serves is safe to open in a spreadsheet: a cell from a name that begins with =, +, -, @, a tab
or a carriage return is written with a leading ' (engine/csvcells.py), whether the CSV is generated (deliverables,
NetBox import files), exported (the fix list) or an upload served back (a measured-results file).

Only the writers of engine/csvcells.py and the byte-identical fast paths listed in WRITERS write CSV; a new
csv.writer elsewhere fails test_csv_is_written_only_by_the_neutralizing_writers.
"""

from __future__ import annotations

import ast
import csv
import io
from pathlib import Path

import pytest

from engine.csvcells import PREFIX, csv_text, neutralize_csv_text
from tests.hostile.documents import FORMULAS, formula_cells

ROOT = Path(__file__).resolve().parents[2]

# file -> (csv.writer calls, why its output is safe)
WRITERS = {
    "engine/csvcells.py": (2, "the writer: neutralizes unless raw (two: rows with a carriage return are quoted)"),
    "engine/cable_schedule.py": (1, "the cable schedule's fast path: neutralizes flagged rows"),
    # The CLI's links.csv and cables.csv, files it writes (never served): neutralize_row unless raw, csv.writer's
    # quoting (a generated name holds no carriage return).
    "engine/outputs.py": (1, "the CLI's links.csv and cables.csv (one writer for both)"),
}


def _writer_calls(path: Path) -> int:
    found = 0
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            f = node.func
            if isinstance(f.value, ast.Name) and f.value.id == "csv" and f.attr in {"writer", "DictWriter"}:
                found += 1
    return found


def test_csv_is_written_only_by_the_neutralizing_writers():
    found = {}
    for top in ("apps", "deliverables", "engine"):
        for path in sorted((ROOT / top).rglob("*.py")):
            n = _writer_calls(path)
            if n:
                found[str(path.relative_to(ROOT))] = n
    assert found == {p: n for p, (n, _why) in WRITERS.items()}, "write CSV with engine.csvcells (csv_text, iter_csv)"


def test_the_writer_neutralizes_each_formula_character_and_leaves_numbers():
    text = csv_text([[*FORMULAS, "-1.5", "+2", "plain"]])
    (row,) = csv.reader(io.StringIO(text, newline=""))
    assert row == [PREFIX + f for f in FORMULAS] + ["-1.5", "+2", "plain"]
    assert csv_text([list(FORMULAS)], raw=True).startswith('"=HYPERLINK(1)"')


def test_a_carriage_return_inside_a_cell_never_starts_a_row():
    text = csv_text([["a", "x\r=cmd()", "b"], ["c", "d", "e"]])
    assert list(csv.reader(io.StringIO(text, newline=""))) == [["a", "x\r=cmd()", "b"], ["c", "d", "e"]]


def test_an_upload_served_back_is_exact_when_clean_and_neutralized_when_not():
    clean = "fiber_id,measured_loss_db\r\nL1:A1-B1,0.3\r\n"
    assert neutralize_csv_text(clean) == clean
    served = neutralize_csv_text('fiber_id,note\nL1,"=HYPERLINK(""http://x"")"\nL2,-0.5\n')
    assert formula_cells(served) == [] and "-0.5" in served


NAME = '=HYPERLINK("http://evil.example","x")'
CR_NAME = "x\r=cmd()"


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    from deliverables import write_deliverables
    from engine.pipeline import compute_design
    from engine.spec import parse_spec
    from tests.factories import SMALL_SPEC

    out = tmp_path_factory.mktemp("formulas")
    result = compute_design(parse_spec({**SMALL_SPEC, "name": NAME}))
    write_deliverables(result, out, revision_label="r1")
    return out


def test_every_generated_csv_of_a_design_named_with_a_formula_is_clean(folder):
    files = sorted(folder.rglob("*.csv"))
    assert {"bom.csv", "cables.csv", "labels.csv", "test-sheet.csv", "sites.csv"} <= {p.name for p in files}
    dirty = {str(p.relative_to(folder)): formula_cells(p.read_text()) for p in files}
    assert {k: v for k, v in dirty.items() if v} == {}
    # The name is there, as text a spreadsheet shows (NetBox's site description is the design name).
    assert PREFIX + NAME in [
        c for row in csv.reader(io.StringIO((folder / "netbox/sites.csv").read_text())) for c in row
    ]


@pytest.mark.django_db
def test_the_fix_list_csv_of_an_as_built_whose_names_are_formulas_is_clean(users, api_client):
    from apps.commissioning.services import commissioning_refresh
    from apps.designs.services import design_create
    from tests.apps.designs.test_views import compute_now
    from tests.factories import SMALL_SPEC

    rev = compute_now(design_create(user=users.alice, spec={**SMALL_SPEC, "name": NAME}), users.alice)
    links = list(rev.links.filter(a_device__contains="SU")[: len(FORMULAS)])
    rows = [["device", "port", "neighbor_device", "neighbor_port"]]
    rows += [[link.a_device, link.a_port, f, f] for link, f in zip(links, FORMULAS, strict=True)]
    body = io.StringIO()
    csv.writer(body).writerows(rows)
    base = f"/api/v1/designs/{rev.design_id}/revisions/{rev.number}/asbuilt/"
    api_client.force_authenticate(users.alice)
    assert (
        api_client.post(base + "?format=csv", data=body.getvalue().encode(), content_type="text/csv").status_code == 202
    )
    commissioning_refresh(revision=rev)
    text = api_client.get(base + "fix-list/?format=csv").content.decode()
    assert formula_cells(text) == []
    assert "'=HYPERLINK(1)" in text or "=HYPERLINK(1)" in text  # the name is in the list, in an action
    api_client.logout()


@pytest.mark.django_db
def test_a_measured_results_file_served_back_is_clean(users, client, api_client):
    from apps.designs.services import design_create
    from apps.exports.services import revision_result
    from apps.measurements.models import MeasurementUpload
    from deliverables import iter_test_sheet_csv
    from tests.apps.designs.test_views import compute_now
    from tests.factories import SMALL_SPEC

    rev = compute_now(design_create(user=users.alice, spec=SMALL_SPEC), users.alice)
    sheet = list(csv.reader(io.StringIO("".join(iter_test_sheet_csv(revision_result(revision=rev))))))
    col = {c: i for i, c in enumerate(sheet[0])}
    rows = [[r[col["fiber_id"]], "0.30", f] for r, f in zip(sheet[1:], FORMULAS, strict=False)]
    body = io.StringIO()
    csv.writer(body, lineterminator="\n").writerows([["fiber_id", "measured_loss_db", "note"], *rows])
    api_client.force_authenticate(users.alice)
    url = f"/api/v1/designs/{rev.design_id}/revisions/{rev.number}/measurements/"
    r = api_client.post(url, data=body.getvalue().encode(), content_type="text/csv")
    assert r.status_code in (200, 201), r.content[:300]
    upload = MeasurementUpload.objects.get()
    client.force_login(users.alice)
    served = client.get(f"/designs/{rev.design_id}/revisions/{rev.number}/measurements/{upload.pk}/uploaded.csv")
    assert served.status_code == 200, served.status_code
    assert formula_cells(served.content.decode()) == []
    assert "'=HYPERLINK(1)" in served.content.decode()
    raw = client.get(f"/designs/{rev.design_id}/revisions/{rev.number}/measurements/{upload.pk}/uploaded.csv?csv=raw")
    assert raw.content.decode() == body.getvalue()


def test_a_carriage_return_in_a_design_name_never_starts_a_row(tmp_path):
    """csv.writer leaves a bare carriage return unquoted ("\\n" line ends): "x\\r=cmd()" would arrive as a row
    beginning "=cmd()", past the neutralizing. The writers quote such a row."""
    from deliverables import write_deliverables
    from deliverables.registry import FOLDER_FILES
    from engine.pipeline import compute_design
    from engine.spec import parse_spec
    from tests.factories import SMALL_SPEC

    result = compute_design(parse_spec({**SMALL_SPEC, "name": CR_NAME}))
    written = write_deliverables(result, tmp_path, only=[p for p in FOLDER_FILES if p.endswith(".csv")])
    assert {p.name for p in written} >= {"sites.csv", "bom.csv"}

    def text(path):
        with open(path, encoding="utf-8", newline="") as fh:  # as a spreadsheet reads it: a lone CR kept
            return fh.read()

    for path in written:
        assert formula_cells(text(path)) == [], path.name
    sites = list(csv.reader(io.StringIO(text(tmp_path / "netbox/sites.csv"), newline="")))
    assert CR_NAME in [c for row in sites for c in row]
