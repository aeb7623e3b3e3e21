"""NetBox import files: everything an empty NetBox needs to hold the design, cabling traced end to end.

Written for the NetBox release series of the design's ``exports.netbox_version`` (engine/spec.py); the
import fields of each series, read from NetBox's own import forms, are in data/netbox_import_fields.json
(scripts/netbox_import_fields.py). Import order (IMPORT_ORDER, docs/deliverables.md):

  sites.csv, locations.csv, manufacturers.csv, device-roles.csv, racks.csv, device-types.yaml (NetBox's
  device-type import format, with heights and interface templates), devices.csv, rear-ports.csv,
  front-ports.csv, cables.csv.

* Halls (docs/site-model.md): a design over several halls has a location per hall ("Hall 1", ...) and the
  main distribution area ("MDA", inside Hall 1: the core/services rows, where the inter-hall trunks land),
  and racks.csv gains a `location` column putting every rack in its own; devices take their rack's location
  (NetBox's Device.save). A one-hall design has no locations.csv and racks.csv keeps its columns, so its
  files are what they were.

* Interfaces come from the device types' templates (every port the design uses on that model), so
  interfaces.csv is not in the order: it is for a NetBox whose device types already exist without them.
* Patch panels: one rear port per trunk landing on the panel (T1, T2, ... in trunk order; per panel pair
  when a trunk's links spread over several panels) with a position per link it carries there; one front
  port per cord, mapped to its link's position on that rear port. Both ends of a trunk use the same
  position for a link, so NetBox traces every link interface - cord - front port - trunk - front port -
  cord - interface.
* A cable carrying several links (twin-port DAC/AOC, breakouts) is one NetBox cable per link, each
  labelled with the physical cable's id: NetBox's CSV cable import takes one termination per side.

Neutralized like every CSV (engine/csvcells.py). NetBox would store a leading ' as part of a name, but the
names come from the design (generated device names, racks named after layout.site, which the spec restricts
to letters, digits, - and _) and never begin with a formula character; only free text can (a site's
description is the design name), and there a ' is the lesser harm.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from engine.result import DesignResult

from ._csv import csv_lines
from ._view import DesignView

IMPORT_FIELDS_FILE = Path(__file__).parent / "data" / "netbox_import_fields.json"
DEFAULT_VERSION = "4.6"  # engine.spec.NETBOX_DEFAULT_VERSION (the renderers import no spec constants)

# The order an empty NetBox takes the files in (each file refers only to objects of the files before it).
IMPORT_ORDER = (
    "sites.csv",
    "locations.csv",  # only for a design over several halls
    "manufacturers.csv",
    "device-roles.csv",
    "racks.csv",
    "device-types.yaml",
    "devices.csv",
    "rear-ports.csv",
    "front-ports.csv",
    "cables.csv",
)

SITE_COLUMNS = ("name", "slug", "status", "description")
LOCATION_COLUMNS = ("site", "parent", "name", "slug", "status", "description")
MANUFACTURER_COLUMNS = ("name", "slug")
ROLE_COLUMNS = ("name", "slug", "color", "description")
RACK_COLUMNS = ("site", "name", "status", "width", "u_height", "description")
RACK_COLUMNS_HALLS = ("site", "location", "name", "status", "width", "u_height", "description")
MDA_LOCATION = "MDA"
MDA_RACK_KINDS = ("core", "services")  # the rows engine/placement.py stacks at the front of hall 1
NETBOX_DEVICE_COLUMNS = (
    "name",
    "role",
    "manufacturer",
    "device_type",
    "status",
    "site",
    "rack",
    "position",
    "face",
    "description",
)
NETBOX_INTERFACE_COLUMNS = ("device", "name", "type", "speed", "enabled", "description")
NETBOX_CABLE_COLUMNS = (
    "side_a_device",
    "side_a_type",
    "side_a_name",
    "side_b_device",
    "side_b_type",
    "side_b_name",
    "type",
    "status",
    "label",
    "length",
    "length_unit",
    "description",
)
NETBOX_REAR_PORT_COLUMNS = ("device", "name", "type", "positions", "description")
# NetBox 4.5 gave front ports positions of their own (required) and moved the rear-port mapping out of the
# front-port import (4.5.x has no mapping columns); 4.6 takes rear_port / rear_port_position again.
NETBOX_PORT_COLUMNS_44 = ("device", "name", "type", "rear_port", "rear_port_position")
NETBOX_PORT_COLUMNS_45 = ("device", "name", "type", "positions")
NETBOX_PORT_COLUMNS = ("device", "name", "type", "positions", "rear_port", "rear_port_position")

ROLE_SLUG = {
    "server": "server",
    "leaf": "leaf-switch",
    "spine": "spine-switch",
    "core": "core-switch",
    "oob": "oob-switch",
    "oob-agg": "oob-aggregation-switch",
    "ufm": "fabric-manager",
    "storage-appliance": "storage",
    "mgmt-server": "management-server",
    "pdu": "pdu",
}
PANEL_ROLE = "patch-panel"
# Role colours are NetBox's own defaults (ColorChoices.COLOR_GREY): a role needs one; nothing here is a figure.
ROLE_COLOR = "9e9e9e"
# The maker NetBox files a part under when the design places it without a catalog entry (generic PDUs, a panel
# without a part); every catalog model's maker is its entry's `vendor` (_manufacturers).
PANEL_MANUFACTURER = GENERIC_MANUFACTURER = "Generic"
PANEL_MODEL = "PATCH-PANEL"  # a panel placed without a catalog part (never in a computed design)


@cache
def import_fields() -> dict:
    """{series: {"netbox_release", "files": {file: {"form", "fields", "required", "choices", ...}}}}."""
    return json.loads(IMPORT_FIELDS_FILE.read_text(encoding="utf-8"))


def netbox_version(result: DesignResult | DesignView) -> str:
    spec = getattr(result, "spec", None)
    v = getattr(getattr(spec, "exports", None), "netbox_version", None) or DEFAULT_VERSION
    if v not in import_fields():
        raise ValueError(
            f"exports.netbox_version: {v!r} is not a NetBox series these files know "
            f"({', '.join(sorted(import_fields()))})"
        )
    return v


def _choices(version: str, file: str, column: str) -> set:
    return set(import_fields()[version]["files"][file]["choices"].get(column, ()))


def _view(result: DesignResult | DesignView) -> DesignView:
    return result if isinstance(result, DesignView) else DesignView(result)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9_]+", "-", text.lower()).strip("-") or "x"


def _manufacturers(v: DesignView) -> dict[str, str]:
    """device model -> its maker: the `vendor` of its entry in the catalog the design was computed with (an
    Arista switch is Arista whatever its key); generic PDUs, which no entry describes, are Generic. A model the
    catalog does not hold is an error, never a guess from its name."""
    catalog = getattr(v.result, "catalog", None)
    out: dict[str, str] = {}
    for d in v.devices:
        if d.model in out:
            continue
        if d.role == "pdu":
            out[d.model] = GENERIC_MANUFACTURER
        elif catalog is None:
            raise ValueError("NetBox export: the design's catalog is not stored with it, and its makers come from it")
        else:
            out[d.model] = catalog.vendor(d.model)
    return out


def _panel_name(v: DesignView, ri: int, u: int) -> str:
    return f"PP-{v.rack_grid[ri]}-U{u:02d}"


def _panels(v: DesignView) -> dict:
    """(rack index, lowest unit) -> (device type model, rack units) of every patch panel in the design."""
    out = {}
    for p in getattr(v.ph, "panel_places", None) or ():
        out[(p.rack, p.u)] = ((p.panel_sku or PANEL_MODEL).upper(), p.rack_units)
    for row in v.ph.cable_rows:  # a stored result without panel places still names its panels
        for e in (row[4], row[5]):
            if e[0] == "panel":
                out.setdefault((e[1], e[2]), (PANEL_MODEL, 1))
    return out


def _device_types(v: DesignView) -> dict:
    """device type model -> (manufacturer, rack units); the catalog's heights."""
    out: dict[str, tuple[str, int]] = {}
    makers = _manufacturers(v)
    for d in v.devices:
        out.setdefault(d.model.upper(), (makers[d.model], d.rack_units))
    for model, ru in _panels(v).values():
        out.setdefault(model, (PANEL_MANUFACTURER, ru))
    return out


# ----- prerequisites ------------------------------------------------------------------------------


def iter_netbox_sites(result: DesignResult | DesignView) -> Iterator[str]:
    v = _view(result)
    sites = dict.fromkeys(v.rack_site)
    sites.setdefault(v.result.spec.layout.site)
    yield from csv_lines(SITE_COLUMNS, ((s, _slug(s), "planned", f"{v.result.spec.name}") for s in sites))


def has_halls(result: DesignResult | DesignView) -> bool:
    """More than one data hall: the NetBox files then carry a location per hall."""
    return _view(result).halls > 1


def _hall_name(hall: int) -> str:
    return f"Hall {hall + 1}"  # 0-based in the engine, numbered from 1 on the floor (docs/site-model.md)


def rack_location(v: DesignView, ri: int) -> str:
    """The NetBox location of a rack in a design over several halls: its hall, or the MDA inside hall 1."""
    if v.rack_hall[ri] == 0 and v.racks[ri].kind in MDA_RACK_KINDS:
        return MDA_LOCATION
    return _hall_name(v.rack_hall[ri])


def iter_netbox_locations(result: DesignResult | DesignView) -> Iterator[str]:
    """One location per hall of every site, and the MDA inside Hall 1 (a child location: NetBox nests them);
    header only for a one-hall design (the CLI does not write it then)."""
    v = _view(result)

    def rows() -> Iterator[tuple]:
        if v.halls < 2:
            return
        name = v.result.spec.name
        seen: dict = {}
        for ri in v.rack_order:
            seen.setdefault((v.rack_site[ri], v.rack_hall[ri]), set()).add(rack_location(v, ri))
        for (site, hall), names in sorted(seen.items()):
            hall_name = _hall_name(hall)
            yield (site, "", hall_name, _slug(hall_name), "planned", f"{name}: data hall {hall + 1}")
            if MDA_LOCATION in names:
                yield (site, hall_name, MDA_LOCATION, _slug(MDA_LOCATION), "planned", f"{name}: main distribution area")

    yield from csv_lines(LOCATION_COLUMNS, rows())


def iter_netbox_manufacturers(result: DesignResult | DesignView) -> Iterator[str]:
    v = _view(result)
    names = sorted({m for m, _ in _device_types(v).values()})
    yield from csv_lines(MANUFACTURER_COLUMNS, ((m, _slug(m)) for m in names))


def _roles(v: DesignView) -> list[tuple[str, str]]:
    roles = {ROLE_SLUG.get(d.role, d.role): d.role for d in v.devices}
    if _panels(v):
        roles[PANEL_ROLE] = "patch panel"
    return sorted(roles.items())


def iter_netbox_device_roles(result: DesignResult | DesignView) -> Iterator[str]:
    v = _view(result)
    yield from csv_lines(ROLE_COLUMNS, ((name, _slug(name), ROLE_COLOR, what) for name, what in _roles(v)))


def iter_netbox_racks(result: DesignResult | DesignView) -> Iterator[str]:
    """Every rack, 19-inch, as tall as layout.rack_units (the units the design places devices in); over several
    halls, in its hall's location (or the MDA's)."""
    v = _view(result)
    height = v.result.spec.layout.rack_units
    halls = v.halls > 1

    def rows() -> Iterator[tuple]:
        for ri in v.rack_order:
            r = v.racks[ri]
            where = (rack_location(v, ri),) if halls else ()
            yield (v.rack_site[ri], *where, r.id, "planned", 19, height, f"{r.kind} rack, row {r.row_name}")

    yield from csv_lines(RACK_COLUMNS_HALLS if halls else RACK_COLUMNS, rows())


def _port_types(v: DesignView, version: str) -> dict:
    """device type model -> {interface name: NetBox interface type}, every port the design uses on that model."""
    devs = v.devices
    known = _choices(version, "interfaces.csv", "type")
    out: dict = defaultdict(dict)
    for i, lk in enumerate(v.links):
        t = _if_type(lk, v, v.ph.choices[i], known)
        for d, p in ((lk.a, lk.a_port), (lk.b, lk.b_port)):
            out[devs[d].model.upper()].setdefault(p, t)
    return out


def _yaml_str(s: object) -> str:
    return json.dumps(str(s))  # a JSON string is a YAML double-quoted scalar: never read as a number or a bool


def iter_netbox_device_types(result: DesignResult | DesignView) -> Iterator[str]:
    """device-types.yaml: NetBox's device-type import format, one YAML document per type, with the catalog's
    height and an interface template per port the design uses on that model (sorted naturally)."""
    v = _view(result)
    version = netbox_version(v.result)
    ports = _port_types(v, version)
    for model, (manufacturer, ru) in sorted(_device_types(v).items()):
        yield "---\n"
        yield f"manufacturer: {_yaml_str(manufacturer)}\nmodel: {_yaml_str(model)}\nslug: {_yaml_str(_slug(model))}\n"
        yield f"u_height: {ru}\n"
        names = sorted(ports.get(model, {}), key=_natural)
        if names:
            yield "interfaces:\n"
            for n in names:
                yield f"  - name: {_yaml_str(n)}\n    type: {_yaml_str(ports[model][n])}\n"


def _natural(s: str) -> list[tuple[int, int, str]]:
    return [(0, int(x), "") if x.isdigit() else (1, 0, x) for x in re.split(r"(\d+)", str(s)) if x]


# ----- devices and interfaces ---------------------------------------------------------------------


def iter_netbox_devices(result: DesignResult | DesignView) -> Iterator[str]:
    v = _view(result)
    racks = v.racks
    makers = _manufacturers(v)

    def rows() -> Iterator[tuple]:
        for d, ri, u in zip(v.devices, v.dev_rack, v.dev_u):
            placed = ri >= 0 and u >= 1 and d.rack_units > 0
            yield (
                d.name,
                ROLE_SLUG.get(d.role, d.role),
                makers[d.model],
                d.model.upper(),
                "planned",
                v.rack_site[ri] if ri >= 0 else v.result.spec.layout.site,
                racks[ri].id if ri >= 0 else "",
                u if placed else "",
                "front" if placed else "",
                d.network,
            )
        for (ri, u), (model, _ru) in sorted(_panels(v).items()):
            yield (
                _panel_name(v, ri, u),
                PANEL_ROLE,
                PANEL_MANUFACTURER,
                model,
                "planned",
                v.rack_site[ri],
                racks[ri].id,
                u,
                "front",
                "patch panel",
            )

    yield from csv_lines(NETBOX_DEVICE_COLUMNS, rows())


def _if_type(lk: Any, v: DesignView, choice: Any, known: set) -> str:
    speed = lk.speed_gbps
    if speed <= 1 or (choice is not None and choice.medium == "copper-rj45"):
        t = "1000base-t"
    elif _technology(v, lk.network) == "infiniband":
        t = {100: "infiniband-edr", 200: "infiniband-hdr", 400: "infiniband-ndr", 800: "infiniband-xdr"}.get(
            speed, "other"
        )
    else:
        t = {
            10: "10gbase-x-sfpp",
            25: "25gbase-x-sfp28",
            100: "100gbase-x-qsfp28",
            200: "200gbase-x-qsfp56",
            400: "400gbase-x-osfp",
            800: "800gbase-x-osfp",
        }.get(speed, "other")
    return t if not known or t in known else "other"


def _technology(v: DesignView, network: str) -> str:
    spec = v.result.spec
    if network == "compute":
        return spec.compute.technology
    if network == "storage":
        return spec.storage.technology
    return "ethernet"


def iter_netbox_interfaces(result: DesignResult | DesignView) -> Iterator[str]:
    """Every interface a link ends on. Not in IMPORT_ORDER: device-types.yaml's templates create them; this file
    is for a NetBox whose device types already exist without these interfaces."""
    v = _view(result)
    devs = v.devices
    known = _choices(netbox_version(v.result), "interfaces.csv", "type")

    def rows() -> Iterator[tuple]:
        seen = set()
        for i, lk in enumerate(v.links):
            t = _if_type(lk, v, v.ph.choices[i], known)
            for d, p in ((lk.a, lk.a_port), (lk.b, lk.b_port)):
                key = (d, p)
                if key in seen:
                    continue
                seen.add(key)
                yield (
                    devs[d].name,
                    p,
                    t,
                    lk.speed_gbps * 1000 * 1000 if lk.speed_gbps else "",
                    "true",
                    f"{lk.network} {lk.tier}",
                )

    yield from csv_lines(NETBOX_INTERFACE_COLUMNS, rows())


# ----- panels -------------------------------------------------------------------------------------


class _PanelPorts:
    """The rear and front ports of every patch panel, and the NetBox cables of every trunk.

    A trunk's links may land on more than one panel at an end (a panel fills up), and NetBox's CSV cable
    import takes one termination per side: so a trunk is one NetBox cable per pair of panels its links
    cross (its "legs", in link order, labelled with the trunk's id), and each leg has a rear port of its
    own on both panels (T1, T2, ... per panel, in trunk order) with a position per link it carries.

    rear[(ri, u)] = [(rear port name, positions, trunk cable id)]; legs[trunk cable id] = [((ri, u) at A,
    rear name at A, (ri, u) at B, rear name at B, link count)]; front[(ri, u, front port)] = (rear port
    name, position): a link has the same position on both rear ports of its leg, so NetBox traces it.
    """

    def __init__(self, v: DesignView):
        self.rear: dict = defaultdict(list)
        self.legs: dict = defaultdict(list)
        self.front: dict = {}
        at_a: dict = {}  # link id -> (ri, u, front port) where its A-side cord meets a panel
        at_b: dict = {}
        for _cid, kind, _part, _len, a, b, lids, _tier, _net in v.ph.cable_rows:
            if kind == "trunk":
                continue
            if b[0] == "panel":
                at_a[lids[0]] = (b[1], b[2], str(b[3]))
            if a[0] == "panel":
                at_b[lids[0]] = (a[1], a[2], str(a[3]))
        for cid, kind, _part, _len, _a, _b, lids, _tier, _net in v.ph.cable_rows:
            if kind != "trunk":
                continue
            groups: dict = {}
            for lid in lids:
                pa, pb = at_a.get(lid), at_b.get(lid)
                if pa is None or pb is None:
                    raise ValueError(f"trunk C{cid:06d} carries link {lid}, which has no cord to a panel at each end")
                groups.setdefault((pa[:2], pb[:2]), []).append((pa, pb))
            for (panel_a, panel_b), members in groups.items():
                ra = self._rear_port(panel_a, len(members), cid)
                rb = self._rear_port(panel_b, len(members), cid)
                self.legs[cid].append((panel_a, ra, panel_b, rb, len(members)))
                for pos, (pa, pb) in enumerate(members, 1):
                    self.front[pa] = (ra, pos)
                    self.front[pb] = (rb, pos)

    def _rear_port(self, panel: tuple, positions: int, cid: int) -> str:
        name = f"T{len(self.rear[panel]) + 1}"
        self.rear[panel].append((name, positions, cid))
        return name

    def __bool__(self) -> bool:
        return bool(self.rear)


def has_panels(result: DesignResult | DesignView) -> bool:
    v = _view(result)
    return any(e[0] == "panel" for row in v.ph.cable_rows for e in (row[4], row[5]))


def iter_netbox_rear_ports(result: DesignResult | DesignView) -> Iterator[str]:
    """One rear port per trunk landing on a panel, with a position per link the trunk carries."""
    v = _view(result)
    pp = _PanelPorts(v)

    def rows() -> Iterator[tuple]:
        for (ri, u), ports in sorted(pp.rear.items()):
            for name, positions, cid in ports:
                yield (_panel_name(v, ri, u), name, "mpo", positions, f"trunk C{cid:06d}")

    yield from csv_lines(NETBOX_REAR_PORT_COLUMNS, rows())


def iter_netbox_front_ports(result: DesignResult | DesignView) -> Iterator[str]:
    """One front port per cord, mapped to its link's position on its trunk's rear port."""
    v = _view(result)
    pp = _PanelPorts(v)
    version = netbox_version(v.result)
    columns = {"4.4": NETBOX_PORT_COLUMNS_44, "4.5": NETBOX_PORT_COLUMNS_45}.get(version, NETBOX_PORT_COLUMNS)

    def rows() -> Iterator[tuple]:
        for (ri, u, port), (rear, pos) in sorted(
            pp.front.items(), key=lambda kv: (kv[0][0], kv[0][1], _natural(kv[0][2]))
        ):
            cells = {
                "device": _panel_name(v, ri, u),
                "name": port,
                "type": "mpo",
                "positions": 1,
                "rear_port": rear,
                "rear_port_position": pos,
            }
            yield tuple(cells[c] for c in columns)

    yield from csv_lines(columns, rows())


# ----- cables -------------------------------------------------------------------------------------


def _cable_type(medium: str, fiber_type: str) -> str:
    if medium == "fiber-sm":
        return "smf-os2"
    if medium == "fiber-mm":
        return {"om3": "mmf-om3", "om4": "mmf-om4", "om5": "mmf-om5"}.get(fiber_type or "", "mmf")
    return {"dac": "dac-passive", "acc": "dac-active", "aoc": "aoc", "copper-rj45": "cat6a"}.get(medium, "")


def iter_netbox_cables(result: DesignResult | DesignView) -> Iterator[str]:
    """One row per NetBox cable, labelled with the physical cable's id (C000123). Device ends are
    dcim.interface; a cord's panel end is the panel's dcim.frontport; a trunk runs dcim.rearport to
    dcim.rearport. A cable carrying several links is one row per link (same label), each on its own ports."""
    v = _view(result)
    devs = v.devices
    ph = v.ph
    pp = _PanelPorts(v)
    known = _choices(netbox_version(v.result), "cables.csv", "type")

    def end(e: tuple) -> tuple[str, str, str]:
        if e[0] == "panel":
            return (_panel_name(v, e[1], e[2]), "dcim.frontport", str(e[3]))
        return (devs[e[0]].name, "dcim.interface", e[1])

    def rows() -> Iterator[tuple]:
        for cid, kind, part, length, a, b, lids, tier, network in ph.cable_rows:
            ch = ph.choices[v.link_index(lids[0])]
            t = _cable_type(ch.medium if ch else "", getattr(ch, "fiber_type", "") if ch else "")
            t = t if not known or t in known or not t else ""
            tail = (t, "planned", f"C{cid:06d}", length, "m")
            if kind == "trunk":
                legs = pp.legs[cid]
                for n, (pa, ra, pb, rb, count) in enumerate(legs, 1):
                    leg = f", leg {n} of {len(legs)}" if len(legs) > 1 else ""
                    yield (
                        (
                            _panel_name(v, *pa),
                            "dcim.rearport",
                            ra,
                            _panel_name(v, *pb),
                            "dcim.rearport",
                            rb,
                            *tail,
                            f"{part} {network} {tier} trunk of {len(lids)} links{leg}: {count} here",
                        )
                    )
            elif len(lids) == 1:
                yield end(a) + end(b) + tail + (f"{part} {network} {tier} L{lids[0]:06d}",)
            else:
                for n, lid in enumerate(lids, 1):
                    lk = v.links[v.link_index(lid)]
                    yield (
                        end((lk.a, lk.a_port))
                        + end((lk.b, lk.b_port))
                        + tail
                        + (f"{part} {network} {tier} L{lid:06d} (link {n} of {len(lids)})",)
                    )

    yield from csv_lines(NETBOX_CABLE_COLUMNS, rows())
