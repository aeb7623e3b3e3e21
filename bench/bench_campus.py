"""Campus-scale check (issue 41): a preset-shaped DGX B300 / Q3400 XDR design over several halls, computed by the
engine with its physical layer, printing the halls and the links without a part (the target is 0).

    python bench/bench_campus.py [--servers 131072] [--spine-ratio 3:1]

131,072 DGX B300 (1,048,576 GPUs) do not fit one non-blocking Q3400 plane in 3 tiers (144-port cores reach 144
pods: 746,496 GPU ports); at spine 3:1 they make 141 pods of 13 SUs. (Two planes would split each ConnectX-8 into
400G ports on 100G lanes, which no XDR part carries: every node-leaf and leaf-spine link would lack a part.)
The engine refuses a design this size by default (engine/guard.py Limits); the limits are raised here.
Prints the calibration figure of bench/bench_engine.py and the load average, as every bench does.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--servers", type=int, default=131_072)
    ap.add_argument("--spine-ratio", default="3:1")
    args = ap.parse_args()

    from bench.bench_engine import calibrate
    from engine.guard import Limits
    from engine.pipeline import compute_design
    from engine.spec import parse_spec

    print(f"calibration: {calibrate():.3f} s; load: {Path('/proc/loadavg').read_text().strip()}")
    spec = parse_spec(
        {
            "name": "bench campus",
            "servers": {"model": "dgx-b300", "count": args.servers},
            "compute_fabric": {
                "technology": "infiniband",
                "switch": "q3400",
                "oversubscription": {"spine": args.spine_ratio},
            },
        }
    )
    t = time.perf_counter()
    result = compute_design(spec, limits=Limits(max_devices=10**7, max_links=10**8))
    dt = time.perf_counter() - t
    ph = result.physical
    site = ph.site
    print(f"GPUs: {result.summary['gpus']:,}; links: {len(result.links):,}; engine: {dt:.1f} s")
    print(f"halls: {site.get('halls', 1)}; racks per hall: {site.get('racks_per_hall')}")
    print(f"inter-hall links: {site.get('inter_hall_links', 0):,}; trunks: {site.get('inter_hall_trunks', 0):,}")
    print(f"longest run: {max(result.lengths_m):.1f} m; loss budgets: {ph.loss_counts}")
    print(f"links without a part: {ph.completeness['links_without_part']}")


if __name__ == "__main__":
    main()
