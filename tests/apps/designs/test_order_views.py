"""The browser's side of purchase orders: the compare page's order deltas and marking a revision ordered."""

from __future__ import annotations

import pytest

from apps.designs.models import DesignShare, OrderedBaseline
from apps.designs.services import design_create

from .test_views import TINY, compute_now, url


@pytest.fixture
def alice(client, users):
    client.force_login(users.alice)
    return client


@pytest.fixture
def shrunk(users):
    """alice's 8-server design (r1) shrunk to 4 servers (r2)."""
    design = design_create(user=users.alice, spec=TINY)
    compute_now(design, users.alice)
    design.spec = {**design.spec, "servers": {"model": "dgx-h100", "count": 4}}
    design.save()
    compute_now(design, users.alice)
    return design


def test_compare_shows_every_changed_part_signed_with_the_change_order_links(alice, shrunk):
    response = alice.get(url("compare", shrunk.pk, old=1, new=2, spares_percent="5"))
    assert response.status_code == 200
    order = response.context["order"]
    r1, r2 = shrunk.revisions.order_by("number")
    old = {b["sku"]: b["quantity"] for b in r1.summary["bom"]}
    new = {b["sku"]: b["quantity"] for b in r2.summary["bom"]}
    shown = {r["part"]: r for r in order["rows"]}
    assert set(shown) == {p for p in set(old) | set(new) if old.get(p) != new.get(p)}
    for part, row in shown.items():
        assert row["quantity"] == new.get(part, 0) - old.get(part, 0)
        assert row["order_quantity"] == row["new_order"] - row["old_order"]
    categories = [r["category"] for r in order["rows"]]
    assert categories == sorted(categories, key=categories.index)  # grouped, in the BOM's category order
    html = response.content.decode()
    assert 'id="order-delta"' in html and "5 % of" in html
    assert f"/api/v1/designs/{shrunk.pk}/change-order.csv?old=1&amp;new=2&amp;spares_percent=5" in html
    assert '<th scope="rowgroup" colspan="4">Parts</th>' not in html  # parts are in the order table instead


def test_compare_refuses_bad_spares_with_a_form_error(alice, shrunk):
    response = alice.get(url("compare", shrunk.pk, old=1, new=2, spares_percent="fiber:x"))
    assert response.status_code == 400
    assert "is not a number" in response.context["form"].errors["spares_percent"][0]


def test_marking_a_revision_ordered_makes_it_the_compare_baseline(alice, client, users, shrunk):
    response = alice.post(url("mark_ordered", shrunk.pk, 1), {"spares_percent": "transceiver:2"})
    assert response.status_code == 302 and response["Location"].endswith("#ordered-title")
    baseline = OrderedBaseline.objects.get(design=shrunk)
    assert baseline.revision.number == 1 and baseline.by == users.alice
    assert baseline.order["spares_rule"]["percents"] == {"transceiver": "2"}
    page = alice.get(url("workspace:section", shrunk.pk, 2, "bom")).content.decode()
    assert "was marked ordered by alice" in page and "?old=ordered&amp;new=2" in page

    compare = alice.get(url("compare", shrunk.pk, old="ordered", new=2))
    assert compare.status_code == 200
    order = compare.context["order"]
    assert order["old"].label == "r1 (ordered)" and "transceiver 2 %" in order["new"].spares_text
    assert compare.context["old"].number == 1  # links and counts: the revision that was ordered


def test_only_writers_mark_a_revision_ordered(client, users, shrunk):
    DesignShare.objects.create(design=shrunk, user=users.bob, access="read")
    client.force_login(users.bob)
    assert client.post(url("mark_ordered", shrunk.pk, 1), {}).status_code == 404
    assert "Mark r1 as ordered" not in client.get(url("workspace:section", shrunk.pk, 1, "bom")).content.decode()
    assert not OrderedBaseline.objects.exists()
    assert client.get(url("compare", shrunk.pk, old=1, new=2)).status_code == 200
