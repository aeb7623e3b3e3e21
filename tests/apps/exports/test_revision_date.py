"""A frozen revision's documents print the day it was computed, not the day they are rendered (issue 15): the
same revision rendered on two different days is the same bytes.

GIVEN alice's small design, computed on 4 March 2025 (noon UTC)
"""

from __future__ import annotations

import datetime as dt
import io
from types import SimpleNamespace

import pytest
from pypdf import PdfReader
from reportlab import rl_config

from apps.designs.models import Revision
from apps.designs.services import design_compute_enqueue, design_create
from apps.exports import artifacts
from apps.exports.artifacts import artifact_build, artifact_options, artifact_storage
from apps.jobs.runner import run_job
from deliverables import options as options_module

from .test_artifacts import SPEC

pytestmark = pytest.mark.django_db(transaction=True)  # artifact files are deleted on commit


@pytest.fixture
def revision(users, monkeypatch):
    monkeypatch.setattr(rl_config, "invariant", 1)  # no creation timestamp or random id inside the PDFs
    design = design_create(user=users.alice, spec=SPEC)
    assert run_job(str(design_compute_enqueue(design=design, user=users.alice).pk)) == "succeeded"
    Revision.objects.filter(design=design).update(created_at=dt.datetime(2025, 3, 4, 12, tzinfo=dt.UTC))
    return design.revisions.get()


def _on(monkeypatch, day: dt.date) -> None:
    """Make "today" `day` for the renderers' options."""
    fake_date = SimpleNamespace(today=lambda: day)
    monkeypatch.setattr(options_module, "_dt", SimpleNamespace(date=fake_date))


def _render(revision) -> bytes:
    artifact = artifact_build(revision=revision, kind="labels.pdf", options={})
    with artifact_storage().open(artifact.name) as fh:
        data = fh.read()
    artifact.delete()  # the next build renders again instead of finding it
    return data


def test_the_documents_of_a_revision_carry_the_day_it_was_computed(revision):
    assert artifact_options(revision=revision, kind="labels.pdf", options={})["date"] == "2025-03-04"
    assert artifact_options(revision=revision, kind="bom.csv", options={})["date"] == "2025-03-04"


def test_a_date_the_caller_names_still_wins(revision):
    named = artifact_options(revision=revision, kind="labels.pdf", options={"date": "2026-01-15"})
    assert named["date"] == "2026-01-15"


def test_rendered_on_two_different_days_a_revisions_file_is_the_same_bytes(revision, monkeypatch):
    _on(monkeypatch, dt.date(2026, 12, 3))
    first = _render(revision)
    _on(monkeypatch, dt.date(2027, 6, 30))
    second = _render(revision)

    assert first == second
    text = " ".join(page.extract_text() for page in PdfReader(io.BytesIO(first)).pages)
    assert "2025-03-04" in text and "2026-12-03" not in text


def test_the_computed_day_is_the_installations_day(revision, settings):
    settings.TIME_ZONE = "Pacific/Kiritimati"  # UTC+14: noon UTC is already the next day there
    assert artifacts.revision_date(revision) == "2025-03-05"
