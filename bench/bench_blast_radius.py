"""Blast-radius benchmark: engine.blast_radius on the 1K / 16K / 128K-GPU designs of bench_engine.py.

    python bench/bench_blast_radius.py [--repeat 3] [--sizes 1k,16k,128k] [--panels]

Prints the median seconds of the blast radius alone (the design is computed once per size, without media,
beforehand). With --panels the design is computed with the media catalog and every tier through patch panels,
and the blast radius is the revision's (blast_radius_of: trunks, panels, racks too). A revision's result is cached per fingerprint (apps/exports/failures.py), so this is the cost of a
cache miss on top of recomputing the revision.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_engine import SIZES  # noqa: E402
from engine.blast_radius import blast_radius, blast_radius_of  # noqa: E402
from engine.catalog import load_catalog  # noqa: E402
from engine.pipeline import compute_design  # noqa: E402
from engine.spec import parse_spec  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sizes", default="1k,16k,128k")
    ap.add_argument("--panels", action="store_true")
    args = ap.parse_args()
    catalog = load_catalog(with_media=args.panels)
    print(f"{'design':>8} {'links':>9} {'median s':>9} {'µs/link':>8}")
    for size in args.sizes.split(","):
        spec = dict(SIZES[size])
        if args.panels:
            spec["physical"] = {"default_tier": {"medium": "single-mode", "cabling": "panels"}}
        result = compute_design(parse_spec(spec), catalog)
        times = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            if args.panels:
                blast_radius_of(result)
            else:
                blast_radius(result.devices, result.links)
            times.append(time.perf_counter() - t)
        med = statistics.median(times)
        print(f"{size:>8} {len(result.links):>9,} {med:>9.2f} {med / len(result.links) * 1e6:>8.1f}")


if __name__ == "__main__":
    main()
