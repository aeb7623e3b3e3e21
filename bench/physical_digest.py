"""Digest of the physical layer's outputs for the 7 presets and a two-hall design (issue 41).

    python bench/physical_digest.py > before.txt   # on the old code
    python bench/physical_digest.py > after.txt    # on the new code; diff: any difference is a bug
    python bench/physical_digest.py 16k,128k       # and bench_scale.py's designs of those sizes

Per design it prints one SHA-256 per output (cable rows, per-link choices, cords, cables, budgets and statuses,
the BOM and its split, the summary sections, the cables.csv rows and the links' physical fields), so a
difference names the output that changed.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine.pipeline import compute_design
from engine.presets import list_presets, load_preset
from engine.spec import parse_spec

TWO_HALLS = {  # tests/engine/test_site_halls.py's design: pod 2 opens hall 2, spine-core links cross
    "name": "two halls",
    "servers": {"model": "dgx-h100", "count": 256},
    "compute_fabric": {"technology": "infiniband", "switch": "qm9700", "scalable_unit": 32, "tiers": 3},
    "site": {"max_racks_per_hall": 50},
}


def _h(items: Any) -> str:
    h = hashlib.sha256()
    for x in items:
        h.update(repr(x).encode())
        h.update(b"\n")
    return h.hexdigest()[:16]


def digest(spec_data: dict) -> dict[str, str]:
    result = compute_design(parse_spec(spec_data))
    ph = result.physical
    summary = json.dumps([ph.summary_sections(), result.summary], sort_keys=True, default=repr)
    return {
        "cable_rows": _h(ph.cable_rows),
        "choices": _h(ph.choices),
        "cords": _h(ph.cords),
        "cables": _h(ph.cables),
        "budgets": _h(ph.budgets),
        "statuses": _h(ph.statuses),
        "bom": _h(ph.bom),
        "bom_split": _h([ph.bom_split]),
        "summary": _h([summary]),
        "trunks": _h(ph.trunks),
        "panels": _h([ph.panels, ph.panel_places]),
        "issues": _h([ph.issues, ph.missing, ph.completeness, ph.site, ph.loss_counts]),
        "distinct_choices": _h(ph.distinct_choices),
        "cables_csv": _h(ph.cable_rows_out(result)),
        "link_fields": _h(ph.link_fields_all()),
        "link_db_fields": _h(ph.link_db_fields_all()),
    }


def main() -> None:
    designs = {key: load_preset(key) for key in list_presets()} | {"two-halls": TWO_HALLS}
    if sys.argv[1:]:  # also bench_scale.py's sizes, e.g. 16k,128k (several halls from 128K on)
        from bench_scale import SIZES

        designs |= {size: SIZES[size] for size in sys.argv[1].split(",")}
    for name, data in designs.items():
        for output, h in digest(data).items():
            print(f"{name:32} {output:18} {h}")


if __name__ == "__main__":
    main()
