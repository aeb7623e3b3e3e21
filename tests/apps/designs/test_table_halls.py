"""The hall and crossing filters of the link and cable tables (issue 41: a site team works hall by hall; the links
and trunks between halls are pulled by a contractor of their own). Five rows, the same in both tables:

    row   a end    b end
    1     hall 1   hall 1        within hall 1
    2     hall 2   hall 2        within hall 2
    3     hall 1   hall 2        between halls
    4     hall 2   not placed    (NULL hall)
    5     NULL     NULL          stored before rows recorded halls

    hall=1            -> 1, 3          either end in hall 1
    hall=2            -> 2, 3, 4
    crossing=true     -> 3             both halls known, and different
    crossing=false    -> 1, 2, 4, 5    every other row: a NULL hall is never a crossing
    hall=2, crossing=false -> 2, 4

Every path answers alike: a keyset page in each order, forwards and backwards, the match count, the CSV's rows.
"""

from __future__ import annotations

import pytest

from apps.designs.tables import TableError, cable_page, link_page, table_count, table_rows
from tests.factories import HALL_ROWS, hall_revision

pytestmark = pytest.mark.django_db

CASES = [
    ({"hall": 1}, [1, 3]),
    ({"hall": 2}, [2, 3, 4]),
    ({"hall": 3}, []),
    ({"crossing": True}, [3]),
    ({"crossing": False}, [1, 2, 4, 5]),
    ({"hall": 2, "crossing": False}, [2, 4]),
    ({"hall": 2, "crossing": True}, [3]),
    ({"hall": 1, "rack": "A01"}, [1]),
    # as a query string gives them (the page's form and the API hand over int and bool)
    ({"hall": "2", "crossing": "false"}, [2, 4]),
    ({"crossing": "true"}, [3]),
]


@pytest.fixture
def rev():
    return hall_revision()


def _ids(page, key: str) -> list[int]:
    return [row[key] for row in page.rows]


@pytest.mark.parametrize(("filters", "want"), CASES)
@pytest.mark.parametrize(
    ("table", "fetch", "key", "sort"),
    [
        ("links", link_page, "link_id", "length_m"),
        ("cables", cable_page, "cable_id", "length_m"),
    ],
)
def test_each_filter_matches_its_rows_on_every_path(rev, filters, want, table, fetch, key, sort):
    assert _ids(fetch(revision=rev, filters=filters, order=key), key) == want
    assert _ids(fetch(revision=rev, filters=filters, order=f"-{key}"), key) == want[::-1]
    # length falls as the id rises (hall_revision), so the sort by length is the id order reversed
    assert _ids(fetch(revision=rev, filters=filters, order=sort), key) == want[::-1]
    assert table_count(revision=rev, table=table, filters=filters) == len(want)
    assert table_count(revision=rev, table=table, filters=filters, at_most=1) == min(len(want), 2)
    rows = table_rows(revision=rev, table=table, filters=filters, order=key, columns=(key, "a_hall", "b_hall"))
    assert [(i, (a, b)) for i, a, b in rows] == [(i, HALL_ROWS[i]) for i in want]


@pytest.mark.parametrize("filters", [{"hall": 2}, {"crossing": False}])
def test_a_filtered_page_pages_by_cursor_both_ways(rev, filters):
    want = next(r for f, r in CASES if f == filters)
    first = link_page(revision=rev, filters=filters, limit=1)
    seen, page = _ids(first, "link_id"), first
    while page.next_cursor:
        page = link_page(revision=rev, filters=filters, limit=1, cursor=page.next_cursor)
        seen += _ids(page, "link_id")
    assert seen == want
    back = link_page(revision=rev, filters=filters, limit=1, cursor=page.prev_cursor)
    assert _ids(back, "link_id") == want[-2:-1]


def test_crossing_true_and_false_split_the_table_whatever_the_halls():
    rev = hall_revision()
    for table in ("links", "cables"):
        crossing = table_count(revision=rev, table=table, filters={"crossing": True})
        within = table_count(revision=rev, table=table, filters={"crossing": False})
        assert crossing + within == len(HALL_ROWS)


@pytest.mark.parametrize(
    ("filters", "field", "message"),
    [
        ({"hall": "two"}, "hall", "must be a whole number"),
        ({"hall": "1.5"}, "hall", "must be a whole number"),
        ({"hall": True}, "hall", "must be a whole number"),
        ({"hall": 0}, "hall", "must be between 1 and 32767 (halls are numbered from 1)"),
        ({"hall": "-1"}, "hall", "must be between 1 and 32767 (halls are numbered from 1)"),
        ({"hall": 32768}, "hall", "must be between 1 and 32767 (halls are numbered from 1)"),
        ({"crossing": "maybe"}, "crossing", "must be true or false"),
    ],
)
def test_a_bad_hall_or_crossing_is_a_table_error_naming_it(rev, filters, field, message):
    for call in (
        lambda: link_page(revision=rev, filters=filters),
        lambda: cable_page(revision=rev, filters=filters),
        lambda: table_count(revision=rev, table="links", filters=filters),
        lambda: table_rows(revision=rev, table="cables", filters=filters, order="cable_id", columns=("cable_id",)),
    ):
        with pytest.raises(TableError) as err:
            list(call())
        assert (err.value.field, err.value.message) == (field, message)


# ----- the pages: the filter form, its errors, the CSV of the filtered table ---------------------------------------


def _page(client, rev, table: str, query: dict, suffix: str = "/"):
    client.force_login(rev.design.owner)
    return client.get(f"/designs/{rev.design_id}/revisions/{rev.number}/{table}{suffix}", query)


@pytest.mark.parametrize("table", ["links", "cables"])
def test_the_page_offers_the_hall_filters_only_over_several_halls(client, table):
    two = hall_revision(halls=2)
    html = _page(client, two, table, {}).content.decode()
    assert 'name="hall"' in html and 'name="crossing"' in html
    one = hall_revision(halls=1)
    html = _page(client, one, table, {}).content.decode()
    assert 'name="hall"' not in html and 'name="crossing"' not in html


def test_the_page_shows_the_rows_of_a_hall_and_between_halls(client, rev):
    html = _page(client, rev, "links", {"hall": 2, "crossing": "false"}).content.decode()
    assert "LEAF-02" in html and "LEAF-04" in html
    assert "LEAF-01" not in html and "LEAF-03" not in html and "LEAF-05" not in html
    html = _page(client, rev, "cables", {"crossing": "true"}).content.decode()
    assert "LEAF-03" in html and "LEAF-01" not in html


@pytest.mark.parametrize(
    ("query", "error"),
    [
        ({"hall": "two"}, "Enter a whole number."),
        ({"hall": "0"}, "Ensure this value is greater than or equal to 1."),
        ({"hall": "3"}, "Ensure this value is less than or equal to 2."),
        ({"crossing": "maybe"}, "Select a valid choice."),
    ],
)
def test_a_bad_hall_filter_is_a_form_error_on_the_page(client, rev, query, error):
    response = _page(client, rev, "links", query)
    assert response.status_code == 400
    assert error in response.content.decode()
    csv = _page(client, rev, "links", query, suffix=".csv")
    assert csv.status_code == 400
    assert csv.content.decode().startswith(f"Bad filter: * {next(iter(query))}\n") and error in csv.content.decode()


def test_the_tables_csv_download_keeps_the_hall_filters(client, rev):
    response = _page(client, rev, "cables", {"hall": 1}, suffix=".csv")
    lines = b"".join(response.streaming_content).decode().splitlines()
    assert lines[0].endswith(",a_hall,b_hall")  # over several halls the file ends with both halls
    assert [line.split(",")[0] for line in lines[1:]] == ["C000001", "C000003"]
    response = _page(client, rev, "links", {"crossing": "false", "order": "-link_id"}, suffix=".csv")
    ids = [line.split(",")[0] for line in b"".join(response.streaming_content).decode().splitlines()[1:]]
    assert ids == ["L000005", "L000004", "L000002", "L000001"]
