"""A small QR Code encoder (ISO/IEC 18004:2015) for label codes: error correction level M, versions 1-10, one
segment in the first mode of numeric, alphanumeric, byte (UTF-8, no ECI) that holds the whole value, as
reportlab's encoder (qrencoder.QRCode.addData) chooses it, so the symbols carry the same bits as before.

Why not reportlab's encoder: labels.pdf of a 131,072-GPU design prints about a million labels, and reportlab's
pure-Python encoder took about 0.5 ms per code (with one fixed mask; its own mask choice, which does not follow the
standard's rule 3 or 4, costs 8 times as much). Here everything that does not depend on the value is worked out
once per version and kept: the function patterns with the format information of each mask, the data-module
positions, each mask pattern over the data area, the Reed-Solomon generator's products. A symbol is built as one
int per row and one per column, and the mask is chosen by the standard's penalty rule (7.8.3.1, N1 = 3, N2 = 3,
N3 = 40, N4 = 10, the mask of the lowest score, the lower-numbered on a tie) over the whole symbol, format
information included, scoring each distinct row or column once (the lines repeat between masks and labels).

Readings where encoders differ: the area scored is the complete symbol, format (and version) information included,
as 7.8.3.1 says ("the area to be evaluated is the complete symbol"; zxing and Nayuki's encoder do the same, segno
leaves the format information out); feature 3 (1:1:3:1:1 dark-light-dark-light-dark with 4 light modules before or
after it) scores 40 per pattern, the quiet zone beyond the symbol's edge counting as light (as zxing, Nayuki and
segno do). Only `modules` is public."""

from __future__ import annotations

import re
import sys
from functools import cache

# ----- Galois field GF(256), primitive polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11D) -----------------------------
_EXP = [0] * 512
_LOG = [0] * 256
_x = 1
for _i in range(255):
    _EXP[_i] = _x
    _LOG[_x] = _i
    _x <<= 1
    if _x & 0x100:
        _x ^= 0x11D
for _i in range(255, 512):
    _EXP[_i] = _EXP[_i - 255]

# ----- level M: (ec codewords per block, [(blocks, data codewords per block)]) of versions 1-10 (table 9) ---------
_BLOCKS_M = {
    1: (10, [(1, 16)]),
    2: (16, [(1, 28)]),
    3: (26, [(1, 44)]),
    4: (18, [(2, 32)]),
    5: (24, [(2, 43)]),
    6: (16, [(4, 27)]),
    7: (18, [(4, 31)]),
    8: (22, [(2, 38), (2, 39)]),
    9: (22, [(3, 36), (2, 37)]),
    10: (26, [(4, 43), (1, 44)]),
}
MAX_VERSION = 10
_ALIGN = {1: (), 2: (6, 18), 3: (6, 22), 4: (6, 26), 5: (6, 30), 6: (6, 34), 7: (6, 22, 38), 8: (6, 24, 42)}
_ALIGN.update({9: (6, 26, 46), 10: (6, 28, 50)})
_EC_M = 0b00  # the error correction level's two bits in the format information (L 01, M 00, Q 11, H 10)
_ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:"
_ALNUM_VALUE = {ch: i for i, ch in enumerate(_ALNUM)}
_NUMERIC_RE = re.compile(r"[0-9]*")
_ALNUM_RE = re.compile(r"[-0-9A-Z $%*+./:]*")

_MASKS = (
    lambda r, c: (r + c) % 2 == 0,
    lambda r, c: r % 2 == 0,  # noqa: ARG005 - every mask takes (row, column)
    lambda r, c: c % 3 == 0,  # noqa: ARG005
    lambda r, c: (r + c) % 3 == 0,
    lambda r, c: (r // 2 + c // 3) % 2 == 0,
    lambda r, c: (r * c) % 2 + (r * c) % 3 == 0,
    lambda r, c: ((r * c) % 2 + (r * c) % 3) % 2 == 0,
    lambda r, c: ((r + c) % 2 + (r * c) % 3) % 2 == 0,
)


def _bch(value: int, poly: int, bits: int) -> int:
    """value followed by the remainder of value * x^bits divided by poly (the format and version codes)."""
    rem = value << bits
    top = poly.bit_length() - 1
    while rem.bit_length() > top:
        rem ^= poly << (rem.bit_length() - poly.bit_length())
    return (value << bits) | rem


def _format_bits(mask: int) -> int:
    return _bch((_EC_M << 3) | mask, 0x537, 10) ^ 0x5412


def _function_patterns(version: int) -> tuple[list[list[bool]], list[list[bool]]]:
    """(dark, function) grids of a version's finder, separator, timing and alignment patterns, version information
    and the dark module; the format information's cells are marked function (light: set per mask)."""
    n = 4 * version + 17
    dark = [[False] * n for _ in range(n)]
    func = [[False] * n for _ in range(n)]

    def put(r: int, c: int, on: bool) -> None:
        dark[r][c] = on
        func[r][c] = True

    for r0, c0 in ((0, 0), (0, n - 7), (n - 7, 0)):  # finders and their separators
        for dr in range(-1, 8):
            for dc in range(-1, 8):
                if 0 <= r0 + dr < n and 0 <= c0 + dc < n:
                    ring = max(abs(dr - 3), abs(dc - 3))
                    put(r0 + dr, c0 + dc, ring != 2 and ring != 4)
    for i in range(8, n - 8):  # timing patterns
        put(6, i, i % 2 == 0)
        put(i, 6, i % 2 == 0)
    pos = _ALIGN[version]
    for r0, c0 in ((r, c) for r in pos for c in pos):
        if (r0, c0) not in ((6, 6), (6, pos[-1]), (pos[-1], 6)):  # not where a finder is
            for dr in range(-2, 3):
                for dc in range(-2, 3):
                    put(r0 + dr, c0 + dc, max(abs(dr), abs(dc)) != 1)
    if version >= 7:  # version information, two copies (bit i: row i // 3, column n - 11 + i % 3, and transposed)
        bits = _bch(version, 0x1F25, 12)
        for i in range(18):
            put(i // 3, n - 11 + i % 3, (bits >> i) & 1 == 1)
            put(n - 11 + i % 3, i // 3, (bits >> i) & 1 == 1)
    for r, c in _format_cells(n):
        put(r, c, False)
    put(n - 8, 8, True)  # the dark module
    return dark, func


def _format_cells(n: int) -> list[tuple[int, int]]:
    """The 30 format-information cells: bit i's first copy at index 2i, its second at 2i + 1."""
    first = [(i, 8) for i in range(6)] + [(7, 8), (8, 8), (8, 7)] + [(8, 14 - i) for i in range(9, 15)]
    second = [(8, n - 1 - i) for i in range(8)] + [(n - 15 + i, 8) for i in range(8, 15)]
    return [cell for pair in zip(first, second, strict=True) for cell in pair]


def _placement_order(n: int, func: list[list[bool]]) -> list[tuple[int, int]]:
    """The data modules in placement order: two-module columns from the right, up and down in turn, column 6 (the
    vertical timing pattern) skipped."""
    order = []
    right = n - 1
    while right >= 1:
        if right == 6:
            right = 5
        upward = ((right + 1) & 2) == 0
        for vert in range(n):
            r = n - 1 - vert if upward else vert
            order += [(r, c) for c in (right, right - 1) if not func[r][c]]
        right -= 2
    return order


class _Version:
    """What a version's symbols share: the function patterns (per mask, with its format information) as row and
    column ints, the data modules' positions in placement order, each mask over the data area."""

    def __init__(self, version: int) -> None:
        n = self.size = 4 * version + 17
        self.version = version
        ec, groups = _BLOCKS_M[version]
        self.ec = ec
        self.blocks = [d for count, d in groups for _ in range(count)]
        self.data_codewords = sum(self.blocks)
        dark, func = _function_patterns(version)
        fmt_cells = _format_cells(n)
        order = self.order = _placement_order(n, func)
        base_rows = [sum(1 << c for c in range(n) if dark[r][c]) for r in range(n)]
        base_cols = [sum(1 << r for r in range(n) if dark[r][c]) for c in range(n)]
        self.func_rows, self.func_cols, self.mask_rows, self.mask_cols = [], [], [], []
        for m, rule in enumerate(_MASKS):
            fr, fc = list(base_rows), list(base_cols)
            f = _format_bits(m)
            for i, (r, c) in enumerate(fmt_cells):
                if (f >> (i // 2)) & 1:  # cells 2i and 2i + 1 carry bit i
                    fr[r] |= 1 << c
                    fc[c] |= 1 << r
            self.func_rows.append(fr)
            self.func_cols.append(fc)
            mr, mc = [0] * n, [0] * n
            for r, c in order:
                if rule(r, c):
                    mr[r] |= 1 << c
                    mc[c] |= 1 << r
            self.mask_rows.append(mr)
            self.mask_cols.append(mc)
        # for bit k of the codeword stream (most significant bit of each codeword first): (row, 1 << col, col,
        # 1 << row); remainder bits past the codewords stay light (then masked)
        self.bit_cells = [(r, 1 << c, c, 1 << r) for r, c in order]
        self.line_penalty: dict[int, int] = {}
        self.fmt = f"0{n}b"
        # The whole symbol as one int, row r at bits r * stride .. r * stride + n - 1 (and its transpose the same
        # way), so a mask is two int operations, features 2 and 4 a few more, and the lines come back as the
        # machine words of its bytes (memoryview.cast) instead of a Python loop per row.
        self.stride = 32 if n < 32 else 64
        self.nbytes = n * self.stride // 8
        self.f_rows = [_pack(x, self.stride) for x in self.func_rows]
        self.f_cols = [_pack(x, self.stride) for x in self.func_cols]
        self.m_rows = [_pack(x, self.stride) for x in self.mask_rows]
        self.m_cols = [_pack(x, self.stride) for x in self.mask_cols]
        # feature 2's cells: column c < n - 1 of row r < n - 1 (a 2 x 2 block's top-left module)
        self.block_corners = _pack([(1 << (n - 1)) - 1] * (n - 1), self.stride)
        self._placed: list | None = None

    def placed(self) -> list[list[tuple[int, int]]]:
        """For a single-block version: [data codeword index][byte value] -> (rows, columns) packed, of that byte
        and its share of the error correction codewords (both are linear in the data bits), so a symbol's
        unmasked data area is the XOR of one entry per data codeword."""
        if self._placed is None:
            d = self.data_codewords
            table = []
            for i in range(d):
                units = []
                for j in range(8):
                    data = [0] * d
                    data[i] = 0x80 >> j
                    units.append(self.place(data + _ec_codewords(data, self.ec)))
                row = [(0, 0)] * 256
                for b in range(1, 256):
                    low = b & -b
                    rest = row[b ^ low]
                    unit = units[7 - (low.bit_length() - 1)]
                    row[b] = (rest[0] ^ unit[0], rest[1] ^ unit[1])
                table.append(row)
            self._placed = table
        return self._placed

    def place(self, stream: list[int]) -> tuple[int, int]:
        """The codeword stream's modules, unmasked, packed as rows and as columns."""
        n = self.size
        rows, cols = [0] * n, [0] * n
        cells = self.bit_cells
        k = 0
        for byte in stream:
            if byte:
                for j in range(8):
                    if byte & (0x80 >> j):
                        r, rb, c, cb = cells[k + j]
                        rows[r] |= rb
                        cols[c] |= cb
            k += 8
        return _pack(rows, self.stride), _pack(cols, self.stride)

    def lines(self, packed: int) -> list[int]:
        view = memoryview(packed.to_bytes(self.nbytes, sys.byteorder))
        return (view.cast("I") if self.stride == 32 else view.cast("Q")).tolist()


def _pack(lines: list[int], stride: int) -> int:
    out = 0
    for i, x in enumerate(lines):
        out |= x << (i * stride)
    return out


@cache
def _version(v: int) -> _Version:
    return _Version(v)


@cache
def _generator_products(ec: int) -> list[tuple[int, ...]]:
    """For each byte f: f times the generator polynomial of degree ec (roots a^0 .. a^(ec-1)), leading term dropped."""
    gen = [1]
    for i in range(ec):
        nxt = [0] * (len(gen) + 1)
        for j, g in enumerate(gen):
            nxt[j] ^= g
            if g:
                nxt[j + 1] ^= _EXP[_LOG[g] + i]
        gen = nxt
    logs = [_LOG[g] for g in gen[1:]]  # every coefficient of this generator is non-zero
    return [tuple(0 for _ in logs)] + [tuple(_EXP[_LOG[f] + lg] for lg in logs) for f in range(1, 256)]


def _ec_codewords(data: list[int], ec: int) -> list[int]:
    products = _generator_products(ec)
    rem = [0] * ec
    for b in data:
        p = products[b ^ rem[0]]
        rem = [x ^ y for x, y in zip(rem[1:], p, strict=False)] + [p[-1]]
    return rem


def _segment(value: str) -> tuple[int, int, str, int]:
    """(mode indicator, count-width class, the data bits as a '0'/'1' string, character count)."""
    if _NUMERIC_RE.fullmatch(value):
        bits = "".join(
            format(
                int(value[i : i + 3]), "010b" if len(value[i : i + 3]) == 3 else "07b" if i + 2 == len(value) else "04b"
            )
            for i in range(0, len(value), 3)
        )
        return 0b0001, 0, bits, len(value)
    if _ALNUM_RE.fullmatch(value):
        a = _ALNUM_VALUE
        bits = "".join(
            format(a[value[i]] * 45 + a[value[i + 1]], "011b") if i + 1 < len(value) else format(a[value[i]], "06b")
            for i in range(0, len(value), 2)
        )
        return 0b0010, 1, bits, len(value)
    data = value.encode("utf-8")
    return 0b0100, 2, "".join(format(b, "08b") for b in data), len(data)


_COUNT_BITS = ((10, 12), (9, 11), (8, 16))  # numeric, alphanumeric, byte: versions 1-9, 10


def _codewords(value: str) -> tuple[_Version, list[int]]:
    """The smallest version (1-10, level M) that holds value, and its data codewords (padded)."""
    mode, kind, bits, count = _segment(value)
    for v in range(1, MAX_VERSION + 1):
        width = _COUNT_BITS[kind][0 if v < 10 else 1]
        if count >= 1 << width:
            continue
        ver = _version(v)
        capacity = ver.data_codewords * 8
        stream = f"{mode:04b}{count:0{width}b}{bits}"
        if len(stream) > capacity:
            continue
        stream += "0" * min(4, capacity - len(stream))  # terminator
        stream += "0" * (-len(stream) % 8)
        cw = [int(stream[i : i + 8], 2) for i in range(0, len(stream), 8)]
        cw += [(0xEC, 0x11)[i % 2] for i in range(ver.data_codewords - len(cw))]
        return ver, cw
    raise ValueError(f"QR: {value!r} does not fit a version-{MAX_VERSION} symbol at level M")


def _interleaved(ver: _Version, data: list[int]) -> list[int]:
    blocks, ecs, at = [], [], 0
    for d in ver.blocks:
        b = data[at : at + d]
        at += d
        blocks.append(b)
        ecs.append(_ec_codewords(b, ver.ec))
    if len(blocks) == 1:
        return blocks[0] + ecs[0]
    out = [b[i] for i in range(max(ver.blocks)) for b in blocks if i < len(b)]
    return out + [e[i] for i in range(ver.ec) for e in ecs]


def _line_penalty(ver: _Version, line: int) -> int:
    """Features 1 and 3 of one row or column (bit order does not matter: both are symmetric)."""
    s = format(line, ver.fmt)
    p = 0
    for run in _RUNS.findall(s):
        p += len(run) - 2  # N1 (3) for 5 in a row, one more for each module past 5
    s = f"0000{s}0000"  # the quiet zone round the symbol is light
    i = s.find("1011101")
    while i >= 0:
        if s[i - 4 : i] == "0000" or s[i + 7 : i + 11] == "0000":
            p += 40
        i = s.find("1011101", i + 1)
    return p


_RUNS = re.compile(r"0{5,}|1{5,}")


def _penalty(ver: _Version, rows: int, cols: int) -> int:
    """The symbol's penalty score (rows and columns packed as _Version describes)."""
    memo = ver.line_penalty
    lines = ver.lines(rows) + ver.lines(cols)
    try:
        p = sum(map(memo.__getitem__, lines))
    except KeyError:
        if len(memo) > 200_000:
            memo.clear()
        for line in lines:
            if line not in memo:
                memo[line] = _line_penalty(ver, line)
        p = sum(map(memo.__getitem__, lines))
    # feature 2: N2 (3) for each 2 x 2 block of one colour: modules c and c + 1 of row r alike (x = rows ^ rows >> 1
    # is 0 at c) and each like the one below it (y = rows ^ the next row is 0 at c and c + 1)
    y = rows ^ (rows >> ver.stride)
    blocks = (ver.block_corners & ~(y | y >> 1 | rows ^ rows >> 1)).bit_count()
    # feature 4: N4 (10) for each whole 5 % the dark share is away from 50 %
    n2 = ver.size * ver.size
    dark = rows.bit_count()
    return p + 3 * blocks + 10 * (abs(20 * dark - 10 * n2) // n2)


def modules(value: str, mask: int | None = None) -> tuple[list[int], int, int]:
    """(one int per row, bit c set where column c is dark; modules per side; the mask used). mask=None chooses it by
    the standard's penalty rule; a number forces that mask (tests compare with other encoders)."""
    ver, data = _codewords(value)
    if len(ver.blocks) == 1 and ver.size < 32:
        table = ver.placed()
        rows = cols = 0
        for i, b in enumerate(data):
            r, c = table[i][b]
            rows ^= r
            cols ^= c
    else:
        rows, cols = ver.place(_interleaved(ver, data))
    best = None
    for m in range(8) if mask is None else (mask,):
        mrows = ver.f_rows[m] | (rows ^ ver.m_rows[m])
        if mask is not None:
            return ver.lines(mrows), ver.size, m
        score = _penalty(ver, mrows, ver.f_cols[m] | (cols ^ ver.m_cols[m]))
        if best is None or score < best[0]:
            best = (score, m, mrows)
    assert best is not None
    return ver.lines(best[2]), ver.size, best[1]
