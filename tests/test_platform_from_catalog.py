"""A switch's vendor, OS (config dialect) and interface naming come from its catalog entry, never from its key.

The catalog built here holds switches whose keys say the opposite of what they are: `tor-x` is an Arista EOS box,
`arista-foo` a SONiC box from another maker. Every consumer (interface names, the QoS config dialect, NetBox's
manufacturer) must follow the entry; an entry that does not name them is refused at the field.
"""

from __future__ import annotations

import copy
import re

import pytest

from apps.exports.renderers.netbox import iter_netbox_device_types, iter_netbox_devices
from engine.catalog import load_catalog
from engine.catalog.loader import read_shipped
from engine.errors import CatalogError
from engine.ifnames import build_interface_map
from engine.pipeline import compute_design
from engine.presets import load_preset
from engine.qos_stage import build_qos
from engine.spec import parse_spec


def switch_entry(*, vendor: str, os: dict[str, str], **changes) -> dict:
    """A 64 x 800G OSFP Ethernet switch entry (the SN5600's cages and speeds) with the given maker and OSes."""
    from engine.catalog import DATA_DIR

    base = copy.deepcopy(read_shipped(DATA_DIR / "switches.yaml")[0]["switches"]["sn5600"])
    base.pop("orderable", None)
    return {**base, "name": f"{vendor} 64 x 800G", "vendor": vendor, "os": os, **changes}


MISLEADING = {
    "tor-x": switch_entry(vendor="Arista", os={"eos": "ethernet-cage-lane"}),
    "arista-foo": switch_entry(vendor="Edgecore", os={"sonic": "ethernet-lane"}),
}


def design_with(switch: str):
    catalog = load_catalog({"switches": MISLEADING})
    spec = load_preset("hgx-roce-2su")
    spec["compute_fabric"]["switch"] = switch
    return compute_design(parse_spec(spec), catalog), catalog


def _split_leaf_port(result):
    """A compute leaf's second port of a 2-way split cage ("<cage>/2", 400G on an 8-lane OSFP)."""
    return next(
        (lk.a, lk.a_port, lk.speed_gbps)
        for lk in result.links
        if lk.network == "compute" and result.devices[lk.a].role == "leaf" and lk.a_port.endswith("/2")
    )


def test_a_switch_keyed_tor_x_that_is_arista_gets_eos_names_configs_and_maker():
    result, catalog = design_with("tor-x")
    names = build_interface_map(result, catalog)  # the design's policy says nvue: the model runs only EOS
    dev, port, speed = _split_leaf_port(result)
    cage = int(port.split("/")[0])
    assert names.platform(dev) == "eos" and names.name(dev, port, speed) == f"Ethernet{cage}/5"
    files = [name for name, _ in build_qos(result, catalog).files if name.startswith("qos/switches/")]
    assert files and all(name.endswith(".eos.cfg") for name in files)
    types = "".join(iter_netbox_device_types(result))
    assert 'manufacturer: "Arista"\nmodel: "TOR-X"' in types
    leaf_rows = [ln for ln in iter_netbox_devices(result) if ",TOR-X," in ln]
    assert leaf_rows and all(",Arista,TOR-X," in ln for ln in leaf_rows)


def test_a_switch_keyed_arista_foo_that_runs_sonic_gets_sonic_names_configs_and_its_maker():
    result, catalog = design_with("arista-foo")
    names = build_interface_map(result, catalog)
    dev, port, speed = _split_leaf_port(result)
    cage = int(port.split("/")[0])
    assert names.platform(dev) == "sonic" and names.name(dev, port, speed) == f"Ethernet{(cage - 1) * 8 + 4}"
    files = [name for name, _ in build_qos(result, catalog).files if name.startswith("qos/switches/")]
    assert files and all(name.endswith(".config_db.json") for name in files)
    types = "".join(iter_netbox_device_types(result))
    assert 'manufacturer: "Edgecore"\nmodel: "ARISTA-FOO"' in types and '"Arista"' not in types


def test_a_model_running_several_oses_takes_the_policy_s_choice():
    catalog = load_catalog(
        {"switches": {"tor-y": switch_entry(vendor="Acme", os={"sonic": "ethernet-lane", "nvue": "swp"})}}
    )
    sw = catalog.switches["tor-y"]
    assert sw.os_for("ethernet", "nvue") == "nvue" and sw.os_for("ethernet", "sonic") == "sonic"
    assert load_catalog().switches["qm9700"].os_for("infiniband", "nvue") == "ib"
    with pytest.raises(CatalogError, match=r"switches\.qm9700\.os: names no OS for a ethernet fabric"):
        load_catalog().switches["qm9700"].os_for("ethernet", "nvue")


@pytest.mark.parametrize(
    "changes, words",
    [
        ({"os": {"junos": "swp"}}, "switches.tor-z.os.junos: is not an OS the engine writes configs for"),
        ({"os": {"eos": "et-0/0/0"}}, "switches.tor-z.os.eos: 'et-0/0/0' is not an interface naming"),
        ({"os": {}}, "switches.tor-z.os: must name the OS the model runs"),
        ({"os": None}, "switches.tor-z.os: is required"),
        ({"vendor": None}, "switches.tor-z.vendor: is required"),
        ({"vendor": " "}, "switches.tor-z.vendor: is required"),
    ],
)
def test_an_entry_that_does_not_name_its_platform_is_refused_at_the_field(changes, words):
    entry = {**switch_entry(vendor="Acme", os={"eos": "ethernet-cage-lane"}), **changes}
    with pytest.raises(CatalogError) as exc:
        load_catalog({"switches": {"tor-z": entry}}, with_media=False)
    assert words in str(exc.value) and str(exc.value).startswith("custom parts: ")


def test_every_shipped_switch_names_its_maker_and_oses():
    for key, sw in load_catalog(with_media=False).switches.items():
        assert sw.vendor and sw.os, key


def test_no_consumer_reads_a_platform_from_a_model_key():
    """The guesses this replaced matched key prefixes (`arista`, `qm`, `sn`, ...); none is left in the sources."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    guess = re.compile(r"""\.startswith\(\(?\s*["'](arista|qm|q3|sn|dgx|ufm|gb)""")
    found = [
        str(p.relative_to(root))
        for top in ("engine", "apps")
        for p in (root / top).rglob("*.py")
        if guess.search(p.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_a_revision_stored_before_the_catalog_named_oses_reads_them_from_today_s_entry():
    """A stored revision keeps the catalog it was computed with; one stored before `os` and appliance vendors
    existed decodes them empty (engine/snapshot_codec.py) and takes them from today's entry of the same key."""
    import dataclasses

    shipped = load_catalog()
    old_arista = dataclasses.replace(shipped.switches["arista-7060x6-64pe"], os={})
    assert old_arista.os_for("ethernet", "nvue") == "eos" and old_arista.naming("eos") == "ethernet-cage-lane"
    old = dataclasses.replace(shipped, appliances={"ufm": dataclasses.replace(shipped.appliances["ufm"], vendor="")})
    assert old.vendor("ufm") == "NVIDIA"
    gone = dataclasses.replace(old_arista, key="retired-x")
    with pytest.raises(CatalogError, match=r"switches\.retired-x\.os: is required"):
        gone.os_for("ethernet", "nvue")
    with pytest.raises(CatalogError, match="'pdu' is not a server, switch or appliance"):
        shipped.vendor("pdu")


def test_the_oses_the_catalog_names_are_the_ones_the_qos_stage_writes():
    from engine.catalog import SWITCH_OSES
    from engine.qos.inputs import OSES

    assert SWITCH_OSES == OSES  # engine.qos.inputs imports nothing of the engine, so it keeps its own copy
