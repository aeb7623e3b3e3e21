"""Rows, racks and rack units.

Floor plan (one SU per row unless `racks_per_row` says otherwise):

    row A..  services/core rows: core switches, storage and in-band switches, UFM, appliances
    per pod: a spine row, then one row per SU:  [srv][srv]...[srv][net]   (end-of-row)
                                                 [srv]..[net]..[srv]       (middle-of-row)

Devices stack from U1 upwards; the top units of a rack stay free for the OOB switch (and the
patch panels of structured cabling) when those are in the design.

Halls (docs/site-model.md): the services/core rows are the main distribution area (MDA) at the front
of hall 1; pods follow in order, each whole in one hall, and a pod that would take a hall past
`site.max_racks_per_hall` opens the next hall. Row letters run on across halls (rack ids stay unique);
a rack's y is measured from the front of its own hall, where the hall's pathway to the MDA enters.

    hall 1: [MDA rows][pod 1][pod 2]..   hall 2: [pod k][pod k+1]..   ...
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from math import ceil, floor
from typing import Any, NamedTuple

from .catalog import ServerModel
from .errors import SpecError
from .model import Device, Place, Rack
from .spec import LayoutSpec, SiteSpec

U_M = 0.04445  # one rack unit in metres (EIA-310)
_new = tuple.__new__


_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LETTERS_NO_IO = _LETTERS.replace("I", "").replace("O", "")


def row_name(i: int, skip_io: bool = False) -> str:
    """0 -> A, 25 -> Z, 26 -> AA: spreadsheet-style row letters, as floor grids use. skip_io (layout.row_letters
    "skip-io"): the same over the 24 letters without I and O, which read as 1 and 0 on labels (0 -> A, 7 -> H,
    8 -> J, 23 -> Z, 24 -> AA)."""
    letters = _LETTERS_NO_IO if skip_io else _LETTERS
    n = len(letters)
    name = ""
    i += 1
    while i:
        i, r = divmod(i - 1, n)
        name = letters[r] + name
    return name


def servers_per_rack(layout: LayoutSpec, server: ServerModel, reserved_u: int) -> int:
    if server.rack_scale:
        if server.rack_units > layout.rack_units:
            raise SpecError.at(
                "layout.rack_units",
                f"a {server.key} is a {server.rack_units}U rack-scale system; "
                f"racks of {layout.rack_units}U cannot hold it",
            )
        return 1
    by_space = (layout.rack_units - reserved_u) // server.rack_units
    if layout.servers_per_rack is not None:
        if layout.servers_per_rack > by_space:
            raise SpecError.at(
                "layout.servers_per_rack",
                f"{layout.servers_per_rack} x {server.rack_units}U {server.key} do not fit in "
                f"{layout.rack_units - reserved_u} usable rack units",
            )
        return layout.servers_per_rack
    n = min(server.default_per_rack, by_space)
    if layout.rack_power_kw is not None and server.power_kw:
        # The epsilon keeps 42.9 / 14.3 (= 2.9999999999999996 in floats) at 3.
        n = min(n, floor(layout.rack_power_kw / server.power_kw + 1e-9))
    if n < 1:
        raise SpecError.at(
            "layout.rack_power_kw" if layout.rack_power_kw else "layout.rack_units",
            f"not even one {server.key} fits a rack with these limits",
        )
    return n


class RackRecord(NamedTuple):
    """A Rack's fields as plan_floor places it: a tuple built in C (tuple.__new__), where a Rack (a frozen dataclass)
    costs about 1.5 us. Only the racks of a floor plan that is kept become Racks (FloorPlan.racks): at 128K GPUs
    start_design places about 21,600 racks in four plan_floor calls (the hall probe of engine.pipeline._place and
    the plan, twice, as the first placement's panels overflow), with the pods moved to the next hall placed twice,
    and keeps 9,248 of them."""

    idx: int
    id: str
    row: int
    row_name: str
    position: int
    kind: str
    x_m: float
    y_m: float
    hall: int


@dataclass
class FloorPlan:
    records: list[RackRecord]  # the racks placed, as records (enough to read their rows, positions and halls)
    places: list[Place | None]  # parallel to devices
    servers_per_rack: int
    _racks: list[Rack] | None = None

    @property
    def racks(self) -> list[Rack]:
        """The racks placed, made from their records when first asked for."""
        if self._racks is None:
            self._racks = [Rack(*r) for r in self.records]
        return self._racks


def _rack(fields: tuple) -> Rack:
    return Rack(*fields)


class _Floor:
    def __init__(
        self,
        layout: LayoutSpec,
        n_devices: int,
        reserved_u: int,
        max_mgmt: int | None,
        max_kw: float | None = None,
        records: bool = False,
    ):
        """`records`: new racks are RackRecords (plan_floor), not Racks."""
        self.layout = layout
        self.racks: list[Any] = []  # Racks, or RackRecords when `records`
        self.make_rack: Callable[[tuple], Any] = partial(_new, RackRecord) if records else _rack
        self.places: list[Place | None] = [None] * n_devices
        self.row = -1
        self.pos = 0
        self.reserved_u = reserved_u
        self.max_mgmt = max_mgmt  # devices per rack the OOB switch can serve, when OOB is built
        self.max_devices = layout.network_rack_devices  # None = no cap beyond units and OOB ports
        self.max_kw = max_kw  # power budget of a network rack (engine/rack_power.py), None = none
        self.pitch = (layout.rack_depth_mm + layout.aisle_mm) / 1000.0
        self.width = layout.rack_width_mm / 1000.0
        self.hall = 0
        self.hall_first_row = 0  # y is measured from this row, the front of the hall
        self.hall_first_rack = 0
        # what a row's racks share, worked out once a row: (row, its hall's first row, letters, rack id prefix, y)
        self.row_label: tuple[int, int, str, str, float] = (-1, 0, "", "", 0.0)
        self.x_at: dict[int, float] = {}  # position in a row -> x

    def new_row(self) -> None:
        self.row += 1
        self.pos = 0

    def new_hall(self) -> None:
        self.hall += 1
        self.hall_first_row = self.row + 1
        self.hall_first_rack = len(self.racks)

    def hall_racks(self) -> int:
        return len(self.racks) - self.hall_first_rack

    def mark(self) -> tuple[int, int, int]:
        return len(self.racks), self.row, self.pos

    def undo(self, mark: tuple[int, int, int]) -> None:
        """Drop the racks opened since `mark`; their devices are placed again by the caller."""
        n, self.row, self.pos = mark
        del self.racks[n:]

    def new_rack(self, kind: str) -> int:
        lay = self.layout
        if lay.racks_per_row is not None and self.pos >= lay.racks_per_row:
            self.new_row()
        self.pos += 1
        idx, row, pos = len(self.racks), self.row, self.pos
        # a row undone and opened again in the next hall (_place_in_halls) keeps its letters, not its y
        label = self.row_label
        if label[0] != row or label[1] != self.hall_first_row:
            rn = row_name(row, lay.row_letters == "skip-io")
            y = round((row - self.hall_first_row) * self.pitch, 4)
            label = self.row_label = (row, self.hall_first_row, rn, f"{lay.site}.{rn}", y)
        _, _, rn, prefix, y = label
        x = self.x_at.get(pos)
        if x is None:
            x = self.x_at[pos] = round((pos - 0.5) * self.width, 4)
        self.racks.append(self.make_rack((idx, f"{prefix}{pos:02d}", row, rn, pos, kind, x, y, self.hall)))
        return idx

    def stack(self, devices: list[Device], kind: str, row_racks: int | None = None) -> None:
        """Fill racks of `kind` bottom-up with devices, opening a rack when the units, the OOB switch's ports,
        `layout.network_rack_devices` or the rack's power budget would be exceeded."""
        usable = self.layout.rack_units - self.reserved_u
        max_kw, max_devices, max_mgmt = self.max_kw, self.max_devices, self.max_mgmt
        rack, u, count, kw = None, 1, 0, 0.0
        for d in devices:
            if d.rack_units > usable:
                raise SpecError.at(
                    "layout.rack_units", f"a {d.rack_units}U {d.model} does not fit in {usable} usable units"
                )
            power = d.power_kw or 0.0
            full = (
                rack is None
                or u + d.rack_units - 1 > usable
                or (max_mgmt is not None and count >= max_mgmt)
                or (max_devices is not None and count >= max_devices)
                # a device above the whole budget gets a rack of its own (and a warning from rack_power)
                or (max_kw is not None and count and kw + power > max_kw + 1e-9)
            )
            if full or rack is None:  # `full` covers rack None too; said again for the type checker
                if row_racks is not None and self.pos >= row_racks:
                    self.new_row()
                rack, u, count, kw = self.new_rack(kind), 1, 0, 0.0
            self.places[d.idx] = _new(Place, (rack, u))
            u += d.rack_units
            count += 1
            kw += power


def plan_floor(
    *,
    layout: LayoutSpec,
    devices: list[Device],
    server: ServerModel,
    su_size: int,
    servers: list[int],
    leaves_by_su: list[list[int]],
    spines_by_pod: list[list[int]],
    su_per_pod: int,
    core_and_services: list[int],
    reserved_u: int,
    mgmt_ports_per_rack: int | None,
    network_rack_kw: float | None = None,
    site: SiteSpec | None = None,
    mda_row_racks: int | None = None,
) -> FloorPlan:
    """Place every device. `leaves_by_su[s]` and `spines_by_pod[p]` are device indexes of all planes;
    network racks are filled up to `network_rack_kw` (engine/rack_power.py); halls hold at most
    `site.max_racks_per_hall` racks (None: one hall of any size); the MDA's rows hold at most `mda_row_racks`
    racks each (None: one row)."""
    spr = servers_per_rack(layout, server, reserved_u)
    floor_ = _Floor(layout, len(devices), reserved_u, mgmt_ports_per_rack, network_rack_kw, records=True)
    dev = devices

    floor_.new_row()
    if core_and_services:
        floor_.stack([dev[i] for i in core_and_services], "core", mda_row_racks)

    def place_su(s: int, with_spines: bool) -> None:
        pod = s // su_per_pod
        if with_spines and spines_by_pod and spines_by_pod[pod]:
            floor_.new_row()
            floor_.stack([dev[i] for i in spines_by_pod[pod]], "spine")
        floor_.new_row()
        su_servers = servers[s * su_size : (s + 1) * su_size]
        n_server_racks = ceil(len(su_servers) / spr) if su_servers else 0
        leaves = [dev[i] for i in leaves_by_su[s]]
        middle = layout.network_racks == "middle-of-row"
        first_half = n_server_racks // 2 if middle else n_server_racks
        for r in range(n_server_racks):
            if r == first_half:
                floor_.stack(leaves, "network")
                leaves = []
            _stack_servers(floor_, su_servers[r * spr : (r + 1) * spr], server)
        if leaves:
            floor_.stack(leaves, "network")

    n_su = len(leaves_by_su)
    # The unit kept whole in one hall: a pod in a 3-tier fabric, an SU in a 2-tier one (its spines are in the MDA).
    per_group = su_per_pod if spines_by_pod else 1
    limit = site.max_racks_per_hall if site is not None else None
    for first in range(0, n_su, per_group):
        sus = range(first, min(first + per_group, n_su))
        if limit is None:
            for s in sus:
                place_su(s, s == first)
            continue
        _place_in_halls(floor_, sus, place_su, limit, site.split_pods if site else False)
    return FloorPlan(floor_.racks, floor_.places, spr)


def _place_in_halls(
    floor_: _Floor, sus: range, place_su: Callable[[int, bool], None], limit: int, split_pods: bool
) -> None:
    """Place one pod (its SUs `sus`) whole in the current hall, or whole in a new hall when it would take the
    current one past `limit` racks; a pod larger than a hall continues SU by SU in the next halls when
    `split_pods`, else the spec is refused."""
    mark = floor_.mark()
    for s in sus:
        place_su(s, s == sus[0])
    if floor_.hall_racks() <= limit:
        return
    if mark[0] > floor_.hall_first_rack:  # the hall held something before this pod: start the next hall
        floor_.undo(mark)
        floor_.new_hall()
        mark = floor_.mark()
        for s in sus:
            place_su(s, s == sus[0])
        if floor_.hall_racks() <= limit:
            return
    pod_racks = len(floor_.racks) - mark[0]
    if not split_pods:
        raise SpecError.at(
            "site.max_racks_per_hall",
            f"a pod of {len(sus)} SU takes {pod_racks} racks, more than one hall of {limit}; raise "
            "site.max_racks_per_hall or set site.split_pods to continue the pod in the next hall",
        )
    floor_.undo(mark)
    for s in sus:
        su_mark = floor_.mark()
        place_su(s, s == sus[0])
        if floor_.hall_racks() > limit and su_mark[0] > floor_.hall_first_rack:
            floor_.undo(su_mark)
            floor_.new_hall()
            place_su(s, s == sus[0])
        if floor_.hall_racks() > limit:
            raise SpecError.at(
                "site.max_racks_per_hall",
                f"one SU takes {len(floor_.racks) - su_mark[0]} racks, more than one hall of {limit}",
            )


def _stack_servers(floor_: _Floor, group: list[int], server: ServerModel) -> None:
    """One server rack holding the servers `group` (device indexes), bottom up."""
    rack = floor_.new_rack("server")
    places = floor_.places
    step = 0 if server.rack_scale else server.rack_units
    u = 1
    for i in group:
        # tuple.__new__ builds the Place in C; Place(...) would run the NamedTuple's Python __new__ per server
        places[i] = _new(Place, (rack, u))
        u += step
