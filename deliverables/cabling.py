"""Cabling plan: cables.csv (the complete machine-readable schedule) and cabling-plan.pdf
(fabric diagram, rack elevations, then one section per rack in installation order)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from operator import itemgetter
from typing import IO, Any

from engine.result import DesignResult

from ._csv import csv_lines
from ._pdf import SANS, Column, DocInfo, FlowDoc, Graphic, Heading, Lines, PageBreak, Table, page_size
from ._view import CI, DesignView
from .diagrams import elevation_racks, elevations, fabric_diagram, rack_summary_lines, su_detail
from .options import ExportOptions


def _view(result: DesignResult | DesignView) -> DesignView:
    return result if isinstance(result, DesignView) else DesignView(result)


def iter_cable_rows(
    result: DesignResult | DesignView, *, row: str | None = None, rack: str | None = None
) -> Iterator[tuple]:
    """cables.csv rows as tuples (DesignView.cable_csv_columns: CABLE_CSV_COLUMNS, and the hall of each end over
    several halls); with row/rack, only cables with an end there (cable-id order)."""
    v = _view(result)
    sel = v.scope(row, rack)
    indexes = None if sel is None else sorted(v.install_order(sel)[0])
    rows = v.cable_rows(indexes)
    if v.halls > 1:
        yield from map(tuple.__add__, rows, v.cable_halls(indexes))
        return
    yield from rows


def iter_cables_csv(
    result: DesignResult | DesignView, *, row: str | None = None, rack: str | None = None, raw: bool = False
) -> Iterator[str]:
    """cables.csv as lines of text (header first), streamed in cable-id order; formula-like text cells
    neutralized unless `raw` (engine/csvcells.py)."""
    v = _view(result)
    sel = v.scope(row, rack)
    columns = v.cable_csv_columns
    if sel is None:
        yield from csv_lines(columns, ())
        if v.halls > 1:  # the hall cells are numbers: never quoted, never neutralized
            for line, (ha, hb) in zip(v.cable_csv_lines(raw=raw), v.cable_halls()):
                yield f"{line[:-1]},{ha},{hb}\n"
            return
        yield from v.cable_csv_lines(raw=raw)
        return
    yield from csv_lines(columns, iter_cable_rows(v, row=row, rack=rack), raw=raw)


def write_cables_csv(
    result: DesignResult | DesignView, fh: IO[str], *, row: str | None = None, rack: str | None = None
) -> int:
    """Write cables.csv to a text file object; returns the number of cables written."""
    buf: list[str] = []
    n = -1
    for line in iter_cables_csv(result, row=row, rack=rack):
        buf.append(line)
        n += 1
        if len(buf) >= 4000:
            fh.write("".join(buf))
            buf.clear()
    fh.write("".join(buf))
    return n


# Cabling-plan table: two text lines per cable. (title, (top column, bottom column), width in pt);
# a bottom of None leaves the line empty; "route" is the cable's place in its links' path. The widths
# fit A4 and Letter landscape at 7 pt DejaVu Sans Condensed with room for the longest values of the
# shipped catalog (tests render a 4-SU design and check that nothing is cut); anything longer is cut
# with an ellipsis. The last column takes the remaining width.
PLAN_COLUMNS = (
    ("Cable\ntype", ("id", "type"), 34),
    ("A rack\nA U", ("a_rack", "a_u"), 40),
    ("A device\nA port", ("a_device", "a_port"), 62),
    ("B rack\nB U", ("b_rack", "b_u"), 40),
    ("B device\nB port", ("b_device", "b_port"), 62),
    ("A module\nB module", ("a_module", "b_module"), 62),
    ("Medium\npolarity", ("medium", "polarity"), 42),
    ("Cable part\nlength m", ("part", "ordered_length_m"), 136),
    ("Network\ntier", ("network", "tier"), 52),
    ("Route: cables of the link\npanel ports passed", ("route", "route"), 124),
    ("Label at A end\nlabel at B end", ("label_a", "label_b"), 0),
)


def plan_columns(width: float) -> list[Column]:
    fixed = sum(w for _, _, w in PLAN_COLUMNS if w)
    flex = [t for t, _, w in PLAN_COLUMNS if not w]
    each = (width - fixed) / len(flex)
    return [Column(t, w or each) for t, _, w in PLAN_COLUMNS]


_ROUTE = -2
_PLAN_IDX = tuple(_ROUTE if c == "route" else (CI[c] if c else -1) for _, pair, _ in PLAN_COLUMNS for c in pair)
# A plan row is the cables.csv cells before the route pair, the route pair, then the cells after it (each
# group taken by one itemgetter): PLAN_COLUMNS must have one route column and every other cell named.
_ROUTE_AT = _PLAN_IDX.index(_ROUTE)
if (
    _PLAN_IDX.count(_ROUTE) != 2
    or _PLAN_IDX[_ROUTE_AT + 1] != _ROUTE
    or -1 in _PLAN_IDX
    or len(_PLAN_IDX) - _ROUTE_AT - 2 < 2
    or _ROUTE_AT < 2
):
    raise ValueError("PLAN_COLUMNS: one route column, the others named cables.csv columns")
_BEFORE_ROUTE = itemgetter(*_PLAN_IDX[:_ROUTE_AT])
_AFTER_ROUTE = itemgetter(*_PLAN_IDX[_ROUTE_AT + 2 :])


def cable_route(v: DesignView, row: tuple) -> tuple[str, str]:
    """(the cables of the cable's link in path order, the panel ports the link passes) for a cable of
    cables.csv; ("direct", "") for a link that is one cable; a trunk says how many links it carries."""
    lids = row[CI["links"]].split()
    if row[CI["type"]] == "trunk":
        return f"{len(lids)} link(s) through this trunk", ""
    if not lids:
        return "", ""
    ph = v.ph
    chain = ph.cables[v.link_index(int(lids[0][1:]))]
    if len(chain) <= 1:
        return "direct", ""
    src = ph.cable_rows
    names, ports = [], []
    for cid in chain:
        raw = src[cid - 1] if cid - 1 < len(src) and src[cid - 1][0] == cid else None
        if raw is not None and raw[1] == "trunk":
            names.append(f"C{cid:06d}")  # a trunk is a cable: one id on every document (issue 43)
            continue
        names.append(f"C{cid:06d}")
        if raw is not None:
            for end in (raw[4], raw[5]):
                if end[0] == "panel":
                    ports.append(f"PP-{v.rack_grid[end[1]]}-U{end[2]:02d}:{end[3]}")
    return " \u2192 ".join(names), "via " + " \u2192 ".join(ports) if ports else ""


def _plan_cells(v: DesignView, rows: Iterable[tuple]) -> Iterator[tuple[str, ...]]:
    """The plan's cells of each cables.csv row, as text, in PLAN_COLUMNS order (top, bottom per column)."""
    before, after = _BEFORE_ROUTE, _AFTER_ROUTE
    for r in rows:
        yield (*map(str, before(r)), *cable_route(v, r), *map(str, after(r)))


def _hall_lines(v: DesignView) -> list[str]:
    """The overview's word on halls, for a design over several (none for one hall: its plan reads as before)."""
    if v.halls < 2:
        return []
    per_hall = Counter(v.rack_hall)
    site = getattr(v.ph, "site", None) or {}
    return [
        f"Halls: {v.halls} ({', '.join(f'Hall {h + 1}: {per_hall[h]:,} racks' for h in sorted(per_hall))}); the main "
        f"distribution area (MDA, the core/services rows) is in Hall 1. Links between halls: "
        f"{site.get('inter_hall_links', 0):,}, over {site.get('inter_hall_trunks', 0):,} single-mode trunks from panel "
        "to panel along the pathways (docs/site-model.md). Each rack section names its hall; cables.csv adds a_hall "
        "and b_hall.",
    ]


def render_cabling_plan_pdf(
    result: DesignResult | DesignView,
    fh: IO[bytes],
    options: ExportOptions | Mapping[str, Any] | None = None,
    *,
    revision_label: str = "r1",
) -> int:
    """Write cabling-plan.pdf to a binary file object; returns the page count."""
    opts = ExportOptions.from_any(options)
    v = _view(result)
    sel = v.scope(opts.row, opts.rack)
    order, sections = v.install_order(sel)
    res = v.result
    scope_text = f"rack {opts.rack}" if opts.rack else (f"row {opts.row}" if opts.row else "whole design")
    info = DocInfo("Cabling plan", res.spec.name, revision_label, opts.date, "" if sel is None else scope_text)
    doc = FlowDoc(info, page_size(opts.page_size, "landscape"), margin=20.0)
    w = doc.width
    kinds: Counter = Counter()
    for i in order:
        kinds[v.ph.cable_rows[i][1]] += 1
    doc.add(Heading(f"Cabling plan: {res.spec.name}", 1, section="Overview"))
    doc.add(
        Lines(
            [
                f"Revision {revision_label} \u00b7 {opts.date} \u00b7 scope: {scope_text} \u00b7 engine {res.engine_version} "
                f"\u00b7 catalog {res.catalog_version}",
                f"Cables in this plan: {len(order):,} ({', '.join(f'{k} {n:,}' for k, n in sorted(kinds.items()))}); "
                f"racks with cables: {len(sections):,}. The design has {len(v.ph.cable_rows):,} cables in all.",
                "Order of work: one section per rack (a new page unless the last one is less than half full), rows in floor "
                "order, racks by position; in a rack, by rack unit from "
                "the top down. Each cable is listed once, under its A end (the lower tier: server, or leaf for "
                "leaf-spine) when that end is in scope, else under its B end: a plan of one rack lists every cable "
                "with an end in it.",
                "Rack ids read <room>.<row><position>: DC1.C19 is room DC1, row C, rack 19. U = lowest rack unit of the "
                "device (PP-... = patch panel). Lengths are ordered lengths in metres. Labels: each end's label names its "
                "own end first.",
                "cables.csv holds the same rows with every column (room and row per end, links carried).",
                *_hall_lines(v),
            ],
            font=SANS,
            size=8,
            leading=11,
        )
    )
    doc.add(Heading("Fabric by tier", 2))
    doc.add(Graphic(fabric_diagram(v, w)))
    if sel is None:
        d, lines = su_detail(v, w)
        if d is not None:
            doc.add(Graphic(d))
            doc.add(Lines(lines, font=SANS, size=8, leading=10.5))
        doc.add(Heading("Racks by row (all rows)", 2))
        doc.add(Lines(rack_summary_lines(v), font=SANS, size=8, leading=10.5))
    doc.add(PageBreak())
    racks_drawn = elevation_racks(v, sel)
    doc.add(
        Heading(
            "Rack elevations" + (" (one SU in detail, one rack of every other kind)" if sel is None else ""),
            2,
            section="Rack elevations",
        )
    )
    height = doc.top - doc.bottom - 20
    for dr in elevations(v, racks_drawn, w, height):
        doc.add(Graphic(dr))
    cols = plan_columns(w)
    rows_iter = _plan_cells(v, v.cable_rows(order))
    racks = v.racks
    for k, (ri, n) in enumerate(sections):
        title = v.rack_title(ri)
        sect = f"Row {racks[ri].row_name} \u00b7 Rack {racks[ri].id}" if ri >= 0 else "Unplaced devices"
        if ri >= 0 and v.halls > 1:
            sect = f"Hall {racks[ri].hall + 1} \u00b7 {sect}"
        # a rack starts a new page unless the page before is less than half full (its last rows)
        doc.add(PageBreak(section=sect, min_free=0.5 if k else 0.0))
        doc.add(Table(cols, n, rows_iter, title=f"{title}: {n:,} cable(s)", lines_per_row=2, leading=8.2))
    return doc.render(fh)
