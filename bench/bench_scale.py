"""Scale benchmark: where the engine's time goes, stage by stage, from 16K to 1M GPUs (issue 41).

    python bench/bench_scale.py [--repeat 1] [--sizes 16k,128k,512k] [--profile SIZE]

Every size is the same shape, DGX B300 on Quantum-X800 Q3400 XDR InfiniBand at 1:1 (the 128K design of
bench_engine.py), so the cost per link compares like with like; "1m" (1,048,576 GPUs, 2,462,944 links) runs its spines at 3:1, as a
non-blocking Q3400 plane reaches 746,496 GPU ports in 3 tiers (bench_campus.py's design). Past 1,536 racks the
default site places the design over several halls (docs/site-model.md). The design limits are raised for the
bench only.

Each design runs in a fresh subprocess (its own peak RSS, VmHWM), with the stages timed from the engine's own
progress calls (engine.pipeline.STAGES: "physical" includes its sub-steps, "summary" the physical roll-up: BOM,
fiber totals, worst links). It prints per size: seconds per stage (median over --repeat), the total, µs per link,
peak RSS and bytes per link of peak RSS (the figure behind DESIGN_MAX_LINKS), and the total against the
calibration (bench_engine.calibrate: 400,000 plain-Python rows). Targets (issue 41): 128K ≤ 5x calibration;
µs per link from 16K to 1M within 1.5x. The machine is shared: quote the load average printed with the figures.

--profile SIZE runs that size once under cProfile and prints the 30 functions with the most own time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from bench_engine import calibrate  # noqa: E402  (the same yardstick as the engine bench)

STAGES = ("topology", "placement", "run-lengths", "physical", "verification", "summary")


def _spec(servers: int, spine_ratio: str = "") -> dict:
    fabric: dict = {"technology": "infiniband", "switch": "q3400"}
    if spine_ratio:
        fabric["oversubscription"] = {"leaf": "1:1", "spine": spine_ratio}
    return {
        "name": f"scale {servers * 8}",
        "servers": {"model": "dgx-b300", "count": servers},
        "compute_fabric": fabric,
    }


SIZES = {
    "16k": _spec(2_048),
    "128k": _spec(16_384),
    "256k": _spec(32_768),
    "512k": _spec(65_536),
    "1m": _spec(131_072, spine_ratio="3:1"),  # bench/bench_campus.py's design (docs/site-model.md)
}

CHILD = r"""
import cProfile, json, pstats, sys, time
sys.path.insert(0, {root!r})
from engine.catalog import load_catalog
from engine.guard import Limits
from engine.pipeline import compute_design
from engine.spec import parse_spec
# The engine modules the app's web and worker processes import at start (apps/designs/tables.py and the
# deliverables), which compute_design would otherwise import, and compile without .pyc files, inside the timing.
import engine.physical_stage, engine.cable_schedule  # noqa: E401,F401
spec = parse_spec(json.loads({spec!r}))
catalog = load_catalog(with_media=True)
marks = []
def progress(stage, done, total):
    marks.append((stage, time.perf_counter()))
prof = cProfile.Profile() if {profile!r} else None
t = time.perf_counter()
if prof: prof.enable()
result = compute_design(spec, catalog, progress, Limits(max_devices=10**8, max_links=10**9))
if prof: prof.disable()
end = time.perf_counter()
stages = {{}}
for (name, at), (_, nxt) in zip(marks, marks[1:] + [("end", end)]):
    stages[name] = stages.get(name, 0.0) + nxt - at
stages.pop("done", None)
rss_mb = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM")) / 1024
phys = result.physical
no_part = phys.completeness.get("links_without_part") if phys is not None else None
if prof:
    pstats.Stats(prof, stream=sys.stderr).sort_stats("tottime").print_stats(30)
print(json.dumps({{"seconds": end - t, "stages": stages, "peak_rss_mb": rss_mb, "links": len(result.links),
                  "devices": len(result.devices), "gpus": result.summary["gpus"], "no_part": no_part}}))
"""


def run_child(spec: dict, profile: bool = False) -> dict:
    code = CHILD.format(root=str(ROOT), spec=json.dumps(spec), profile=profile)
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ""}
    )
    if profile:
        sys.stderr.write(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--sizes", default="16k,128k,512k")
    ap.add_argument("--profile", choices=sorted(SIZES), help="run this size once under cProfile instead")
    args = ap.parse_args()
    if args.profile:
        run_child(SIZES[args.profile], profile=True)
        return
    cal = statistics.median(calibrate() for _ in range(3))
    print(f"calibration: 400,000 plain-Python rows in {cal:.3f} s (median of 3); load {_load()}")
    head = " ".join(f"{s[:9]:>9}" for s in STAGES)
    print(
        f"{'size':>5} {'gpus':>9} {'links':>9} {head} {'total s':>8} {'us/link':>8} {'peak MB':>8} "
        f"{'B/link':>7} {'x calib':>8} {'no part':>8}"
    )
    for key in args.sizes.split(","):
        runs = [run_child(SIZES[key]) for _ in range(args.repeat)]
        med = statistics.median(r["seconds"] for r in runs)
        per_stage = " ".join(f"{statistics.median(r['stages'].get(s, 0.0) for r in runs):>9.2f}" for s in STAGES)
        r0 = runs[0]
        links, peak = r0["links"], max(r["peak_rss_mb"] for r in runs)
        print(
            f"{key:>5} {r0['gpus']:>9,} {links:>9,} {per_stage} {med:>8.2f} {med / links * 1e6:>8.2f} {peak:>8.0f} "
            f"{peak * 2**20 / links:>7.0f} {med / cal:>8.2f} {r0['no_part'] if r0['no_part'] is not None else '-':>8}",
            flush=True,
        )
    print(f"load after: {_load()}")


def _load() -> str:
    with open("/proc/loadavg") as fh:
        return " ".join(fh.read().split()[:3])


if __name__ == "__main__":
    main()
