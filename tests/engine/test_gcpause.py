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


def test_what_was_made_inside_goes_to_the_oldest_generation_and_stays_collectable(collector_on):
    """The records of a paused block are handed to the oldest generation at its end (gc.freeze/unfreeze), not
    walked by the next young collection; nothing stays frozen, and a cycle made inside is still collected."""
    import weakref

    class Node:
        pass

    assert gc.get_freeze_count() == 0
    with cyclic_gc_paused():
        a, b = Node(), Node()
        a.other, b.other = b, a  # a cycle only the collector can free
        gone = weakref.ref(a)
        kept = [[i] for i in range(1000)]
    gc.disable()  # look before any young collection could move them
    oldest = any(o is kept for o in gc.get_objects(generation=2))
    gc.enable()
    assert oldest
    assert gc.get_freeze_count() == 0
    del a, b
    gc.collect()
    assert gone() is None


def _in_a_generation(obj) -> bool:
    """Whether the collector walks `obj`: gc.get_objects() lists generations 0-2, never the permanent one."""
    return any(o is obj for o in gc.get_objects())


def test_a_process_that_froze_its_own_objects_keeps_them_frozen(collector_on):
    # Watched through one object of its own, not gc.get_freeze_count(): another thread of the test process may free
    # a frozen object meanwhile (CI once saw the count drop by one), which says nothing about a thaw.
    mine = [[]]
    gc.collect()
    gc.freeze()
    try:
        assert not _in_a_generation(mine)
        with cyclic_gc_paused():
            pass
        assert not _in_a_generation(mine)  # still in the permanent generation: not thawed
    finally:
        gc.unfreeze()
    assert _in_a_generation(mine)  # the check can see a thawed object
