"""cyclic_gc_paused(): pause Python's cyclic garbage collector around work that allocates millions of records.

A 400,000-link design allocates millions of small, acyclic tuples and records that stay alive to the end of
the run. Every time the young generations fill, the collector runs, and each full collection walks every
live container object, so its cost grows with the design. Reference counting still frees these records, as
they have no cycles. Pausing the collector over a 128K-GPU compute-and-store saved about 0.6 s of 9 s
(bench/bench_store.py).
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
        if enabled:
            gc.enable()
