"""Test sheets (test-sheet.csv / .pdf): one row per fiber of every optical link, as MPO and
duplex testers report them, with the expected worst-case insertion loss and the pass limit, and
empty columns for the measured value. Plus the way back: parse_test_results() validates a filled
sheet row by row and compare() gives pass/fail per fiber and per link.

A fiber is identified by its link and its positions at both ends, e.g. ``L000001:A1-B12``: light
leaves the transmitter at position 1 of the A-end connector and arrives at position 12 of the B
end (from the lane map of the link's channel, docs/physical-layer.md 3.2). Every lane is tested
both ways (A->B and B->A), so a DR4 link has 8 rows.
"""

from __future__ import annotations

import io
import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from engine.csvcells import strip_prefix
from engine.inputgate import CsvReader, InputRefused
from engine.physical.channel import build_channel, lane_map

from ._csv import csv_lines
from ._pdf import COND, SANS, Column, DocInfo, FlowDoc, Heading, Lines, PageBreak, Table, page_size, wrap
from ._view import DesignView
from .options import ExportOptions

TEST_SHEET_COLUMNS = (
    "fiber_id",
    "link_id",
    "cable_ids",
    "network",
    "tier",
    "a_device",
    "a_port",
    "a_rack",
    "b_device",
    "b_port",
    "b_rack",
    "medium",
    "fiber_type",
    "wavelength_nm",
    "direction",
    "lane",
    "tx_position",
    "rx_position",
    "expected_loss_db",
    "limit_db",
    "measured_loss_db",
    "result",
    "notes",
)
TI = {c: i for i, c in enumerate(TEST_SHEET_COLUMNS)}


def _view(result) -> DesignView:
    return result if isinstance(result, DesignView) else DesignView(result)


def _fibers_of(v: DesignView, i: int, memo: dict):
    """Lane paths of link i (memoized per choice/structure/leg): [(direction, lane, tx, rx)]."""
    ph = v.ph
    choice = ph.choices[i]
    cables = ph.cables[i]
    structured = len(cables) > 1
    leg = 1
    if choice.breakout == "split-1:2" and not structured and cables:
        # the two links of a splitter cable use legs 1 and 2 in link order
        row = (
            ph.cable_rows[cables[0] - 1]
            if cables[0] - 1 < len(ph.cable_rows) and ph.cable_rows[cables[0] - 1][0] == cables[0]
            else None
        )
        if row is not None:
            lids = row[6]
            lid = v.links[i].id
            leg = lids.index(lid) + 1 if lid in lids and lids.index(lid) < 2 else 1
    key = (id(choice), structured, leg)
    hit = memo.get(key)
    if hit is None:
        try:
            ch = build_channel(choice, structured, ph.policy, leg=leg, port=1)
            hit = tuple(
                ("A->B" if lp.direction == "a->b" else "B->A", lp.lane, lp.tx_pos, lp.rx_pos) for lp in lane_map(ch)
            )
        except Exception:  # noqa: BLE001 - a channel the engine flags as broken: no lane map to test against
            hit = ()
        memo[key] = hit
    return hit


def optical_link_filter(v: DesignView):
    ph = v.ph
    choices, budgets = ph.choices, ph.budgets
    return lambda i: bool(choices[i]) and choices[i].optical and budgets[i] is not None and budgets[i].status != "n/a"


def iter_test_rows(
    result, *, row: str | None = None, rack: str | None = None, test_limit: str = "pmd"
) -> Iterator[tuple]:
    """test-sheet.csv rows (TEST_SHEET_COLUMNS), rack by rack (as the cabling plan), link by link."""
    v = _view(result)
    sel = v.scope(row, rack)
    order, _ = v.link_order(sel, optical_link_filter(v))
    yield from _rows_for(v, order, test_limit)


def _rows_for(v: DesignView, order, test_limit: str) -> Iterator[tuple]:
    ph = v.ph
    devs, links = v.devices, v.links
    racks, dev_rack = v.racks, v.dev_rack
    memo: dict = {}
    for i in order:
        lk = links[i]
        ch = ph.choices[i]
        b = ph.budgets[i]
        fibers = _fibers_of(v, i, memo)
        if not fibers:
            continue
        lid = f"L{lk.id:06d}"
        cables = " ".join(f"C{x:06d}" for x in ph.cables[i])
        ra, rb = dev_rack[lk.a], dev_rack[lk.b]
        expected = round(b.loss_db, 2)
        limit = "" if b.limit_db is None else round(b.limit_db if test_limit == "pmd" else b.loss_db, 2)
        wl = getattr(ch.pmd_spec, "wavelength_nm", "") or ""
        base = (
            lid,
            cables,
            lk.network,
            lk.tier,
            devs[lk.a].name,
            lk.a_port,
            racks[ra].id if ra >= 0 else "",
            devs[lk.b].name,
            lk.b_port,
            racks[rb].id if rb >= 0 else "",
            ch.medium,
            b.fiber_type or "",
            wl,
        )
        for direction, lane, tx, rx in fibers:
            src, dst = ("A", "B") if direction[0] == "A" else ("B", "A")
            yield (f"{lid}:{src}{tx}-{dst}{rx}", *base, direction, lane, tx, rx, expected, limit, "", "", "")


def iter_test_sheet_csv(
    result, *, row: str | None = None, rack: str | None = None, test_limit: str = "pmd", raw: bool = False
) -> Iterator[str]:
    yield from csv_lines(TEST_SHEET_COLUMNS, iter_test_rows(result, row=row, rack=rack, test_limit=test_limit), raw=raw)


# Test sheet PDF: portrait, one row per fiber, rows tall enough to write a reading in (SHEET_ROW_PT,
# 6.35 mm, ruled). The link's own columns, its worst-case loss among them, are printed on its first
# fiber only (the rows below belong to the same link); the limit stands beside every fiber.
SHEET_COLUMNS = (
    ("Link", 34),
    ("Cables", 110),
    ("A end\ndevice port, rack", 84),
    ("B end\ndevice port, rack", 84),
    ("Worst case dB", 54),
    ("Fiber", 44),
    ("Limit dB", 34),
    ("Measured dB", 52),
    ("Pass/fail", 40),
)
SHEET_ROW_PT = 18.0


def render_test_sheet_pdf(result, fh, options=None, *, revision_label: str = "r1") -> int:
    opts = ExportOptions.from_any(options)
    v = _view(result)
    sel = v.scope(opts.row, opts.rack)
    order, sections = v.link_order(sel, optical_link_filter(v))
    scope_text = f"rack {opts.rack}" if opts.rack else (f"row {opts.row}" if opts.row else "whole design")
    return _render_sheet(v, fh, opts, revision_label, order, sections, scope_text, sel is not None)


def render_test_sheets_zip(result, fh, options=None, *, revision_label: str = "r1") -> int:
    """test-sheets-by-rack.zip: the test sheet split by rack, one PDF per rack (test-sheets/<rack id>.pdf) with
    the links the whole sheet lists under that rack (anchored at their A end, else their B end), so every link is
    in exactly one file; a large design's 10,000-page sheet becomes files a rack team can print. Returns the
    number of files."""
    import zipfile

    opts = ExportOptions.from_any(options)
    v = _view(result)
    sel = v.scope(opts.row, opts.rack)
    order, sections = v.link_order(sel, optical_link_filter(v))
    files = 0
    pos = 0
    with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for ri, n in sections:
            idx = order[pos : pos + n]
            pos += n
            name = v.racks[ri].id if ri >= 0 else "unplaced"
            buf = io.BytesIO()
            _render_sheet(v, buf, opts, revision_label, idx, [(ri, n)], f"rack {name}", True)
            # a fixed timestamp: the archive of a revision is the same bytes whenever it is built
            info = zipfile.ZipInfo(f"test-sheets/{name}.pdf", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, buf.getvalue())
            files += 1
    return files


def _render_sheet(v: DesignView, fh, opts, revision_label: str, order, sections, scope_text: str, scoped: bool) -> int:
    res = v.result
    info = DocInfo("Test sheet", res.spec.name, revision_label, opts.date, scope_text if scoped else "")
    doc = FlowDoc(info, page_size(opts.page_size, "portrait"), margin=28.0, signature=True)
    cols = [Column(t, w) for t, w in SHEET_COLUMNS]
    extra = doc.width - sum(c.width for c in cols)
    cols[-1].width += max(0.0, extra)
    limit_text = (
        "the PMD's maximum channel insertion loss"
        if opts.test_limit == "pmd"
        else "the design's worst-case loss (expected)"
    )
    doc.add(Heading(f"Test sheet: {res.spec.name}", 1, section="Overview"))
    doc.add(
        Lines(
            [
                f"Revision {revision_label} \u00b7 {opts.date} \u00b7 scope: {scope_text}",
                f"Optical links: {len(order):,}. One row per fiber: Fiber A1\u2192B12 = Tx at position 1 of the A-end "
                "connector, received at position 12 of the B end (lane map of the channel); every lane both ways.",
                f"Worst case dB: the design's worst-case insertion loss for the link (loss budget: fiber + every mated "
                f"pair), on the link's first row. Limit dB, beside every fiber: {limit_text}. A fiber passes when the "
                "measured loss is at or below the limit; one above the worst case passes but should be cleaned and retested.",
                "test-sheet.csv is this sheet's twin (same rows, fiber_id per row): meters that export results fill in "
                "measured_loss_db and load it back. Sign and date every page.",
            ],
            font=SANS,
            size=8,
            leading=11,
        )
    )
    memo: dict = {}
    racks = v.racks
    link_pos = 0
    tables = []
    for ri, n in sections:
        idx = order[link_pos : link_pos + n]
        link_pos += n
        count = sum(len(_fibers_of(v, i, memo)) for i in idx)
        tables.append((ri, idx, count))

    cable_w = cols[1].width - 3.0  # the cell's text width (1.5 pt padding each side)

    def cells(idx):
        last = None
        for r in _rows_for(v, idx, opts.test_limit):
            lid = r[TI["link_id"]]
            fiber = r[TI["fiber_id"]].split(":", 1)[1].replace("-", "\u2192")
            # two text lines per ruled row: device and port above, the rack below
            if lid != last:
                last = lid
                cab = wrap(r[TI["cable_ids"]], cable_w, COND, 7.0, 0, " ")
                yield (
                    lid,
                    "",
                    cab[0],
                    " ".join(cab[1:]),
                    f"{r[TI['a_device']]} {r[TI['a_port']]}",
                    r[TI["a_rack"]] and f"rack {r[TI['a_rack']]}",
                    f"{r[TI['b_device']]} {r[TI['b_port']]}",
                    r[TI["b_rack"]] and f"rack {r[TI['b_rack']]}",
                    f"{r[TI['expected_loss_db']]:.2f}",
                    "",
                    fiber,
                    "",
                    _lim(r[TI["limit_db"]]),
                    "",
                    "",
                    "",
                    "",
                    "",
                )
            else:
                yield ("",) * 10 + (fiber, "", _lim(r[TI["limit_db"]]), "") + ("",) * 4

    for k, (ri, idx, count) in enumerate(tables):
        sect = f"Row {racks[ri].row_name} \u00b7 Rack {racks[ri].id}" if ri >= 0 else "Unplaced devices"
        # each rack from a new page (a page set per rack), except the first, which follows the overview
        doc.add(PageBreak(section=sect) if k else Heading("Fibers to test, rack by rack", 2, section=sect))
        doc.add(
            Table(
                cols,
                count,
                cells(idx),
                title=f"{v.rack_title(ri)}: {len(idx):,} link(s), {count:,} fibers",
                font=COND,
                size=7.0,
                leading=SHEET_ROW_PT / 2,
                lines_per_row=2,
                grid=True,
                carry=5,  # a link's id, cables, ends and worst case head every page it continues on
            )
        )
    return doc.render(fh)


def _lim(x) -> str:
    return "" if x == "" else f"{x:.2f}"


# ----- measured results back in -------------------------------------------------------------------


@dataclass(frozen=True)
class MeasuredFiber:
    line: int  # line number in the uploaded file (header = line 1)
    fiber_id: str
    link_id: str
    measured_db: float | None  # None: not measured (empty cell)
    extra: Mapping[str, str] = field(default_factory=dict)  # every other column, as uploaded


@dataclass(frozen=True)
class ParseError:
    line: int
    column: str
    message: str

    def __str__(self) -> str:
        return (
            f"line {self.line}: {self.column}: {self.message}" if self.column else f"line {self.line}: {self.message}"
        )


_DB = re.compile(r"^\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+))\s*(?:dB)?\s*$", re.I)


def _expected_index(expected_rows) -> dict:
    """fiber_id -> (link_id, expected, limit) from rows of iter_test_rows or dicts."""
    if isinstance(expected_rows, Mapping):
        return dict(expected_rows)
    out = {}
    for r in expected_rows:
        if isinstance(r, Mapping):
            out[r["fiber_id"]] = (r["link_id"], _f(r.get("expected_loss_db")), _f(r.get("limit_db")))
        else:
            out[r[TI["fiber_id"]]] = (r[TI["link_id"]], _f(r[TI["expected_loss_db"]]), _f(r[TI["limit_db"]]))
    return out


def _f(x):
    if x is None or x == "":
        return None
    return float(x)


def parse_test_results(csv_text: str, expected_rows) -> tuple[list[MeasuredFiber], list[ParseError]]:  # noqa: C901
    """Validate a filled test sheet row by row. Needs the columns fiber_id and measured_loss_db
    (link_id, when present, must match the fiber). Reports, with line numbers: unknown fiber ids,
    values that are not a loss in dB (e.g. '0.5 mW', 'abc', negative, not finite), a link_id that
    does not match, and duplicates (naming the first line). Rows with an empty measured value are
    kept as not measured; all other columns are kept in ``extra``."""
    exp = _expected_index(expected_rows)
    errors: list[ParseError] = []
    rows: list[MeasuredFiber] = []
    if csv_text.startswith("\ufeff"):
        csv_text = csv_text[1:]
    # The size was bounded where the upload was received (API_MAX_UPLOAD_BYTES); rows and cells are bounded here.
    reader = CsvReader(csv_text, max_chars=len(csv_text))
    try:
        header = next(reader)
    except StopIteration:
        return [], [ParseError(1, "", "the file is empty; expected a header row with fiber_id and measured_loss_db")]
    except InputRefused as exc:
        return [], [ParseError(1, "", f"not valid CSV ({exc.message})")]
    header = [strip_prefix(h) for h in header]
    norm = [h.strip().lower() for h in header]
    missing = [c for c in ("fiber_id", "measured_loss_db") if c not in norm]
    if missing:
        return [], [ParseError(1, "", f"missing column(s) {', '.join(missing)} in the header")]
    i_f, i_m = norm.index("fiber_id"), norm.index("measured_loss_db")
    i_l = norm.index("link_id") if "link_id" in norm else None
    seen: dict[str, int] = {}
    line = 1
    while True:
        try:
            rec = next(reader)
        except StopIteration:
            break
        except InputRefused as exc:
            line = exc.line or reader.line_num
            errors.append(ParseError(line, "", f"not valid CSV ({exc.message})"))
            break
        line = reader.line_num
        if not rec or all(not x.strip() for x in rec):
            continue
        rec = [strip_prefix(x) for x in rec]  # the ' our own export put before formula-like text
        if len(rec) != len(header):
            errors.append(ParseError(line, "", f"{len(rec)} fields, the header has {len(header)}"))
            continue
        fid = rec[i_f].strip()
        extra = {header[k]: rec[k] for k in range(len(header)) if k not in (i_f, i_m)}
        if not fid:
            errors.append(ParseError(line, "fiber_id", "empty"))
            continue
        e = exp.get(fid)
        if e is None:
            errors.append(ParseError(line, "fiber_id", f"{fid!r} is not a fiber of this design's test sheet"))
            continue
        if fid in seen:
            errors.append(ParseError(line, "fiber_id", f"{fid} is a duplicate of line {seen[fid]}"))
            continue
        seen[fid] = line
        if i_l is not None and rec[i_l].strip() and rec[i_l].strip() != e[0]:
            errors.append(ParseError(line, "link_id", f"{rec[i_l].strip()!r} does not match fiber {fid} (link {e[0]})"))
            continue
        raw = rec[i_m]
        if not raw.strip():
            rows.append(MeasuredFiber(line, fid, e[0], None, extra))
            continue
        m = _DB.match(raw)
        if not m:
            errors.append(
                ParseError(
                    line,
                    "measured_loss_db",
                    f"{raw.strip()!r} is not an insertion loss in dB (write a number such as 0.42, "
                    "optionally followed by 'dB')",
                )
            )
            continue
        val = float(m.group(1))
        if not math.isfinite(val) or val < 0:
            errors.append(ParseError(line, "measured_loss_db", f"{raw.strip()!r}: a loss must be a number >= 0 dB"))
            continue
        rows.append(MeasuredFiber(line, fid, e[0], val, extra))
    return rows, errors


@dataclass(frozen=True)
class FiberResult:
    fiber_id: str
    link_id: str
    expected_db: float | None
    limit_db: float | None
    measured_db: float | None
    status: str  # pass | fail | not-measured
    margin_db: float | None
    above_expected: bool  # passes, but measured more than the design's worst case (clean and retest)


@dataclass(frozen=True)
class LinkResult:
    link_id: str
    fibers: int
    measured: int
    passed: int
    failed: int
    worst_db: float | None
    status: str  # pass | fail | incomplete


@dataclass(frozen=True)
class Comparison:
    fibers: list
    links: list
    counts: dict


def compare(rows: Iterable[MeasuredFiber], expected_rows) -> Comparison:
    """Pass/fail per fiber (measured <= limit) and per link (pass when every fiber of the link
    was measured and passed; fail when any failed; else incomplete). Fibers of the sheet that
    have no row are not measured."""
    exp = _expected_index(expected_rows)
    got = {r.fiber_id: r for r in rows}
    fibers = []
    per_link: dict = {}
    for fid, (lid, expected, limit) in exp.items():
        r = got.get(fid)
        mv = r.measured_db if r is not None else None
        if mv is None:
            st, margin = "not-measured", None
        else:
            margin = None if limit is None else round(limit - mv, 4)
            st = "pass" if limit is not None and mv <= limit + 1e-9 else "fail"
        above = st == "pass" and expected is not None and mv is not None and mv > expected + 1e-9
        fibers.append(FiberResult(fid, lid, expected, limit, mv, st, margin, above))
        agg = per_link.setdefault(lid, [0, 0, 0, 0, None])
        agg[0] += 1
        if mv is not None:
            agg[1] += 1
            agg[4] = mv if agg[4] is None else max(agg[4], mv)
        if st == "pass":
            agg[2] += 1
        elif st == "fail":
            agg[3] += 1
    links = []
    for lid, (n, meas, ok, bad, worst) in per_link.items():
        status = "fail" if bad else ("pass" if ok == n else "incomplete")
        links.append(LinkResult(lid, n, meas, ok, bad, worst, status))
    counts = {"fibers": Counter(f.status for f in fibers), "links": Counter(lk.status for lk in links)}
    return Comparison(fibers, links, {k: dict(v) for k, v in counts.items()})


RESULT_COLUMNS = (
    "fiber_id",
    "link_id",
    "expected_loss_db",
    "limit_db",
    "measured_loss_db",
    "margin_db",
    "status",
    "above_expected",
)


def iter_results_csv(comparison: Comparison, *, raw: bool = False) -> Iterator[str]:
    yield from csv_lines(
        RESULT_COLUMNS,
        raw=raw,
        rows=(
            (
                f.fiber_id,
                f.link_id,
                "" if f.expected_db is None else f.expected_db,
                "" if f.limit_db is None else f.limit_db,
                "" if f.measured_db is None else f.measured_db,
                "" if f.margin_db is None else f.margin_db,
                f.status,
                "yes" if f.above_expected else "",
            )
            for f in comparison.fibers
        ),
    )
