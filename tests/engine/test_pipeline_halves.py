"""compute_design = finish_design(start_design(spec)): a caller may store a draft's rows before finishing it.

start_design ─ topology, placement, run lengths, physical layer ─> DesignDraft  (all the rows need)
finish_design ─ invariant checks, summary ─> DesignResult                       (same rows, plus both)
"""

from __future__ import annotations

import pytest

from engine.catalog import load_catalog
from engine.errors import EngineInvariantError
from engine.pipeline import STAGES, compute_design, finish_design, start_design
from engine.spec import parse_spec
from tests.engine.conftest import MINIMAL


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(with_media=True)


def test_the_two_halves_give_what_the_whole_gives(catalog):
    spec = parse_spec(MINIMAL)
    whole = compute_design(spec, catalog)
    draft = start_design(spec, catalog)
    assert (draft.devices, draft.racks, draft.places, draft.links, draft.lengths_m) == (
        whole.devices,
        whole.racks,
        whole.places,
        whole.links,
        whole.lengths_m,
    )
    assert list(draft.physical.cable_db_rows(draft, 7)) == list(whole.physical.cable_db_rows(whole, 7))
    halves = finish_design(draft)
    assert halves.summary == whole.summary and halves.checks == whole.checks and halves.warnings == whole.warnings


def test_each_half_reports_its_own_stages_in_order(catalog):
    seen: list[tuple[str, int]] = []
    draft = start_design(parse_spec(MINIMAL), catalog, lambda stage, done, total: seen.append((stage, done)))
    assert list(dict.fromkeys(s for s, _ in seen)) == list(STAGES[:4])  # "physical" reports within its stage too
    seen.clear()
    finish_design(draft, lambda stage, done, total: seen.append((stage, done)))
    assert seen == [("verification", 4), ("summary", 5), ("done", len(STAGES))]


def test_a_broken_invariant_is_found_by_the_second_half(catalog, monkeypatch):
    draft = start_design(parse_spec(MINIMAL), catalog)

    def broken(**_):
        raise EngineInvariantError("port used twice")

    monkeypatch.setattr("engine.pipeline.verify", broken)
    with pytest.raises(EngineInvariantError):
        finish_design(draft)


def test_the_bom_and_fiber_totals_are_the_second_halfs_work(catalog):
    """Only the summary and the BOM need them; the rows, stored between the halves, do not."""
    draft = start_design(parse_spec(MINIMAL), catalog)
    assert draft.physical.bom == [] and draft.physical.fibers is None and draft.physical.bom_split is None
    result = finish_design(draft)
    assert result.physical.bom and result.physical.fibers is not None and result.summary["bom"] == result.physical.bom
    assert result.physical.roll_up() == []  # once only: a second call adds no warnings twice
