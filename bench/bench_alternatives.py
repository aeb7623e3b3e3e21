"""Design-alternatives benchmark: one study of a 16,384-GPU DGX H100 requirement with two workloads.

    python bench/bench_alternatives.py [--max-candidates 12] [--gpus 16384]

Runs engine.alternatives.run_study as the study job does (enumerate, compute each candidate, judge it,
Pareto front), in this process, and prints the distinct feasible candidates computed and the wall time.
Goals (issue 45): at least 12 distinct feasible candidates, in under 90 s on the 2-core shared machine.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.alternatives.requirement import parse_requirement
from engine.alternatives.study import run_study
from engine.catalog import load_catalog

WORKLOADS = ["llama3-405b-16k", "llama3-405b-8k"]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpus", type=int, default=16384)
    ap.add_argument("--max-candidates", type=int, default=12)
    args = ap.parse_args()
    catalog = load_catalog()
    req = parse_requirement(
        {
            "server_model": "dgx-h100",
            "gpus": args.gpus,
            "workloads": WORKLOADS,
            "max_oversubscription": {"compute": "2:1"},
            "max_candidates": args.max_candidates,
        },
        gpus_per_server={k: s.gpus for k, s in catalog.servers.items()},
    )
    t0 = time.perf_counter()
    stamps: list[float] = []
    rows, rejected = run_study(req, catalog, on_candidate=lambda _row: stamps.append(time.perf_counter() - t0))
    wall = time.perf_counter() - t0
    for row, at in zip(rows, stamps, strict=True):
        f = row.figures
        print(
            f"{at:6.1f}s  {row.label:58s} switches {sum(f['switches'].values()):5d}  cables {f['cables']:6d}  "
            f"power {f['power_kw']:9.1f} kW  blast {f['blast_radius_gpus']:4d}  traffic {f['traffic_worst']}"
            f"{'  pareto' if row.pareto else ''}"
        )
    print(f"rejected or collapsed: {len(rejected)}")
    print(f"Alternatives: {len(rows)} distinct feasible candidates (goal >= 12) in {wall:.1f} s wall (goal < 90 s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
