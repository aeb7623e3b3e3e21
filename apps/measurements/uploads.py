"""Storing a measured test-results CSV: one policy for the API, `manage.py import-results` and the browser.

It decides what is refused (nothing stored) and what is kept (by default the valid rows of a sheet that has some
bad rows, the bad ones listed with the upload). Refusals are domain errors (apps/common/errors.py): the API answers
them as 400 `invalid_upload` / 413 `payload_too_large`, the page and the CLI list the rows named.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from apps.common.errors import Invalid, TooLarge
from apps.designs.models import Revision
from engine.inputgate import CsvReader, InputRefused

from .models import MeasurementUpload

if TYPE_CHECKING:
    from django.contrib.auth.models import User

ErrorRow = tuple[int | None, str, str]  # (line, column, message) of a row that does not fit the test sheet
# The renderers' check of a CSV against the revision's test sheet ({"rows", "errors", "counts"}), None without one.
Check = Callable[[str], dict | None]

MAX_ROWS = 2_000_000
MAX_STORED_ERRORS = 1000  # rows with errors kept with an upload (the first of error_count)
MAX_ERROR_FIELDS = 100  # rows with errors named in a refusal's `fields`


class UploadInvalid(Invalid):
    """Nothing was stored: the file itself is unusable (empty, not CSV, no rows); `fields` may name a line."""

    default_code = "invalid_upload"


class UploadRejected(UploadInvalid):
    """Nothing was stored: rows do not fit the test sheet. `errors` lists every row that does not fit as
    (line, column, message); the error's `fields` name the first MAX_ERROR_FIELDS of them."""

    def __init__(self, message: str, errors: Iterable[Sequence[Any]] = ()) -> None:
        self.errors = [tuple(e) for e in errors]
        super().__init__(message, fields=error_fields(self.errors[:MAX_ERROR_FIELDS]))


def error_fields(errors: Iterable[Sequence[Any]]) -> list[dict]:
    """(line, column, message) rows as the API's error fields: {path: the CSV column's name ("" for the whole row),
    line: the CSV line (the header is line 1), message} (docs/api.md, Errors)."""
    return [{"path": column or "", "line": line, "message": message} for line, column, message in errors]


def error_field_text(field: dict) -> str:
    """A field error as a person reads it: `line 3.measured_loss_db`, `line 4`."""
    where = f"line {field['line']}" if "line" in field else ""
    if field.get("path"):
        where = f"{where}.{field['path']}" if where else field["path"]
    return where


def _basic_check(text: str) -> int:
    """Rows of a CSV with a header, every row as wide as the header; UploadInvalid (or TooLarge) otherwise."""
    reader = CsvReader(text, max_chars=len(text))  # the size was bounded where the upload was received
    try:
        header = next(reader, None)
        if not header or not any(h.strip() for h in header):
            raise UploadInvalid(
                "The CSV has no header row.",
                fields=[{"path": "", "line": 1, "message": "a header row is required"}],
            )
        rows = 0
        for row in reader:
            if not row:
                continue
            rows += 1
            if len(row) != len(header):
                line = reader.line_num
                raise UploadInvalid(
                    f"Line {line} has {len(row)} columns; the header has {len(header)}.",
                    fields=[{"path": "", "line": line, "message": "column count differs"}],
                )
            if rows > MAX_ROWS:
                raise TooLarge(f"More than {MAX_ROWS} rows.")
    except InputRefused as exc:
        raise UploadInvalid(f"Not a valid CSV file: {exc.describe('').lstrip(': ')}") from None
    if rows == 0:
        raise UploadInvalid("The CSV has a header but no rows.")
    return rows


def _refuse_unusable(text: str) -> None:
    if not text.strip():
        raise UploadInvalid("The upload is empty; send the CSV as a text/csv body.")
    if "\x00" in text:
        raise UploadInvalid("The upload contains NUL characters; it is not a CSV text file.")


def measurement_judge(
    *, text: str, check: Check | None = None, keep_valid: bool = True
) -> tuple[int, dict, list[tuple]]:
    """(rows, counts, errors) of a measured test-results CSV under the policy of measurement_upload (which see),
    or its refusal (UploadInvalid / UploadRejected / TooLarge)."""
    _refuse_unusable(text)
    checked = check(text) if check is not None else None
    if checked is None:
        return _basic_check(text), {}, []
    rows, counts, errors = checked["rows"], checked["counts"], [tuple(e) for e in checked["errors"]]
    header = [e for e in errors if e[0] == 1]
    if header:
        raise UploadRejected(f"Wrong header: {header[0][2]}.", errors)
    if not rows:
        raise UploadRejected(
            f"None of the rows fits this revision's test sheet ({len(errors):,} with errors)."
            if errors
            else "The CSV has a header but no rows.",
            errors,
        )
    if errors and not keep_valid:
        raise UploadRejected(f"{len(errors):,} row(s) do not fit this revision's test sheet.", errors)
    return rows, counts, errors


def measurement_upload(
    *,
    revision: Revision,
    user: User,
    text: str,
    filename: str,
    check: Check | None = None,
    test_limit: str = "pmd",
    keep_valid: bool = True,
) -> MeasurementUpload:
    """Validate and store a measured test-results CSV: one policy for the API, `manage.py import-results`
    and the browser.

    `check(text)` is the renderers' validation against the revision's test sheet: it returns
    {"rows", "errors": [(line, column, message)], "counts"}, or None when this build has none, in
    which case the CSV is only checked for shape (any bad row refuses it).

    Refused (UploadInvalid / UploadRejected / TooLarge, nothing stored) when nothing usable is in the file: empty, NUL
    characters, a wrong header (no fiber_id / measured_loss_db), no valid row; and, when `keep_valid` is
    False (all-or-nothing), when any row has an error. Otherwise (the default) the valid rows are judged
    and stored, and the rows with errors are kept with the upload (`errors`, the first MAX_STORED_ERRORS
    of `error_count`). `test_limit` (pmd | budget) is recorded with it.
    """
    rows, counts, errors = measurement_judge(text=text, check=check, keep_valid=keep_valid)
    raw = text.encode()
    return MeasurementUpload.objects.create(
        revision=revision,
        uploaded_by=user,
        filename=filename[:200],
        size=len(raw),
        rows=rows,
        counts=counts,
        test_limit=test_limit,
        errors=[list(e) for e in errors[:MAX_STORED_ERRORS]],
        error_count=len(errors),
        sha256=hashlib.sha256(raw).hexdigest(),
        content=text,
    )


def measurement_upload_unread(
    *, revision: Revision, user: User, text: str, filename: str, test_limit: str = "pmd"
) -> MeasurementUpload:
    """Store a CSV too large to read in the web request as received (`read` False: listed and counted only once
    its job has read it with measurement_judge); refused here only when empty or not text."""
    _refuse_unusable(text)
    raw = text.encode()
    return MeasurementUpload.objects.create(
        revision=revision,
        uploaded_by=user,
        filename=filename[:200],
        size=len(raw),
        rows=0,
        test_limit=test_limit,
        sha256=hashlib.sha256(raw).hexdigest(),
        content=text,
        read=False,
    )
