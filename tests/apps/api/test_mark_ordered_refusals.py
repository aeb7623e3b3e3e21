"""Mark-ordered refuses a bad spares input as docs/api.md (Purchase orders) says: a 400 naming the parameter, in the
documents' words (a service level above 0 and below 100; a percentage that is a number), and nothing is marked."""

from __future__ import annotations

import pytest

from .conftest import error_of, rev_url

pytestmark = pytest.mark.django_db


SPARES_GRAMMAR = 'a percentage ("5") or category:percentage pairs ("transceiver:2,*:1")'


@pytest.mark.parametrize(
    "body, path, message",
    [
        (
            {"spares_rule": "failure-rate", "spares_service_level_percent": "0"},
            "spares_service_level_percent",
            "'0' is not a service level in percent, above 0 and below 100",
        ),
        # the one spares grammar of every endpoint (apps/api/spares_params.py) names its two forms
        ({"spares_percent": "abc"}, "spares_percent", SPARES_GRAMMAR),
        ({"spares_percent": "NaN"}, "spares_percent", SPARES_GRAMMAR),
        ({"spares_percent": "transceiver:2,*:many"}, "spares_percent", SPARES_GRAMMAR),
    ],
)
def test_mark_ordered_refuses_in_the_documents_words(alice, computed, body, path, message):
    from apps.designs.models import OrderedBaseline

    r = alice.post(rev_url(computed, 1, "ordered/"), body, format="json")
    assert r.status_code == 400
    assert error_of(r)["fields"] == [{"path": path, "message": message}]
    assert not OrderedBaseline.objects.exists()


def test_a_service_level_just_below_100_is_taken_as_documented(alice, computed):
    body = {"spares_rule": "failure-rate", "spares_service_level_percent": "99.99999"}
    r = alice.post(rev_url(computed, 1, "ordered/"), body, format="json")
    assert r.status_code == 201, r.content[:300]
    assert r.json()["order"]["spares_rule"]["service_level_percent"]["*"] == "99.99999"
