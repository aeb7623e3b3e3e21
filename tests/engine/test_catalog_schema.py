"""A user's server or switch is held to the shipped entries' schema, types included (engine/catalog/hardware_schema.py):
every shipped entry fits it, and a part that does not is refused naming the field before anything is stored."""

from __future__ import annotations

import copy

import pytest
import yaml

from engine.catalog import DATA_DIR, load_catalog
from engine.catalog.hardware_schema import check_entry
from engine.errors import CatalogError


def _shipped():
    servers = yaml.safe_load((DATA_DIR / "servers.yaml").read_text())["servers"]
    switches = yaml.safe_load((DATA_DIR / "switches.yaml").read_text())
    return servers, switches["switches"], switches.get("appliances") or {}


def test_every_shipped_entry_fits_the_schema():
    servers, switches, appliances = _shipped()
    for section, entries in (("servers", servers), ("switches", switches), ("appliances", appliances)):
        for key, entry in entries.items():
            check_entry(section, key, entry)


def _switch(**changes):
    entry = copy.deepcopy(_shipped()[1]["qm9700"])
    entry.update(changes)
    return entry


@pytest.mark.parametrize(
    "changes, words",
    [
        ({"sources": [["S1"]]}, "switches.mine.sources[0]: must be text, not list"),
        ({"sources": "S1"}, "switches.mine.sources: must be a list, not str"),
        ({"name": 42}, "switches.mine.name: must be text, not int"),
        ({"cages": "32"}, "switches.mine.cages: must be a whole number, not str"),
        ({"cages": True}, "switches.mine.cages: must be a whole number, not bool"),
        ({"speeds": [400]}, "switches.mine.speeds: must be a mapping, not list"),
        ({"sharp": "yes"}, "switches.mine.sharp: must be true or false, not str"),
        ({"colour": "red"}, "switches.mine.colour: is not a known field"),
        ({"name": None}, "switches.mine.name: is required"),
    ],
)
def test_a_custom_switch_of_the_wrong_shape_is_refused_at_its_field(changes, words):
    with pytest.raises(CatalogError) as exc:
        load_catalog({"switches": {"mine": _switch(**changes)}})
    assert words in str(exc.value)


def test_a_custom_server_with_a_list_inside_a_port_list_is_refused():
    server = copy.deepcopy(_shipped()[0]["dgx-h100"])
    server["oob"] = {**(server.get("oob") or {}), "ports": [["BMC"]]}
    with pytest.raises(CatalogError, match=r"servers.mine.oob.ports\[0\]: must be text"):
        load_catalog({"servers": {"mine": server}})


def test_a_well_formed_custom_switch_loads():
    assert "mine" in load_catalog({"switches": {"mine": _switch(name="Mine", power_kw=1.5)}}).switches
