"""File outputs that need nothing but the result: summary.json and links.csv (streamed)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import IO

from .columns import LINK_COLUMNS
from .csvcells import neutralize_row
from .result import DesignResult


def write_summary(result: DesignResult, fh: IO[str]) -> None:
    json.dump(result.summary, fh, indent=2, sort_keys=False)
    fh.write("\n")


def write_links_csv(result: DesignResult, fh: IO[str], *, raw: bool = False) -> int:
    """One row per link; returns the row count. Rows are generated as they are written (flat memory). Text
    cells beginning with a formula character get a leading ' unless `raw` (engine/csvcells.py)."""
    w = csv.writer(fh, lineterminator="\n")
    cols, rows = _link_table(result)
    w.writerow(cols)
    n = 0
    for chunk in _chunks(rows, 5000):
        w.writerows(chunk if raw else map(neutralize_row, chunk))
        n += len(chunk)
    return n


def _link_table(result: DesignResult):
    physical = result.physical
    if physical is not None and hasattr(physical, "link_columns"):
        return LINK_COLUMNS + physical.link_columns(), physical.link_rows(result)
    return LINK_COLUMNS, result.link_rows()


def _chunks(it, size):
    buf = []
    for row in it:
        buf.append(row)
        if len(buf) == size:
            yield buf
            buf = []
    if buf:
        yield buf


def write_configs(result: DesignResult, catalog, out_dir: Path) -> list[Path]:
    """QoS / congestion-control configuration: one file per switch, hosts, subnet manager, under configs/."""
    from .qos_stage import build_qos

    plan = build_qos(result, catalog)
    written = []
    for rel, text in plan.files:
        path = out_dir / "configs" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def write_plan(result: DesignResult, out_dir: Path, catalog=None, *, raw_csv: bool = False) -> list[Path]:
    """Write every file the engine alone can produce into out_dir; returns the paths written. `raw_csv`: CSV
    cells unchanged (by default formula-like text gets a leading ', engine/csvcells.py)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    with open(out_dir / "summary.json", "w", encoding="utf-8") as fh:
        write_summary(result, fh)
    written.append(out_dir / "summary.json")
    with open(out_dir / "links.csv", "w", encoding="utf-8", newline="") as fh:
        write_links_csv(result, fh, raw=raw_csv)
    written.append(out_dir / "links.csv")
    physical = result.physical
    if physical is not None and hasattr(physical, "write_files"):
        written += physical.write_files(result, out_dir, raw=raw_csv)
    if catalog is not None:
        written += write_configs(result, catalog, out_dir)
    return written
