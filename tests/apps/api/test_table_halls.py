"""The links and cables endpoints filter by hall (either end in it) and by crossing (ends in two different halls),
as the tables do (tests/apps/designs/test_table_halls.py: the same five rows, HALL_ROWS); a bad value is a 400 naming
the parameter, and the design's permissions are those of every other filter."""

from __future__ import annotations

import pytest

from apps.designs.services import design_share
from tests.apps.api.conftest import error_of, rev_url
from tests.factories import DesignFactory, hall_revision

pytestmark = pytest.mark.django_db


@pytest.fixture
def rev(users):
    return hall_revision(DesignFactory(owner=users.alice))


def _ids(client, rev, table: str, query: str) -> list[int]:
    response = client.get(rev_url(rev.design, rev.number, f"{table}/?{query}"))
    assert response.status_code == 200, response.content
    key = "link_id" if table == "links" else "cable_id"
    return [row[key] for row in response.json()["results"]]


@pytest.mark.parametrize("table", ["links", "cables"])
@pytest.mark.parametrize(
    ("query", "want"),
    [
        ("hall=1", [1, 3]),
        ("hall=2", [2, 3, 4]),
        ("crossing=true", [3]),
        ("crossing=false", [1, 2, 4, 5]),
        ("hall=2&crossing=false", [2, 4]),
        ("hall=2&order=-length_m", [2, 3, 4]),
        ("hall=2&limit=1&order=length_m", [4]),
    ],
)
def test_the_endpoints_filter_by_hall_and_crossing(alice, rev, table, query, want):
    assert _ids(alice, rev, table, query) == want


@pytest.mark.parametrize(
    ("query", "path"),
    [
        ("hall=two", "hall"),
        ("hall=1.5", "hall"),
        ("hall=0", "hall"),
        ("hall=-1", "hall"),
        ("hall=3", "hall"),  # the revision has halls 1 and 2
        ("crossing=maybe", "crossing"),
    ],
)
@pytest.mark.parametrize("table", ["links", "cables"])
def test_a_bad_hall_or_crossing_is_a_400_naming_it(alice, rev, table, query, path):
    response = alice.get(rev_url(rev.design, rev.number, f"{table}/?{query}"))
    assert response.status_code == 400
    error = error_of(response)
    assert [f["path"] for f in error["fields"]] == [path]


def test_a_hall_beyond_the_revisions_names_the_halls_it_has(alice, rev):
    error = error_of(alice.get(rev_url(rev.design, rev.number, "links/?hall=3")))
    assert error["message"] == "hall: 3 is not a hall of this revision (it has halls 1-2)."


def test_the_hall_filters_follow_the_designs_permissions(alice, bob, anon, users, rev):
    url = rev_url(rev.design, rev.number, "cables/?hall=2&crossing=true")
    assert alice.get(url).status_code == 200
    assert bob.get(url).status_code == 404  # not shared: no hint that the revision or its halls exist
    assert bob.get(rev_url(rev.design, rev.number, "cables/?hall=99")).status_code == 404
    assert anon.get(url).status_code == 401
    design_share(design=rev.design, user=users.bob, access="read")
    assert _ids(bob, rev, "cables", "hall=2&crossing=true") == [3]
