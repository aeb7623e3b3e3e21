"""The catalog's one loader (engine/catalog/loader.py): an entry becomes a dataclass field by field, from the
field's annotated type, and every refusal names where the entry came from, the entry and the field."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pytest

from engine.catalog import load_catalog
from engine.catalog.loader import Where, build, field
from engine.errors import CatalogError


def _even(value: int, where: Where) -> None:
    if value % 2:
        raise where.error("must be even")


@dataclass(frozen=True, kw_only=True)
class Port:
    name: str
    lanes: int = field(default=1, check=_even)


@dataclass(frozen=True, kw_only=True)
class Box:
    key: str
    name: str
    height: float | None
    speeds: Mapping[int, int]
    ports: tuple[Port, ...] = ()
    label: str = field(also="description", default="")
    tags: tuple[str, ...] = ()


WHERE = Where("boxes.yaml", "boxes.b1")


def test_an_entry_becomes_its_dataclass_with_typed_values():
    box = build(
        Box,
        {"name": "B1", "height": 2, "speeds": {"400": 2}, "ports": [{"name": "p1", "lanes": 4}], "description": "d"},
        WHERE,
        key="b1",
    )
    assert box == Box(key="b1", name="B1", height=2.0, speeds={400: 2}, ports=(Port(name="p1", lanes=4),), label="d")
    assert isinstance(box.height, float)
    assert build(Box, {"name": "B1", "speeds": {}}, WHERE, key="b1").height is None  # a type that admits None


@pytest.mark.parametrize(
    "raw, words",
    [
        ({"speeds": {}}, "boxes.yaml: boxes.b1.name: is required"),
        ({"name": 7, "speeds": {}}, "boxes.yaml: boxes.b1.name: must be text, not int"),
        ({"name": "B", "height": True, "speeds": {}}, "boxes.b1.height: must be a number, not bool"),
        ({"name": "B", "height": float("nan"), "speeds": {}}, "boxes.b1.height: must be a finite number, got nan"),
        ({"name": "B", "speeds": {"fast": 2}}, "boxes.b1.speeds.fast: must be a whole number, not str"),
        ({"name": "B", "speeds": [400]}, "boxes.b1.speeds: must be a mapping, not list"),
        ({"name": "B", "speeds": {}, "ports": [{"name": "p", "lanes": 3}]}, "boxes.b1.ports[0].lanes: must be even"),
        ({"name": "B", "speeds": {}, "ports": [{"lanes": 2}]}, "boxes.b1.ports[0].name: is required"),
        ({"name": "B", "speeds": {}, "tags": ["a", None]}, "boxes.b1.tags[1]: must not be empty"),
        ("B", "boxes.yaml: boxes.b1: must be a mapping of fields, not str"),
    ],
)
def test_a_refusal_names_the_file_the_entry_and_the_field(raw, words):
    with pytest.raises(CatalogError) as exc:
        build(Box, raw, WHERE, key="b1")
    assert str(exc.value) == words or words in str(exc.value)


def test_a_closed_entry_refuses_keys_that_are_no_field():
    closed = Where("boxes.yaml: boxes[0]", style="field", closed=("replaces",))
    build(Box, {"name": "B", "speeds": {}, "replaces": True}, closed, key="b1")
    with pytest.raises(CatalogError, match=r"boxes\[0\]: unknown field\(s\) \['colour'\]"):
        build(Box, {"name": "B", "speeds": {}, "colour": "red"}, closed, key="b1")
    with pytest.raises(CatalogError, match=r"boxes\[0\]: field 'ports\[0\].lanes' must be even"):
        build(Box, {"name": "B", "speeds": {}, "ports": [{"name": "p", "lanes": 1}]}, closed, key="b1")


def test_the_hardware_catalog_s_entries_are_read_by_it():
    """A user's switch with a bad nested value is refused by the loader at the field, with its origin."""
    from engine.catalog import DATA_DIR
    from engine.catalog.loader import read_shipped

    qm = read_shipped(DATA_DIR / "switches.yaml")[0]["switches"]["qm9700"]
    bad = {**qm, "orderable": {"p2c": {"opn": " "}}}
    with pytest.raises(CatalogError, match=r"^custom parts: switches\.mine\.orderable\.p2c\.opn: is required$"):
        load_catalog({"switches": {"mine": bad}}, with_media=False)
    with pytest.raises(CatalogError, match=r"switches\.mine\.ib_reported_ports: must be a port count from 1 to 255"):
        load_catalog({"switches": {"mine": {**qm, "ib_reported_ports": 0}}}, with_media=False)
