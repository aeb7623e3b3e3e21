"""deliverables/_qr.py, the labels' QR encoder: for label strings (every kind of id the labels print, the longest a
design gives, and ASCII edge cases at the limits of each version, mode and block structure) the symbol is module for
module reportlab's for the same mask, the mask is the one of lowest penalty under ISO/IEC 18004:2015 7.8.3.1 scored
here the plain way (a grid of cells, one rule at a time), and the symbol decodes to the same text with two decoders,
zxing-cpp and ZBar (pyzbar)."""

from __future__ import annotations

import pytest

from .test_label_content import RACK, _zbar

EDGE = [
    "C000001",
    "C999999",
    "C1234567",  # past a million cables: seven digits, an odd count
    "C9999999",
    "PP-A01-U01:1",
    "PP-A01-U47:24",
    "PP-H16.R99C99-U48:128",  # a multi-hall rack grid: 21 characters, one past version 1's 20
    "ABCDEFGHIJKLMNOPQRST",  # 20 alphanumeric characters: the most version 1-M holds
    "0123456789" * 3 + "0123",  # 34 digits: numeric mode's version-1 limit
    "01234567890123456789012345678901234",  # 35 digits: version 2
    "9",
    " $%*+-./:",  # every alphanumeric-only symbol
    "lower-case",  # byte mode
    "Mixed Case 14b",  # 14 bytes: version 1's byte limit
    "Mixed Case 15b!",  # 15: version 2
    "!\"#&'()<=>?@[\\]^_`{|}~",  # the printable ASCII outside the alphanumeric set
    "C" + "0" * 60,  # version 3, numeric run inside alphanumeric mode
    "PP-" + "X" * 120,  # version 6: four blocks
    "x" * 200,  # version 10 (byte), version information and blocks of two sizes
]


def _label_values(design) -> list[str]:
    from deliverables import DesignView
    from deliverables.labels import iter_label_records

    values = {rec[1] for rec in iter_label_records(DesignView(design), rack=RACK)}
    longest = max(values, key=len)
    return [*sorted(values)[:40], longest]


def _grid(rows: list[int], n: int) -> list[list[int]]:
    return [[(row >> c) & 1 for c in range(n)] for row in rows]


def _penalty(g: list[list[int]]) -> int:
    """ISO/IEC 18004:2015 table 11 over the complete symbol, the plain way: N1 = 3 (+1 per module past 5 in a run),
    N2 = 3 per 2 x 2 block of one colour, N3 = 40 per 1011101 with 4 light modules before or after it (beyond the
    edge is the light quiet zone), N4 = 10 per whole 5 % of dark share away from 50 %."""
    n = len(g)
    lines = g + [[g[r][c] for r in range(n)] for c in range(n)]
    score = 0
    for line in lines:
        run = 1
        for i in range(1, n + 1):
            if i < n and line[i] == line[i - 1]:
                run += 1
            else:
                if run >= 5:
                    score += 3 + run - 5
                run = 1
        padded = [0] * 4 + line + [0] * 4
        for i in range(4, n - 2):
            if padded[i : i + 7] == [1, 0, 1, 1, 1, 0, 1] and (
                padded[i - 4 : i] == [0] * 4 or padded[i + 7 : i + 11] == [0] * 4
            ):
                score += 40
    for r in range(n - 1):
        for c in range(n - 1):
            if g[r][c] == g[r][c + 1] == g[r + 1][c] == g[r + 1][c + 1]:
                score += 3
    dark = sum(map(sum, g))
    score += 10 * int(abs(dark * 100 / (n * n) - 50) // 5)
    return score


def _reportlab(value: str, mask: int) -> tuple[list[int], int]:
    from reportlab.graphics.barcode.qrencoder import QRCode, QRErrorCorrectLevel

    for version in range(1, 11):
        q = QRCode(version, QRErrorCorrectLevel.M)
        q.addData(value)
        try:
            q.makeImpl(False, mask)
            break
        except Exception:  # noqa: BLE001 - reportlab says "does not fit this version" with a bare Exception
            continue
    n = q.getModuleCount()
    return [sum(1 << c for c in range(n) if q.isDark(r, c)) for r in range(n)], n


def _image(rows: list[int], n: int, px: int = 4, quiet: int = 4):
    from PIL import Image

    size = (n + 2 * quiet) * px
    img = Image.new("L", (size, size), 255)
    for r, row in enumerate(rows):
        for c in range(n):
            if (row >> c) & 1:
                x, y = (quiet + c) * px, (quiet + r) * px
                img.paste(0, (x, y, x + px, y + px))
    return img


def test_qr_symbols_are_reportlabs_for_each_mask_and_the_mask_is_the_standards(design):
    from deliverables import _qr

    values = EDGE + _label_values(design)
    sizes = set()
    for value in values:
        rows, n, chosen = _qr.modules(value)
        sizes.add(n)
        scores = []
        for mask in range(8):
            forced, n2, _ = _qr.modules(value, mask)
            assert (forced, n2) == _reportlab(value, mask), (value, mask)
            scores.append(_penalty(_grid(forced, n)))
        assert chosen == scores.index(min(scores)), (value, scores)
        assert rows == _qr.modules(value, chosen)[0]
    assert {21, 25, 29, 41, 57} <= sizes  # versions 1, 2, 3, 6 and 10 were all exercised
    with pytest.raises(ValueError, match="does not fit a version-10"):
        _qr.modules("x" * 214)


def test_qr_symbols_decode_to_their_text_with_zxing_and_zbar(design):
    import zxingcpp

    from deliverables import _qr

    zbar_read = _zbar()
    values = EDGE + _label_values(design)
    longest = max(_label_values(design), key=len)
    assert longest.startswith("PP-") and ":" in longest  # a panel port's code is the longest a label encodes
    for value in values:
        rows, n, _ = _qr.modules(value)
        img = _image(rows, n)
        assert [b.text for b in zxingcpp.read_barcodes(img)] == [value], value
        assert dict(zbar_read(img)) == {value: 1}, value


def test_labels_draw_each_dark_run_of_a_qr_row_once(design):
    """The code box's operators: one rectangle per run of dark modules in a row, every dark module covered once."""
    import re

    from deliverables import _qr
    from deliverables.labels import LABEL_QR_MASK, _Codes, module_dots

    codes = _Codes("qr", 80.0, 80.0, 300)
    for value in ["C000001", "PP-A01-U47:24", "x" * 100]:
        ops, ox, oy = codes.get(value)
        rows, n, _ = _qr.modules(value, LABEL_QR_MASK)
        module = module_dots(80.0, n + 4, 300) * 72 / 300
        inset = (80.0 - n * module) / 2
        drawn = [0] * n
        for x, y, w, h in re.findall(r"([-\d.]+) ([-\d.]+) ([-\d.]+) ([-\d.]+) re", ops):
            r = round(-float(y) / module) - 1
            c0 = round((float(x) - inset) / module)
            ln = round(float(w) / module)
            assert abs(float(h) - module) < 0.01
            run = ((1 << ln) - 1) << c0
            assert drawn[r] & run == 0
            drawn[r] |= run
        assert drawn == rows, value
        assert (ox, oy) == (0.0, 80.0 - inset)
        assert codes.get(value) == (ops, ox, oy)


def test_a_whole_design_sheet_over_the_limit_is_refused_up_front_naming_the_row_and_rack_downloads(
    design, tmp_path, monkeypatch
):
    import io

    from deliverables import DesignView, ExportOptions, labels

    v = DesignView(design)
    total = labels.count_labels(v)
    monkeypatch.setattr(labels, "MAX_WHOLE_DESIGN_LABELS", total - 1)
    fh = io.BytesIO()
    with pytest.raises(labels.TooManyLabels, match=r"per row \(options.row, .*per rack \(options.rack") as e:
        labels.render_labels_pdf(v, fh, ExportOptions.from_any({}))
    assert f"{total:,} labels" in str(e.value) and fh.getvalue() == b""  # refused before a page was drawn
    assert labels.render_labels_pdf(v, fh, ExportOptions.from_any({"rack": RACK})) >= 1  # a scoped sheet still builds
    monkeypatch.setattr(labels, "MAX_WHOLE_DESIGN_LABELS", total)
    assert labels.render_labels_pdf(v, io.BytesIO(), ExportOptions.from_any({})) >= 1
    # the CLI's folder of files has no time limit: it builds the whole sheet whatever its size
    from deliverables import write_deliverables

    monkeypatch.setattr(labels, "MAX_WHOLE_DESIGN_LABELS", 1)
    (path,) = write_deliverables(design, tmp_path, revision_label="r1", only=["labels.pdf"])
    assert path.stat().st_size > 0
