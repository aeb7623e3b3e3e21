"""A second, independent Code 128 reader for the label tests: scan lines of a grey image, bar and space widths
measured in pixels and classified per symbol (each symbol is 11 modules wide, so its six runs are read relative
to their own sum, as ISO/IEC 15417's edge-to-similar-edge decoding does), the check symbol verified.

The symbol patterns are the standard's table of bar/space widths (ISO/IEC 15417, table 1), written here as
digit strings, not taken from the encoder under test.
"""

from __future__ import annotations

# value -> bar, space, bar, space, bar, space widths in modules (106 = STOP, 7 elements)
_PATTERNS = (
    "212222 222122 222221 121223 121322 131222 122213 122312 132212 221213 "
    "221312 231212 112232 122132 122231 113222 123122 123221 223211 221132 "
    "221231 213212 223112 312131 311222 321122 321221 312212 322112 322211 "
    "212123 212321 232121 111323 131123 131321 112313 132113 132311 211313 "
    "231113 231311 112133 112331 132131 113123 113321 133121 313121 211331 "
    "231131 213113 213311 213131 311123 311321 331121 312113 312311 332111 "
    "314111 221411 431111 111224 111422 121124 121421 141122 141221 112214 "
    "112412 122114 122411 142112 142211 241211 221114 413111 241112 134111 "
    "111242 121142 121241 114212 124112 124211 411212 421112 421211 212141 "
    "214121 412121 111143 111341 131141 114113 114311 411113 411311 113141 "
    "114131 311141 411131 211412 211214 211232 2331112"
).split()
_BY_WIDTHS = {p: v for v, p in enumerate(_PATTERNS)}
_START = {103: "A", 104: "B", 105: "C"}


def _runs(row, threshold: int = 128) -> list[tuple[bool, int, int]]:
    """[(dark, start, length)] of one row of grey pixels."""
    out = []
    start, dark = 0, row[0] < threshold
    for i in range(1, len(row)):
        d = row[i] < threshold
        if d != dark:
            out.append((dark, start, i - start))
            start, dark = i, d
    out.append((dark, start, len(row) - start))
    return out


def _symbol(widths: list[int], modules: int) -> str | None:
    total = sum(widths)
    if total == 0:
        return None
    scaled = [w * modules / total for w in widths]
    digits = [round(x) for x in scaled]
    if any(d < 1 or d > 4 for d in digits) or sum(digits) != modules:
        return None
    return "".join(map(str, digits))


def _decode_from(runs, i: int) -> str | None:
    """The value of a symbol whose start character begins at dark run i, or None."""
    sym = _symbol([r[2] for r in runs[i : i + 6]], 11)
    start = _BY_WIDTHS.get(sym or "")
    if start not in _START:
        return None
    values = [start]
    j = i + 6
    while j + 6 <= len(runs):
        stop = _symbol([r[2] for r in runs[j : j + 7]], 13) if j + 7 <= len(runs) else None
        if stop == _PATTERNS[106]:
            break
        v = _BY_WIDTHS.get(_symbol([r[2] for r in runs[j : j + 6]], 11) or "")
        if v is None or v > 102:
            return None
        values.append(v)
        j += 6
    else:
        return None
    if len(values) < 3:
        return None
    *data, check = values
    if (data[0] + sum(k * v for k, v in enumerate(data[1:], 1))) % 103 != check:
        return None
    return _text(data)


def _text(data: list[int]) -> str | None:
    code = _START[data[0]]
    out = []
    for v in data[1:]:
        if code == "C":
            if v < 100:
                out.append(f"{v:02d}")
            elif v == 100:
                code = "B"
            elif v == 101:
                code = "A"
            else:
                return None
        elif v == 99:
            code = "C"
        elif v in (100, 101) and {"A": 100, "B": 101}.get(code) != v:
            code = "B" if v == 100 else "A"
        elif code == "B":
            if v > 95:
                return None
            out.append(chr(v + 32))
        else:  # code set A: upper case and controls
            if v > 95:
                return None
            out.append(chr(v + 32) if v < 64 else chr(v - 64))
    return "".join(out)


def read_code128(image, rows: int = 9) -> set[str]:
    """Every Code 128 value found on `rows` evenly spaced scan lines of a PIL image (grey)."""
    img = image.convert("L")
    w, h = img.size
    px = img.load()
    found = set()
    for k in range(1, rows + 1):
        y = h * k // (rows + 1)
        runs = _runs([px[x, y] for x in range(w)])
        for i, (dark, _, _) in enumerate(runs):
            if dark:
                value = _decode_from(runs, i)
                if value is not None:
                    found.add(value)
    return found
