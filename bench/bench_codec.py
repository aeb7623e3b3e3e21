"""Snapshot codec benchmark: encode and decode of a stored revision's DesignResult at 16K and 128K GPUs (issue 41).

    python bench/bench_codec.py [--sizes 16k,128k] [--repeat 3] [--save DIR] [--v1 DIR]

Each size is bench_scale.py's design (DGX B300 on Q3400, 1:1), computed once in this process; the encode and
decode are then timed --repeat times each on the same objects (median printed), with the snapshot's size.
--save DIR writes each size's blob (DIR/SIZE.snap) so another checkout's codec can be timed on the same
document; --v1 DIR decodes blobs written by an older codec (codec version 1) and checks they equal the
computed result. Target (issue 41): decode of the 128K revision < 1 s. The machine is shared: quote the
calibration and the load printed with the figures.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_engine import calibrate  # noqa: E402
from bench_scale import SIZES, _load  # noqa: E402

from engine import snapshot_codec  # noqa: E402
from engine.catalog import load_catalog  # noqa: E402
from engine.guard import Limits  # noqa: E402
from engine.pipeline import compute_design  # noqa: E402
from engine.spec import parse_spec  # noqa: E402

_UNLIMITED = Limits(max_devices=10**8, max_links=10**9)  # raised for the bench only, as in bench_scale


def _timed(fn: Callable[[Any], Any], arg: Any) -> tuple[float, Any]:
    t = time.perf_counter()
    out = fn(arg)
    return time.perf_counter() - t, out


def _no_progress(*_: object) -> None:
    return None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="16k,128k")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--save", type=Path)
    ap.add_argument("--v1", type=Path, help="directory of blobs an older codec wrote (SIZE.snap)")
    args = ap.parse_args()
    cal = statistics.median(calibrate() for _ in range(3))
    print(f"calibration: 400,000 plain-Python rows in {cal:.3f} s (median of 3); load {_load()}")
    print(f"codec version {snapshot_codec.CODEC_VERSION}")
    print(f"{'size':>5} {'links':>9} {'MB':>6} {'encode s':>9} {'decode s':>9} {'old blob decode s':>18}")
    catalog = load_catalog(with_media=True)
    for key in args.sizes.split(","):
        result = compute_design(parse_spec(SIZES[key]), catalog, _no_progress, _UNLIMITED)
        enc, dec, blob = [], [], b""
        for _ in range(args.repeat):
            s, blob = _timed(snapshot_codec.encode, result)
            enc.append(s)
        for _ in range(args.repeat):
            s, back = _timed(snapshot_codec.decode, blob)
            dec.append(s)
            del back
        old = "-"
        if args.v1 is not None:
            s, back = _timed(snapshot_codec.decode, (args.v1 / f"{key}.snap").read_bytes())
            assert back == result and back.physical.cable_rows == result.physical.cable_rows
            old = f"{s:.2f}"
            del back
        if args.save is not None:
            args.save.mkdir(parents=True, exist_ok=True)
            (args.save / f"{key}.snap").write_bytes(blob)
        print(
            f"{key:>5} {len(result.links):>9,} {len(blob) / 2**20:>6.1f} {statistics.median(enc):>9.2f} "
            f"{statistics.median(dec):>9.2f} {old:>18}",
            flush=True,
        )
        del result
    print(f"load after: {_load()}")


if __name__ == "__main__":
    main()
