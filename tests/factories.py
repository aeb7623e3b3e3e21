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
