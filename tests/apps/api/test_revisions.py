"""Revisions and their results: summary, BOM with spares and prices, links and cables by cursor, loss
budgets, fibers, warnings, and the BOM difference between two revisions."""

from __future__ import annotations

import math

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.designs.models import CableRecord, LinkRecord, Revision
from apps.designs.services import design_share, design_update
from tests.apps.api.conftest import SMALL_SPEC, compute_now, error_of, rev_url

RESULT_TAILS = (
    "",
    "summary/",
    "bom/",
    "links/",
    "cables/",
    "loss-budget/",
    "fibers/",
    "warnings/",
    "downloads/",
    "measurements/",
)


@pytest.mark.parametrize("tail", RESULT_TAILS)
def test_every_result_follows_the_designs_permissions(tail, alice, bob, anon, users, computed):
    url = rev_url(computed, 1, tail)
    assert alice.get(url).status_code == 200
    assert bob.get(url).status_code == 404
    assert anon.get(url).status_code == 401
    assert alice.get(rev_url(computed, 9, tail)).status_code == 404
    design_share(design=computed, user=users.bob, access="read")
    assert bob.get(url).status_code == 200


def test_it_lists_revisions_newest_first(alice, users, computed):
    compute_now(computed, users.alice)
    body = alice.get(f"/api/v1/designs/{computed.pk}/revisions/").json()
    assert [r["number"] for r in body["results"]] == [2, 1]
    first = body["results"][1]
    rev = Revision.objects.get(design=computed, number=1)
    assert first["link_count"] == rev.link_count > 0 and first["cable_count"] == rev.cable_count > 0
    assert first["created_by"] == "alice" and first["gpus"] == 256
    assert alice.get(f"/api/v1/designs/{computed.pk}/revisions/?limit=1").json()["next_cursor"]


def test_a_revision_shows_its_spec_and_summary(alice, computed):
    rev = alice.get(rev_url(computed)).json()
    assert rev["spec"]["servers"] == {"model": "dgx-h100", "count": 32}
    summary = alice.get(rev_url(computed, 1, "summary/")).json()
    assert summary["gpus"] == 256 and summary["links_total"] == rev["link_count"]


def test_the_bom_adds_spares_rounded_up_and_prices_from_the_owners_list(alice, bob, users, computed):
    plain = alice.get(rev_url(computed, 1, "bom/")).json()
    switch = next(line for line in plain["lines"] if line["category"] == "switch")
    assert switch["part"] == "MQM9700-NS2F" and switch["quantity"] == 12 and switch["spares"] == 0
    assert plain["currency"] is None and switch["unit_price"] is None and plain["totals"]["price"] is None

    spared = alice.get(rev_url(computed, 1, "bom/?spares_percent=5")).json()
    for line in spared["lines"]:
        assert line["spares"] == math.ceil(line["quantity"] * 5 / 100)
        assert line["order_quantity"] == line["quantity"] + line["spares"]
    assert next(x for x in spared["lines"] if x["part"] == "MQM9700-NS2F")["spares"] == 1  # 0.6 rounds up

    parts = [line["part"] for line in plain["lines"]]
    alice.put("/api/v1/price-list/", {"currency": "EUR", "prices": {p: "10.50" for p in parts}}, format="json")
    assert alice.get(rev_url(computed, 1, "bom/")).json()["currency"] is None  # a new list reaches no old revision
    assert alice.post(rev_url(computed, 1, "reprice/")).status_code == 200  # ... unless it is repriced
    priced = alice.get(rev_url(computed, 1, "bom/?spares_percent=5")).json()
    assert priced["currency"] == "EUR"
    qm = next(x for x in priced["lines"] if x["part"] == "MQM9700-NS2F")
    assert qm["unit_price"] == "10.50" and qm["total"] == "136.50"  # 13 x 10.50
    assert priced["totals"]["price"] == f"{sum(10.5 * x['order_quantity'] for x in priced['lines']):.2f}"

    # A collaborator sees the owner's prices; their own price list does not apply.
    design_share(design=computed, user=users.bob, access="read")
    bob.put("/api/v1/price-list/", {"prices": {"MQM9700-NS2F": "1"}}, format="json")
    assert bob.get(rev_url(computed, 1, "bom/")).json()["currency"] == "EUR"


def test_the_bom_is_priced_as_bom_csv_prices_it(alice, computed):
    """13 QM9700 (12 + 5 % spares) at 0.125 is 1.625: rounded half-up to 1.63 in the API and in bom.csv."""
    import csv
    import io

    alice.put("/api/v1/price-list/", {"currency": "EUR", "prices": {"MQM9700-NS2F": "0.125"}}, format="json")
    alice.post(rev_url(computed, 1, "reprice/"))
    api = alice.get(rev_url(computed, 1, "bom/?spares_percent=5")).json()
    qm = next(x for x in api["lines"] if x["part"] == "MQM9700-NS2F")
    response = alice.get(rev_url(computed, 1, "downloads/bom.csv?spares_percent=5"))
    text = (b"".join(response.streaming_content) if response.streaming else response.content).decode()
    row = next(r for r in csv.DictReader(io.StringIO(text)) if r["section"] == "order" and r["sku"] == "MQM9700-NS2F")
    assert qm["total"] == row["extended_price"] == "1.63"
    assert qm["order_quantity"] == int(row["order_quantity"]) == 13


def test_the_bom_filters_by_category_and_refuses_bad_spares(alice, computed):
    switches = alice.get(rev_url(computed, 1, "bom/?category=switch")).json()["lines"]
    assert {line["category"] for line in switches} == {"switch"}
    for bad in ("-1", "1001", "lots"):
        response = alice.get(rev_url(computed, 1, f"bom/?spares_percent={bad}"))
        assert response.status_code == 400
        assert error_of(response)["fields"][0]["path"] == "spares_percent"


def test_links_page_by_cursor_through_every_row_once(alice, computed):
    rev = Revision.objects.get(design=computed, number=1)
    seen, url = [], rev_url(computed, 1, "links/?limit=100")
    while url:
        body = alice.get(url).json()
        seen += [row["link_id"] for row in body["results"]]
        url = body["next"]
    assert seen == sorted(seen) and len(seen) == len(set(seen)) == rev.link_count


def test_a_links_page_costs_no_count_and_no_offset(alice, computed):
    first = alice.get(rev_url(computed, 1, "links/?limit=50")).json()
    with CaptureQueriesContext(connection) as queries:
        assert alice.get(first["next"]).status_code == 200
    sql = " ".join(q["sql"].upper() for q in queries)
    assert "COUNT(" not in sql and "OFFSET" not in sql
    assert len(queries) <= 5


@pytest.mark.parametrize("table", ["links", "cables"])
def test_a_table_page_reads_the_summary_only_for_a_network_or_tier_filter(alice, computed, table):
    """An unfiltered page never loads the revision's summary (tens of KB of JSON with the BOM); a network or tier
    filter, checked against the revision's own, reads only the summary's networks."""

    def summary_reads(url: str) -> list[str]:
        with CaptureQueriesContext(connection) as queries:
            assert alice.get(url).status_code == 200
        return [q["sql"] for q in queries if "summary" in q["sql"]]

    assert summary_reads(rev_url(computed, 1, f"{table}/?limit=10")) == []
    assert summary_reads(rev_url(computed, 1, f"{table}/?limit=10&part=none")) == []
    (networks,) = summary_reads(rev_url(computed, 1, f"{table}/?limit=10&network=compute"))
    assert "networks" in networks


def test_links_filter_and_sort(alice, computed):
    rows = alice.get(rev_url(computed, 1, "links/?tier=leaf-spine&limit=1000")).json()["results"]
    assert rows and {r["tier"] for r in rows} == {"leaf-spine"}
    assert len(rows) == LinkRecord.objects.filter(revision__design=computed, tier="leaf-spine").count()
    rack = rows[0]["a_rack"]
    in_rack = alice.get(rev_url(computed, 1, f"links/?rack={rack}&limit=1000")).json()["results"]
    assert in_rack and all(rack in (r["a_rack"], r["b_rack"]) for r in in_rack)
    longest = alice.get(rev_url(computed, 1, "links/?order=-length_m&limit=20")).json()["results"]
    lengths = [r["length_m"] for r in longest]
    assert lengths == sorted(lengths, reverse=True)
    assert lengths[0] == max(LinkRecord.objects.filter(revision__design=computed).values_list("length_m", flat=True))
    assert alice.get(rev_url(computed, 1, "links/?status=pass&medium=fiber-mm&network=compute")).status_code == 200


@pytest.mark.parametrize(
    "query, path",
    [
        ("colour=red", "colour"),
        ("limit=0", "limit"),
        ("limit=1001", "limit"),
        ("order=size", "order"),
        ("cursor=%%%", "cursor"),
        ("plane=x", "plane"),
    ],
)
def test_bad_table_queries_are_a_400_naming_the_parameter(alice, computed, query, path):
    response = alice.get(rev_url(computed, 1, f"links/?{query}"))
    assert response.status_code == 400
    assert error_of(response)["fields"][0]["path"] == path


def test_cables_filter_by_part_and_sort_by_length(alice, computed):
    part = CableRecord.objects.filter(revision__design=computed).values_list("part", flat=True).first()
    rows = alice.get(rev_url(computed, 1, f"cables/?part={part}&limit=1000")).json()["results"]
    assert rows and {r["part"] for r in rows} == {part}
    ordered = alice.get(rev_url(computed, 1, "cables/?order=length_m&limit=50")).json()
    lengths = [r["length_m"] for r in ordered["results"]]
    assert lengths == sorted(lengths)
    after = alice.get(ordered["next"]).json()["results"]
    assert after[0]["length_m"] >= lengths[-1]
    assert set(ordered["results"][0]) == {
        "cable_id",
        "network",
        "tier",
        "kind",
        "part",
        "length_m",
        "a_device",
        "a_port",
        "a_rack",
        "b_device",
        "b_port",
        "b_rack",
        "label_a",
        "label_b",
        "links",
        "a_hall",
        "b_hall",
    }


def test_loss_budget_fibers_and_warnings(alice, computed):
    loss = alice.get(rev_url(computed, 1, "loss-budget/")).json()
    assert loss["counts"]["pass"] > 0
    margins = [w["margin_db"] for w in loss["worst_links"]]
    assert margins and margins == sorted(margins)
    fibers = alice.get(rev_url(computed, 1, "fibers/")).json()
    assert fibers["total"]["active"] > 0 and "compute" in fibers["per_network"]
    (warning,) = alice.get(rev_url(computed, 1, "warnings/")).json()["warnings"]  # one spine rack: its power is a
    assert warning.startswith("8 leaves have every uplink going to spines in one rack")  # single point of failure


def test_the_bom_difference_lists_parts_added_removed_and_changed(alice, users, computed):
    design_update(design=computed, spec={**SMALL_SPEC, "servers": {"model": "dgx-h100", "count": 64}})
    compute_now(computed, users.alice)
    diff = alice.get(f"/api/v1/designs/{computed.pk}/bom-diff/?old=1&new=2").json()
    assert diff["old"] == 1 and diff["new"] == 2
    qm = next(c for c in diff["changed"] if c["part"] == "MQM9700-NS2F")
    assert qm["new_quantity"] > qm["old_quantity"] and qm["delta"] == qm["new_quantity"] - qm["old_quantity"]
    back = alice.get(f"/api/v1/designs/{computed.pk}/bom-diff/?old=2&new=1").json()
    assert {c["part"]: -c["delta"] for c in back["changed"]} == {c["part"]: c["delta"] for c in diff["changed"]}
    assert [p["part"] for p in back["added"]] == [p["part"] for p in diff["removed"]]


def test_the_bom_difference_needs_two_existing_revisions(alice, bob, computed):
    url = f"/api/v1/designs/{computed.pk}/bom-diff/"
    assert alice.get(f"{url}?old=1&new=1").json()["changed"] == []
    assert alice.get(f"{url}?old=1&new=5").status_code == 404
    assert error_of(alice.get(f"{url}?old=1"))["fields"] == [{"path": "new", "message": "This field is required."}]
    assert bob.get(f"{url}?old=1&new=1").status_code == 404
