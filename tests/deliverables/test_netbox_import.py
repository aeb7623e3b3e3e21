"""The netbox/ export set loads into an empty NetBox: every file against NetBox's own import fields for the
chosen release series (data/netbox_import_fields.json, read from NetBox's import forms), every reference
resolving in import order, and every planned link traced through the files as NetBox traces it."""

from __future__ import annotations

import dataclasses
from collections import Counter, defaultdict

import pytest
import yaml

from deliverables import NETBOX_IMPORT_ORDER, write_deliverables
from deliverables.netbox import import_fields
from deliverables.registry import FOLDER_FILES

from .conftest import read_csv

BOTH_TIERS = {
    "tiers": {
        "node-leaf": {"medium": "single-mode", "cabling": "panels", "trunk_base": 8},
        "leaf-spine": {"medium": "single-mode", "cabling": "panels", "trunk_base": 8},
    }
}
SERIES = sorted(import_fields())


@pytest.fixture(scope="module")
def direct_h100():
    """The 4-SU H100 preset as shipped: direct cables, twin-port DACs carrying two links each."""
    from engine.pipeline import compute_design
    from engine.presets import load_preset
    from engine.spec import parse_spec

    return compute_design(parse_spec(load_preset("dgx-h100-superpod-4su")))


@pytest.fixture(scope="module")
def panels_h100():
    """The same with patch panels and trunks on both tiers (node-leaf and leaf-spine)."""
    from engine.pipeline import compute_design
    from engine.presets import load_preset
    from engine.spec import parse_spec

    d = load_preset("dgx-h100-superpod-4su")
    d["physical"] = BOTH_TIERS
    return compute_design(parse_spec(d))


def with_version(result, version):
    from engine.spec import ExportsSpec

    return dataclasses.replace(result, spec=dataclasses.replace(result.spec, exports=ExportsSpec(version)))


class NetBoxSet:
    """The files of one export, parsed."""

    def __init__(self, path):
        self.path = path
        nb = path / "netbox"
        self.csv = {f.name: read_csv(f) for f in nb.glob("*.csv")}
        with open(nb / "device-types.yaml", encoding="utf-8") as fh:
            self.types = [t for t in yaml.safe_load_all(fh) if t is not None]

    def header(self, name):
        with open(self.path / "netbox" / name, encoding="utf-8") as fh:
            return fh.readline().strip().split(",")


_SETS: dict = {}


def netbox_set(result, version, tmp_path_factory) -> NetBoxSet:
    key = (id(result), version)
    if key not in _SETS:
        path = tmp_path_factory.mktemp(f"netbox-{version}")
        write_deliverables(
            with_version(result, version),
            path,
            only=[k for k in FOLDER_FILES if k.startswith("netbox/")],
        )
        _SETS[key] = NetBoxSet(path)
    return _SETS[key]


@pytest.fixture(scope="module")
def two_halls():
    """tests/engine/test_site_halls.py's design (bench/physical_digest.py TWO_HALLS): pod 2 opens hall 2, its
    spine-core links run through panels and single-mode trunks to the MDA in hall 1."""
    from engine.pipeline import compute_design
    from engine.spec import parse_spec

    return compute_design(
        parse_spec(
            {
                "name": "two halls",
                "servers": {"model": "dgx-h100", "count": 256},
                "compute_fabric": {"technology": "infiniband", "switch": "qm9700", "scalable_unit": 32, "tiers": 3},
                "site": {"max_racks_per_hall": 50},
            }
        )
    )


@pytest.fixture(params=["direct_h100", "panels_h100", "two_halls"])
def design_name(request):
    return request.param


@pytest.fixture(params=SERIES)
def files(request, design_name, tmp_path_factory):
    result = request.getfixturevalue(design_name)
    return result, request.param, netbox_set(result, request.param, tmp_path_factory)


def check_row(spec: dict, row: dict, where: str):
    missing = [c for c in spec["required"] if row.get(c) in (None, "")]
    assert not missing, f"{where}: required by {spec['form']} but empty: {missing}"
    for col, allowed in spec["choices"].items():
        value = row.get(col)
        if value not in (None, ""):
            assert str(value) in allowed, f"{where}: {col}={value!r} is not one of {spec['form']}'s choices"


# ----- the import fields data ---------------------------------------------------------------------


def test_the_import_fields_name_the_netbox_release_they_were_read_from():
    for series, entry in import_fields().items():
        assert entry["netbox_release"].startswith(series + "."), series
        for name in (*NETBOX_IMPORT_ORDER, "interfaces.csv"):
            assert entry["files"][name]["form"].startswith("dcim.forms."), (series, name)


def test_front_ports_need_positions_from_4_5_on():
    data = import_fields()
    assert "positions" not in data["4.4"]["files"]["front-ports.csv"]["fields"]
    for series in SERIES:
        if series != "4.4":
            assert "positions" in data[series]["files"]["front-ports.csv"]["required"], series


def test_the_default_version_is_the_newest_series_known():
    from engine.spec import NETBOX_DEFAULT_VERSION, NETBOX_VERSIONS

    assert NETBOX_DEFAULT_VERSION == max(SERIES, key=lambda s: tuple(map(int, s.split("."))))
    assert set(NETBOX_VERSIONS) == set(SERIES)


# ----- each file against NetBox's import form -----------------------------------------------------


def test_the_export_holds_the_whole_import_order(files):
    result, _version, nb = files
    present = set(nb.csv) | {"device-types.yaml"}
    ports = {"rear-ports.csv", "front-ports.csv"}
    has_panels = any(r[1] == "trunk" for r in result.physical.cable_rows)
    has_halls = len({r.hall for r in result.racks}) > 1
    optional = (set() if has_panels else ports) | (set() if has_halls else {"locations.csv"})
    assert set(NETBOX_IMPORT_ORDER) - optional <= present
    assert not optional & present
    for name in NETBOX_IMPORT_ORDER:
        if name.endswith(".csv") and name not in optional:
            assert nb.csv[name], f"{name} has no rows"


def test_every_csv_has_only_import_columns_and_every_required_one(files):
    _result, version, nb = files
    spec_files = import_fields()[version]["files"]
    for name, rows in nb.csv.items():
        spec = spec_files[name]
        header = nb.header(name)
        unknown = [c for c in header if c not in spec["fields"]]
        assert not unknown, f"{name}: {unknown} are not columns of {spec['form']} (NetBox {version})"
        assert set(spec["required"]) <= set(header), (name, sorted(set(spec["required"]) - set(header)))
        for i, row in enumerate(rows, 2):
            check_row(spec, row, f"{name} line {i}")


def test_device_types_are_in_netbox_device_type_import_format(files):
    _result, version, nb = files
    spec = import_fields()[version]["files"]["device-types.yaml"]
    for t in nb.types:
        keys = set(t) - set(spec["sections"])
        assert keys <= set(spec["fields"]), sorted(keys - set(spec["fields"]))
        check_row(spec, t, f"device type {t.get('model')}")
        for section, entries in t.items():
            if section not in spec["sections"]:
                continue
            sec = spec["sections"][section]
            for e in entries:
                assert set(e) <= set(sec["fields"]), (section, sorted(set(e) - set(sec["fields"])))
                check_row(sec, e, f"{t['model']} {section} {e.get('name')}")


# ----- references resolve in import order -----------------------------------------------------------


def test_every_reference_resolves_in_import_order(files):
    _result, _version, nb = files
    sites = {r["name"] for r in nb.csv["sites.csv"]}
    locations: dict = {}  # (site, name) -> parent; NetBox looks a location up by name within its site
    for r in nb.csv.get("locations.csv", ()):
        assert r["site"] in sites and (r["site"], r["name"]) not in locations, r
        assert not r["parent"] or (r["site"], r["parent"]) in locations, r  # a parent comes before its children
        locations[(r["site"], r["name"])] = r["parent"]
    makers = {r["name"] for r in nb.csv["manufacturers.csv"]}
    roles = {r["name"] for r in nb.csv["device-roles.csv"]}
    racks = {r["name"]: r for r in nb.csv["racks.csv"]}
    assert all(r["site"] in sites for r in racks.values())
    assert all((r["site"], r["location"]) in locations for r in racks.values() if r.get("location"))
    types = {}
    for t in nb.types:
        assert t["manufacturer"] in makers
        assert t["model"] not in types, f"device type {t['model']} twice"
        types[t["model"]] = t
    occupied: dict = defaultdict(set)
    for d in nb.csv["devices.csv"]:
        assert d["role"] in roles and d["site"] in sites, d["name"]
        t = types[d["device_type"]]
        assert t["manufacturer"] == d["manufacturer"], d["name"]  # NetBox finds the type within its maker
        if d["rack"]:
            rack = racks[d["rack"]]
            assert rack["site"] == d["site"]
            if d["position"]:
                lo, height = int(d["position"]), int(t["u_height"])
                assert 1 <= lo and lo + height - 1 <= int(rack["u_height"]), d["name"]
                units = set(range(lo, lo + height))
                assert not units & occupied[d["rack"]], f"{d['name']} overlaps another device in {d['rack']}"
                occupied[d["rack"]] |= units
    assert len({d["name"] for d in nb.csv["devices.csv"]}) == len(nb.csv["devices.csv"])


def test_device_type_heights_are_the_catalog_heights(files):
    result, _version, nb = files
    heights = {t["model"]: t["u_height"] for t in nb.types}
    for d in result.devices:
        assert heights[d.model.upper()] == d.rack_units, d.model
    for p in result.physical.panel_places:
        assert heights[p.panel_sku.upper()] == p.rack_units


def test_racks_are_as_tall_as_the_layout(files):
    result, _version, nb = files
    assert {int(r["u_height"]) for r in nb.csv["racks.csv"]} == {result.spec.layout.rack_units}
    assert len(nb.csv["racks.csv"]) == len(result.racks)


# ----- every planned link, traced as NetBox traces it ----------------------------------------------


class Trace:
    def __init__(self, nb: NetBoxSet):
        dev_type = {d["name"]: d["device_type"] for d in nb.csv["devices.csv"]}
        templates = {t["model"]: {i["name"] for i in t.get("interfaces", ())} for t in nb.types}
        self.interfaces = {(d, n) for d, m in dev_type.items() for n in templates[m]}
        self.rear = {(r["device"], r["name"]): int(r["positions"]) for r in nb.csv.get("rear-ports.csv", ())}
        self.front = {}
        self.front_at = {}
        for f in nb.csv.get("front-ports.csv", ()):
            if "rear_port" not in f:  # NetBox 4.5: no mapping columns in its front-port import
                self.front[(f["device"], f["name"])] = None
                continue
            rp = (f["device"], f["rear_port"])
            pos = int(f["rear_port_position"] or 1)
            assert rp in self.rear and 1 <= pos <= self.rear[rp], f
            assert (rp, pos) not in self.front_at, f"{rp} position {pos} mapped twice"
            self.front[(f["device"], f["name"])] = (rp, pos)
            self.front_at[(rp, pos)] = (f["device"], f["name"])
        self.cable = {}
        for c in nb.csv["cables.csv"]:
            a = (c["side_a_device"], c["side_a_type"], c["side_a_name"])
            b = (c["side_b_device"], c["side_b_type"], c["side_b_name"])
            for x in (a, b):
                assert x not in self.cable, f"{x} is already connected (cable {c['label']})"
                self.exists(x)
            self.cable[a] = (b, c["label"])
            self.cable[b] = (a, c["label"])

    def exists(self, term):
        dev, kind, name = term
        ok = {
            "dcim.interface": (dev, name) in self.interfaces,
            "dcim.frontport": (dev, name) in self.front,
            "dcim.rearport": (dev, name) in self.rear,
        }[kind]
        assert ok, f"{term} does not exist in NetBox after the earlier files"

    def path(self, dev: str, port: str):
        """(far end, labels of the cables crossed) from one interface, through front/rear port mappings."""
        term, labels = (dev, "dcim.interface", port), []
        while True:
            far, label = self.cable[term]
            labels.append(label)
            if far[1] == "dcim.interface":
                return far, labels
            if far[1] == "dcim.frontport":
                rp, pos = self.front[(far[0], far[2])]
                (d2, _, rp2), label = self.cable[(rp[0], "dcim.rearport", rp[1])]
                labels.append(label)
                fd, fname = self.front_at[((d2, rp2), pos)]
                term = (fd, "dcim.frontport", fname)
            else:
                raise AssertionError(f"a path reached {far} without a front port")


def test_every_planned_link_is_cabled_and_traced_end_to_end(files):
    result, version, nb = files
    if version == "4.5" and "front-ports.csv" in nb.csv:
        pytest.skip("NetBox 4.5's front-port import has no rear-port mapping columns (docs/deliverables.md)")
    trace = Trace(nb)
    devs, ph = result.devices, result.physical
    assert all(ph.cables[i] for i in range(len(result.links))), "a link without a cable in this design"
    for i, lk in enumerate(result.links):
        far, labels = trace.path(devs[lk.a].name, lk.a_port)
        assert far == (devs[lk.b].name, "dcim.interface", lk.b_port), f"L{lk.id:06d}"
        assert labels == [f"C{c:06d}" for c in ph.cables[i]], f"L{lk.id:06d}"


def test_a_cable_with_several_links_is_one_netbox_cable_per_link(files):
    """Twin-port cables and breakouts: a row per link. A trunk: a row per pair of panels its links cross
    (NetBox's CSV import takes one termination per side), so one row unless its links spread over panels."""
    result, _version, nb = files
    rows = Counter(c["label"] for c in nb.csv["cables.csv"])
    panel_at: dict = defaultdict(dict)  # link id -> {"a"/"b": (rack, unit) of the panel its cord meets}
    for _cid, kind, _p, _l, a, b, lids, *_ in result.physical.cable_rows:
        if kind != "trunk":
            if b[0] == "panel":
                panel_at[lids[0]]["a"] = b[1:3]
            if a[0] == "panel":
                panel_at[lids[0]]["b"] = a[1:3]
    for cid, kind, _p, _l, _a, _b, lids, *_ in result.physical.cable_rows:
        want = len({(panel_at[lid]["a"], panel_at[lid]["b"]) for lid in lids}) if kind == "trunk" else len(lids)
        assert rows[f"C{cid:06d}"] == want, cid
    assert set(rows) == {f"C{r[0]:06d}" for r in result.physical.cable_rows}


def test_a_design_over_two_halls_has_a_location_per_hall_and_the_mda_with_every_rack_in_its_own(
    two_halls, tmp_path_factory
):
    for version in SERIES:
        nb = netbox_set(two_halls, version, tmp_path_factory)
        locations = {(r["name"], r["parent"]) for r in nb.csv["locations.csv"]}
        assert locations == {("Hall 1", ""), ("Hall 2", ""), ("MDA", "Hall 1")}, version
        rack_location = {r["name"]: r["location"] for r in nb.csv["racks.csv"]}
        for rack in two_halls.racks:
            want = "MDA" if rack.kind == "core" else f"Hall {rack.hall + 1}"
            assert rack_location[rack.id] == want, (version, rack.id)
        # the inter-hall trunks land on panels in both halls' racks
        hall_of = {r.id: r.hall for r in two_halls.racks}
        panel_rack = {d["name"]: d["rack"] for d in nb.csv["devices.csv"] if d["role"] == "patch-panel"}
        halls_of_trunk = [
            {hall_of[panel_rack[c["side_a_device"]]], hall_of[panel_rack[c["side_b_device"]]]}
            for c in nb.csv["cables.csv"]
            if c["side_a_type"] == "dcim.rearport"
        ]
        assert {0, 1} in halls_of_trunk


def test_a_one_hall_design_has_no_locations_and_its_racks_keep_their_columns(panels_h100, tmp_path_factory):
    from deliverables.netbox import RACK_COLUMNS

    for version in SERIES:
        nb = netbox_set(panels_h100, version, tmp_path_factory)
        assert "locations.csv" not in nb.csv
        assert tuple(nb.header("racks.csv")) == RACK_COLUMNS


def test_the_direct_h100_preset_has_twin_port_cables_and_the_panel_design_trunks(direct_h100, panels_h100):
    # Guards the two fixtures: each exercises what its tests are about.
    assert any(len(r[6]) > 1 and r[1] != "trunk" for r in direct_h100.physical.cable_rows)
    kinds = {r[7] for r in panels_h100.physical.cable_rows if r[1] == "trunk"}
    assert {"node-leaf", "leaf-spine"} <= kinds
    per_panel = Counter((e[1], e[2]) for r in panels_h100.physical.cable_rows if r[1] == "trunk" for e in r[4:6])
    assert max(per_panel.values()) > 1  # several trunks on one panel: one rear port each


def test_front_ports_carry_positions_from_4_5_on_and_their_mapping_but_in_4_5(panels_h100, tmp_path_factory):
    for version in SERIES:
        header = netbox_set(panels_h100, version, tmp_path_factory).header("front-ports.csv")
        assert ("positions" in header) == (version != "4.4"), version
        assert ("rear_port" in header) == (version != "4.5"), version
