"""labels.pdf per label: this tree's renderer against another git revision's, in one process, turn about.

    python bench/bench_labels.py [--servers 1024,2048] [--repeat 3] [--ref main] [--profile]

--servers counts DGX B300 on Q3400 XDR (1,024 = 8,192 GPUs, 2,048 = 16,384), the designs of
bench_export_memory.py. Each design is computed once (not timed); then the whole-design labels.pdf is rendered
--repeat times by each renderer in turn (A B A B ...), so load from other work falls on both alike; the table gives
the median ms per label. --ref names the git revision whose deliverables/labels.py is loaded beside this one
(as deliverables.labels_ref, sharing the rest of the package); "none" skips it. --profile prints this tree's
cProfile top 25 for the first size. First the calibration (bench_engine.calibrate, median of 3) and the load
average, as every bench does.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib.util
import io
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def _ref_module(ref: str) -> Any:
    src = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{ref}:deliverables/labels.py"], capture_output=True, text=True, check=True
    ).stdout
    path = Path(tempfile.mkdtemp()) / "labels_ref.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("deliverables.labels_ref", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--servers", default="1024,2048")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--ref", default="main")
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    from bench_engine import calibrate

    from deliverables import DesignView, labels
    from engine.guard import Limits
    from engine.pipeline import compute_design
    from engine.spec import parse_spec

    cal = statistics.median(calibrate() for _ in range(3))
    print(f"calibration: {cal:.3f} s (median of 3); load average {' / '.join(f'{x:.2f}' for x in os.getloadavg())}")
    renderers = [("this tree", labels)]
    if args.ref != "none":
        renderers.append((args.ref, _ref_module(args.ref)))
    print(
        f"{'GPUs':>8} {'cables':>8} {'labels':>8} {'pages':>6}  "
        + "  ".join(f"{n + ' ms/label':>20}" for n, _ in renderers)
    )
    for k, servers in enumerate(int(x) for x in args.servers.split(",")):
        spec = parse_spec(
            {
                "name": f"bench labels {servers}",
                "servers": {"model": "dgx-b300", "count": servers},
                "compute_fabric": {"technology": "infiniband", "switch": "q3400"},
            }
        )
        v = DesignView(compute_design(spec, limits=Limits(max_devices=10**7, max_links=10**8)))
        n = labels.count_labels(v)
        times: dict = {name: [] for name, _ in renderers}
        pages = 0
        for _ in range(args.repeat):
            for name, mod in renderers:
                with open(os.devnull, "wb") as fh:
                    t = time.perf_counter()
                    pages = mod.render_labels_pdf(v, fh)
                    times[name].append(time.perf_counter() - t)
        cells = "  ".join(
            f"{statistics.median(times[name]) / n * 1e3:>8.3f} ({', '.join(f'{t:.1f}' for t in times[name])} s)"
            for name, _ in renderers
        )
        print(f"{servers * 8:>8,} {len(v.result.physical.cable_rows):>8,} {n:>8,} {pages:>6}  {cells}", flush=True)
        if args.profile and k == 0:
            prof = cProfile.Profile()
            with open(os.devnull, "wb") as fh:
                prof.runcall(labels.render_labels_pdf, v, fh)
            out = io.StringIO()
            pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(25)
            print(out.getvalue())
    print(f"load average after: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
