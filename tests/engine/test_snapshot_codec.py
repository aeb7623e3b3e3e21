"""The snapshot codec (engine/snapshot_codec.py): a computed design survives a store, pickle-free and versioned."""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from pathlib import Path

import pytest

from engine import snapshot_codec as codec
from engine.catalog import load_catalog
from engine.outputs import write_links_csv
from engine.pipeline import compute_design
from engine.presets import list_presets, load_preset
from engine.spec import parse_spec

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def h100():
    return compute_design(parse_spec(load_preset("dgx-h100-superpod-4su")), load_catalog())


def _doc(blob: bytes) -> dict:
    """The JSON part of a document: all of a version 1 one; in version 2, after the first line and the length."""
    raw = zlib.decompress(blob)
    if raw.startswith(b"{"):
        return json.loads(raw)
    head, _, rest = raw.partition(b"\n")
    assert head == b"fabricdesign snapshot 2"
    return json.loads(rest[8 : 8 + int.from_bytes(rest[:8], "little")])


def _assert_same_design(back, original) -> None:
    """Every stored field of a design result, record for record."""
    assert back == original  # DesignRows' compared fields: spec, versions, devices, racks, places, links, lengths
    assert back.summary == original.summary and back.warnings == original.warnings
    assert back.checks == original.checks
    ph, ph2 = original.physical, back.physical
    for name in ("cords", "cables", "statuses", "cable_rows", "bom", "loss_counts", "worst", "completeness"):
        assert getattr(ph2, name) == getattr(ph, name), name
    assert [c == d for c, d in zip(ph2.choices, ph.choices)] == [True] * len(ph.choices)
    assert ph2.budgets == ph.budgets and ph2.fibers == ph.fibers and ph2.bom_split == ph.bom_split
    assert ph2.policy == ph.policy and ph2.trunks == ph.trunks and ph2.panels == ph.panels


def test_a_decoded_design_equals_the_computed_one_record_for_record(h100):
    _assert_same_design(codec.decode(codec.encode(h100)), h100)


@pytest.mark.parametrize("preset", sorted(list_presets()))
def test_every_preset_survives_a_store_field_by_field(preset):
    result = compute_design(parse_spec(load_preset(preset)), load_catalog())
    blob = codec.encode(result)

    assert _doc(blob)["codec"] == codec.CODEC_VERSION == 2
    _assert_same_design(codec.decode(blob), result)


def test_a_revision_stored_by_codec_version_1_still_opens(h100):
    """A document main's codec wrote before version 2 (engine 011a7ca, the H100 4-SU preset): JSON only, its
    numbers in base64, a cable's link ids padded with None. It decodes to the design as computed today."""
    blob = (DATA / "snapshot-v1-dgx-h100-superpod-4su.zlib").read_bytes()
    assert _doc(blob)["codec"] == 1

    _assert_same_design(codec.decode(blob), h100)


def test_a_decoded_design_writes_the_same_links_csv(h100, tmp_path):
    import io

    a, b = io.StringIO(), io.StringIO()
    write_links_csv(h100, a)
    write_links_csv(codec.decode(codec.encode(h100)), b)
    assert a.getvalue() == b.getvalue() and len(a.getvalue().splitlines()) == len(h100.links) + 1


def test_the_catalog_it_was_computed_with_travels_with_it(h100):
    back = codec.decode(codec.encode(h100))

    assert back.catalog.version == h100.catalog.version
    assert back.catalog.switches == h100.catalog.switches and back.catalog.servers == h100.catalog.servers
    assert back.catalog.media.transceivers == h100.catalog.media.transceivers


def test_a_shared_engine_object_is_stored_once_and_decoded_shared(h100):
    blob = codec.encode(h100)
    doc = _doc(blob)
    kinds = [doc["types"][tid] for tid, _state in doc["objects"]]
    choices = kinds.count("engine.physical.select:MediaChoice")

    # 3,498 links, a few dozen distinct medium choices
    assert 0 < choices < 100
    back = codec.decode(blob).physical
    assert len({id(c) for c in back.choices if c is not None}) <= choices


def test_types_outside_the_engine_are_refused_both_ways():
    @dataclass(frozen=True)
    class Outsider:
        x: int

    Outsider.__module__ = "tests.elsewhere"
    with pytest.raises(codec.CodecError, match="not an engine type"):
        codec.encode(Outsider(1))
    blob = zlib.compress(
        json.dumps(
            {"codec": codec.CODEC_VERSION, "types": ["os:system"], "objects": [[0, ["M", {}]]], "root": ["r", 0]}
        ).encode()
    )
    with pytest.raises(codec.CodecError, match="not an engine type"):
        codec.decode(blob)


def test_a_document_of_another_codec_version_is_not_misread(h100):
    doc = _doc(codec.encode(h100.summary))
    doc["codec"] = codec.CODEC_VERSION + 1
    with pytest.raises(codec.CodecError, match="expected"):
        codec.decode(zlib.compress(json.dumps(doc).encode()))
    with pytest.raises(codec.CodecError, match="unreadable"):
        codec.decode(b"not zlib")


def test_functions_are_not_stored():
    with pytest.raises(codec.CodecError):
        codec.encode({"f": test_functions_are_not_stored})


def test_containers_keep_their_kinds():
    from engine.model import Link, Place

    value = {
        (1, "a"): [Place(0, 1), None, Place(2, 3)] * 5,
        "rows": tuple((i, f"p{i % 3}") for i in range(20)),
        "lists": [[i, "x"] for i in range(20)],
        "mixed": (1, "a", None, 2.5, True),
        "sets": ({1, 2}, frozenset({"a"})),
        "links": tuple(Link(i, "compute", 0, "leaf-spine", 0, "1", "c", 1, "2", "c", 400) for i in range(12)),
        "names": ["compute", "storage"] * 40,
    }
    back = codec.decode(codec.encode(value))
    assert back == value
    assert type(back["rows"]) is tuple and type(back["lists"][0]) is list and type(back["links"][0]) is Link


def _drop_field(doc: dict, type_name: str, field: str) -> None:
    """Edit a document as if it had been stored before `field` existed on `type_name`."""
    tid = next(i for i, name in enumerate(doc["types"]) if name.endswith(":" + type_name))
    dropped = 0
    for obj in doc["objects"]:
        if obj[0] != tid:
            continue
        state = obj[1]
        if state[0] == "M":
            del state[1][field]
            dropped += 1
        else:  # ["m", keys, values]
            i = state[1].index(field)
            del state[1][i], state[2][i]
            dropped += 1
    assert dropped


def test_a_field_added_since_the_document_was_stored_reads_as_its_default(h100):
    """DesignSpec.monitoring came after snapshots were first stored: an older document decodes with None."""
    doc = _doc(codec.encode(h100.spec))
    _drop_field(doc, "DesignSpec", "monitoring")
    back = codec.decode(zlib.compress(json.dumps(doc).encode()))
    assert back.monitoring is None and back.name == h100.spec.name


def test_a_missing_field_without_a_default_makes_the_document_unreadable(h100):
    doc = _doc(codec.encode(h100.spec))
    _drop_field(doc, "DesignSpec", "name")
    with pytest.raises(codec.CodecError, match=r"DesignSpec.name"):
        codec.decode(zlib.compress(json.dumps(doc).encode()))


def test_encoding_and_decoding_leave_the_cyclic_collector_as_they_found_it(h100):
    import gc

    blob = codec.encode(h100)
    assert gc.isenabled()
    codec.decode(blob)
    assert gc.isenabled()
    gc.disable()
    try:
        codec.decode(codec.encode(h100))
        assert not gc.isenabled()
    finally:
        gc.enable()


def _tags(node) -> set:
    """Every tag in an encoded value (the first item of each tagged list)."""
    if isinstance(node, dict):
        return set().union(*map(_tags, node.values())) if node else set()
    if not isinstance(node, list) or not node:
        return set()
    found = {node[0]} if isinstance(node[0], str) else set()
    return found.union(*map(_tags, node[1:]))


def _every_column_kind() -> dict:
    """Long sequences of each kind a large design is made of (the comment names each one's encoded form)."""
    from engine.model import Link, Place

    n = 300
    return {
        "ints": list(range(-n, n)),  # B, two-byte words
        "big": tuple(i * 2**40 for i in range(n)),  # B, eight-byte words
        "floats": [i / 7 for i in range(n)],  # B, doubles
        "names": tuple(["node-leaf", "leaf-spine", "spine-core"][i % 3] for i in range(n)),  # D
        "ends": [(i, f"{i % 64}/1") if i % 5 else ("panel", i, 3, "T") for i in range(n)],  # G, widths 2 and 4
        "end lists": [[i, "p"] if i % 2 else [i, "p", 1.5] for i in range(n)],  # G, list rows
        "empty rows": [(i,) if i % 3 else () for i in range(n)],  # G, a width of 0
        "fixed rows": [(i, "p") for i in range(n)],  # V, one width
        "repeated rows": tuple((i % 4, "cord") for i in range(n)),  # D of rows
        "rows with gaps": [None if i % 7 == 0 else (i, "x") for i in range(n)],  # U
        "places": tuple(Place(i % 9, i % 42 + 1) for i in range(n)),  # C of a NamedTuple
        "links": [Link(i, "compute", 0, "leaf-spine", i, "1/1", "1", i + 1, "2/1", "2", 800) for i in range(n)],
        "cable rows": [[i, "cord", "SKU", 3.0, (i, "1/1"), ("panel", 2, 40, "3"), [i], "t", "n"] for i in range(n)],
        # a cable's link ids: one for most, up to a dozen for a trunk (W: items in order and each row's width)
        "link ids": [[i] if i % 10 else list(range(i, i + 2 + i // 10 % 12)) for i in range(n)],
        "id tuples": tuple((i,) if i % 10 else tuple(range(i, i + 2 + i // 10 % 12)) for i in range(n)),  # W
    }


def _assert_same_kinds(back: dict, value: dict) -> None:
    assert back == value
    for key, v in value.items():
        assert type(back[key]) is type(v), key
        assert [type(x) for x in back[key]] == [type(x) for x in v], key


def test_every_column_kind_of_a_long_sequence_survives_a_store():
    """Long sequences take the packed forms (the ones a 128K-GPU design is made of): each comes back equal,
    with its container kinds, including rows of several widths (a cable end at a device or at a panel)."""
    value = _every_column_kind()
    blob = codec.encode(value)

    _assert_same_kinds(codec.decode(blob), value)
    assert {"B", "D", "V", "U", "C", "G", "W"} <= _tags(_doc(blob)["root"])


def test_rows_of_a_few_widths_come_back_in_order_whichever_width_is_commonest():
    """Rows of up to 8 widths are stored width by width ("G"): one width for most rows and the others rare (a
    cable's link ids), widths of a row 256 items and more, from 128 to 255 (marked a byte a row, but not "b"
    words), and two widths as common as each other all come back in their order."""
    n = 600
    value = {
        "mostly one": [[i] if i % 50 else list(range(i, i + 2 + i % 7)) for i in range(n)],
        "wide": [(i,) if i % 3 else tuple(range(i, i + 300)) for i in range(n)],
        "byte wide": [(i,) if i % 3 else tuple(range(i, i + 130 + i % 5 * 30)) for i in range(n)],
        "halves": [(i, "a") if i % 2 else ("panel", i, 3, "T") for i in range(n)],
    }
    blob = codec.encode(value)

    _assert_same_kinds(codec.decode(blob), value)
    assert all(node[0] == "G" for node in _doc(blob)["root"][2])


def test_every_column_kind_written_by_codec_version_1_still_reads():
    """The same value as main's codec wrote it before version 2 (numbers in base64, "I"; the link ids padded
    with None into columns, "V"): read by today's decoder, equal with the same container kinds."""
    blob = (DATA / "snapshot-v1-every-column-kind.zlib").read_bytes()
    doc = _doc(blob)
    assert doc["codec"] == 1 and {"I", "V"} <= _tags(doc["root"]) and not {"B", "G", "W"} & _tags(doc["root"])

    _assert_same_kinds(codec.decode(blob), _every_column_kind())


def test_binary_blocks_that_do_not_add_up_make_the_document_unreadable():
    raw = zlib.decompress(codec.encode(_every_column_kind()))
    with pytest.raises(codec.CodecError, match="blocks"):
        codec.decode(zlib.compress(raw[:-1]))


def _packed_codes(value: dict) -> dict:
    """Each key's encoded form as (tag, word code) from a document of a dict of long sequences."""
    root = _doc(codec.encode(value))["root"]
    assert root[0] == "m"
    keys = [codec._Decoder([], []).value(k) for k in root[1]]
    return {k: (v[0], v[1] if v[0] == "B" else None) for k, v in zip(keys, root[2])}


def test_integer_columns_take_the_narrowest_words_wherever_their_widest_value_sits():
    """The word size is the narrowest that holds every value, as a min and a max of the column would pick it,
    even when the one value that needs wider words is the last (the encoder packs rather than scans first)."""
    n = 200
    value = {
        "bytes": [i % 128 for i in range(n)] + [-128],
        "short at the end": [1] * n + [128],
        "negative short at the end": [1] * n + [-129],
        "int at the end": [1] * n + [2**15],
        "long at the end": [1] * n + [-(2**31) - 1],
        "widest long": [2**63 - 1] + [0] * n + [-(2**63)],
        "beyond every word": [1] * n + [2**63],
        "bools": [True, False] * n,
        "ints and a bool": [1] * n + [True],
        "indexes of 128 names": [f"n{i % 128}" for i in range(4 * 128 + 1)],
        "indexes of 129 names": [f"n{i % 129}" for i in range(4 * 129 + 1)],
    }
    codes = _packed_codes(value)

    assert codes == {
        "bytes": ("B", "b"),
        "short at the end": ("B", "h"),
        "negative short at the end": ("B", "h"),
        "int at the end": ("B", "i"),
        "long at the end": ("B", "q"),
        "widest long": ("B", "q"),
        "beyond every word": ("L", None),
        "bools": ("L", None),
        "ints and a bool": ("L", None),
        "indexes of 128 names": ("D", None),
        "indexes of 129 names": ("D", None),
    }
    doc = _doc(codec.encode(value))
    tables = [v for v in doc["root"][2] if v[0] == "D"]
    assert [t[2][1] for t in tables] == ["b", "h"]  # 128 names index in bytes, 129 need two-byte words
    _assert_same_kinds(codec.decode(codec.encode(value)), value)


def test_rows_holding_a_container_past_their_head_are_not_stored_as_rows_of_scalars():
    """The encoder reads the items' types from the columns it cuts the rows into: a row far down that holds a
    container (a tuple, an unhashable list, a set) sends the whole sequence the general way, nothing half-written."""
    n = 300
    value = {
        "one width": [(i, "p") for i in range(n)] + [(1, ("nested", 2))],
        "few widths": [(i, "p") if i % 3 else ("panel", i, 1, "T") for i in range(n)] + [("panel", 1, [2], "T")],
        "many widths": [[i] * (1 + i % 12) for i in range(n)] + [[{"a": 1}]],
        "repeated rows": [(i % 4, "cord") for i in range(n)] + [(1, frozenset({2}))],
        "repeated rows, unhashable": [(i % 4, "cord") for i in range(n)] + [(1, [2])],
        "rows of scalars after": [(i, "q") for i in range(n)],
    }
    blob = codec.encode(value)

    _assert_same_kinds(codec.decode(blob), value)
    assert _packed_codes(value)["rows of scalars after"] == ("V", None)


def test_references_to_objects_stored_earlier_and_new_ones_are_numbered_in_first_seen_order():
    """A long list of shared objects, some stored already by an earlier list and some new, refers to each by its
    one number: the new ones take theirs in the order they are first seen, and all decode shared."""
    from engine.physical.labels import LabelTemplate

    first, second, third = LabelTemplate(), LabelTemplate(own_end_first=False), LabelTemplate(end="<device>:<port>")
    value = {"earlier": [first, second] * 40, "later": [third, None, second, first] * 40}
    blob = codec.encode(value)
    doc = _doc(blob)

    stored = [state[1] for _tid, state in doc["objects"]]  # each object's attributes ("M": str keys, scalars)
    assert [(s["end"], s["own_end_first"]) for s in stored] == [
        (t.end, t.own_end_first) for t in (first, second, third)
    ]
    back = codec.decode(blob)
    assert back == value
    assert back["later"][2] is back["earlier"][1] and back["later"][3] is back["earlier"][0]


def _devices(n: int) -> tuple:
    from engine.model import Device

    return tuple(Device(i, f"D{i:05d}", "leaf", "q3400", "compute", i % 2, 1 + i // 8, 1, 2, 1.5 * i) for i in range(n))


def test_slotted_records_are_filled_column_by_column_and_keep_their_defaults():
    """Many distinct slotted records (devices) are stored attribute by attribute ("O") and decoded by setting each
    column through its slot: equal, of their own class; a column stored before its attribute existed reads as the
    default, and columns of different lengths make the document unreadable rather than records half-filled."""
    value = {"devices": _devices(100)}
    blob = codec.encode(value)
    node = _doc(blob)["root"][2][0]
    assert node[0] == "O" and node[3][node[2].index("role")][0] == "D"  # a table of names, gathered

    back = codec.decode(blob)
    assert back == value and all(type(d) is type(value["devices"][0]) for d in back["devices"])

    doc, blocks = codec._read(blob)
    names, cols = doc["root"][2][0][2], doc["root"][2][0][3]
    at = names.index("power_kw")
    del names[at], cols[at]
    older = codec.decode(_written(doc, blocks))
    assert [d.power_kw for d in older["devices"]] == [None] * 100  # Device.power_kw's default
    assert [d.name for d in older["devices"]] == [d.name for d in value["devices"]]

    cols[names.index("name")] = ["L", ["D1"] * 99]
    with pytest.raises(codec.CodecError, match="differ in length"):
        codec.decode(_written(doc, blocks))


def test_rows_of_a_few_widths_each_together_come_back_in_order():
    """Rows of a few widths where each width's rows are all together (a link's cable ids: one for every link
    directly cabled, then several for the trunked ones) are taken a width at a time: in order, either way round,
    with an empty width among them; interleaved widths next to them still go row by row."""
    n = 300
    value = {
        "ones then threes": [(i,) for i in range(n)] + [(i, i + 1, i + 2) for i in range(40)],
        "threes then ones": [[i, i + 1, i + 2] for i in range(40)] + [[i] for i in range(n)],
        "three runs": [(i,) for i in range(n)] + [()] * 20 + [(i, "x") for i in range(70)],
        "interleaved": [(i,) if i % 2 else (i, i) for i in range(n)],
        "width back again": [(i,) for i in range(n)] + [(1, 2)] * 10 + [(3,)],
    }
    blob = codec.encode(value)

    assert all(node[0] == "G" for node in _doc(blob)["root"][2])
    _assert_same_kinds(codec.decode(blob), value)
    assert codec._runs(memoryview(bytes([1, 1, 3, 3, 0])).cast("b"), [0, 1, 3]) == [(1, 2), (3, 2), (0, 1)]
    assert codec._runs(memoryview(bytes([1, 3, 1])).cast("b"), [1, 3]) is None
    assert codec._runs(memoryview(bytes([1, 1, 2])).cast("b"), [1]) is None  # a width with no group


def _written(doc: dict, blocks: list) -> bytes:
    """A version 2 document from its JSON part and its blocks, as encode writes one."""
    text = json.dumps(doc).encode()
    return zlib.compress(codec._MAGIC + len(text).to_bytes(8, "little") + text + b"".join(blocks))


def test_a_document_is_decompressed_to_the_length_it_states_or_refused():
    """A version 2 document states its JSON part's length and its blocks': it is decompressed into that many bytes
    at once. A length no deflate stream of that size can hold, or a JSON part cut short, is refused (no buffer is
    made for it); so is a block that is not whole words of its type."""
    value = _every_column_kind()
    doc, blocks = codec._read(codec.encode(value))
    blocks = [bytes(b) for b in blocks]
    assert doc == _doc(codec.encode(value))
    _assert_same_kinds(codec.decode(_written(doc, blocks)), value)

    doc["blocks"][0] += 10**12
    with pytest.raises(codec.CodecError, match="blocks"):
        codec.decode(_written(doc, blocks))
    doc["blocks"][0] -= 10**12

    raw = zlib.decompress(_written(doc, blocks))
    with pytest.raises(codec.CodecError, match="JSON part"):
        codec.decode(zlib.compress(raw[: len(codec._MAGIC) + 8 + 100]))

    at = next(node[2] for node in doc["root"][2] if node[0] == "B" and node[1] in "hiqd")
    blocks[at] = blocks[at][:-1]
    doc["blocks"][at] -= 1
    with pytest.raises(codec.CodecError, match="whole"):
        codec.decode(_written(doc, blocks))
