"""Failures per year beside each spares line, in the API, in bom.csv and on the revision page: quantity x the
annualized failure rate in force (the failure-rate rule's inputs, else the shipped placeholder rates).

The computed design (tests/apps/api/conftest.py, SMALL_SPEC) has 12 QM9700 (MQM9700-NS2F)."""

from __future__ import annotations

import csv
import io
from urllib.parse import urlencode

from deliverables import BOM_CSV_COLUMNS
from tests.apps.api.conftest import rev_url


def _bom_csv(client, computed, params: dict) -> dict[str, dict]:
    response = client.get(rev_url(computed, 1, "downloads/bom.csv?" + urlencode(params)))
    assert response.status_code == 200, response.content[:300]
    text = b"".join(response.streaming_content if response.streaming else [response.content]).decode()
    rows = list(csv.reader(io.StringIO(text)))
    assert tuple(rows[0]) == BOM_CSV_COLUMNS and rows[0][-1] == "failures_per_year"
    return {r[4]: dict(zip(rows[0], r)) for r in rows[1:] if r[0] == "order"}


def test_the_spares_lines_give_the_failures_a_year_at_the_rates_in_force(alice, computed):
    lines = alice.get(rev_url(computed, 1, "spares/?spares_afr_percent=switch:2")).json()["lines"]
    qm = next(ln for ln in lines if ln["part"] == "MQM9700-NS2F")
    assert (qm["quantity"], qm["afr_percent"], qm["failures_per_year"]) == (12, "2", 0.24)
    # every line: quantity x its rate
    assert all(ln["failures_per_year"] == round(ln["quantity"] * float(ln["afr_percent"]) / 100, 4) for ln in lines)


def test_bom_csv_has_the_failures_a_year_beside_each_order_line(alice, computed):
    rate = _bom_csv(alice, computed, {"spares_rule": "failure-rate", "spares_afr_percent": "switch:2"})
    # 0.24 a year, but only 0.0197 in one 720 h replenishment time: P(0) = 0.98 >= 95 %, no spare
    assert rate["MQM9700-NS2F"]["failures_per_year"] == "0.24" and rate["MQM9700-NS2F"]["spares"] == "0"
    # the flat rule orders its own spares; the figure beside it is at the shipped 1 %/year
    flat = _bom_csv(alice, computed, {"spares_percent": "10"})
    assert flat["MQM9700-NS2F"]["failures_per_year"] == "0.12" and flat["MQM9700-NS2F"]["spares"] == "2"


def test_the_revision_page_shows_the_column(client, users, computed):
    client.force_login(users.alice)
    # the spares table is a panel of the workspace's failure section
    html = client.get(f"/designs/{computed.pk}/revisions/1/failure/?spares_afr_percent=switch:2").content.decode()
    table = html[html.index('id="spares-beside"') :]
    assert '<th scope="col" class="num">Failures/year</th>' in table
    assert '<td class="num" data-metric="failures-per-year">0.24</td>' in table
