"""Each stored link and cable row names the data hall of both ends (docs/site-model.md), so the API's and the pages'
tables tell a technician which hall to walk to, not only a rack id:

    hall 1: [MDA: cores] [pod 1: spines, leaves, servers]      hall 2: [pod 2: spines, leaves, servers]
                 ^------------------- spine-core links of pod 2 cross halls ----------------^

The expected hall of every end comes from the engine's own racks (each Rack records its 0-based hall), never
from the stored rows themselves."""

from __future__ import annotations

import pytest

from apps.designs.models import CableRecord, LinkRecord, Revision
from apps.designs.services import design_compute_job
from apps.designs.tables import CABLE_FIELDS, LINK_FIELDS
from apps.jobs.progress import DbProgress
from apps.jobs.services import job_claim
from tests.deliverables.test_hall_documents import TWO_HALLS
from tests.factories import DesignFactory, JobFactory, small_spec

pytestmark = pytest.mark.django_db


def _stored(spec: dict) -> Revision:
    design = DesignFactory(spec=spec)
    job = JobFactory(design=design)
    job_claim(job_id=job.pk)
    job.refresh_from_db()
    outcome = design_compute_job(job=job, progress=DbProgress(job.pk, attempt=job.attempts))
    return Revision.objects.get(pk=outcome["revision_id"])


@pytest.fixture(scope="module")
def engine_two_halls():
    from engine.pipeline import compute_design
    from engine.spec import parse_spec

    return compute_design(parse_spec(TWO_HALLS))


@pytest.fixture
def two_halls() -> Revision:
    return _stored(TWO_HALLS)


def _expected_hall(result) -> dict[str, int]:
    return {r.id: r.hall + 1 for r in result.racks}


def test_every_stored_link_and_cable_end_names_its_racks_hall(two_halls, engine_two_halls):
    hall_of = _expected_hall(engine_two_halls)
    assert set(hall_of.values()) == {1, 2}
    links = list(LinkRecord.objects.filter(revision=two_halls).values_list("a_rack", "b_rack", "a_hall", "b_hall"))
    cables = list(CableRecord.objects.filter(revision=two_halls).values_list("a_rack", "b_rack", "a_hall", "b_hall"))
    assert len(links) == len(engine_two_halls.links)
    for rows in (links, cables):
        assert [(hall_of.get(a), hall_of.get(b)) for a, b, _, _ in rows] == [(ha, hb) for _, _, ha, hb in rows]
    # the rows a technician needs the column for: ends in different halls (links and the trunks between halls)
    assert any(ha != hb for *_, ha, hb in links)
    assert any(ha != hb for *_, ha, hb in cables)


def test_a_one_hall_design_stores_hall_1_for_every_placed_end():
    rev = _stored(small_spec())
    for model in (LinkRecord, CableRecord):
        ends = model.objects.filter(revision=rev).values_list("a_rack", "a_hall", "b_rack", "b_hall")
        assert ends
        for a_rack, a_hall, b_rack, b_hall in ends:
            assert (a_hall, b_hall) == (1 if a_rack else None, 1 if b_rack else None)


def test_the_tables_fields_carry_both_halls():
    assert LINK_FIELDS[-2:] == ("a_hall", "b_hall")
    assert CABLE_FIELDS[-2:] == ("a_hall", "b_hall")


def test_the_api_rows_and_the_table_page_show_the_hall_over_several_halls(client, two_halls):
    owner = two_halls.design.owner
    client.force_login(owner)
    base = f"/api/v1/designs/{two_halls.design_id}/revisions/{two_halls.number}"
    crossing = LinkRecord.objects.filter(revision=two_halls, a_hall=2, b_hall=1).first() or (
        LinkRecord.objects.filter(revision=two_halls, a_hall=1, b_hall=2).first()
    )
    assert crossing is not None
    rack = crossing.a_rack if crossing.a_hall == 2 else crossing.b_rack
    body = client.get(f"{base}/links/", {"rack": rack, "limit": 1000}).json()
    row = next(r for r in body["results"] if r["link_id"] == crossing.link_id)
    assert (row["a_hall"], row["b_hall"]) == (crossing.a_hall, crossing.b_hall)
    cables = client.get(f"{base}/cables/", {"rack": rack, "limit": 1000}).json()["results"]
    assert cables and all(2 in (r["a_hall"], r["b_hall"]) for r in cables)

    page = client.get(
        f"/designs/{two_halls.design_id}/revisions/{two_halls.number}/links/", {"rack": rack, "tier": crossing.tier}
    )
    assert page.status_code == 200
    html = page.content.decode()
    assert "hall · rack · U" in html and "hall 2 · " in html and "hall 1 · " in html


def test_a_one_hall_table_page_reads_as_before(client):
    rev = _stored(small_spec())
    client.force_login(rev.design.owner)
    html = client.get(f"/designs/{rev.design_id}/revisions/{rev.number}/cables/").content.decode()
    assert "hall 1 · " not in html and "hall · rack" not in html and "A rack" in html
