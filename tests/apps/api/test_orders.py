"""Purchase orders in the API: a revision's order lines per network and SU, the ordered baseline, order deltas,
the change order files and lead times."""

from __future__ import annotations

import csv
import io
import re
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apps.designs.models import Revision
from apps.designs.services import design_share, design_update
from engine.orders.money import MONEY_PATTERN
from tests.apps.api.conftest import SMALL_SPEC, compute_now, error_of, rev_url

MONEY = re.compile(MONEY_PATTERN)


def put_prices(client, prices: dict, currency: str = "EUR"):
    assert client.put("/api/v1/price-list/", {"currency": currency, "prices": prices}, format="json").status_code == 200


@pytest.fixture
def two(computed, users):
    """alice's design computed at 32 servers (r1) and 64 (r2)."""
    design_update(design=computed, spec={**SMALL_SPEC, "servers": {"model": "dgx-h100", "count": 64}})
    compute_now(computed, users.alice)
    return computed


def _money_fields(node):
    if isinstance(node, dict):
        for k, v in node.items():
            if k in ("unit_price", "extended_price") and v is not None:
                yield v
            else:
                yield from _money_fields(v)
    elif isinstance(node, list):
        for v in node:
            yield from _money_fields(v)


def test_the_order_per_network_and_su_adds_up_to_the_bom(alice, computed):
    put_prices(alice, {"MQM9700-NS2F": "31000", "MMA4Z00-NS": "900.5"})
    compute_now(computed, computed.owner)  # r2 is priced with the version in force
    order = alice.get(rev_url(computed, 2, "order/?spares_percent=transceiver:2,*:5")).json()
    bom = alice.get(rev_url(computed, 2, "bom/")).json()
    assert [(ln["part"], ln["quantity"]) for ln in order["lines"]] == sorted(
        ((ln["part"], ln["quantity"]) for ln in bom["lines"]),
        key=lambda pq: [ln["part"] for ln in order["lines"]].index(pq[0]),
    )
    assert order["totals"]["quantity"] == bom["totals"]["quantity"]
    assert order["split_available"] is True
    assert order["totals"]["extended_price"] is None  # not every part has a price
    for groups in ("by_network", "by_su"):
        for field in ("quantity", "spares", "order_quantity"):
            assert sum(g["totals"][field] for g in order[groups]) == order["totals"][field], (groups, field)
        assert (
            sum(Decimal(ln["extended_price"]) for g in order[groups] for ln in g["lines"] if ln["extended_price"])
            == sum(Decimal(ln["extended_price"]) for ln in order["lines"] if ln["extended_price"])
            > 0
        )
    assert [g["su"] for g in order["by_su"]][-1] == "outside"
    qm = next(ln for ln in order["lines"] if ln["part"] == "MQM9700-NS2F")
    assert (qm["spares"], qm["spares_rule"], qm["unit_price"], qm["currency"], qm["price_version"]) == (
        1,
        "5 % of switch, rounded up",
        "31000.00",
        "EUR",
        1,
    )
    assert qm["extended_price"] == f"{31000 * qm['order_quantity']}.00"
    assert all(MONEY.match(m) for m in _money_fields(order))
    assert order["spares_rule"]["percents"] == {"*": "5", "transceiver": "2"}


def test_bad_spares_are_refused_naming_the_parameter(alice, computed):
    for bad in ("-1", "x", "fiber:", "1001"):
        response = alice.get(rev_url(computed, 1, f"order/?spares_percent={bad}"))
        assert response.status_code == 400, bad
        assert error_of(response)["fields"][0]["path"] == "spares_percent"


def test_orders_follow_the_designs_permissions(alice, bob, anon, users, two):
    urls = [
        rev_url(two, 1, "order/"),
        f"/api/v1/designs/{two.pk}/order-delta/?old=1&new=2",
        f"/api/v1/designs/{two.pk}/change-order.csv?old=1&new=2",
        f"/api/v1/designs/{two.pk}/lead-times/",
    ]
    for url in urls:
        assert alice.get(url).status_code == 200, url
        assert bob.get(url).status_code == 404, url
        assert anon.get(url).status_code == 401, url
    assert bob.post(rev_url(two, 1, "ordered/"), {}, format="json").status_code == 404
    design_share(design=two, user=users.bob, access="read")
    assert bob.get(urls[1]).status_code == 200
    assert bob.post(rev_url(two, 1, "ordered/"), {}, format="json").status_code == 404  # read only
    assert bob.patch(urls[3], {"lead_times": {"MQM9700-NS2F": 5}}, format="json").status_code == 404


def test_the_order_delta_between_two_revisions_signs_every_change(alice, two):
    body = alice.get(f"/api/v1/designs/{two.pk}/order-delta/?old=1&new=2&spares_percent=5").json()
    qm = next(ln for ln in body["lines"] if ln["part"] == "MQM9700-NS2F")
    assert qm["status"] == "changed"
    assert qm["delta"]["order_quantity"] == qm["new"]["order_quantity"] - qm["old"]["order_quantity"] > 0
    back = alice.get(f"/api/v1/designs/{two.pk}/order-delta/?old=2&new=1&spares_percent=5").json()
    assert {ln["part"]: -ln["delta"]["order_quantity"] for ln in back["lines"]} == {
        ln["part"]: ln["delta"]["order_quantity"] for ln in body["lines"]
    }
    assert body["totals"]["order_quantity"] == sum(ln["delta"]["order_quantity"] for ln in body["lines"])
    for g in body["by_network"] + body["by_su"]:
        assert g["totals"]["order_quantity"] == sum(ln["delta"]["order_quantity"] for ln in g["lines"])
    assert sum(g["totals"]["order_quantity"] for g in body["by_network"]) == body["totals"]["order_quantity"]
    assert body["currency"] is None and qm["delta"]["extended_price"] is None  # no price list: no money


def test_a_part_that_disappears_is_removed_with_its_negative_quantity(alice, two):
    """A stored BOM without one of r1's parts (as if the part had gone): it reads -N, and r2's order, whose
    recomputation no longer gives its stored BOM, has no split rather than a wrong one."""
    r1, r2 = Revision.objects.filter(design=two).order_by("number")
    gone = r1.summary["bom"][0]
    r2.summary = {**r2.summary, "bom": [b for b in r2.summary["bom"] if b["sku"] != gone["sku"]]}
    r2.save()
    body = alice.get(f"/api/v1/designs/{two.pk}/order-delta/?old=1&new=2").json()
    line = next(ln for ln in body["lines"] if ln["part"] == gone["sku"])
    assert line["status"] == "removed" and line["new"] is None and line["delta"]["quantity"] == -gone["quantity"]
    assert alice.get(rev_url(two, 2, "order/")).json()["split_available"] is False


def test_the_ordered_baseline_is_frozen_with_its_prices_and_spares(alice, users, two):
    put_prices(alice, {"MQM9700-NS2F": "100"})
    rev1 = Revision.objects.get(design=two, number=1)
    rev1.created_at = rev1.created_at.replace(year=2100)  # priced by the version in force at compute time
    rev1.save()
    assert alice.get(f"/api/v1/designs/{two.pk}/ordered/").status_code == 404
    assert error_of(alice.get(f"/api/v1/designs/{two.pk}/order-delta/?old=ordered&new=2"))["code"] == "no_baseline"
    marked = alice.post(rev_url(two, 1, "ordered/"), {"spares_percent": "10"}, format="json")
    assert marked.status_code == 201, marked.json()
    assert marked.json()["revision"] == 1 and marked.json()["marked_by"] == "alice"
    ordered_qm = next(ln for ln in marked.json()["order"]["lines"] if ln["part"] == "MQM9700-NS2F")
    assert ordered_qm["unit_price"] == "100.00" and ordered_qm["price_version"] == 1

    put_prices(alice, {"MQM9700-NS2F": "250"})  # a later price change never reaches what was ordered
    baseline = alice.get(f"/api/v1/designs/{two.pk}/ordered/").json()
    assert baseline["order"] == marked.json()["order"]
    delta = alice.get(f"/api/v1/designs/{two.pk}/order-delta/?old=ordered&new=1").json()
    qm = next(ln for ln in delta["lines"] if ln["part"] == "MQM9700-NS2F")
    assert delta["old"]["label"] == "r1 (ordered)" and delta["new"]["spares_rule"]["percents"] == {"*": "10"}
    # r1 now follows the newer version (its compute time is after it): the same parts at a new price
    assert (qm["status"], qm["delta"]["order_quantity"], qm["old"]["unit_price"], qm["new"]["unit_price"]) == (
        "changed",
        0,
        "100.00",
        "250.00",
    )
    assert Decimal(qm["delta"]["extended_price"]) == 150 * qm["new"]["order_quantity"]
    assert {ln["status"] for ln in delta["lines"] if ln["part"] != "MQM9700-NS2F"} == {"unchanged"}

    csv_response = alice.get(f"/api/v1/designs/{two.pk}/change-order.csv?old=ordered&new=2")
    assert csv_response["Content-Disposition"] == (
        f'attachment; filename="design-{two.pk}-change-order-ordered-to-r2.csv"'
    )
    rows = list(csv.DictReader(io.StringIO(csv_response.content.decode())))
    line = next(r for r in rows if r["section"] == "line" and r["part"] == "MQM9700-NS2F")
    assert int(line["delta_order_quantity"]) == int(line["new_order_quantity"]) - int(line["old_order_quantity"])
    pdf = alice.get(f"/api/v1/designs/{two.pk}/change-order.pdf?old=ordered&new=2&page_size=letter")
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf" and pdf.content[:5] == b"%PDF-"


def test_the_change_order_refuses_a_bad_old_side(alice, two):
    response = alice.get(f"/api/v1/designs/{two.pk}/change-order.csv?old=first&new=2")
    assert response.status_code == 400 and error_of(response)["fields"][0]["path"] == "old"
    assert alice.get(f"/api/v1/designs/{two.pk}/change-order.csv?old=9&new=2").status_code == 404
    assert error_of(alice.get(f"/api/v1/designs/{two.pk}/change-order.csv?old=1&new=2&x=1"))["fields"][0]["path"] == "x"


def test_lead_times_are_filled_in_and_shown_on_order_lines(alice, computed):
    url = f"/api/v1/designs/{computed.pk}/lead-times/"
    assert alice.patch(url, {"lead_times": {"MQM9700-NS2F": 42, "X": 7}}, format="json").json() == {
        "lead_times": {"MQM9700-NS2F": 42, "X": 7}
    }
    assert alice.patch(url, {"lead_times": {"X": None}}, format="json").json() == {"lead_times": {"MQM9700-NS2F": 42}}
    response = alice.patch(url, {"lead_times": {"MQM9700-NS2F": -1}}, format="json")
    assert response.status_code == 400 and error_of(response)["fields"][0]["path"].startswith("lead_times")
    order = alice.get(rev_url(computed, 1, "order/")).json()
    assert next(ln for ln in order["lines"] if ln["part"] == "MQM9700-NS2F")["lead_time_days"] == 42
    assert {ln["lead_time_days"] for ln in order["lines"] if ln["part"] != "MQM9700-NS2F"} == {None}


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    pct=st.dictionaries(
        st.sampled_from(["switch", "transceiver", "fiber", "copper", "*"]), st.integers(0, 40), max_size=3
    ),
    forward=st.booleans(),
)
def test_for_real_revisions_each_order_delta_is_the_difference_of_the_two_orders(two_revisions, pct, forward):
    """Stored revisions, random spares percents, either direction: the API's delta lines are differences of the
    two revisions' own order lines, in order quantity and money."""
    from apps.designs.orders import order_delta_between, revision_order
    from engine.orders.spares import PercentPerCategory, parse_percents

    r1, r2 = two_revisions
    old, new = (r1, r2) if forward else (r2, r1)
    rule = PercentPerCategory(parse_percents(pct)) if pct else None
    a = {ln.part: ln for ln in revision_order(revision=old, rule=rule).lines}
    b = {ln.part: ln for ln in revision_order(revision=new, rule=rule).lines}
    priced = 0
    for d in order_delta_between(old=old, new=new, rule=rule).lines:
        o, n = a.get(d.part), b.get(d.part)
        assert d.order_quantity == (n.order_quantity if n else 0) - (o.order_quantity if o else 0)
        oe, ne = (o.extended_price if o else 0), (n.extended_price if n else 0)
        if oe is None or ne is None:
            assert d.extended_price is None
        else:
            assert d.extended_price == ne - oe
            priced += 1
    assert priced >= 2  # QM9700 and MMA4Z00-NS


@pytest.fixture
def two_revisions(two, users):
    from apps.catalog.services import price_list_save

    price_list_save(owner=users.alice, currency="USD", prices={"MQM9700-NS2F": "31000.5", "MMA4Z00-NS": "0.125"})
    from apps.designs.pricing import revision_reprice

    revs = list(Revision.objects.filter(design=two).order_by("number"))
    for r in revs:
        revision_reprice(revision=r, user=users.alice)
    return revs


@pytest.mark.parametrize("part", ["QM\u00009700", "QM\t9700", ""])
def test_a_lead_time_part_number_with_a_control_character_is_a_400_not_a_server_error(alice, computed, part):
    """PostgreSQL cannot store NUL in text: a fuzzer's key once reached it and answered 500."""
    url = f"/api/v1/designs/{computed.pk}/lead-times/"
    response = alice.patch(url, {"lead_times": {part: 5}}, format="json")
    assert response.status_code == 400, response.content
    assert alice.get(url).json() == {"lead_times": {}}
