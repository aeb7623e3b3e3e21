"""A link's physical fields (PhysicalResult.link_fields_all, link_db_fields_all): the cable ids are written as
f"C{n:06d}" would write them whichever way the loop takes (str.zfill for plain ints, the format spec for
anything else), and only the stored column cuts them to 128 characters."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.pipeline import compute_design
from engine.spec import parse_spec

from .conftest import spec

CABLES = 3  # LINK_PHYSICAL_COLUMNS' position of the cable ids


@pytest.fixture(scope="module")
def panelled():
    physical = {"tiers": {"leaf-spine": {"medium": "single-mode", "cabling": "panels", "trunk_base": 8}}}
    return compute_design(parse_spec(spec(physical=physical)))


class _OddId(int):
    """An int that prints itself otherwise than its digits (str), as no plain int does."""

    def __str__(self) -> str:
        return "odd"


def _written(ids: tuple, cut: int | None) -> str:
    return " ".join(f"C{x:06d}" for x in ids)[:cut]


@pytest.mark.parametrize("plain", [True, False])
def test_cable_ids_are_written_as_the_format_spec_writes_them(panelled, plain):
    """With plain ids the loop writes a link's one cable with str.zfill; one id of another kind (plain=False)
    sends every link the general way. A link with no cable writes none, and twenty cables are cut to the
    stored column's 128 characters, only there."""
    ph = panelled.physical
    cables = list(ph.cables)
    single = next(i for i, ids in enumerate(cables) if len(ids) == 1)
    several = next(i for i, ids in enumerate(cables) if len(ids) > 1)
    cables[single] = (_OddId(cables[single][0]),) if not plain else cables[single]
    cables[several - 1] = ()
    cables[several] = tuple(range(1, 21))
    edited = replace(ph, cables=cables)

    for fields, cut in ((edited.link_fields_all(), None), (edited.link_db_fields_all(), 128)):
        assert [f[CABLES] for f in fields] == [_written(ids, cut) for ids in cables]
    assert len(list(edited.link_db_fields_all())[several][CABLES]) == 128
    assert any(len(ids) == 1 for ids in cables) and any(len(ids) == 3 for ids in cables)


def test_the_other_fields_do_not_depend_on_the_cable_ids(panelled):
    ph = panelled.physical
    odd = replace(ph, cables=[tuple(map(_OddId, ids)) for ids in ph.cables])
    for plain, general in (
        (ph.link_db_fields_all(), odd.link_db_fields_all()),
        (ph.link_fields_all(), odd.link_fields_all()),
    ):
        assert [f[:CABLES] + f[CABLES + 1 :] for f in plain] == [f[:CABLES] + f[CABLES + 1 :] for f in general]
