"""PDF plumbing shared by every document: fonts, a memory-lean canvas, text fitting, and a
small two-pass layout engine (headings, text lines, graphics, column tables).

Big tables are drawn the fast way measured in docs/../performance-notes: one text object per
column per page (never a platypus table). The layout runs twice: the first pass only counts
pages (row heights are fixed, so it never touches the rows), the second draws, which is how
every page can say "Page n of N" without holding pages back.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from reportlab.lib.pagesizes import A4, landscape, letter, portrait
from reportlab.lib.rl_accel import instanceStringWidthTTF
from reportlab.pdfbase import pdfdoc, pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas

# ----------------------------------------------------------------------------------------------
# Fonts: DejaVu (Debian fonts-dejavu-core) when present, else the Bitstream Vera fonts that ship
# inside reportlab. Both are free licences that allow embedding. TrueType fonts are embedded as
# subsets, so the text stays selectable and extractable.
# ----------------------------------------------------------------------------------------------

SANS, SANS_BOLD, COND, COND_BOLD = "FD-Sans", "FD-Sans-Bold", "FD-Cond", "FD-Cond-Bold"
MIN_FONT_SIZE = 7.0  # no text in any document is smaller (tests check every Tf operator)
MIN_MARGIN = 14.0  # pt between the page edge and any text of a document (label sheets: see labels.py)
MIN_FILL = 0.5  # share of a page's body a page fills, unless it is the last of its section (tests check)


class LayoutAudit:
    """What the layout rules are checked against, recorded while documents render (tests only).

    ``boxes``: (document, text, font, size, box width) for every string placed in a box of known
    width (table cells, lines, headings, diagram boxes, labels); ``pages``: (document, page, fill,
    last of its section), fill being the share of the page's body used.
    """

    def __init__(self):
        self.boxes: list[tuple] = []
        self.pages: list[tuple] = []

    def overflowing(self) -> list[tuple]:
        out = []
        for doc, text, font, size, width in self.boxes:
            if pdfmetrics.stringWidth(text, font, size) > width + 0.01:
                out.append((doc, text, font, size, width))
        return out


_audit: LayoutAudit | None = None


class audit_layout:
    """``with audit_layout() as a: render...`` records every box and page fill into ``a``."""

    def __enter__(self) -> LayoutAudit:
        global _audit
        self._prev = _audit
        _audit = LayoutAudit()
        return _audit

    def __exit__(self, *exc):
        global _audit
        _audit = self._prev
        return False


def audit_box(doc: str, text: str, font: str, size: float, width: float) -> None:
    if _audit is not None and text:
        _audit.boxes.append((doc, text, font, size, width))


def audit_page(doc: str, page: int, fill: float, last: bool) -> None:
    if _audit is not None:
        _audit.pages.append((doc, page, fill, last))


def auditing() -> bool:
    return _audit is not None


_FONT_DIRS = (
    os.environ.get("FABRICDESIGN_FONT_DIR", ""),
    str(Path(__file__).resolve().parents[3] / "static" / "fonts"),
    "/usr/share/fonts/truetype/dejavu",
)
_FONT_FILES = {
    SANS: ("DejaVuSans.ttf", "Vera.ttf"),
    SANS_BOLD: ("DejaVuSans-Bold.ttf", "VeraBd.ttf"),
    COND: ("DejaVuSansCondensed.ttf", "Vera.ttf"),
    COND_BOLD: ("DejaVuSansCondensed-Bold.ttf", "VeraBd.ttf"),
}
_fonts_registered: dict[str, str] = {}


def register_fonts() -> dict[str, str]:
    """Register the four document fonts once; returns {font name: file path}."""
    if _fonts_registered:
        return _fonts_registered
    import reportlab

    rl_fonts = Path(reportlab.__file__).parent / "fonts"
    for name, (dejavu, vera) in _FONT_FILES.items():
        path = None
        for d in _FONT_DIRS:
            if d and (Path(d) / dejavu).is_file():
                path = Path(d) / dejavu
                break
        if path is None:
            path = rl_fonts / vera
        pdfmetrics.registerFont(TTFont(name, str(path)))
        _fonts_registered[name] = str(path)
    return _fonts_registered


# ----------------------------------------------------------------------------------------------
# Page sizes
# ----------------------------------------------------------------------------------------------

PAGE_SIZES = {"a4": A4, "letter": letter}


def page_size(name: str, orientation: str) -> tuple[float, float]:
    try:
        size = PAGE_SIZES[name.lower()]
    except KeyError:
        raise ValueError(f"page_size: {name!r} is not one of {', '.join(PAGE_SIZES)}") from None
    return landscape(size) if orientation == "landscape" else portrait(size)


# ----------------------------------------------------------------------------------------------
# A canvas that compresses each page as soon as it is finished. reportlab keeps every page's
# content stream as a str until save(); compressing at showPage keeps a 10,000-page document
# at a few kB per page instead of tens of kB.
# ----------------------------------------------------------------------------------------------

_FLATE = pdfdoc.PDFArray([pdfdoc.PDFName("FlateDecode")])


class LeanCanvas(Canvas):
    def showPage(self):  # noqa: N802 (reportlab's name)
        super().showPage()
        page = self._doc.Pages.pages[-1]
        stream = page.stream
        if stream:
            data = stream.encode("utf8") if isinstance(stream, str) else stream
            page.Contents = pdfdoc.PDFStream(pdfdoc.PDFDictionary({"Filter": _FLATE}), zlib.compress(data, 3))
            page.stream = None


def new_canvas(fh, pagesize, *, title: str, subject: str, author: str = "fabricdesign") -> LeanCanvas:
    register_fonts()
    c = LeanCanvas(fh, pagesize=pagesize, pageCompression=0, invariant=None, initialFontName=SANS, initialFontSize=8)
    c.setTitle(title)
    c.setSubject(subject)
    c.setAuthor(author)
    c.setCreator("fabricdesign deliverables")
    return c


# ----------------------------------------------------------------------------------------------
# Text fitting: no text ever overflows its cell. Strings too wide are cut and end in an ellipsis,
# measured with the font's real advance widths.
# ----------------------------------------------------------------------------------------------

ELLIPSIS = "\u2026"


class Fitter:
    """fit(s, width) -> s, or s cut to fit with a trailing ellipsis. Cheap for short strings:
    anything shorter than width / (widest glyph) needs no measuring at all."""

    def __init__(self, font_name: str, size: float):
        register_fonts()
        self.font_name = font_name
        self.size = size
        font = pdfmetrics.getFont(font_name)
        self._sw = font.stringWidth
        if isinstance(font, TTFont):  # TTFont.stringWidth's own body, without its Python frame
            self._sw = partial(instanceStringWidthTTF, font)
        widths = font.face.charWidths
        self._maxw = max(widths.get(c, font.face.defaultWidth) for c in range(32, 127)) * size / 1000.0
        self._cache: dict[tuple[str, float], str] = {}

    def width(self, s: str) -> float:
        return self._sw(s, self.size)

    def fit_all(self, strings, width: float) -> list[str]:
        """[fit(s, width) for s in strings], measuring each string once at most (a table column)."""
        maxw, sw, size, fit = self._maxw, self._sw, self.size, self.fit
        return [s if len(s) * maxw <= width or sw(s, size) <= width else fit(s, width) for s in strings]

    def fit(self, s: str, width: float) -> str:
        if len(s) * self._maxw <= width:
            return s
        key = (s, width)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        sw, size = self._sw, self.size
        if sw(s, size) <= width:
            out = s
        else:
            lo, hi = 0, len(s)
            while lo < hi:  # longest prefix that fits with the ellipsis
                mid = (lo + hi + 1) // 2
                if sw(s[:mid] + ELLIPSIS, size) <= width:
                    lo = mid
                else:
                    hi = mid - 1
            out = s[:lo] + ELLIPSIS if lo else (ELLIPSIS if sw(ELLIPSIS, size) <= width else "")
        if len(self._cache) > 20000:
            self._cache.clear()
        self._cache[key] = out
        return out


_fitters: dict[tuple[str, float], Fitter] = {}


def fitter(font: str, size: float) -> Fitter:
    f = _fitters.get((font, size))
    if f is None:
        f = _fitters[(font, size)] = Fitter(font, size)
    return f


def wrap(text: str, width: float, font: str, size: float, max_lines: int = 0, breaks: str = " /") -> list[str]:
    """Greedy wrap preferring breaks after any char in ``breaks`` (then anywhere). The last
    allowed line ends in an ellipsis when text remains."""
    f = fitter(font, size)
    out: list[str] = []
    rest = text
    while rest:
        if max_lines and len(out) == max_lines - 1:
            out.append(f.fit(rest, width))
            break
        if f.width(rest) <= width:
            out.append(rest)
            break
        # longest prefix that fits
        lo, hi = 1, len(rest)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if f.width(rest[:mid]) <= width:
                lo = mid
            else:
                hi = mid - 1
        cut = lo
        for i in range(lo, 0, -1):
            if rest[i - 1] in breaks:
                cut = i
                break
        out.append(rest[:cut].rstrip(" ") if rest[:cut].strip() else rest[:cut])
        rest = rest[cut:].lstrip(" ")
    return out


def _fit_widths(t, rows) -> list:
    """Column widths of a wrap table from its content: a right-aligned (number) column as wide as its widest
    cell plus a 4 pt gap, so bold figures never touch; a column empty in every row (prices not given) as
    narrow as its title. The widest left-aligned column (the description) gives and takes the difference."""
    cols = [Column(c.title, c.width, c.align) for c in t.columns]
    flex = max((i for i, c in enumerate(cols) if c.align != "right"), key=lambda i: cols[i].width, default=None)
    if flex is None:
        return cols
    bold = fitter(t.bold_font, t.size)
    marker = t.bold_marker or "\x00"
    for i, col in enumerate(cols):
        if i == flex:
            continue
        cells = [(r[i][len(marker) :] if i == 0 and r[i].startswith(marker) else r[i]) for r in rows if i < len(r)]
        title = bold.width(col.title.split("\n")[0]) + 3.0
        if not any(cells):
            want = min(col.width, title)
        elif col.align == "right":
            want = max(col.width, max(bold.width(c) for c in cells) + 3.0 + 4.0)
        else:
            continue
        delta = want - col.width
        if delta and cols[flex].width - delta >= 60:
            col.width = want
            cols[flex].width -= delta
    return cols


# ----------------------------------------------------------------------------------------------
# Layout engine
# ----------------------------------------------------------------------------------------------


@dataclass
class Column:
    title: str
    width: float
    align: str = "left"  # left | right


@dataclass
class Heading:
    text: str
    level: int = 1
    section: str | None = None  # footer section text from here on (None: keep)


@dataclass
class Lines:
    lines: list[str]
    font: str = SANS
    size: float = 9.0
    leading: float = 12.0


@dataclass
class Graphic:
    drawing: Any  # reportlab.graphics.shapes.Drawing
    keep_with_next: bool = False


@dataclass
class PageBreak:
    section: str | None = None  # footer section text for the pages that follow (None: keep)
    # a soft break: no new page while at least this share of the page's body is still free (what follows goes on
    # under its own title), so a section's last few rows do not leave a page near empty
    min_free: float = 0.0


@dataclass
class Table:
    """A table with a fixed row height. ``rows`` is an iterable of tuples of str (one per
    column); ``count`` rows are taken from it when the table is drawn (never in the counting
    pass). The header row is repeated on every page the table spans."""

    columns: Sequence[Column]
    count: int
    rows: Iterable[Sequence[str]] | Callable[[], Iterable[Sequence[str]]]
    title: str | None = None
    font: str = COND
    bold_font: str = COND_BOLD
    size: float = 7.0
    leading: float = 8.6
    zebra: bool = True
    # rows whose first cell starts with this marker are drawn bold (subtotals); the marker is removed
    bold_marker: str | None = None
    # text lines per row: with 2, every row tuple holds 2 cells per column (top, bottom) in column
    # order, and column titles may hold a second line after a newline
    lines_per_row: int = 1
    grid: bool = False  # rules between rows and columns (sheets filled in by hand)
    # the first `carry` columns of a row left blank (a continuation of the row above, e.g. a link's later
    # fibers) are filled from the row above when the row heads a page, so no page starts unidentified
    carry: int = 0
    # a cell wider than its column wraps onto as many lines as it needs and the row grows (one-line tables; rows
    # are read once and kept: for tables of a few thousand rows, such as the BOM's)
    wrap: bool = False


@dataclass
class DocInfo:
    kind: str  # "Bill of materials", "Cabling plan", ...
    design: str
    revision: str
    date: str
    extra: str = ""  # e.g. "Row C" filter
    notice: str = ""  # printed first in every page's footer (e.g. "INCOMPLETE: 6 links have no part")


@dataclass
class _Page:
    section: str


class FlowDoc:
    """Blocks laid out top to bottom on pages of one size, header and footer on every page."""

    HEADER_H = 22.0
    FOOTER_H = 16.0
    SIGNATURE_H = 34.0

    def __init__(self, info: DocInfo, pagesize, margin: float = 28.0, *, signature: bool = False):
        if margin < MIN_MARGIN:
            raise ValueError(f"margin: {margin} pt is below the {MIN_MARGIN:g} pt minimum")
        self.info = info
        self.pagesize = pagesize
        self.margin = margin
        self.signature = signature  # a "tested by / signature / date" block above every page's footer
        self.blocks: list = []
        self.pages = 0

    def add(self, *blocks) -> None:
        self.blocks.extend(blocks)

    # geometry
    @property
    def top(self) -> float:
        return self.pagesize[1] - self.margin - self.HEADER_H

    @property
    def bottom(self) -> float:
        return self.margin + self.FOOTER_H + (self.SIGNATURE_H if self.signature else 0.0)

    @property
    def width(self) -> float:
        return self.pagesize[0] - 2 * self.margin

    def render(self, fh) -> int:
        total = self._run(None, 0)
        c = new_canvas(
            fh,
            self.pagesize,
            title=f"{self.info.kind}: {self.info.design} ({self.info.revision})",
            subject=self.info.kind,
        )
        drawn = self._run(c, total)
        if drawn != total:  # the two passes must agree, or "Page n of N" would lie
            raise AssertionError(f"layout passes disagree: {drawn} pages drawn, {total} counted")
        c.save()
        self.pages = total
        return total

    # ------------------------------------------------------------------------------------------
    def _run(self, c, total: int) -> int:  # noqa: C901
        state = {"page": 0, "y": 0.0, "section": "", "page_section": ""}
        draw = c is not None
        body = self.top - self.bottom

        def finish_page(last: bool):
            if draw:
                audit_page(self.info.kind, state["page"], (self.top - state["y"]) / body, last)
                self._decorate(c, state["page"], total, state["page_section"])
                c.showPage()

        def new_page(last: bool = False):
            if state["page"]:
                finish_page(last)
            state["page"] += 1
            state["y"] = self.top
            state["page_section"] = state["section"]

        new_page()
        blocks = self.blocks
        for bi, block in enumerate(blocks):
            if isinstance(block, PageBreak):
                if block.section is not None:
                    state["section"] = block.section
                if block.min_free and state["y"] - self.bottom >= block.min_free * body:
                    continue
                if state["y"] < self.top - 0.5:
                    new_page(last=True)
                else:
                    state["page_section"] = state["section"]
                continue
            if isinstance(block, Heading):
                h = 18.0 if block.level == 1 else 14.0
                if block.section is not None:
                    state["section"] = block.section
                    if state["y"] >= self.top - 0.5:
                        state["page_section"] = block.section
                # keep a heading with at least the next 4 lines of whatever follows
                need = h + self._min_follow(blocks, bi + 1)
                if state["y"] - need < self.bottom:
                    new_page()
                if draw:
                    size = 13.0 if block.level == 1 else 10.0
                    c.setFont(SANS_BOLD, size)
                    c.setFillGray(0)
                    text = fitter(SANS_BOLD, size).fit(block.text, self.width)
                    audit_box(self.info.kind, text, SANS_BOLD, size, self.width)
                    c.drawString(self.margin, state["y"] - size, text)
                state["y"] -= h
                continue
            if isinstance(block, Lines):
                for line in (x for ln in block.lines for x in wrap(ln, self.width, block.font, block.size)):
                    if state["y"] - block.leading < self.bottom:
                        new_page()
                    if draw:
                        c.setFont(block.font, block.size)
                        c.setFillGray(0)
                        text = fitter(block.font, block.size).fit(line, self.width)
                        audit_box(self.info.kind, text, block.font, block.size, self.width)
                        c.drawString(self.margin, state["y"] - block.size, text)
                    state["y"] -= block.leading
                continue
            if isinstance(block, Graphic):
                d = block.drawing
                if state["y"] - d.height < self.bottom:
                    new_page()
                if draw:
                    from reportlab.graphics import renderPDF

                    d.initialFontName, d.initialFontSize = SANS, 8  # never fall back to Helvetica
                    renderPDF.draw(d, c, self.margin, state["y"] - d.height)
                state["y"] -= d.height + 6
                continue
            if isinstance(block, Table):
                self._table(c, block, state, new_page, draw)
                continue
            raise TypeError(f"unknown block {block!r}")
        if draw:
            audit_page(self.info.kind, state["page"], (self.top - state["y"]) / body, True)
            self._decorate(c, state["page"], total, state["page_section"])
        return state["page"]

    def _min_follow(self, blocks, i: int) -> float:
        if i >= len(blocks):
            return 0.0
        b = blocks[i]
        if isinstance(b, Table):
            return (14.0 if b.title else 0.0) + b.leading * b.lines_per_row * (1 + min(b.count, 3)) + 4
        if isinstance(b, Lines):
            return b.leading * min(len(b.lines), 3)
        if isinstance(b, Graphic):
            return b.drawing.height
        return 0.0

    def _table(self, c, t: Table, state, new_page, draw: bool) -> None:
        if t.wrap:
            self._wrapped_table(c, t, state, new_page, draw)
            return
        title_h = 14.0 if t.title else 0.0
        lh = t.leading * t.lines_per_row
        rows_iter: Iterator | None = None
        carried: Sequence[str] = ()
        done = 0
        first = True
        while first or done < t.count:
            avail = state["y"] - self.bottom - title_h - lh  # minus header row
            fit_rows = int(avail // lh)
            if fit_rows < min(3, t.count - done) or fit_rows < 1:
                new_page()
                continue
            k = min(fit_rows, t.count - done)
            if draw:
                if rows_iter is None:
                    rows_iter = iter(t.rows() if callable(t.rows) else t.rows)
                rows = [next(rows_iter) for _ in range(k)]
                if t.carry:
                    n = t.carry * t.lines_per_row
                    if not first and not any(rows[0][:n]):
                        rows[0] = tuple(carried) + tuple(rows[0][n:])
                    for r in reversed(rows):
                        if any(r[:n]):
                            carried = r[:n]
                            break
                self._draw_table_chunk(c, t, state["y"], rows, continued=not first)
            state["y"] -= title_h + lh * (k + 1) + 6
            done += k
            first = False
            if done < t.count:
                new_page()

    def _wrapped_table(self, c, t: Table, state, new_page, draw: bool) -> None:
        """A Table with wrap=True: each row as tall as its most-wrapped cell; pages break between rows."""
        cells = getattr(t, "_wrapped", None)
        if cells is None:  # the same lines in the counting and the drawing pass
            raw = list(t.rows() if callable(t.rows) else t.rows)[: t.count]
            t.columns = _fit_widths(t, raw)
            cells = [self._wrap_row(t, r) for r in raw]
            t._wrapped = cells  # type: ignore[attr-defined]
        title_h = 14.0 if t.title else 0.0
        lead = t.leading
        done, first = 0, True
        while first or done < len(cells):
            avail = state["y"] - self.bottom - title_h - lead  # minus header row
            k, used = 0, 0.0
            while done + k < len(cells) and used + cells[done + k][1] * lead <= avail:
                used += cells[done + k][1] * lead
                k += 1
            if k < min(3, len(cells) - done) and state["y"] < self.top - 0.5:
                new_page()
                continue
            k = max(k, min(1, len(cells) - done))  # a row taller than a page still goes on one
            if draw:
                self._draw_wrapped_chunk(c, t, state["y"], cells[done : done + k], continued=not first)
            state["y"] -= title_h + lead + sum(n for _, n, _ in cells[done : done + k]) * lead + 6
            done += k
            first = False
            if done < len(cells):
                new_page()

    def _wrap_row(self, t: Table, r) -> tuple[list[list[str]], int, bool]:
        """(lines per cell, lines of the row, bold) of one row."""
        bold = bool(t.bold_marker and r and r[0].startswith(t.bold_marker))
        if bold:
            r = (r[0][len(t.bold_marker or "") :], *r[1:])
        font = t.bold_font if bold else t.font
        f = fitter(font, t.size)
        out = []
        for s, col in zip(r, t.columns):
            w = col.width - 3.0
            out.append([s] if f.width(s) <= w else wrap(s, w, font, t.size, 0, " /-;"))
        return out, max(1, max(len(x) for x in out)), bold

    def _draw_wrapped_chunk(self, c, t: Table, y: float, rows: list, *, continued: bool) -> None:
        x0 = self.margin
        lead, pad, size = t.leading, 1.5, t.size
        total_w = sum(col.width for col in t.columns)
        if t.title:
            title = fitter(SANS_BOLD, 9.0).fit(t.title + (" (continued)" if continued else ""), self.width)
            audit_box(self.info.kind, title, SANS_BOLD, 9.0, self.width)
            draw_strings(c, [(SANS_BOLD, 9.0, x0, y - 10.0, title)])
            y -= 14.0
        c.setFillGray(0.85)
        c.rect(x0, y - lead, total_w, lead, stroke=0, fill=1)
        if t.zebra:
            c.setFillGray(0.95)
            yy = y - lead
            for j, (_, n, _) in enumerate(rows):
                if j % 2:
                    c.rect(x0, yy - n * lead, total_w, n * lead, stroke=0, fill=1)
                yy -= n * lead
        c.setFillGray(0)
        items = []
        shift = (lead - size) / 2 + 0.15 * size  # baseline inside a line of the row
        x = x0
        hf = fitter(t.bold_font, size)
        for col in t.columns:
            h = hf.fit(col.title.split("\n")[0], col.width - 2 * pad)
            audit_box(self.info.kind, h, t.bold_font, size, col.width - 2 * pad)
            xx = x + col.width - pad - hf.width(h) if col.align == "right" else x + pad
            items.append((t.bold_font, size, xx, y - lead + shift, h))
            x += col.width
        yy = y - lead
        for cells, n, bold in rows:
            font = t.bold_font if bold else t.font
            f = fitter(font, size)
            x = x0
            for lines, col in zip(cells, t.columns):
                for k, s in enumerate(lines):
                    audit_box(self.info.kind, s, font, size, col.width - 2 * pad)
                    xx = x + col.width - pad - f.width(s) if col.align == "right" else x + pad
                    items.append((font, size, xx, yy - (k + 1) * lead + shift, s))
                x += col.width
            yy -= n * lead
        draw_strings(c, items)
        c.setLineWidth(0.4)
        c.setStrokeGray(0.4)
        c.line(x0, y - lead, x0 + total_w, y - lead)
        c.line(x0, yy, x0 + total_w, yy)

    def _draw_table_chunk(self, c, t: Table, y: float, rows: list, *, continued: bool) -> None:  # noqa: C901
        x0 = self.margin
        L = t.lines_per_row
        if L > 1:  # a line wider than its cell takes the cell's empty lines rather than being cut
            rows = [self._rewrap_cells(t, r) for r in rows]
        lead = t.leading
        lh = lead * L  # row height
        if t.title:
            c.setFont(SANS_BOLD, 9.0)
            c.setFillGray(0)
            title = fitter(SANS_BOLD, 9.0).fit(t.title + (" (continued)" if continued else ""), self.width)
            audit_box(self.info.kind, title, SANS_BOLD, 9.0, self.width)
            c.drawString(x0, y - 10.0, title)
            y -= 14.0
        total_w = sum(col.width for col in t.columns)
        # header band and zebra stripes first (text on top)
        c.setFillGray(0.85)
        c.rect(x0, y - lh, total_w, lh, stroke=0, fill=1)
        if t.zebra and len(rows) > 1:
            c.setFillGray(0.95)
            p = c.beginPath()
            for j in range(1, len(rows), 2):
                p.rect(x0, y - lh * (j + 2), total_w, lh)
            c.drawPath(p, stroke=0, fill=1)
        c.setFillGray(0)
        base = y - lead + (lead - t.size) / 2 + 0.15 * t.size  # first baseline inside the header band
        pad = 1.5
        bold_rows = set()
        if t.bold_marker:
            m = t.bold_marker
            for j, r in enumerate(rows):
                if r and r[0].startswith(m):
                    bold_rows.add(j)
                    rows[j] = (r[0][len(m) :], *r[1:])
        x = x0
        hdr_fit = fitter(t.bold_font, t.size)
        body_fit = fitter(t.font, t.size)
        bold_fit = fitter(t.bold_font, t.size)
        for ci, col in enumerate(t.columns):
            w = col.width - 2 * pad
            # one text object for the column on this page: header (one line per text line of a row), then body
            tx = c.beginText()
            tx.setFont(t.bold_font, t.size)
            line = line_writer(tx)
            for k, title in enumerate((col.title.split("\n") + [""] * L)[:L]):
                h = hdr_fit.fit(title, w)
                right = x + col.width - pad - hdr_fit.width(h) if col.align == "right" else x + pad
                tx.setTextOrigin(right, base - k * lead)
                line(h)
            tx.setFont(t.font, t.size, lead)
            tx.setTextOrigin(x + pad, base - lh)
            # A TrueType font's Tf/TL reach the stream only with the first text drawn, so a column whose first
            # cells are empty would step down by the previous text object's leading: set it now.
            tx.setLeading(lead)
            if col.align == "right" or bold_rows:
                yy = base - lh
                for j, r in enumerate(rows):
                    bold = j in bold_rows
                    f = bold_fit if bold else body_fit
                    if bold:
                        tx.setFont(t.bold_font, t.size, lead)
                    for k in range(L):
                        s = f.fit(r[ci * L + k], w)
                        xx = x + col.width - pad - f.width(s) if col.align == "right" else x + pad
                        tx.setTextOrigin(xx, yy - k * lead)
                        tx.textOut(s)
                    if bold:
                        tx.setFont(t.font, t.size, lead)
                    yy -= lh
            else:
                lo = ci * L
                cells = [r[lo] for r in rows] if L == 1 else [s for r in rows for s in r[lo : lo + L]]
                lines_writer(tx)(body_fit.fit_all(cells, w))
            c.drawText(tx)
            if _audit is not None:
                doc = self.info.kind
                for title in col.title.split("\n"):
                    audit_box(doc, hdr_fit.fit(title, w), t.bold_font, t.size, w)
                for j, r in enumerate(rows):
                    f, fname = (bold_fit, t.bold_font) if j in bold_rows else (body_fit, t.font)
                    for k in range(L):
                        audit_box(doc, f.fit(r[ci * L + k], w), fname, t.size, w)
            x += col.width
        if t.grid:  # rules to write between
            c.setLineWidth(0.3)
            c.setStrokeGray(0.55)
            p = c.beginPath()
            for j in range(1, len(rows)):
                p.moveTo(x0, y - lh * (j + 1))
                p.lineTo(x0 + total_w, y - lh * (j + 1))
            xx = x0
            for col in t.columns:
                p.moveTo(xx, y)
                p.lineTo(xx, y - lh * (len(rows) + 1))
                xx += col.width
            p.moveTo(xx, y)
            p.lineTo(xx, y - lh * (len(rows) + 1))
            c.drawPath(p, stroke=1, fill=0)
        # frame lines: header underline and the table's bottom rule
        c.setLineWidth(0.4)
        c.setStrokeGray(0.4)
        c.line(x0, y - lh, x0 + total_w, y - lh)
        c.line(x0, y - lh * (len(rows) + 1), x0 + total_w, y - lh * (len(rows) + 1))

    def _rewrap_cells(self, t: Table, r):
        """A row of a multi-line table with every cell whose lines do not fit wrapped into the cell's L lines
        (when they fit in L lines wrapped; else left as is, to be cut)."""
        L = t.lines_per_row
        f = fitter(t.font, t.size)
        maxw = f._maxw
        out = None
        for ci, col in enumerate(t.columns):
            w = col.width - 3.0
            cell = r[ci * L : ci * L + L]
            if all(len(s) * maxw <= w for s in cell) or all(f.width(s) <= w for s in cell):
                continue
            lines = [x for s in cell if s for x in ([s] if f.width(s) <= w else wrap(s, w, t.font, t.size, 0, " /-,;"))]
            if len(lines) > L:  # the lines run on, joined by a middle dot ("part" then "length")
                lines = wrap(" \u00b7 ".join(s for s in cell if s), w, t.font, t.size, 0, " /-,;")
            if len(lines) <= L:
                out = out or list(r)
                out[ci * L : ci * L + L] = lines + [""] * (L - len(lines))
        return r if out is None else tuple(out)

    def _decorate(self, c, n: int, total: int, section: str) -> None:
        w, h = self.pagesize
        m = self.margin
        info = self.info
        c.setFillGray(0)
        left = f"{info.kind} \u2014 {info.design}"
        right = f"Revision {info.revision} \u00b7 {info.date}" + (f" \u00b7 {info.extra}" if info.extra else "")
        rf = fitter(SANS, 8.0)
        right = rf.fit(right, self.width * 0.45)
        lw = self.width - rf.width(right) - 12
        left = fitter(SANS_BOLD, 9.0).fit(left, lw)
        audit_box(info.kind, left, SANS_BOLD, 9.0, lw)
        audit_box(info.kind, right, SANS, 8.0, self.width * 0.45)
        page = f"Page {n} of {total}"
        pf = fitter(SANS, 7.5)
        draw_strings(
            c,
            [
                (SANS_BOLD, 9.0, m, h - m - 10, left),
                (SANS, 8.0, w - m - rf.width(right), h - m - 10, right),
                (SANS, 7.5, w - m - pf.width(page), m + 1, page),
            ],
        )
        c.setLineWidth(0.5)
        c.setStrokeGray(0.5)
        c.line(m, h - m - 14, w - m, h - m - 14)
        c.line(m, m + 10, w - m, m + 10)
        if self.signature:
            self._signature_block(c, m + 16, self.width)
        foot = f"{info.design} \u00b7 revision {info.revision}" + (f" \u00b7 {section}" if section else "")
        room = self.width - pf.width(page) - 12
        x = m
        items = []
        if info.notice:
            notice = fitter(SANS_BOLD, 7.5).fit(info.notice, room)
            items.append((SANS_BOLD, 7.5, x, m + 1, notice))
            gap = fitter(SANS_BOLD, 7.5).width(notice) + 8
            x, room = x + gap, room - gap
        if room > 20:
            foot = pf.fit(foot, room)
            audit_box(info.kind, foot, SANS, 7.5, room)
            items.append((SANS, 7.5, x, m + 1, foot))
        draw_strings(c, items)

    SIGNATURE_FIELDS = (("Tested by (name)", 0.28), ("Signature", 0.24), ("Date", 0.14), ("Meter / serial no.", 0.34))

    def _signature_block(self, c, y0: float, width: float) -> None:
        """Boxes to sign each page in: name, signature, date, meter; label on top, room to write below."""
        h = self.SIGNATURE_H - 6
        x = self.margin
        c.setLineWidth(0.5)
        c.setStrokeGray(0.3)
        f = fitter(SANS, 7.0)
        for title, share in self.SIGNATURE_FIELDS:
            w = width * share
            c.rect(x, y0, w, h, stroke=1, fill=0)
            c.setFont(SANS, 7.0)
            c.setFillGray(0.25)
            text = f.fit(title, w - 4)
            audit_box(self.info.kind, text, SANS, 7.0, w - 4)
            c.drawString(x + 2, y0 + h - 8, text)
            x += w
        c.setFillGray(0)


def draw_strings(c, items) -> None:
    """Draw (font, size, x, y, text) strings as c.setFont + c.drawString would (leading 1.2 x size), in one
    text object (a page's header and footer)."""
    if not items:
        return
    tx = c.beginText()
    line = line_writer(tx)
    current = None
    for font, size, x, y, text in items:
        if (font, size) != current:
            tx.setFont(font, size)
            current = (font, size)
        tx.setTextOrigin(x, y)
        line(text)
    c.drawText(tx)


def line_writer(tx):
    """A fast textLine for a reportlab text object using one of our TrueType fonts.

    reportlab encodes every string through TTFont.splitString (pure Python, per character),
    which dominated the cabling plan's and the labels' time. With reportlab's default
    ``ttfAsciiReadable`` the printable ASCII characters always sit at their own codes in subset 0,
    so once the text object is on subset 0 an ASCII string's PDF code is just ``(escaped) Tj T*``;
    a string whose other characters (the labels' middle dot) already have codes in subset 0 is
    written with those codes. Anything else (first line after a font change, a character not yet
    seen, one in another subset) goes through reportlab's own textLine, which assigns the codes.
    Output is identical to textLine's (tests compare the content streams)."""
    return _writers(tx)[0]


def lines_writer(tx):
    """``lines(strings)``: line_writer's line for each string of a list (a table column), as one string of
    operators when all of them are printable ASCII."""
    return _writers(tx)[1]


def _writers(tx):  # noqa: C901
    from reportlab.lib.rl_accel import escapePDF, fp_str

    slow = tx.textLine
    code = tx._code
    doc = tx._canvas._doc
    known = {"font": None, "assigned": {}}

    def codes() -> dict:
        """The current font's codes in this document (characters assigned so far)."""
        if known["font"] != tx._fontname:
            known["font"] = tx._fontname
            known["assigned"] = {}
        assigned = known["assigned"]
        state = pdfmetrics.getFont(tx._fontname).state.get(doc)
        if state is not None and len(state.assignments) != len(assigned):
            assigned.update(state.assignments)
        return assigned

    def first(s: str) -> bool:
        """The first text after a font change, printable ASCII, once the font has codes in this document:
        select subset 0 (Tf, TL) before it, as _formatText does. False when that does not apply."""
        font = pdfmetrics.getFont(tx._fontname)
        if not (s and s.isascii() and s.isprintable() and font._dynamicFont) or font.state.get(doc) is None:
            return False
        name = font.getSubsetInternalName(0, doc)
        code.append(f"{name} {fp_str(tx._fontsize)} Tf {fp_str(tx._leading)} TL ({escapePDF(s)}) Tj T*")
        tx._curSubset = 0
        return True

    def line(s: str) -> None:
        if s and tx._curSubset == 0:
            if s.isascii():
                if s.isprintable():
                    code.append(f"({escapePDF(s)}) Tj T*")
                    return
            else:
                assigned = known["assigned"] if known["font"] == tx._fontname else codes()
                try:
                    # a KeyError: a character without a code yet; ValueError: a code outside subset 0
                    b = bytes(map(assigned.__getitem__, map(ord, s)))
                except (KeyError, ValueError):
                    slow(s)
                    codes()
                    return
                code.append(f"({escapePDF(b)}) Tj T*")
                return
        elif tx._curSubset != 0 and first(s):
            return
        slow(s)

    def lines(strings) -> None:
        """line(s) for each of ``strings`` (a list): one string of operators when all of them are printable
        ASCII, as textLine writes them (an empty one moves down only)."""
        if not strings:
            return
        line(strings[0])  # sets the font (Tf) when it is the text object's first text
        rest = strings[1:]
        joined = "".join(rest)
        if tx._curSubset == 0 and joined.isascii() and joined.isprintable():
            if rest:
                code.append(" ".join([f"({e}) Tj T*" if e else " T*" for e in map(escapePDF, rest)]))
            return
        for s in rest:
            line(s)

    return line, lines


def fmt_int(n) -> str:
    """Integers with thousands separators for PDFs (tests strip the commas)."""
    return f"{n:,}"
