"""Export-job memory: the peak resident memory of rendering each deliverable from a stored snapshot, as the export
job does (apps/exports/services.py: decode the revision's snapshot, render one deliverable), to size
JOB_EXPORT_MEMORY_LIMIT_MB (fabricdesign/settings.py) from bytes per link.

    python bench/bench_export_memory.py [--servers 16384] [--spine-ratio 1:1] [--only cabling-plan.pdf,...]

--servers counts DGX B300 on Q3400 XDR, 3 tiers (16,384 = 131,072 GPUs, the bench's 128K design; 65,536 with
--spine-ratio 1:1 = the issue's 524,288-GPU design over 16 halls). One subprocess computes the design (limits
raised as bench/bench_campus.py does) and writes its snapshot (engine/snapshot_codec.encode, as a compute job
stores it); a second, fresh one reads the snapshot back and decodes it (peak "decode": the compressed document
and the result together, as revision_snapshot holds them), then renders every deliverable in turn, resetting
the peak counter (writing 5 to /proc/self/clear_refs) before each: its "peak MB" is VmHWM during that render,
the decoded result included (what stays resident in the job), so it is the job's peak less Django's own
~100 MB; "+MB" is that peak less the resident memory just before the render. Renderers run one after another in one process, so a later one starts from whatever heap the earlier
ones left (never less than the fresh job's): the figures err high. Each file is deleted once measured.
Prints the calibration figure and the load average, as every bench does; memory does not depend on the load.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

COMPUTE = r"""
import json, sys, time
sys.path.insert(0, {root!r})
from engine.guard import Limits
from engine.pipeline import compute_design
from engine.snapshot_codec import encode
from engine.spec import parse_spec
spec = parse_spec(json.loads({spec!r}))
t = time.perf_counter()
result = compute_design(spec, limits=Limits(max_devices=10**7, max_links=10**8))
dt = time.perf_counter() - t
blob = encode(result)
open({snap!r}, "wb").write(blob)
site = result.physical.site or {{}}
print(json.dumps({{"links": len(result.links), "cables": len(result.physical.cable_rows), "engine_s": dt,
                  "halls": site.get("halls", 1), "snapshot_mb": len(blob) / 2**20}}))
"""

RENDER = r"""
import gc, json, os, sys, time
sys.path.insert(0, {root!r})
from pathlib import Path
from engine.snapshot_codec import decode
from deliverables import write_deliverables
from deliverables.registry import FOLDER_FILES

def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) / 1024
    return 0.0

def reset():
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")

t = time.perf_counter()
blob = open({snap!r}, "rb").read()
result = decode(blob)
del blob
print(json.dumps({{"name": "decode", "seconds": time.perf_counter() - t, "peak_mb": status("VmHWM")}}), flush=True)
out = Path({out!r})
only = {only!r}
for name in FOLDER_FILES:
    if only and name not in only:
        continue
    gc.collect()
    reset()
    before = status("VmRSS")
    t = time.perf_counter()
    written = write_deliverables(result, out, revision_label="bench", only=[name])
    dt = time.perf_counter() - t
    size = sum(p.stat().st_size for p in written if p.exists())
    for p in written:
        p.unlink(missing_ok=True)
    print(json.dumps({{"name": name, "seconds": dt, "peak_mb": status("VmHWM"), "before_mb": before,
                      "bytes": size}}), flush=True)
"""


def _child(code: str, show: Callable[[dict], None] | None = None) -> list[dict]:
    """The child's JSON lines, each passed to `show` as it arrives (a long render shows the ones before it)."""
    events = []
    with subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("{"):
                events.append(json.loads(line))
                if show is not None:
                    show(events[-1])
    if proc.returncode:
        raise SystemExit("child failed")
    return events


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--servers", type=int, default=16_384)
    ap.add_argument("--spine-ratio", default="1:1")
    ap.add_argument("--only", default="")
    ap.add_argument("--out", default="/tmp/fabricdesign-bench-export-memory")
    args = ap.parse_args()
    from bench.bench_engine import calibrate

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    snap = out / f"snapshot-{args.servers}.bin"
    print(f"calibration: {calibrate():.3f} s; load: {Path('/proc/loadavg').read_text().strip()}", flush=True)
    fabric: dict = {"technology": "infiniband", "switch": "q3400"}
    if args.spine_ratio != "1:1":
        fabric["oversubscription"] = {"spine": args.spine_ratio}
    spec = {"name": "bench export memory", "servers": {"model": "dgx-b300", "count": args.servers}}
    spec["compute_fabric"] = fabric
    (design,) = _child(COMPUTE.format(root=str(ROOT), spec=json.dumps(spec), snap=str(snap)))
    links = design["links"]
    print(
        f"{args.servers * 8:,} GPUs: {links:,} links, {design['cables']:,} cables, {design['halls']} hall(s); "
        f"engine {design['engine_s']:.1f} s; snapshot {design['snapshot_mb']:.1f} MB",
        flush=True,
    )
    only = [x for x in args.only.split(",") if x]
    print(f"{'render':<34} {'seconds':>8} {'peak MB':>8} {'+MB':>6} {'B/link':>7} {'file MB':>8}", flush=True)

    def show(e: dict) -> None:
        per_link = e["peak_mb"] * 2**20 / links
        size = f"{e['bytes'] / 2**20:8.1f}" if "bytes" in e else f"{'':>8}"
        grew = f"{e['peak_mb'] - e['before_mb']:6.0f}" if "before_mb" in e else f"{'':>6}"
        print(f"{e['name']:<34} {e['seconds']:8.1f} {e['peak_mb']:8.0f} {grew} {per_link:7.0f} {size}", flush=True)

    events = _child(RENDER.format(root=str(ROOT), snap=str(snap), out=str(out / "files"), only=only), show)
    snap.unlink(missing_ok=True)
    top = max(events, key=lambda e: e["peak_mb"])
    print(f"\nhighest: {top['name']} {top['peak_mb']:.0f} MB = {top['peak_mb'] * 2**20 / links:.0f} bytes per link")


if __name__ == "__main__":
    main()
