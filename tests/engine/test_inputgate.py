"""The input gate (engine/inputgate.py): every refusal is an InputRefused saying what and, where it can, where;
nothing is built past a limit, and no depth makes Python recurse."""

from __future__ import annotations

import pytest

from engine.inputgate import InputRefused, check_shape, csv_rows, load_json, load_yaml, text_lines

BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b]\n"


@pytest.mark.parametrize(
    "text, max_nodes, words",
    [
        (BOMB, 10**6, "line 1, column 4: anchors (&name) are not allowed"),
        ("a: " + "[" * 3000 + "]" * 3000, 10**6, "nested deeper than 32 levels"),
        ("a: !!set {x, y}", 10**6, "the tag"),
        ("- x\n" * 11, 10, "holds more than 10 values"),
    ],
)
def test_yaml_is_refused_before_it_is_built(text, max_nodes, words):
    with pytest.raises(InputRefused) as exc:
        load_yaml(text, max_nodes=max_nodes)
    assert words in str(exc.value)


def test_yaml_dates_stay_text_and_bytes_are_decoded():
    assert load_yaml(b"\xef\xbb\xbfwhen: 2026-12-04\n") == {"when": "2026-12-04"}


@pytest.mark.parametrize("depth", [65, 1_000, 200_000])
def test_json_of_any_depth_is_refused_without_recursing(depth):
    with pytest.raises(InputRefused, match="nested deeper than 64 levels"):
        load_json("[" * depth + "]" * depth)


def test_json_as_deep_as_allowed_is_read_whatever_the_callers_stack():
    def deep_call(n):
        return load_json("[" * 900 + "]" * 900, max_depth=1_000) if n == 0 else deep_call(n - 1)

    assert deep_call(200) == load_json("[" * 900 + "]" * 900, max_depth=1_000)


@pytest.mark.parametrize(
    "text, words",
    [
        ('{"a": NaN}', "NaN is not a JSON number"),
        ('{"a": 1,}', "line 1, column 9: not JSON"),
        ("[" + "0," * 20 + "0]", "holds more than 10 values"),
        ("x" * 101, "the limit is 100"),
    ],
)
def test_json_refusals_say_why(text, words):
    with pytest.raises(InputRefused) as exc:
        load_json(text, max_chars=100, max_nodes=10)
    assert words in str(exc.value)


def test_bytes_that_are_not_utf8_are_refused():
    with pytest.raises(InputRefused, match="not UTF-8"):
        load_json(b"\xff\xfe{}")


def test_csv_rows_cells_and_the_csv_modules_own_errors_are_refusals_with_their_line():
    assert list(csv_rows("a,b\r\n1,2\r\n")) == [["a", "b"], ["1", "2"]]
    with pytest.raises(InputRefused, match="line 3: cell 2 is 11 characters; the limit is 10"):
        list(csv_rows("a,b\n1,2\n3," + "x" * 11 + "\n", max_cell=10))
    with pytest.raises(InputRefused, match="line 3: more than 2 rows"):
        list(csv_rows("a\n1\n2\n", max_rows=2))
    with pytest.raises(InputRefused, match="not CSV: field larger than field limit"):
        list(csv_rows('a\n"' + "x" * 200_000 + '"\n', max_cell=10**6))


def test_a_line_list_is_bounded():
    assert text_lines("a\nb", max_lines=2) == ["a", "b"]
    with pytest.raises(InputRefused, match="3 lines; the limit is 2"):
        text_lines("a\nb\nc", max_lines=2)


def test_check_shape_measures_any_depth_iteratively():
    value: object = 1
    for _ in range(100_000):
        value = [value]
    with pytest.raises(InputRefused, match="nested deeper than 10 levels"):
        check_shape(value, max_depth=10, max_nodes=10**6)
