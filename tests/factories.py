"""factory_boy factories for the Django models. Engine specs are plain dicts: see SMALL_SPEC.

DesignFactory()                      # alice-less: a fresh owner, a valid 16-server spec
DesignFactory(owner=users.alice)
JobFactory(design=design)            # a queued compute job of the design's spec, never enqueued
JobFactory(params={"spec": {...}})   # any spec, even one the engine rejects
"""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model

from apps.designs.models import Design
from apps.jobs.models import Job, JobStatus
from engine.spec import SCHEMA_VERSION, parse_spec

# 16 DGX H100 on QM9700 with OOB: 581 links (384 optical with a loss budget, 146 without a medium,
# 51 copper) and 435 cables in about 0.03 s, so a test can compute it as often as it likes.
SMALL_SPEC = {
    "name": "Small H100 fabric",
    "servers": {"model": "dgx-h100", "count": 16},
    "compute_fabric": {"technology": "infiniband", "switch": "qm9700", "scalable_unit": 32},
    "inband": {"enabled": True, "management_servers": 2},
    "oob": {"enabled": True},
}


def small_spec(**changes) -> dict:
    """SMALL_SPEC normalized by the engine (as design_create stores it), with top-level `changes`."""
    return parse_spec({**SMALL_SPEC, **changes}).to_dict()


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.com")


class DesignFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Design

    owner = factory.SubFactory(UserFactory)
    spec = factory.LazyFunction(small_spec)
    name = factory.LazyAttribute(lambda d: d.spec["name"])
    schema_version = SCHEMA_VERSION


class JobFactory(factory.django.DjangoModelFactory):
    """A compute job row as design_compute_enqueue writes it, but never sent to a broker."""

    class Meta:
        model = Job

    kind = "compute"
    status = JobStatus.QUEUED
    design = factory.SubFactory(DesignFactory)
    created_by = factory.LazyAttribute(lambda j: j.design.owner if j.design else None)
    params = factory.LazyAttribute(lambda j: {"spec": j.design.spec} if j.design else {})


# Ends of the rows hall_revision stores, by row id: (a_hall, b_hall); None is an end not placed (no rack), or a row
# stored before rows recorded halls.
HALL_ROWS = {
    1: (1, 1),  # within hall 1
    2: (2, 2),  # within hall 2
    3: (1, 2),  # between halls 1 and 2 (an inter-hall trunk, for a cable)
    4: (2, None),  # one end in hall 2, the other not placed
    5: (None, None),  # stored before halls were recorded
}


def hall_revision(design: Design | None = None, *, halls: int = 2, number: int = 1):
    """A stored revision of `design` (a new one by default) whose link and cable tables hold one row per HALL_ROWS
    entry (link 3 is cable 3), without running the engine; its summary says how many halls it spans."""
    from apps.designs.models import CableRecord, LinkRecord, Revision

    design = design or DesignFactory()
    rev = Revision.objects.create(
        design=design,
        number=number,
        spec=design.spec,
        spec_hash=f"{number:064d}",
        engine_version="e1",
        catalog_version="c1",
        summary={"site": {"halls": halls}, "networks": {"compute": {"links": {"leaf-spine": len(HALL_ROWS)}}}},
        link_count=len(HALL_ROWS),
        cable_count=len(HALL_ROWS),
        created_by=design.owner,
    )
    for i, (a_hall, b_hall) in HALL_ROWS.items():
        ends = {
            "a_device": f"LEAF-{i:02d}",
            "a_port": "1/1",
            "a_rack": f"A0{i}",
            "b_device": f"SPINE-{i:02d}",
            "b_port": "1/1",
            "b_rack": "" if i == 4 else f"B0{i}",  # row 5's racks are placed, their halls not recorded
            "a_hall": a_hall,
            "b_hall": b_hall,
            "network": "compute",
            "tier": "leaf-spine",
            "length_m": 100.0 - i,  # longest first: a sort by length reverses the id order
        }
        LinkRecord.objects.create(revision=rev, link_id=i, speed_gbps=400, cables=f"C{i:06d}", **ends)
        CableRecord.objects.create(
            revision=rev, cable_id=i, kind="cord", part="CORD-1", label_a="a", label_b="b", links=f"L{i:06d}", **ends
        )
    return rev
