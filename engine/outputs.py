"""File outputs that need nothing but the result: summary.json, links.csv and cables.csv (streamed)."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from .columns import CABLE_COLUMNS, HALL_COLUMNS, LINK_COLUMNS
from .csvcells import neutralize_row
from .result import DesignResult

if TYPE_CHECKING:
    from engine.catalog import Catalog


def write_summary(result: DesignResult, fh: IO[str]) -> None:
    json.dump(result.summary, fh, indent=2, sort_keys=False)
    fh.write("\n")


def write_links_csv(result: DesignResult, fh: IO[str], *, raw: bool = False) -> int:
    """One row per link; returns the row count. Rows are generated as they are written (flat memory). Text
    cells beginning with a formula character get a leading ' unless `raw` (engine/csvcells.py). Over several
    halls each row ends with the 1-based hall of each end (HALL_COLUMNS, as cables.csv's; "" for an unplaced end)."""
    cols, rows = _link_table(result)
    halls = link_halls(result)
    if halls is not None:
        cols, rows = cols + HALL_COLUMNS, map(tuple.__add__, rows, halls)
    return _write_rows(fh, cols, rows, raw)


def _write_rows(fh: IO[str], columns: tuple[str, ...], rows: Iterable[tuple], raw: bool) -> int:
    """A header and the rows, written in chunks as they are made (flat memory); returns the row count."""
    w = csv.writer(fh, lineterminator="\n")
    w.writerow(columns)
    n = 0
    for chunk in _chunks(rows, 5000):
        w.writerows(chunk if raw else map(neutralize_row, chunk))
        n += len(chunk)
    return n


def _link_table(result: DesignResult) -> tuple[Any, Any]:
    physical = result.physical
    if physical is not None and hasattr(physical, "link_columns"):
        return LINK_COLUMNS + physical.link_columns(), physical.link_rows(result)
    return LINK_COLUMNS, result.link_rows()


def write_cables_csv(result: DesignResult, fh: IO[str], *, raw: bool = False) -> int:
    """The engine's cable table (CABLE_COLUMNS, labels rendered as it goes), one row per cable; over several halls
    each row ends with the 1-based hall of each end, as links.csv's. Returns the row count."""
    cols, rows = CABLE_COLUMNS, result.physical.cable_rows_out(result)
    if _several_halls(result):
        of = _end_hall(result)
        ends = ((of(row[4]), of(row[5])) for row in result.physical.cable_rows)
        cols, rows = cols + HALL_COLUMNS, map(tuple.__add__, rows, ends)
    return _write_rows(fh, cols, rows, raw)


def _several_halls(result: DesignResult) -> bool:
    return max((r.hall for r in result.racks), default=0) > 0


def _end_hall(result: DesignResult) -> Callable[[tuple], int | None]:
    """The 1-based hall of a cable end (a device, or ("panel", rack index, ...)); None for an unplaced device."""
    rack_hall = [r.hall + 1 for r in result.racks]
    dev_hall = [None if p is None else rack_hall[p.rack] for p in result.places]
    return lambda end: rack_hall[end[1]] if end[0] == "panel" else dev_hall[end[0]]


def link_halls(result: DesignResult) -> Iterator[tuple[int | None, int | None]] | None:
    """The 1-based hall of each end of every link, in link order, for a design over several halls (None for one
    hall, whose files keep their columns)."""
    if not _several_halls(result):
        return None
    racks = result.racks
    hall = [None if p is None else racks[p.rack].hall + 1 for p in result.places]
    return ((hall[link.a], hall[link.b]) for link in result.links)


def _chunks(it: Iterable[Any], size: int) -> Iterator[list[Any]]:
    buf = []
    for row in it:
        buf.append(row)
        if len(buf) == size:
            yield buf
            buf = []
    if buf:
        yield buf


def write_configs(result: DesignResult, catalog: Catalog, out_dir: Path) -> list[Path]:
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


def write_plan(
    result: DesignResult, out_dir: Path, catalog: Any = None, *, raw_csv: bool = False, cables: bool = True
) -> list[Path]:
    """Write every file the engine alone can produce into out_dir; returns the paths written. `raw_csv`: CSV
    cells unchanged (by default formula-like text gets a leading ', engine/csvcells.py). `cables` False leaves
    cables.csv out, for a caller that writes its own there (the deliverables' schedule: these columns and the
    installer's), so that a large design's cable table is not written twice."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    with open(out_dir / "summary.json", "w", encoding="utf-8") as fh:
        write_summary(result, fh)
    written.append(out_dir / "summary.json")
    with open(out_dir / "links.csv", "w", encoding="utf-8", newline="") as fh:
        write_links_csv(result, fh, raw=raw_csv)
    written.append(out_dir / "links.csv")
    physical = result.physical
    if cables and physical is not None and hasattr(physical, "cable_rows_out"):
        with open(out_dir / "cables.csv", "w", encoding="utf-8", newline="") as fh:
            write_cables_csv(result, fh, raw=raw_csv)
        written.append(out_dir / "cables.csv")
    if catalog is not None:
        written += write_configs(result, catalog, out_dir)
    return written
