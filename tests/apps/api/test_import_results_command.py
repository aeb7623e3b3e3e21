"""`manage.py import-results DESIGN CSV`: the site team's filled test sheet comes back in.

GIVEN alice's computed design and its test-sheet.csv
WHEN the sheet is filled in (one fiber over its limit) and imported
THEN the upload is stored with pass/fail counts (exit status 0); bad rows are printed line by line and
     left out while the valid rows are stored (exit status 3), or, with --all-or-nothing, refuse the
     sheet (exit status 1, nothing stored); a sheet with nothing usable is always refused.
"""

from __future__ import annotations

import csv
import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from apps.exports.renderers import iter_test_sheet_csv
from apps.exports.services import revision_result
from apps.measurements.models import MeasurementUpload

pytestmark = pytest.mark.django_db


def _sheet(computed) -> tuple[list[str], list[list[str]]]:
    rev = computed.revisions.get(number=1)
    text = "".join(iter_test_sheet_csv(revision_result(revision=rev)))
    rows = list(csv.reader(io.StringIO(text)))
    return rows[0], rows[1:]


def _write(tmp_path, header, rows) -> str:
    path = tmp_path / "filled.csv"
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
    return str(path)


def test_it_imports_a_filled_sheet_and_counts_pass_and_fail(computed, tmp_path):
    header, rows = _sheet(computed)
    mi, li = header.index("measured_loss_db"), header.index("limit_db")
    for r in rows:
        r[mi] = "0.30"
    rows[0][mi] = f"{float(rows[0][li]) + 0.5:.2f}"  # one fiber over its limit
    out = io.StringIO()
    call_command("import-results", str(computed.pk), _write(tmp_path, header, rows), stdout=out)  # exit status 0
    upload = MeasurementUpload.objects.get()
    assert upload.rows == len(rows) and upload.error_count == 0
    assert "imported" in out.getvalue()
    assert f"fibers: pass {len(rows) - 1:,}, fail 1" in out.getvalue()
    assert upload.counts["fibers"]["fail"] == 1


def _with_bad_rows(computed):
    """Four filled rows, of which line 2 has a unit that is not dB and line 5 repeats line 3."""
    header, rows = _sheet(computed)
    mi = header.index("measured_loss_db")
    rows = rows[:3]
    for r in rows:
        r[mi] = "0.30"
    rows[0][mi] = "0.5 mW"
    return header, [*rows, list(rows[1])]


def test_bad_rows_are_printed_and_left_out_the_valid_rows_stored_and_the_exit_status_is_3(computed, tmp_path):
    header, rows = _with_bad_rows(computed)
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError) as exc:
        call_command("import-results", str(computed.pk), _write(tmp_path, header, rows), stdout=out, stderr=err)
    assert exc.value.returncode == 3
    assert "2 row(s) had errors and were left out" in str(exc.value)
    printed = err.getvalue().splitlines()
    assert printed[0].startswith("line 2.measured_loss_db: '0.5 mW' is not an insertion loss in dB")
    assert printed[1] == "line 5.fiber_id: " + rows[1][0] + " is a duplicate of line 3"
    upload = MeasurementUpload.objects.get()
    assert (upload.rows, upload.error_count) == (2, 2)
    assert (
        f"imported 2 row(s) for {computed.name} r1 as upload {upload.pk}; 2 row(s) with errors left out"
        in out.getvalue()
    )
    assert "fibers: pass 2, not-measured " in out.getvalue() and "links: " in out.getvalue()


def test_all_or_nothing_refuses_a_sheet_with_a_bad_row_naming_its_line_and_stores_nothing(computed, tmp_path):
    header, rows = _with_bad_rows(computed)
    with pytest.raises(CommandError) as exc:
        call_command("import-results", str(computed.pk), _write(tmp_path, header, rows), "--all-or-nothing")
    assert exc.value.returncode == 1
    message = str(exc.value)
    assert message.startswith("nothing stored: 2 row(s) do not fit this revision's test sheet.")
    assert "  line 2.measured_loss_db: " in message and "  line 5.fiber_id: " in message
    assert not MeasurementUpload.objects.exists()


@pytest.mark.parametrize(
    "header, rows, message",
    [
        (["link_id", "loss_db"], [["L000001", "0.3"]], "Wrong header: missing column(s) fiber_id, measured_loss_db"),
        (["fiber_id", "measured_loss_db"], [["NOPE", "0.3"]], "None of the rows fits this revision's test sheet"),
        (["fiber_id", "measured_loss_db"], [], "The CSV has a header but no rows."),
    ],
)
def test_a_sheet_with_nothing_usable_is_refused_and_nothing_is_stored(computed, tmp_path, header, rows, message):
    with pytest.raises(CommandError) as exc:
        call_command("import-results", str(computed.pk), _write(tmp_path, header, rows))
    assert exc.value.returncode == 1 and message in str(exc.value)
    assert not MeasurementUpload.objects.exists()


def test_a_file_that_is_not_utf8_is_refused(computed, tmp_path):
    path = tmp_path / "binary.csv"
    path.write_bytes(b"fiber_id,measured_loss_db\n\xff\xfe,1\n")
    with pytest.raises(CommandError, match="cannot read"):
        call_command("import-results", str(computed.pk), str(path))
    assert not MeasurementUpload.objects.exists()


def test_an_unknown_design_is_a_clear_error(tmp_path):
    with pytest.raises(CommandError, match="no design 999"):
        call_command("import-results", "999", str(tmp_path / "x.csv"))
