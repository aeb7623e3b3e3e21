"""A request without query parameters gets the operation's defaults from a cache (validating them anew costs
more CPU than the rest of a 304): the same values as validation gives, and a fresh copy each time."""

from __future__ import annotations

import pytest
from django.test import RequestFactory
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request

from apps.api.serializers import query
from apps.api.views.revisions import BomQuery


def request_for(path: str) -> Request:
    return Request(RequestFactory().get(path))


def test_no_parameters_give_the_validated_defaults_as_a_fresh_copy():
    first = query(BomQuery, request_for("/bom/"))
    expected = BomQuery(data={}, context={"query": True})
    expected.is_valid(raise_exception=True)

    assert first == expected.validated_data
    assert "spares_percent" not in first and first["spares_rule"] == "percent"
    first["spares_rule"] = "failure-rate"
    assert query(BomQuery, request_for("/bom/"))["spares_rule"] == "percent"


def test_parameters_are_still_validated_each_time():
    assert query(BomQuery, request_for("/bom/?spares_percent=5"))["spares_percent"] == "5"
    with pytest.raises(ValidationError):
        query(BomQuery, request_for("/bom/?spares_percent=-1"))
    with pytest.raises(ValidationError):
        query(BomQuery, request_for("/bom/?sparse_percent=5"))
