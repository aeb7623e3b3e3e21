"""Where a design's bytes are: deep sizes of the engine's big structures and of the rows a store builds (issue 41).

    python bench/bench_memory.py [--size 128k]

Computes bench_scale's design of that size (start_design, then finish_design), then walks each structure with
sys.getsizeof, counting every object once: what two structures share (a Device, an interned string, a shared
tuple) is counted under the first that reaches it, in the order printed. Cable and link rows for the database are
measured on the first 200,000 of each and scaled to all. Prints MB and bytes per link or per cable; the figures are
load-independent (the machine is shared), so a small size predicts the large ones per row.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tracemalloc
from itertools import islice
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_scale import SIZES  # noqa: E402

SAMPLE = 200_000


def deep(obj: object, seen: set[int]) -> int:
    """Bytes of obj and everything it holds that `seen` does not have yet (containers, dataclasses, slots)."""
    total = 0
    stack = [obj]
    while stack:
        o = stack.pop()
        if id(o) in seen or o is None or isinstance(o, (bool, type)):
            continue
        seen.add(id(o))
        total += sys.getsizeof(o)
        if isinstance(o, (str, bytes, int, float)):
            continue
        if isinstance(o, dict):
            stack.extend(o.keys())
            stack.extend(o.values())
        elif isinstance(o, (list, tuple, set, frozenset)):
            stack.extend(o)
        else:
            d = getattr(o, "__dict__", None)
            if d is not None:
                stack.append(d)
            for cls in type(o).__mro__:
                for s in getattr(cls, "__slots__", ()):
                    v = getattr(o, s, None)
                    if v is not None:
                        stack.append(v)
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", default="128k")
    args = ap.parse_args()
    from apps.designs.adapters import cable_db_rows, link_db_rows
    from engine.guard import Limits
    from engine.pipeline import check_design, finish_design, start_design
    from engine.snapshot_codec import encode
    from engine.spec import parse_spec

    spec = parse_spec(SIZES[args.size])
    draft = start_design(spec, limits=Limits(max_links=10**9, max_devices=10**8))
    ph = draft.physical
    n_links, n_cables = len(draft.links), len(ph.cable_rows)
    print(f"{args.size}: {n_links:,} links, {n_cables:,} cables, {len(draft.devices):,} devices")
    seen: set[int] = set()
    rows = [
        ("devices", draft.devices, n_links),
        ("links (Link records)", draft.links, n_links),
        ("lengths_m", draft.lengths_m, n_links),
        ("places", draft.places, n_links),
        ("physical.cable_rows", ph.cable_rows, n_cables),
        ("physical.cables (ids per link)", ph.cables, n_links),
        ("physical.cords", ph.cords, n_links),
        ("physical.choices", ph.choices, n_links),
        ("physical.budgets", ph.budgets, n_links),
        ("physical.statuses", ph.statuses, n_links),
    ]
    print(f"{'structure':<40} {'MB':>8} {'B per':>7}")
    for name, obj, per in rows:
        b = deep(obj, seen)
        print(f"{name:<40} {b / 2**20:>8.1f} {b / per:>7.0f}")
    gc.collect()
    for name, gen, n in (
        ("cable rows for COPY (all, as a list)", cable_db_rows(draft, 1), n_cables),
        ("link rows for COPY (all, as a list)", link_db_rows(draft, 1), n_links),
    ):
        sample = list(islice(gen, SAMPLE))
        b = deep(sample, set(seen)) * n / len(sample)
        print(f"{name:<40} {b / 2**20:>8.1f} {b / n:>7.0f}")
        del sample
    # The two steps that run during a store's index builds, traced: what each allocates at its peak beyond
    # what was alive before it (tracemalloc's own bookkeeping is not counted; it slows both 2-3x).
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    checks = check_design(draft)
    kept, peak = tracemalloc.get_traced_memory()
    print(f"{'check_design: peak above before / kept':<40} {(peak - base) / 2**20:>8.1f} {(kept - base) / 2**20:>7.1f}")
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    result = finish_design(draft, checks=checks)
    kept, peak = tracemalloc.get_traced_memory()
    print(
        f"{'finish_design: peak above before / kept':<40} {(peak - base) / 2**20:>8.1f} {(kept - base) / 2**20:>7.1f}"
    )
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    doc = encode(result)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"{'snapshot encode: peak above before':<40} {(peak - base) / 2**20:>8.1f} {(peak - base) / n_links:>7.0f}")
    print(f"{'snapshot document (bytes)':<40} {len(doc) / 2**20:>8.1f} {len(doc) / n_links:>7.0f}")


if __name__ == "__main__":
    main()
