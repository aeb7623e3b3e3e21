"""Row letters of rack ids: spreadsheet-style by default; layout.row_letters "skip-io" leaves out I and O, which
read as 1 and 0 on a label ("DC1.AO09" reads "A009")."""

from engine.placement import row_name


def test_default_row_letters_are_spreadsheet_columns():
    assert [row_name(i) for i in (0, 8, 14, 25, 26, 27)] == ["A", "I", "O", "Z", "AA", "AB"]


def test_skip_io_row_letters_never_use_i_or_o():
    names = [row_name(i, skip_io=True) for i in range(24 * 25)]
    assert names[:9] == ["A", "B", "C", "D", "E", "F", "G", "H", "J"] and names[23:25] == ["Z", "AA"]
    assert len(set(names)) == len(names)
    assert not [n for n in names if "I" in n or "O" in n]


def test_a_design_with_skip_io_names_its_racks_without_i_or_o():
    from engine.pipeline import compute_design
    from engine.presets import load_preset
    from engine.spec import parse_spec

    d = load_preset("dgx-b300-xdr-8su")
    d.setdefault("layout", {})["row_letters"] = "skip-io"
    racks = compute_design(parse_spec(d)).racks
    rows = {r.row_name for r in racks}
    assert len(rows) > 8 and not {n for n in rows if "I" in n or "O" in n}
    assert all(r.id.split(".")[1].startswith(r.row_name) for r in racks)
