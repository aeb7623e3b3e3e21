"""Engine benchmark: calibration, then 1K / 16K / 128K-GPU designs. Prints medians, peak RSS and ratios.

    python bench/bench_engine.py [--repeat 3] [--sizes 1k,16k,128k] [--no-physical]

Each design runs in a fresh subprocess so its peak RSS (VmHWM) is its own. Targets (issue 2):
the 131,072-GPU design (~400,000 links) in < 10 s and < 1.5 GB, time per link flat from 1K to 128K.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SIZES = {
    # 1,024 GPUs: 128 DGX H100 on QM9700 (2 tiers)
    "1k": {
        "name": "bench 1K",
        "servers": {"model": "dgx-h100", "count": 128},
        "compute_fabric": {"technology": "infiniband", "switch": "qm9700", "scalable_unit": 32},
    },
    # 16,384 GPUs: 2,048 DGX H100 on QM9700 (3 tiers, 16 pods of 4 SU)
    "16k": {
        "name": "bench 16K",
        "servers": {"model": "dgx-h100", "count": 2048},
        "compute_fabric": {"technology": "infiniband", "switch": "qm9700", "scalable_unit": 32},
    },
    # 131,072 GPUs: 16,384 DGX B300 on Q3400 XDR (3 tiers)
    "128k": {
        "name": "bench 128K",
        "servers": {"model": "dgx-b300", "count": 16384},
        "compute_fabric": {"technology": "infiniband", "switch": "q3400"},
    },
}

CHILD = r"""
import json, sys, time
sys.path.insert(0, {root!r})
from engine.catalog import load_catalog
from engine.spec import parse_spec
from engine.pipeline import compute_design
# The engine modules the app's web and worker processes import at start (apps/designs/tables.py and the
# deliverables), which compute_design would otherwise import, and compile without .pyc files, inside the timing.
import engine.physical_stage, engine.cable_schedule  # noqa: E401,F401
spec = parse_spec(json.loads({spec!r}))
catalog = load_catalog(with_media={media})
t = time.perf_counter()
result = compute_design(spec, catalog)
dt = time.perf_counter() - t
# VmHWM belongs to this exec'd image; ru_maxrss would carry the forking parent's peak over.
rss_mb = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM")) / 1024
print(json.dumps({{"seconds": dt, "peak_rss_mb": rss_mb, "links": len(result.links), "gpus": result.summary["gpus"]}}))
"""


def calibrate(rows: int = 400_000) -> float:
    """Plain Python building 400,000 cable-like rows: the machine's speed yardstick."""
    t = time.perf_counter()
    out = []
    for i in range(rows):
        a, b = divmod(i, 64)
        out.append(
            (
                i,
                "compute",
                0,
                "leaf-spine",
                f"L{a:05d}",
                f"{b // 2 + 1}/{b % 2 + 1}",
                f"S{b:03d}",
                f"{a % 64 + 1}",
                12.5 + (i % 7),
            )
        )
    return time.perf_counter() - t


def run_child(spec: dict, media: bool) -> dict:
    code = CHILD.format(root=str(ROOT), spec=json.dumps(spec), media=media)
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sizes", default="1k,16k,128k")
    ap.add_argument("--no-physical", action="store_true", help="skip the physical layer (media, channels, loss)")
    args = ap.parse_args()
    cal = statistics.median(calibrate() for _ in range(3))
    print(f"calibration: 400,000 plain-Python rows in {cal:.3f} s (median of 3)")
    print(
        f"{'size':>6} {'gpus':>8} {'links':>8} {'median s':>9} {'min s':>7} {'peak MB':>8} {'us/link':>8} {'x calib':>8}"
    )
    for key in args.sizes.split(","):
        runs = [run_child(SIZES[key], media=not args.no_physical) for _ in range(args.repeat)]
        secs = [r["seconds"] for r in runs]
        med = statistics.median(secs)
        links = runs[0]["links"]
        print(
            f"{key:>6} {runs[0]['gpus']:>8,} {links:>8,} {med:>9.2f} {min(secs):>7.2f} "
            f"{max(r['peak_rss_mb'] for r in runs):>8.0f} {med / links * 1e6:>8.2f} {med / cal:>8.2f}"
        )


if __name__ == "__main__":
    main()
