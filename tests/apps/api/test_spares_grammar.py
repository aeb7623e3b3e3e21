"""One spares grammar: every operation and file that takes a spares rule reads `spares_percent` the same way.

GIVEN alice's computed design (32 DGX H100)
WHEN bom/, order/, spares/, the BOM files (downloads and exports) and mark-ordered are given the same per-category
     rule, and the same bad texts
THEN each gives every part the same spares, each refuses the bad texts with a 400 naming spares_percent, and the
     schema declares the one parameter (type, pattern, maxLength) on every operation that takes it
"""

from __future__ import annotations

import csv
import io
import re

import pytest

from apps.api.schema import SPARES_PERCENT_PATTERN
from apps.api.spares_params import SPARES_MAX_LENGTH
from apps.jobs.runner import run_job
from tests.apps.api.conftest import error_of, rev_url

pytestmark = pytest.mark.django_db

RULE = "transceiver:2,fiber:5,*:1"
BAD = ["transceiver", "transceiver:2,fiber", "1001", "-1", "5%", "Transceiver:2", "5.0001", "transceiver:2,,*:1", ""]


def _bom_csv_spares(data: bytes) -> dict[str, int]:
    rows = csv.DictReader(io.StringIO(data.decode().split("\n", 1)[1] if data.startswith(b"#") else data.decode()))
    return {r["sku"]: int(r["spares"]) for r in rows if r["section"] == "order"}


def _body(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def test_the_same_rule_gives_the_same_spares_everywhere(alice, computed, settings):
    bom = {
        ln["part"]: ln["spares"]
        for ln in alice.get(rev_url(computed, 1, "bom/"), {"spares_percent": RULE}).json()["lines"]
    }
    order = {
        ln["part"]: ln["spares"]
        for ln in alice.get(rev_url(computed, 1, "order/"), {"spares_percent": RULE}).json()["lines"]
    }
    beside = {
        ln["part"]: ln["percent_spares"]
        for ln in alice.get(rev_url(computed, 1, "spares/"), {"spares_percent": RULE}).json()["lines"]
    }
    download = alice.get(rev_url(computed, 1, "downloads/bom.csv"), {"spares_percent": RULE})
    assert download.status_code == 200, download.content
    settings.DOWNLOAD_INLINE_MAX_CABLES = 0
    export = alice.post(
        rev_url(computed, 1, "exports/"), {"kind": "bom.csv", "options": {"spares_percent": RULE}}, format="json"
    )
    assert export.status_code == 202, export.content
    assert run_job(export.json()["id"]) == "succeeded"
    exported = alice.get(f"/api/v1/jobs/{export.json()['id']}/file")
    marked = alice.post(rev_url(computed, 1, "ordered/"), {"spares_percent": RULE}, format="json").json()
    ordered = {ln["part"]: ln["spares"] for ln in marked["order"]["lines"]}

    assert bom == order == beside == ordered
    assert _bom_csv_spares(_body(download)) == _bom_csv_spares(_body(exported)) == bom
    assert any(bom.values()) and len(set(bom.values())) > 1  # the categories' percents differ, and count


@pytest.mark.parametrize("text", BAD)
def test_a_bad_spares_percent_is_a_400_naming_it_everywhere(alice, computed, text):
    for path in ("bom/", "order/", "spares/", "downloads/bom.csv", "downloads/bom.pdf"):
        r = alice.get(rev_url(computed, 1, path), {"spares_percent": text})
        assert r.status_code == 400, (path, text, r.content)
        assert [f["path"] for f in error_of(r)["fields"]] == ["spares_percent"], (path, r.content)
        assert not re.search(SPARES_PERCENT_PATTERN, text)
    r = alice.post(
        rev_url(computed, 1, "exports/"), {"kind": "bom.csv", "options": {"spares_percent": text}}, format="json"
    )
    assert r.status_code == 400 and [f["path"] for f in error_of(r)["fields"]] == ["options.spares_percent"], r.content


def test_every_operation_declares_the_one_spares_percent_parameter(alice):
    schema = alice.get("/api/schema/?format=json").json()
    declared = {
        op["operationId"]: p["schema"]
        for item in schema["paths"].values()
        for op in item.values()
        for p in op.get("parameters", [])
        if p["name"] == "spares_percent"
    }
    assert set(declared) >= {
        "revisions_bom",
        "revisions_order",
        "revisions_spares",
        "revisions_download",
        "designs_order_delta",
        "designs_change_order_csv",
        "designs_change_order_pdf",
    }
    for op, s in declared.items():
        assert (s["type"], s["pattern"], s["maxLength"]) == ("string", SPARES_PERCENT_PATTERN, SPARES_MAX_LENGTH), op
    body = schema["components"]["schemas"]
    for name in ("MarkOrderedInRequest", "ExportOptionsInRequest"):
        assert body[name]["properties"]["spares_percent"]["pattern"] == SPARES_PERCENT_PATTERN, name
