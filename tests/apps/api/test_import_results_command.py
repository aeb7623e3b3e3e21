"""`manage.py import-results DESIGN CSV`: the site team's filled test sheet comes back in.

GIVEN alice's computed design and its test-sheet.csv
WHEN the sheet is filled in (one fiber over its limit) and imported
THEN the upload is stored with pass/fail counts; a malformed sheet is refused line by line.
"""
from __future__ import annotations

import csv
import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from apps.api.models import MeasurementUpload
from apps.exports.renderers import iter_test_sheet_csv
from apps.exports.services import revision_result

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
    call_command("import-results", str(computed.pk), _write(tmp_path, header, rows), stdout=out)
    upload = MeasurementUpload.objects.get()
    assert upload.rows == len(rows)
    assert "imported" in out.getvalue()
    assert upload.counts["fibers"]["fail"] == 1


def test_a_malformed_sheet_is_refused_with_line_numbers_and_nothing_is_stored(computed, tmp_path):
    header, rows = _sheet(computed)
    mi = header.index("measured_loss_db")
    rows[0][mi] = "0.5 mW"
    with pytest.raises(CommandError) as exc:
        call_command("import-results", str(computed.pk), _write(tmp_path, header, rows[:3]))
    assert "line 2" in str(exc.value)
    assert not MeasurementUpload.objects.exists()


def test_an_unknown_design_is_a_clear_error(tmp_path):
    with pytest.raises(CommandError, match="no design 999"):
        call_command("import-results", "999", str(tmp_path / "x.csv"))
