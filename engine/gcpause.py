"""cyclic_gc_paused(): pause Python's cyclic garbage collector around work that allocates millions of records.

A 400,000-link design allocates millions of small, acyclic tuples and records that stay alive to the end of
the run. Every time the young generations fill, the collector runs, and each full collection walks every
live container object, so its cost grows with the design. Reference counting still frees these records, as
they have no cycles. Pausing the collector over a 128K-GPU compute-and-store saved about 0.6 s of 9 s
(bench/bench_store.py).

Switching the collector back on is not free either: every object made while it was paused still sits in the
youngest generation, so the first allocation after `gc.enable()` walks them all (2,968,396 objects, 0.35-0.38 s
of CPU after a 128K-GPU design, about 7 % of the engine). `gc.freeze()` moves them to the permanent generation
without walking them and `gc.unfreeze()` hands them to the oldest one, where a later full collection still sees
them: the same objects are collected, only not all at once on the next allocation (0.000 s measured). A process
that had frozen objects of its own (a pre-forking server keeping pages shared) is left to the plain way.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Disable the cyclic collector for the block; restore it afterwards if it was on (nesting is safe)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled and gc.get_freeze_count() == 0:  # never thaw what a server froze on purpose (fork sharing)
            gc.freeze()
            gc.enable()
            gc.unfreeze()
        elif enabled:
            gc.enable()
