"""cyclic_gc_paused(): the collector is off inside, and afterwards as it was before, whatever happens inside."""

from __future__ import annotations

import gc

import pytest

from engine.gcpause import cyclic_gc_paused


@pytest.fixture
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    (gc.enable if was else gc.disable)()


def test_it_pauses_the_collector_and_turns_it_back_on(collector_on):
    with cyclic_gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_nested_pauses_leave_it_off_until_the_outermost_ends(collector_on):
    with cyclic_gc_paused():
        with cyclic_gc_paused():
            pass
        assert not gc.isenabled()
    assert gc.isenabled()


def test_it_turns_it_back_on_after_an_error(collector_on):
    with pytest.raises(ValueError), cyclic_gc_paused():
        raise ValueError("boom")
    assert gc.isenabled()


def test_it_leaves_a_collector_that_was_off_off():
    was = gc.isenabled()
    gc.disable()
    try:
        with cyclic_gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()
