"""Spares rules in the API: the failure-rate rule chosen for an order and a baseline, and both rules side by
side per BOM line."""

from __future__ import annotations

from urllib.parse import urlencode

from apps.designs.models import OrderedBaseline
from apps.designs.services import design_share
from tests.apps.api.conftest import error_of, rev_url

RATES = {
    "spares_afr_percent": "switch:2",
    "spares_replenish_hours": "switch:2160",
    "spares_service_level_percent": "switch:99",
}


def test_the_order_takes_the_failure_rate_rule_with_its_inputs(alice, computed):
    """32 DGX H100 in one SU: 8 leaves + 4 spines = 12 QM9700. At 2 %/year, 2,160 h, 99 %:
    lambda = 12 x 0.02 x 2160/8760 = 0.05918; P(0) = e^-0.05918 = 0.94254 < 0.99,
    P(1) = 0.94254 x 0.05918 = 0.05578 -> 0.99832 >= 0.99: 1 spare."""
    order = alice.get(rev_url(computed, 1, "order/?" + urlencode({"spares_rule": "failure-rate", **RATES}))).json()
    qm = next(ln for ln in order["lines"] if ln["part"] == "MQM9700-NS2F")
    assert (qm["quantity"], qm["spares"]) == (12, 1)
    assert qm["spares_rule"] == "Poisson 99 % quantile of 0.0592 expected failures (12 x 2 %/year x 2160 h / 8760 h)"
    rule = order["spares_rule"]
    assert rule["kind"] == "failure-rate"
    assert (rule["afr_percent"]["switch"], rule["replenish_hours"]["switch"], rule["service_level_percent"]["*"]) == (
        "2",
        "2160",
        "95",
    )


def test_a_baseline_is_frozen_with_the_failure_rate_rule(alice, computed):
    response = alice.post(rev_url(computed, 1, "ordered/"), {"spares_rule": "failure-rate", **RATES}, format="json")
    assert response.status_code == 201, response.content
    stored = OrderedBaseline.objects.get(design=computed).order["spares_rule"]
    assert stored["kind"] == "failure-rate" and stored["afr_percent"]["switch"] == "2"


def test_both_rules_side_by_side_say_which_inputs_are_defaults(alice, computed):
    body = alice.get(rev_url(computed, 1, "spares/?" + urlencode({"spares_percent": "5", **RATES}))).json()
    lines = {ln["part"]: ln for ln in body["lines"]}
    qm = lines["MQM9700-NS2F"]
    assert (qm["percent_spares"], qm["failure_rate_spares"], qm["expected_failures"], qm["defaults"]) == (
        1,
        1,
        0.0592,
        False,
    )
    others = [ln for ln in body["lines"] if ln["category"] != "switch"]
    assert others and all(ln["defaults"] for ln in others)
    assert "placeholders" in body["defaults_note"]
    assert body["percent_rule"]["percents"] == {"*": "5"}


def test_bad_failure_rate_inputs_are_refused_naming_the_parameter(alice, computed):
    for param, bad in (
        ("spares_service_level_percent", "100"),
        ("spares_afr_percent", "x"),
        ("spares_replenish_hours", "-1"),
    ):
        response = alice.get(rev_url(computed, 1, "order/?" + urlencode({"spares_rule": "failure-rate", param: bad})))
        assert response.status_code == 400, (param, bad)
        assert error_of(response)["fields"][0]["path"] == param
    response = alice.get(rev_url(computed, 1, "order/?spares_rule=mtbf"))
    assert response.status_code == 400 and error_of(response)["fields"][0]["path"] == "spares_rule"


def test_the_spares_comparison_follows_the_designs_permissions(alice, bob, anon, users, computed):
    url = rev_url(computed, 1, "spares/")
    assert alice.get(url).status_code == 200
    assert bob.get(url).status_code == 404
    assert anon.get(url).status_code == 401
    design_share(design=computed, user=users.bob, access="read")
    assert bob.get(url).status_code == 200
    assert bob.post(rev_url(computed, 1, "ordered/"), {"spares_rule": "failure-rate"}, format="json").status_code == 404


def test_the_bom_and_its_files_take_the_failure_rate_rule(alice, computed):
    """The same 12 QM9700 at 2 %/year, 2,160 h, 99 %: 1 spare (worked above), in /bom/ and in bom.csv."""
    params = urlencode({"spares_rule": "failure-rate", **RATES})
    bom = alice.get(rev_url(computed, 1, "bom/?" + params)).json()
    qm = next(ln for ln in bom["lines"] if ln["part"] == "MQM9700-NS2F")
    assert (qm["quantity"], qm["spares"], qm["order_quantity"]) == (12, 1, 13)
    assert bom["spares_rule"]["kind"] == "failure-rate" and bom["spares_percent"] == "0"
    response = alice.get(rev_url(computed, 1, "downloads/bom.csv?" + params))
    assert response.status_code == 200, response.content[:300]
    text = b"".join(response.streaming_content if response.streaming else [response.content]).decode()
    row = next(line for line in text.splitlines() if ",MQM9700-NS2F," in line and line.startswith("order"))
    assert "Poisson 99 % quantile of 0.0592 expected failures (12 x 2 %/year x 2160 h / 8760 h)" in row
    bad = alice.get(rev_url(computed, 1, "downloads/bom.csv?spares_rule=failure-rate&spares_afr_percent=x"))
    assert bad.status_code == 400 and error_of(bad)["fields"][0]["path"] == "spares_afr_percent"
