"""A versioned, pickle-free codec for the engine's results: plain JSON, zlib-compressed.

A stored revision keeps its DesignResult (records, physical layer, summary and the catalog it was computed
with, custom parts included) as one document, so every deliverable is rendered from what was computed, never
from a recomputation with today's catalog. Decoding builds only classes defined in the engine's own modules
(``engine.*``) and the containers below: nothing in a document can name code to run.

The document is ``{"codec": CODEC_VERSION, "types": [...], "objects": [...], "root": <value>, "blocks": [n...]}``,
compressed after a first line naming version 2 and the JSON part's length, and followed by its binary blocks
(packed numbers, n bytes each, in order). A version 1 document is the JSON alone, its numbers in base64 ("I");
it is still read. A value is a JSON scalar or a tagged list:

    ["t", [v...]] / ["l", [v...]]      tuple / list of encoded values
    ["T", [...]] / ["L", [...]]        tuple / list whose items are scalars (stored as they are)
    ["m", [k...], [v...]]              dict (keys of any encodable kind)
    ["M", {...}]                       dict of str keys and scalar values (stored as it is)
    ["s", [v...]] / ["f", [v...]]      set / frozenset
    ["r", i]                           the i-th shared object (dataclass or engine object, encoded once)
    ["n", type, [v...]]                a NamedTuple
    ["U", [row...], list?, list rows?] a tuple / list of rows (tuples / lists of scalars) or None
    ["C", type, [column...], list?]    a tuple / list of rows of one NamedTuple type, plain tuples (type -1) or
                                       lists (type -2), column by column, each column an encoded list
    ["R", numbers, list?]              a tuple / list of shared-object references (-1: None)
    ["O", type, [name...], [column...], list?]
                                       a tuple / list of one slotted dataclass type, attribute by attribute
    ["B", code, block, list?]          a long tuple / list of integers (code b, h, i, q: 1, 2, 4, 8 bytes) or
                                       floats (d), little-endian machine words: the block-th binary block
    ["I", code, base64, list?]         the same, its words in base64 in the JSON (version 1)
    ["D", table, codes, list?]         a long tuple / list of few distinct scalars or rows: a table and indexes
    ["V", width|widths, [column...], list?, list rows?]
                                       a tuple / list of rows of scalars, column by column (rows narrower than
                                       the widest padded with None; `widths` then gives each row's)
    ["G", widths, [[width, [column...]]...], list?, list rows?]
                                       a tuple / list of rows of scalars of a few widths: each width's rows
                                       column by column, and each row's width in order (version 2)
    ["W", widths, items, list?, list rows?]
                                       a tuple / list of rows of scalars of very unequal widths: every row's
                                       items in one encoded list, in order, and each row's width (version 2;
                                       version 1 padded both kinds to the widest row with None, "V")
    ["e", type, value]                 an Enum member

An engine object is stored once however often it is referenced (a 400,000-link design refers to a few
hundred medium choices and loss budgets), and decoded into one object shared the same way. Objects are
rebuilt without calling their constructors (their checks ran when they were computed).

Bump CODEC_VERSION when the encoding changes; a stored document of another version is decoded by the code
that matches it or reported as unreadable (CodecError), never misread.
"""

from __future__ import annotations

import base64
import dataclasses
import enum
import importlib
import json
import sys
import zlib
from array import array
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Sized
from itertools import accumulate, chain, compress, count, islice, repeat
from operator import attrgetter, getitem, itemgetter
from types import MappingProxyType, MemberDescriptorType, NoneType
from typing import Any

from .gcpause import cyclic_gc_paused

CODEC_VERSION = 2
# A version 2 document: this line, the JSON part's length (8 bytes, little-endian), the JSON part, its blocks.
_MAGIC = b"fabricdesign snapshot 2\n"
_UNEVEN_ROWS = frozenset("VGW")
_MAX_GROUPS = 8  # rows of up to this many widths are stored width by width ("G"), more as items and widths ("W")
READABLE_VERSIONS = (1, 2)  # version 2 added the "W" tag; every version 1 document reads as it did
_MAX_INFLATE = 1032  # deflate's largest expansion of a compressed byte
COMPRESS_LEVEL = 1  # level 1 keeps a 128K-GPU design's store under a second; higher levels gain little here

_SCALARS = frozenset((str, int, float, bool, type(None)))
# The narrowest machine integer that holds a column (array type codes; sizes as on every CPython platform).
_INT_CODES = (("b", 2**7), ("h", 2**15), ("i", 2**31), ("q", 2**63))
_WORD_SIZE = {code: array(code).itemsize for code in "bhiqd"}


def _words(code: str, values: Any) -> bytes:
    """Numbers as little-endian machine words: about 10x faster to write and read than JSON numbers."""
    a = values if type(values) is array and values.typecode == code else array(code, values)
    if sys.byteorder == "big":
        a.byteswap()
    return a.tobytes()


def _narrowest(seq: list[int]) -> array | None:
    """`seq` in the narrowest machine integer that holds it (None when none does): the code min() and max()
    of the whole column would pick, found by packing it. array() raises OverflowError at the first item out of
    range, so a try that fails usually costs a few items; the head sets the first try. At 128K GPUs a min and
    a max of every column cost more than packing it (0.017 s against 0.012 s for 510,964 cable ids)."""
    head = seq[:64]
    lo, hi = min(head), max(head)
    start = next((k for k, (_, bound) in enumerate(_INT_CODES) if -bound <= lo and hi < bound), len(_INT_CODES))
    for code, _ in _INT_CODES[start:]:
        try:
            return array(code, seq)
        except OverflowError:
            continue
    return None


def _widths(seq: Sequence[Sized]) -> bytes | list[int]:
    """Each row's width: one byte each when every row is narrower than 256 (cable ends and link ids), which is
    what _rows_by_width picks rows by and, below 128, the "b" block `indexes` stores; a list otherwise."""
    try:
        return bytes(map(len, seq))
    except ValueError:  # a row of 256 items or more
        return list(map(len, seq))


def _code_for(hi: int) -> str:
    """The narrowest machine integer for a column known to lie in -1..hi (table indexes, widths, references)."""
    return next(code for code, bound in _INT_CODES if hi < bound)


def _packed(code: str, values: Any) -> str:
    """Version 1's numbers: the machine words in base64, inside the JSON text."""
    return base64.b64encode(_words(code, values)).decode("ascii")


def _unpacked(code: str, data: str | memoryview) -> array | memoryview:
    """Packed numbers to read: a version 2 block read in place on a little-endian machine (a memoryview cast to
    the words, whose items are the array's, without copying the block); base64 (version 1) or a big-endian
    machine's block copied into an array. At 128K GPUs the copies were 32 MB written once more, 8,000 pages."""
    if not isinstance(data, str) and sys.byteorder == "little":
        return data.cast(code)  # type: ignore[call-overload]  # code is one of "bhiqd", checked by numbers()
    a = array(code)
    a.frombytes(base64.b64decode(data) if isinstance(data, str) else data)
    if sys.byteorder == "big":
        a.byteswap()
    return a


class CodecError(ValueError):
    """A document that this codec cannot read (another version, a type outside the engine, corrupt data)."""


def _is_namedtuple(t: type) -> bool:
    return issubclass(t, tuple) and hasattr(t, "_fields")


def _all_scalars(values: Iterable[Any]) -> bool:
    # A first look at the head, so a long run of rows with a container in each (a cable row holds its ends)
    # is told apart without typing every one of its millions of items.
    it = iter(values)
    return set(map(type, islice(it, 64))) <= _SCALARS and set(map(type, it)) <= _SCALARS


def _rows_of_scalars(seq: Any, kinds: set) -> bool:
    rows = seq if NoneType not in kinds else [row for row in seq if row is not None]
    return _all_scalars(chain.from_iterable(rows))


def _distinct_objects(seq: Sequence[Any]) -> bool:
    """Whether no object is in `seq` twice. A first look at the head: a link's medium choices repeat within a few
    links, and a set of the ids of 397,184 of them cost 0.03 s of the 128K encode to find that out."""
    head = seq[:64]
    return len(set(map(id, head))) == len(head) and len(set(map(id, seq))) == len(seq)


def _coded(seq: Any) -> tuple[list, list | bytes] | None:
    """(distinct values in first-seen order, each item's index among them) when few values repeat, else None."""
    sample = seq[:1024]
    if len(set(sample)) * 4 >= len(sample):  # a first look, so columns of distinct values cost little
        return None
    # each value numbered on first sight, in the one pass that reads its index (a table first, then the
    # indexes, read every item twice: 0.02 s against 0.012 s for a column of 500,000 names)
    index: dict = defaultdict(count().__next__)
    codes = list(map(index.__getitem__, seq))
    if len(index) * 4 >= len(seq):
        return None
    if len(index) <= 2**7:
        return list(index), bytes(codes)  # indexes below 128 are their own little-endian byte ("b" words)
    return list(index), codes


class _Encoder:
    def __init__(self) -> None:
        self.types: list[str] = []
        self.type_ids: dict[type, int] = {}
        self.objects: list[Any] = []
        self.memo: dict[int, int] = {id(None): -1}
        self.keep: list[Any] = []  # keeps encoded objects alive so their ids stay unique
        self.blocks: list[bytes] = []

    def block(self, data: bytes) -> int:
        self.blocks.append(data)
        return len(self.blocks) - 1

    def type_id(self, t: type) -> int:
        i = self.type_ids.get(t)
        if i is None:
            mod = t.__module__
            if not (mod == "engine" or mod.startswith("engine.")):
                raise CodecError(f"cannot encode {mod}.{t.__qualname__}: not an engine type")
            i = self.type_ids[t] = len(self.types)
            self.types.append(f"{mod}:{t.__qualname__}")
        return i

    def value(self, v: Any) -> Any:
        t = type(v)
        if t in _SCALARS:
            return v
        if t is tuple or t is list:
            return self.sequence(v, t is tuple)
        if t is dict or isinstance(v, (dict, MappingProxyType)):
            return self.mapping(v)
        if _is_namedtuple(t):
            return ["n", self.type_id(t), [self.value(x) for x in v]]
        if t is set or t is frozenset:
            return ["s" if t is set else "f", [self.value(x) for x in sorted(v, key=repr)]]
        if isinstance(v, enum.Enum):
            return ["e", self.type_id(t), v.value]
        return ["r", self.ref(v)]

    def ref(self, v: Any) -> int:
        i = self.memo.get(id(v))
        if i is not None:
            return i
        t = type(v)
        if callable(v) and not dataclasses.is_dataclass(v):
            raise CodecError(f"cannot encode a callable ({t.__qualname__})")
        tid = self.type_id(t)
        i = self.memo[id(v)] = len(self.objects)
        self.keep.append(v)
        self.objects.append(None)
        self.objects[i] = [tid, self.mapping(_state(v))]
        return i

    def mapping(self, m: Mapping) -> Any:
        if all(type(k) is str for k in m) and _all_scalars(m.values()):
            return ["M", dict(m)]
        return ["m", [self.value(k) for k in m], [self.value(x) for x in m.values()]]

    def sequence(self, seq: Any, as_tuple: bool) -> Any:
        shape = int(not as_tuple)  # 0: a tuple, 1: a list
        kinds = set(map(type, seq))
        if kinds <= _SCALARS:
            return self.scalars(seq, kinds, shape)
        if len(seq) > 8:
            for row_kind, row_type in enumerate((tuple, list)):
                if kinds <= {row_type, NoneType}:
                    if NoneType in kinds:
                        if _rows_of_scalars(seq, kinds):
                            return self.rows_with_gaps(seq, shape, row_kind)
                    else:
                        encoded = self.rows(seq, shape, row_kind)
                        if encoded is not None:
                            return encoded
            t0 = next(iter(kinds))
            if len(kinds) == 1 and (t0 is tuple or t0 is list or _is_namedtuple(t0)):
                return self.columns(seq, t0, shape)
            if (
                len(kinds) == 1
                and dataclasses.is_dataclass(t0)
                and not hasattr(seq[0], "__dict__")
                and _distinct_objects(seq)
            ):
                # many distinct small records of one type (devices, racks): column by column
                names = _slot_names(t0)
                cols = [self.sequence(list(map(attrgetter(n), seq)), False) for n in names]
                return ["O", self.type_id(t0), list(names), cols, shape]
            if not any(k in _SCALARS or issubclass(k, (tuple, list, dict, set, frozenset)) for k in kinds - {NoneType}):
                # references to shared objects (a link's medium choice and loss budget): their numbers, -1 for None
                return ["R", self.scalars(self.references(seq), {int}, 1), shape]
        return ["t" if as_tuple else "l", [self.value(x) for x in seq]]

    def references(self, seq: Sequence[Any]) -> list[int]:
        """Each item's number among the shared objects (-1: None), storing the ones not stored yet in first-seen
        order (ref passes over the ones stored already). Every distinct item is looked at first, then every item
        numbered: two passes, where looking the numbers up first and again once the new ones were stored took
        three and a scan (0.02 s less for each of the 397,184 links' medium choices and loss budgets)."""
        memo = self.memo  # knows None as -1
        for x in dict(zip(map(id, seq), seq)).values():
            if id(x) not in memo:
                self.ref(x)
        return list(map(memo.__getitem__, map(id, seq)))

    def indexes(self, seq: list[int] | bytes, hi: int) -> Any:
        """A list of integers known to lie in -1..hi, as `scalars` stores it, without looking for its range."""
        if len(seq) <= 64:
            return ["L", list(seq)]
        if type(seq) is bytes:  # one byte an index (_coded, _widths): below 128, each its own "b" word
            if hi < 2**7:
                return ["B", "b", self.block(seq), 1]
            seq = list(seq)
        code = _code_for(hi)
        return ["B", code, self.block(_words(code, seq)), 1]

    def scalars(self, seq: list[Any], kinds: set, shape: int) -> Any:
        if len(seq) > 64:
            if kinds == {int}:
                packed = _narrowest(seq)
                if packed is not None:
                    return ["B", packed.typecode, self.block(_words(packed.typecode, packed)), shape]
            if kinds == {float}:
                return ["B", "d", self.block(_words("d", seq)), shape]
            if str in kinds:
                # a long column of repeated names (networks, tiers, parts, ports): a table and indexes
                coded = _coded(seq)
                if coded is not None:
                    return ["D", ["L", coded[0]], self.indexes(coded[1], len(coded[0]) - 1), shape]
        return ["T" if shape == 0 else "L", list(seq)]

    def rows_with_gaps(self, seq: Any, shape: int, row_kind: int) -> Any:
        """A column of short rows of scalars with None among them (known to be scalars)."""
        if row_kind == 0:
            coded = _coded(seq)
            if coded is not None:
                return ["D", self.sequence(coded[0], False), self.indexes(coded[1], len(coded[0]) - 1), shape]
        return ["U", list(seq), shape, row_kind]

    def rows(self, seq: Any, shape: int, row_kind: int) -> Any:
        """A column of short rows of scalars (a cable's end: device and port; a link's cord: part, length), or
        None when an item of a row is not a scalar (nothing encoded then). The items' types are read once, from
        the columns the rows are stored as, rather than in a pass over every item before they are cut into
        columns (that pass cost 8 % of the 128K encode)."""
        if not set(map(type, chain.from_iterable(seq[:16]))) <= _SCALARS:
            return None  # a first look: rows holding containers (a cable row holds its ends) are told apart here
        if row_kind == 0:
            # rows that repeat are stored once each
            try:
                coded = _coded(seq)
            except TypeError:  # an unhashable item: not a row of scalars
                return None
            if coded is not None:
                if not _all_scalars(chain.from_iterable(seq)):
                    return None
                return ["D", self.sequence(coded[0], False), self.indexes(coded[1], len(coded[0]) - 1), shape]
        widths = _widths(seq)
        kinds = sorted(set(widths))
        if len(kinds) == 1:
            cols = columns_of(seq, kinds[0])
            types = _scalar_kinds(cols)
            if types is None:
                return None
            return ["V", kinds[0], list(map(self.scalars, cols, types, repeat(1))), shape, row_kind]
        if len(kinds) <= _MAX_GROUPS:
            # rows of a few widths (a cable end at a device: device and port, or at a panel: four items), each
            # width column by column, so every column keeps one type (padding them with None, as version 1 did,
            # mixed None into numbers) and decoding builds each row once, without cutting it to its width
            by_width = list(map(columns_of, _rows_by_width(seq, widths, kinds), kinds))
            found = []
            for cols in by_width:
                types = _scalar_kinds(cols)
                if types is None:
                    return None
                found.append(types)
            groups = [
                [w, list(map(self.scalars, cols, types, repeat(1)))] for w, cols, types in zip(kinds, by_width, found)
            ]
            return ["G", self.indexes(widths, kinds[-1]), groups, shape, row_kind]
        # many widths (a cable's link ids: one for most cables, dozens for a trunk between halls; padded to the
        # widest, 128K GPUs wrote 7 million None): every item once, in row order, and each row's width
        items = list(chain.from_iterable(seq))
        item_kinds = set(map(type, items))
        if not item_kinds <= _SCALARS:
            return None
        flat = self.scalars(items, item_kinds, 1)
        return ["W", self.indexes(widths, max(widths)), flat, shape, row_kind]

    def columns(self, seq: Any, t: type, shape: int) -> Any:
        widths = set(map(len, seq))
        if len(widths) != 1:
            return ["t" if shape == 0 else "l", [self.value(x) for x in seq]]
        out = [self.sequence(col, False) for col in columns_of(seq, next(iter(widths)))]
        return ["C", -1 if t is tuple else -2 if t is list else self.type_id(t), out, shape]


# Rows transposed a few hundred at a time: a column read whole (a map of itemgetter over every row) visits each
# of 510,964 cable rows once per column, out of the CPU's caches by then; a block of rows zipped at once is still
# in them for all its columns. Cable rows' 9 columns at 128K GPUs: 0.24-0.32 s by itemgetter, ~0.1 s by blocks.
_TRANSPOSE_ROWS = 256


def columns_of(rows: Iterable[Any], width: int) -> list[list]:
    """The `width` columns of rows of that width, each a list in row order. `rows` may be an iterator (the rows of
    one width picked by compress), so they are read once, a block at a time, rather than listed first: a list of
    500,864 picked rows cost 0.015-0.02 s, each row's first touch out of the caches."""
    cols: list[list] = [[] for _ in range(width)]
    it = iter(rows)
    while block := list(islice(it, _TRANSPOSE_ROWS)):
        for col, part in zip(cols, zip(*block)):
            col.extend(part)
    return cols


def _scalar_kinds(cols: list[list]) -> list[set] | None:
    """Each column's item types, or None when an item is not a scalar."""
    found = [set(map(type, c)) for c in cols]
    return found if all(k <= _SCALARS for k in found) else None


_SLOT_NAMES: dict[type, tuple[str, ...]] = {}


def _rows_by_width(seq: Any, widths: bytes | list[int], kinds: list[int]) -> list[Iterator[Any]]:
    """The rows of each width in `kinds`, in row order, each width's an iterator to read once (columns_of). Widths
    below 256 are marked one byte a row and picked by bytes.translate and compress in C: the commonest width's rows
    from `seq`, the others from the few rows left (a cable's link ids at 128K GPUs: 500,864 rows of one id and
    10,100 of seven other widths; a compress over every row for each width cost 0.12 s of the encode)."""
    if kinds[-1] >= 256:
        return [compress(seq, map(w.__eq__, widths)) for w in kinds]
    marks = widths if type(widths) is bytes else bytes(widths)
    if len(kinds) == 2:  # a cable's ends (device or panel): each width's rows picked in one pass, no rows left over
        return [compress(seq, marks.translate(_only(w))) for w in kinds]
    common = max(kinds, key=marks.count)
    rest_at = list(compress(range(len(seq)), marks.translate(_other_than(common))))
    rest, rest_marks = list(map(seq.__getitem__, rest_at)), bytes(map(marks.__getitem__, rest_at))
    picked: list[Iterator[Any]] = []
    for w in kinds:
        rows, at = (seq, marks) if w == common else (rest, rest_marks)
        picked.append(compress(rows, at.translate(_only(w))))
    return picked


def _only(w: int) -> bytes:
    """A bytes.translate table marking byte `w` 1 and every other byte 0."""
    return bytes(int(i == w) for i in range(256))


def _other_than(w: int) -> bytes:
    return bytes(int(i != w) for i in range(256))


def _slot_names(t: type) -> tuple[str, ...]:
    names = _SLOT_NAMES.get(t)
    if names is None:
        found: list[str] = []
        for klass in t.__mro__:
            slots = klass.__dict__.get("__slots__", ())
            found += [slots] if isinstance(slots, str) else list(slots)
        names = _SLOT_NAMES[t] = tuple(n for n in found if n not in ("__weakref__", "__dict__"))
    return names


def _state(v: Any) -> dict:
    """The attributes that make up an engine object: its instance dict, or its slots."""
    d = getattr(v, "__dict__", None)
    if d is not None:
        return dict(d)
    return {n: getattr(v, n) for n in _slot_names(type(v)) if hasattr(v, n)}


def _missing_defaults(cls: type, stored: Iterable[str]) -> list[tuple[str, Any]]:
    """Fields of a dataclass that a document stored before they existed does not carry, each with a maker of
    its default (a field added later with a default, such as DesignSpec.monitoring, reads as that default).
    A missing field without a default makes the document unreadable rather than half-built."""
    if not dataclasses.is_dataclass(cls):
        return []
    have = set(stored)
    out: list[tuple[str, Any]] = []
    for f in dataclasses.fields(cls):
        if f.name in have:
            continue
        if f.default is not dataclasses.MISSING:
            out.append((f.name, lambda d=f.default: d))
        elif f.default_factory is not dataclasses.MISSING:
            out.append((f.name, f.default_factory))
        else:
            raise CodecError(f"{cls.__name__}.{f.name} is not in the document and has no default")
    return out


class _Decoder:
    def __init__(self, types: list[str], objects: list, blocks: list[memoryview] | None = None) -> None:
        self.blocks = blocks or []
        self.types: list[Any] = [_resolve(name) for name in types]  # engine classes: dataclasses, NamedTuples
        self.raw = objects
        self.objects: list[Any] = [None] * len(objects)
        self.done = [False] * len(objects)
        self.missing: dict[tuple, list[tuple[str, Any]]] = {}  # _missing_defaults per class and stored names

    def ref(self, i: int) -> Any:
        if self.done[i]:
            return self.objects[i]
        tid, state = self.raw[i]
        cls = self.types[tid]
        obj = cls.__new__(cls)
        self.objects[i] = obj
        self.done[i] = True
        stored = self.value(state)
        put = object.__setattr__
        _drain(map(put, repeat(obj), stored.keys(), stored.values()))
        key = (cls, tuple(stored))
        missing = self.missing.get(key)
        if missing is None:
            missing = self.missing[key] = _missing_defaults(cls, stored)
        for name, make in missing:
            put(obj, name, make())
        return obj

    def numbers(self, v: list) -> array | memoryview:
        if type(v[1]) is not str or len(v[1]) != 1 or v[1] not in "bhiqd":
            raise CodecError(f"unknown number type {v[1]!r}")
        if v[0] == "I":
            return _unpacked(v[1], v[2])
        if not (type(v[2]) is int and 0 <= v[2] < len(self.blocks)):
            raise CodecError(f"no binary block {v[2]!r}")
        block = self.blocks[v[2]]
        if len(block) % _WORD_SIZE[v[1]]:
            raise CodecError(f"binary block {v[2]} is not whole {v[1]!r} words")
        return _unpacked(v[1], block)

    def column(self, v: Any) -> Any:
        """A value only iterated or indexed here (a column zipped into rows, indexes into a table): packed numbers
        stay their block's words, whose items are made as they are read, and a table's items gathered stay the
        gathered tuple, rather than first filling a list (a copy of 511K items for each name column of the cable
        rows at 128K GPUs)."""
        if type(v) is list:
            if v[0] == "B" or v[0] == "I":
                return self.numbers(v)
            if v[0] == "D":
                return _gather(self.value(v[1]), self.column(v[2]))
        return self.value(v)

    def uneven_rows(self, v: list) -> Any:
        """Rows of scalars of several widths (V in version 1; G and W in version 2): [tag, widths, ..., list?, list rows?]"""
        if v[0] == "V":
            joined: Iterable[tuple] = zip(*[self.column(c) for c in v[2]])
            if type(v[1]) is not int:
                # each row cut to its width, in C (a generator here cost a Python step per row)
                joined = map(getitem, joined, map(slice, self.column(v[1])))  # type: ignore[arg-type]  # getitem is overloaded
            out = list(map(list, joined)) if v[4] else list(joined)
            return out if v[3] else tuple(out)
        if v[0] == "G":
            # each width's rows built in C from its columns, then taken in the stored order of widths
            groups: dict[int, Iterator[Any]] = {
                w: zip(*map(self.column, cols)) if w else repeat(()) for w, cols in v[2]
            }
            if v[4]:
                groups = {w: map(list, rows) for w, rows in groups.items()}
            widths = self.column(v[1])
            runs = _runs(widths, [w for w, _ in v[2]])
            if runs is not None:  # each width's rows together (a link's cable ids: one, then the trunks' three)
                out = list(chain.from_iterable(islice(groups[w], n) for w, n in runs))
            else:
                out = list(map(next, map(groups.__getitem__, widths)))
            return out if v[3] else tuple(out)
        # "W": each row its width of the items, cut in C
        cut = map(islice, repeat(iter(self.column(v[2]))), self.column(v[1]))
        rows = list(map(list, cut)) if v[4] else list(map(tuple, cut))
        return rows if v[3] else tuple(rows)

    def records(self, v: list) -> Any:
        """["O", type, [name...], [column...], list?]: slotted records made empty, then filled attribute by
        attribute, each column set in C by its slot's descriptor (what object.__setattr__ calls for a slot; a
        Python loop setting each attribute of each record cost 0.027 s against 0.011 s for 21,376 devices)."""
        cls, names = self.types[v[1]], v[2]
        cols = list(map(self.column, v[3]))
        n = len(cols[0]) if cols else 0
        if any(len(col) != n for col in cols) or len(names) != len(cols):
            raise CodecError(f"the columns of {cls.__name__} records differ in length")
        out = list(map(cls.__new__, repeat(cls, n)))
        put = object.__setattr__
        for name, col in zip(names, cols):
            slot = _slot_descriptor(cls, name)
            _drain(map(slot.__set__, out, col) if slot is not None else map(put, out, repeat(name), col))
        for name, make in _missing_defaults(cls, names):
            for obj in out:
                put(obj, name, make())
        return out if v[4] else tuple(out)

    def items(self, encoded: list) -> list:
        """Encoded values, each decoded: the scalars among them (most of an object's attributes, a mapping's
        keys) stored as they are, without a call each."""
        value = self.value
        return [value(x) if type(x) is list else x for x in encoded]

    def value(self, v: Any) -> Any:  # noqa: C901
        if type(v) is not list:
            return v
        tag = v[0]
        if tag == "T":
            return tuple(v[1])
        if tag == "L":
            return v[1]
        if tag == "t":
            return tuple(self.items(v[1]))
        if tag == "l":
            return self.items(v[1])
        if tag == "M":
            return v[1]
        if tag == "m":
            return dict(zip(self.items(v[1]), self.items(v[2])))
        if tag == "r":
            return self.ref(v[1])
        if tag == "I" or tag == "B":
            nums = self.numbers(v).tolist()
            return nums if v[3] else tuple(nums)
        if tag == "R":
            ids = self.column(v[1])
            for i in set(ids):
                if i >= 0:
                    self.ref(i)
            picked = _gather([*self.objects, None], ids)  # -1 is the None at the end
            return list(picked) if v[2] else picked
        if tag == "D":
            picked = _gather(self.value(v[1]), self.column(v[2]))
            return list(picked) if v[3] else picked
        if tag == "U":
            rows = v[1] if v[3] else [None if x is None else tuple(x) for x in v[1]]
            return rows if v[2] else tuple(rows)
        if tag in _UNEVEN_ROWS:
            return self.uneven_rows(v)
        if tag == "O":
            return self.records(v)
        if tag == "n":
            return self.types[v[1]]._make(map(self.value, v[2]))
        if tag == "C":
            rows = zip(*map(self.column, v[2]))
            # tuple.__new__ builds a NamedTuple from its row in C, without _make's Python frame per record (mapped
            # with the class repeated: a partial adding it to each call cost 0.01 s more for 397,184 links)
            made = (
                rows
                if v[1] == -1
                else map(list, rows)
                if v[1] == -2
                else map(tuple.__new__, repeat(self.types[v[1]]), rows)
            )
            return list(made) if v[3] else tuple(made)
        if tag == "s":
            return set(map(self.value, v[1]))
        if tag == "f":
            return frozenset(map(self.value, v[1]))
        if tag == "e":
            return self.types[v[1]](v[2])
        raise CodecError(f"unknown tag {tag!r}")


_drain: Callable[[Iterable[Any]], None] = deque(maxlen=0).extend  # runs an iterator to its end in C, keeping nothing


def _slot_descriptor(cls: type, name: str) -> Any:
    """The slot descriptor object.__setattr__ would set `name` through on a `cls` record, or None when the class
    attribute first found along the MRO is not a slot (then object.__setattr__ sets it, whatever it is)."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            found = klass.__dict__[name]
            return found if type(found) is MemberDescriptorType else None
    return None


def _runs(widths: Any, kinds: list[int]) -> list[tuple[int, int]] | None:
    """(width, rows) in order when the rows of each width are all together, else None. Widths below 128 are
    their own bytes ("b" words): each width's first and last byte and count are C scans of the bytes."""
    if not (
        type(widths) is memoryview and widths.format == "b" and all(type(w) is int and 0 <= w < 128 for w in kinds)
    ):
        return None
    marks = widths.tobytes()
    found = []
    for w in kinds:
        mark = bytes((w,))
        first, n = marks.find(mark), marks.count(mark)
        if n and marks.rfind(mark) - first + 1 != n:
            return None
        found.append((first, w, n))
    if sum(n for _, _, n in found) != len(marks):
        return None  # a width not among the groups' (not written by encode): left to the row by row way
    return [(w, n) for _, w, n in sorted(found) if n]


def _gather(table: list, indexes: Sequence[int]) -> tuple:
    """table[i] for each index, as a tuple: one itemgetter call, about 3x faster than a map of __getitem__."""
    if len(indexes) < 2:  # itemgetter of one index returns the item itself, of none is an error
        return tuple(map(table.__getitem__, indexes))
    return itemgetter(*indexes)(table)


def _resolve(name: str) -> type:
    mod, _, qual = name.partition(":")
    if not (mod == "engine" or mod.startswith("engine.")):
        raise CodecError(f"refusing to build {name}: not an engine type")
    try:
        obj: Any = importlib.import_module(mod)
        for part in qual.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        raise CodecError(f"type {name} no longer exists") from None
    if not isinstance(obj, type):
        raise CodecError(f"{name} is not a type")
    return obj


def encode(value: Any) -> bytes:
    """`value` as a compressed document (CodecError for anything the codec does not store)."""
    # Encoding and decoding allocate a container per record (400,000 links and cables at 128K GPUs), none of
    # them in a cycle: with the cyclic collector running, its full passes over the ever larger heap cost a
    # 128K decode 3-4x its own work (4.8-7.5 s against 1.4-1.7 s measured paused, engine/gcpause.py).
    with cyclic_gc_paused():
        enc = _Encoder()
        root = enc.value(value)
        blocks = enc.blocks
        doc = {"codec": CODEC_VERSION, "types": enc.types, "objects": enc.objects, "root": root}
        doc["blocks"] = list(map(len, blocks))
        text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False, check_circular=False).encode()
        # streamed through one compressor: the blocks (tens of MB at 128K GPUs) are never joined into one copy
        z = zlib.compressobj(COMPRESS_LEVEL)
        parts = [z.compress(_MAGIC + len(text).to_bytes(8, "little")), z.compress(text)]
        parts += map(z.compress, blocks)
        parts.append(z.flush())
        return b"".join(parts)


def _read(blob: bytes) -> tuple[Any, list[memoryview]]:
    """A compressed document: its JSON part, and its binary blocks (none in a version 1 document).

    A version 2 document's first line and its JSON part are decompressed first, and they give the whole length
    (their own and the blocks'): the document is then decompressed into bytes of that size made at once. Left to
    grow, the output went through blocks of growing sizes and was then joined, 35 MB written twice at 128K GPUs
    (17,000 page faults against 8,600; the JSON part, 3 MB there, is decompressed twice instead)."""
    head_size = len(_MAGIC) + 8
    stream = zlib.decompressobj()
    head = stream.decompress(blob, head_size)
    binary = head.startswith(_MAGIC) and len(head) == head_size
    if binary:
        end = head_size + int.from_bytes(head[len(_MAGIC) :], "little")
        text = stream.decompress(stream.unconsumed_tail, end - head_size)
        if len(text) != end - head_size:
            raise CodecError("document shorter than its JSON part")
    else:  # version 1: the JSON alone
        text = zlib.decompress(blob)
    doc = json.loads(text)
    if not binary:
        return doc, []
    sizes = doc.get("blocks") if isinstance(doc, dict) else None
    if not (isinstance(sizes, list) and all(type(n) is int and n >= 0 for n in sizes)):
        raise CodecError("document without its list of blocks")
    total = end + sum(sizes)
    # deflate expands a byte to at most 1,032: a length past that is not this document's (and is not allocated)
    if total > _MAX_INFLATE * len(blob):
        raise CodecError("document blocks do not add up to its length")
    raw = zlib.decompress(blob, zlib.MAX_WBITS, total)
    if len(raw) != total:
        raise CodecError("document blocks do not add up to its length")
    data = memoryview(raw)
    bounds = list(accumulate(sizes, initial=end))
    return doc, list(map(data.__getitem__, map(slice, bounds, bounds[1:])))


def decode(blob: bytes) -> Any:
    """The value `encode` stored (CodecError when the document is not one this version reads)."""
    with cyclic_gc_paused():  # see encode
        try:
            doc, blocks = _read(blob)
        except (zlib.error, ValueError) as exc:
            raise CodecError(f"unreadable document: {exc}") from None
        if not isinstance(doc, dict) or doc.get("codec") not in READABLE_VERSIONS:
            raise CodecError(
                f"document codec {doc.get('codec') if isinstance(doc, dict) else None!r}, expected one of "
                f"{READABLE_VERSIONS}"
            )
        return _Decoder(doc["types"], doc["objects"], blocks).value(doc["root"])
