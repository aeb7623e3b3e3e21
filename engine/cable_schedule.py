"""Every cable's row and both labels: the one implementation behind the stored cable rows and every deliverable.

CABLE_COLUMNS are the engine's cables.csv and the rows a revision stores; SCHEDULE_COLUMNS add what an installer
needs (rooms, rows, medium, modules, polarity) and are what the cable schedule, cabling plan, labels and test
sheet read. Labels follow the design's LabelTemplate (physical/labels.py): an end's label is worked out once per
device or panel as a template with only the port left to fill (labels.port_template), because a 400,000-cable
design renders 800,000 end labels for about 20,000 devices.

The cable schedule's CSV lines have a second loop, one f-string per cable, for the common row (two device ends,
every cell safe to write unquoted): it gives byte for byte what csv.writer writes for the same row, checked once on
what many rows share (a device's cells, the template's literals, the parts) and per port; any other row goes
through the generic row and csv.writer.
"""

from __future__ import annotations

import csv
import io
import re
import string
from collections.abc import Callable, Iterator, Sequence
from itertools import chain
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from .columns import CABLE_COLUMNS
from .csvcells import TRIGGERS, neutralize_row, starts_unsafe
from .physical.labels import LabelEnd, LabelTemplate, cable_labels_of, fast_format, port_template, trunk_labels

if TYPE_CHECKING:
    from engine.result import DesignDraft, DesignResult

# What the installer needs beyond the engine's columns (docs/deliverables.md: cable-schedule.csv).
SCHEDULE_EXTRA_COLUMNS = ("a_room", "a_row", "b_room", "b_row", "medium", "a_module", "b_module", "polarity")
SCHEDULE_COLUMNS = CABLE_COLUMNS + SCHEDULE_EXTRA_COLUMNS

POLARITY_NAMES = {"A": "Type-A", "B": "Type-B", "C": "Type-C", "A-B": "A-to-B", "A-A": "A-to-A"}

_FORMATTER = string.Formatter()
_FIELD = re.compile(r"\{(\d+)(?::([^{}]*))?\}")
_UNSAFE = re.compile(r'[,"\r\n]')  # what makes csv.writer quote a cell
# columns of PhysicalResult.cable_rows: id, kind, part, ordered length, a end, b end, link ids, tier, network
_ROW_ID, _ROW_LINKS, _ROW_SHARED = itemgetter(0), itemgetter(6), itemgetter(1, 2, 3, 7, 8)
_FIRST = itemgetter(0)
_NEAR_FAR = re.compile(r"\{0\}([^{}]*)\{1\}")  # a compiled cable template: the near end, a literal, the far end


def port_label(port: str) -> str:
    # "/" joins the two ends of a cable label (TIA-606 / ISO 14763-2-1 grammar), so a split port
    # "17/2" is printed "17.2" on labels; "OSFP1P2" stays as is.
    return port.replace("/", ".")


_TRAILING_NUMBER = re.compile(r"-(\d{1,2})$")


def _zero_u_position(device: Any) -> str:
    """Where a zero-U PDU hangs, for its labels: "PA", "PB", ... (its number in the rack as a letter), so the two
    PDUs of a rack, both at U0, never print the same end label; "" for any other device."""
    if device.role != "pdu" or getattr(device, "rack_units", 1) != 0:
        return ""
    m = _TRAILING_NUMBER.search(device.name)
    n = int(m.group(1)) if m else 0
    return f"P{chr(64 + n)}" if 1 <= n <= 26 else ""


def panel_grid(rack: Any) -> str:
    """The grid position a rack's panels are named by: its id after the site ("DC1.C07" -> "C07")."""
    site, _, grid = rack.id.partition(".")
    return grid or site


def panel_name(rack: Any, u: int) -> str:
    """A patch panel's name, from its rack and unit: the same for every label template."""
    return f"PP-{panel_grid(rack)}-U{u:02d}"


class EndRenderer:
    """One cable end as (its end label, its four cables.csv columns: device, port, rack, rack unit).

    An end is (device index, port) or ("panel", rack index, u, port label). What a label says about a device
    or panel is worked out once and shared by all its ports. A cable end's label says no tier; an unplaced
    device's label names the device and port only.
    """

    def __init__(self, result: DesignDraft | DesignResult, template: LabelTemplate) -> None:
        self.devs, self.places, self.racks = result.devices, result.places, result.racks
        self.end_template = template._end
        self.panel_template = template._panel
        self.by_device: dict = {}
        self.by_panel: dict = {}

    def __call__(self, end: Any) -> tuple[Any, tuple[Any, Any, Any, Any]]:
        if end[0] == "panel":
            _, rack_i, u, port = end
            known = self.by_panel.get((rack_i, u))
            if known is None:
                known = self.panel(rack_i, u)
            return known[0].format(port), (known[1], str(port), known[2], u)
        dev, port = end
        known = self.by_device.get(dev)
        if known is None:
            known = self.device(dev)
        fmt, name, rack_id, u = known[:4]
        if fmt is None:
            return self.end_template.format(*LabelEnd(device=name, port=port)), (name, port, "", "")
        return fmt.format(port_label(port)), (name, port, rack_id, u)

    def place(self, end: Any) -> tuple:
        """(room, row) of an end's rack; ("", "") for an unplaced device."""
        if end[0] == "panel":
            known = self.by_panel.get((end[1], end[2])) or self.panel(end[1], end[2])
            return known[3:5]
        known = self.by_device.get(end[0]) or self.device(end[0])
        return known[4:6]

    def label_end(self, end: Any) -> LabelEnd:
        """The LabelEnd of a panel end (trunk labels name panels, not ports)."""
        _, rack_i, u, port = end
        return self._panel_end(rack_i, u, port)

    def _panel_end(self, rack_i: int, u: int, port: str) -> LabelEnd:
        r = self.racks[rack_i]
        site, _, grid = r.id.partition(".")
        return LabelEnd(site=site, grid=grid or site, ru=u, port=port, device="PANEL", rack=r.id, row=r.row_name)

    def panel(self, rack_i: int, u: int) -> tuple:
        """(port template, panel name, rack id, room, row) of the patch panel at `u` of a rack."""
        end = self._panel_end(rack_i, u, "")
        known = self.by_panel[(rack_i, u)] = (
            port_template(self.end_template, end),
            panel_name(self.racks[rack_i], u),
            end.rack,
            end.site,
            end.row,
        )
        return known

    def device(self, dev: int) -> tuple:
        """(port template or None when unplaced, name, rack id, unit, room, row) of a device."""
        name, p = self.devs[dev].name, self.places[dev]
        known: tuple
        if p is None:
            known = (None, name, "", "", "", "")
        else:
            r = self.racks[p.rack]
            site, _, grid = r.id.partition(".")
            ru = _zero_u_position(self.devs[dev]) or p.u
            end = LabelEnd(site=site, grid=grid or site, ru=ru, device=name, rack=r.id, row=r.row_name)
            known = (port_template(self.end_template, end), name, r.id, p.u, site, r.row_name)
        self.by_device[dev] = known
        return known


class CableSchedule:
    """The cable rows of a computed result, in the engine's shape (CABLE_COLUMNS, the stored rows) and the
    installer's (SCHEDULE_COLUMNS), and the labels of its panels. Rows are produced on the fly (nothing
    holds 400,000 cables twice)."""

    def __init__(self, result: Any) -> None:
        ph = result.physical
        if ph is None:
            raise ValueError("this result has no physical layer (compute the design with the media catalog)")
        self.result, self.ph = result, ph
        self.template = ph.policy.labels
        self.ends = EndRenderer(result, self.template)
        links = result.links
        ids_ok = all(lk.id == i + 1 for i, lk in enumerate(links[:1000])) and (not links or links[-1].id == len(links))
        self._link_index = None if ids_ok else {lk.id: i for i, lk in enumerate(links)}
        self._media_memo: dict = {}
        self._fast: tuple | bool | None = False  # _fast_setup(), worked out on first use
        self._devices: list | None = None  # _device_lists(), worked out on first use
        self._formats: list = []
        self._trunk_ports: dict | None = None  # trunk_ports(), worked out on first use
        self._ids_plain: bool | None = None  # _plain_ids(), worked out on first use

    def link_index(self, link_id: int) -> int:
        return link_id - 1 if self._link_index is None else self._link_index[link_id]

    def _plain_ids(self) -> bool:
        """Whether every cable id and every cable's first link id is a plain int (not a bool or another int
        subclass): then "C" + str(n).zfill(6) is f"C{n:06d}" at about 60 % of its cost (0.06 s against 0.11 s
        per 500,000 ids), which the per-cable loops use. Checked once per schedule, in C (~0.03 s at 128K GPUs)."""
        if self._ids_plain is None:
            src = self.ph.cable_rows
            first_links = map(_FIRST, map(_ROW_LINKS, src))
            self._ids_plain = set(map(type, map(_ROW_ID, src))) <= {int} and set(map(type, first_links)) <= {int}
        return self._ids_plain

    # ----- the engine's rows ---------------------------------------------------------------------------
    def rows(self) -> Iterator[tuple]:
        """cables.csv rows (CABLE_COLUMNS), labels rendered on the fly."""
        template = self.template
        end = self.ends
        cable_fmt, own_first = fast_format(template._cable, 4), template.own_end_first  # cable_labels_of, inlined
        for cid, kind, part, length, a, b, link_ids, tier, network in self.ph.cable_rows:
            if kind == "trunk":
                la, lb = trunk_labels(template, f"C{cid:06d}", end.label_end(a), end.label_end(b))
                a_row, b_row = self._trunk_ends(cid, end(a)[1], end(b)[1])
            else:
                near_a, a_row = end(a)
                near_b, b_row = end(b)
                cs = f"C{cid:06d}"
                la = cable_fmt(near_a, near_b, cs, "")
                lb = cable_fmt(near_b, near_a, cs, "") if own_first else la
            links = f"L{link_ids[0]:06d}" if len(link_ids) == 1 else " ".join([f"L{x:06d}" for x in link_ids])
            yield (f"C{cid:06d}", network, tier, kind, part, length, *a_row, *b_row, la, lb, links)

    def db_rows(self, revision_id: int) -> Iterator[tuple]:
        """Every cable as the database stores it, led by `revision_id`: integer id, labels cut to 128
        characters and the link ids to 256, and each end's hall (None for an unplaced end); an unplaced end has
        no rack unit: "" in cables.csv, NULL here (a 0U PDU has 0)."""
        # What an end puts in a row and its label is worked out once per device, panel and port (a 400,000-cable
        # design has about 20,000 devices and a few hundred port names): only the cable's own ids vary per row.
        # The reference for any row is _db_row, which takes unplaced ends and trunks (a test holds _trunk_db_row to it).
        devices, formats = self._device_lists()
        hall = {r.id: r.hall + 1 for r in self.result.racks}
        dev_cells = [(k[1], k[2], k[3], hall.get(k[2])) for k in devices]  # (name, rack, U, hall) if placed
        panel_cells: dict = {}  # (rack index, U) -> (port template's format, (name, rack, U, hall))
        ends = self.ends
        # A placed device's end label is its port template's head, the port and its tail, joined (about half the
        # cost of the template's format: 0.10 s against 0.22 s for 794,368 device ends at 128K GPUs), when the end
        # template names the port once; otherwise each device's template formats the port.
        split = self._device_splits()
        heads, tails, spec = split if split is not None else ([], [], "")
        port_text = _PortLabels(spec)
        cable_fmt, own_first = fast_format(self.template._cable, 4), self.template.own_end_first
        # a cable template of the near end, a literal and the far end ("<near>/<far>", the default): the label
        # joined here, without a call of cable_fmt per label (f"{near}{mid}{far}" of two str is the same text)
        sep = _NEAR_FAR.fullmatch(self.template._cable)
        mid = sep.group(1) if sep is not None else ""
        generic = self._db_row
        if not self._plain_ids():  # the loop below writes ids with zfill, which only a plain int formats as :06d
            yield from (generic(row, revision_id, hall) for row in self.ph.cable_rows)
            return
        trunk_ends: dict = {}  # a trunk's panel end -> (the panel's label, its tier), for _trunk_db_row
        for row in self.ph.cable_rows:
            cid, kind, part, length, a, b, link_ids, tier, network = row
            a0, b0 = a[0], b[0]
            if kind == "trunk":
                yield self._trunk_db_row(row, revision_id, hall, panel_cells, trunk_ends)
                continue
            if (a0 != "panel" and formats[a0] is None) or (b0 != "panel" and formats[b0] is None):
                yield generic(row, revision_id, hall)
                continue
            if a0 == "panel":
                fmt, ca = panel_cells.get(a[1:3]) or _panel_cells(ends, a, hall, panel_cells)
                pa, near_a = str(a[3]), fmt(a[3])
            else:
                ca, pa = dev_cells[a0], a[1]
                near_a = heads[a0] + port_text[pa] + tails[a0] if split else formats[a0](port_text[pa])
            if b0 == "panel":
                fmt, cb = panel_cells.get(b[1:3]) or _panel_cells(ends, b, hall, panel_cells)
                pb, near_b = str(b[3]), fmt(b[3])
            else:
                cb, pb = dev_cells[b0], b[1]
                near_b = heads[b0] + port_text[pb] + tails[b0] if split else formats[b0](port_text[pb])
            if sep is not None:
                la = near_a + mid + near_b
                lb = near_b + mid + near_a if own_first else la
            else:
                cs = f"C{str(cid).zfill(6)}"  # f"C{cid:06d}" of a plain int (_plain_ids)
                la = cable_fmt(near_a, near_b, cs, "")
                lb = cable_fmt(near_b, near_a, cs, "") if own_first else la
            one = len(link_ids) == 1
            links = f"L{str(link_ids[0]).zfill(6)}" if one else " ".join([f"L{x:06d}" for x in link_ids])
            name_a, rack_a, u_a, hall_a = ca
            name_b, rack_b, u_b, hall_b = cb
            yield (
                revision_id,
                cid,
                network,
                tier,
                kind,
                part,
                length,
                name_a,
                pa,
                rack_a,
                u_a,
                name_b,
                pb,
                rack_b,
                u_b,
                la[:128],
                lb[:128],
                links[:256],
                hall_a,
                hall_b,
            )

    def _trunk_db_row(self, row: Any, revision_id: int, hall: dict, panel_cells: dict, trunk_ends: dict) -> tuple:
        """_db_row of a trunk (it joins two panels), at about a third of its cost (10,100 trunks at 128K GPUs took
        0.12 s there): what a panel puts in a row comes from db_rows' memo, and each trunk end's panel label is
        formatted once per panel end (a panel takes 2-6 trunks), then joined as trunk_labels joins it."""
        cid, kind, part, length, a, b, link_ids, tier, network = row
        _, ca = panel_cells.get(a[1:3]) or _panel_cells(self.ends, a, hall, panel_cells)
        _, cb = panel_cells.get(b[1:3]) or _panel_cells(self.ends, b, hall, panel_cells)
        near_a, tier_a = trunk_ends.get(a) or self._trunk_end(a, trunk_ends)
        near_b, tier_b = trunk_ends.get(b) or self._trunk_end(b, trunk_ends)
        trunk_fmt, cs = self.template._trunk.format, f"C{cid:06d}"
        la = trunk_fmt(near_a, near_b, cs, tier_a)
        lb = trunk_fmt(near_b, near_a, cs, tier_b) if self.template.own_end_first else la
        pa, pb = self.trunk_ports()[cid]
        links = " ".join([f"L{x:06d}" for x in link_ids])
        name_a, rack_a, u_a, hall_a = ca
        name_b, rack_b, u_b, hall_b = cb
        head = (revision_id, cid, network, tier, kind, part, length)
        return _stored_row(head, (name_a, pa, rack_a, u_a, hall_a), (name_b, pb, rack_b, u_b, hall_b), la, lb, links)

    def _trunk_end(self, end: tuple, memo: dict) -> tuple[str, str]:
        """(the panel label trunk_labels writes for a trunk's panel end, the end's tier), remembered in `memo`."""
        label_end = self.ends.label_end(end)
        known = memo[end] = (self.template._panel.format(*label_end), label_end.tier)
        return known

    def _db_row(self, row: Any, revision_id: int, hall: dict) -> tuple:
        """One stored cable row, any kind of cable and end (the reference for db_rows' loop)."""
        cid, kind, part, length, a, b, link_ids, tier, network = row
        la, lb, a_row, b_row = self._labelled_ends(cid, kind, a, b)
        links = " ".join([f"L{x:06d}" for x in link_ids])  # a list joins faster than a generator (a trunk has ~11)
        ua, ub = a_row[3], b_row[3]
        return _stored_row(
            (revision_id, cid, network, tier, kind, part, length),
            (a_row[0], a_row[1], a_row[2], None if ua == "" else ua, hall.get(a_row[2])),
            (b_row[0], b_row[1], b_row[2], None if ub == "" else ub, hall.get(b_row[2])),
            la,
            lb,
            links,
        )

    # ----- the installer's rows ------------------------------------------------------------------------
    def media(self, kind: str, first_link_id: int, a_panel: bool, b_panel: bool) -> tuple:
        """(medium, a_module, b_module, polarity) of one cable; worked out once per medium choice."""
        choice = self.ph.choices[self.link_index(first_link_id)]
        key = (id(choice), kind, a_panel, b_panel)
        hit = self._media_memo.get(key)
        if hit is not None:
            return hit
        if not choice:
            out = ("", "", "", "")
        else:
            sp = choice.structured
            a_mod = "" if a_panel or kind == "trunk" else (choice.a_module or "")
            b_mod = "" if b_panel or kind == "trunk" else (choice.b_module or "")
            pol = ""
            if choice.optical:
                if kind == "trunk" and sp is not None:
                    pol = sp.trunk.polarity
                elif b_panel and sp is not None:
                    pol = sp.cord_a.polarity
                elif a_panel and sp is not None:
                    pol = sp.cord_b.polarity
                elif choice.cord is not None:
                    pol = choice.cord.polarity
            out = (choice.medium, a_mod, b_mod, POLARITY_NAMES.get(pol, pol))
        self._media_memo[key] = out
        return out

    def schedule_rows(self, indexes: Sequence[int] | None = None) -> Iterator[tuple]:
        """SCHEDULE_COLUMNS rows in cable-id order, or in the order of `indexes` (positions in
        PhysicalResult.cable_rows)."""
        devices, formats = self._device_lists()
        cable_fmt = fast_format(self.template._cable, 4)
        own_first = self.template.own_end_first
        media, memo = self.media, self._media_memo
        choices = self.ph.choices
        ident = self._link_index is None
        li = self.link_index
        src = self.ph.cable_rows
        it = src if indexes is None else (src[i] for i in indexes)
        generic = self._row
        for row in it:
            cid, kind, part, length, a, b, lids, tier, network = row
            a0, b0 = a[0], b[0]
            if a0 == "panel" or b0 == "panel" or kind == "trunk":
                yield generic(row)
                continue
            fa, fb = formats[a0], formats[b0]
            if fa is None or fb is None:
                yield generic(row)
                continue
            da, db = devices[a0], devices[b0]
            pa, pb = a[1], b[1]
            na, nb = fa(port_label(pa)), fb(port_label(pb))
            cs = f"C{cid:06d}"
            la = cable_fmt(na, nb, cs, "")
            lb = cable_fmt(nb, na, cs, "") if own_first else la
            first = lids[0]
            # media(), its memo read inline: a call per cable costs as much as the rest of the row
            m = memo.get((id(choices[first - 1] if ident else choices[li(first)]), kind, False, False))
            if m is None:
                m = media(kind, first, False, False)
            yield (
                cs,
                network,
                tier,
                kind,
                part,
                length,
                da[1],
                pa,
                da[2],
                da[3],
                db[1],
                pb,
                db[2],
                db[3],
                la,
                lb,
                f"L{first:06d}" if len(lids) == 1 else " ".join([f"L{x:06d}" for x in lids]),
                da[4],
                da[5],
                db[4],
                db[5],
                m[0],
                m[1],
                m[2],
                m[3],
            )

    def trunk_ports(self) -> dict[int, tuple[str, str]]:
        """{trunk cable id: (its rear port on the A panel, on the B panel)}, named as the NetBox export names them
        (deliverables/netbox.py _PanelPorts; a test keeps the two equal): a trunk has a rear port per
        pair of panels its links' cords meet ("legs", in link order), numbered T1, T2, ... per panel in trunk
        order. A panel takes 2-6 trunks; the engine keeps every trunk end as port "T", which stays where a
        trunk carries no corded link on its recorded panel."""
        if self._trunk_ports is None:
            rows = self.ph.cable_rows
            at_a: dict = {}  # link id -> the panel its A-side cord meets
            at_b: dict = {}
            trunks = []
            # indexed, not unpacked: a starred unpack builds a list per row, and this reads every cable
            for row in rows:
                if row[1] == "trunk":
                    trunks.append(row)
                    continue
                a, b = row[4], row[5]
                if b[0] == "panel":
                    at_a[row[6][0]] = b[1:3]
                if a[0] == "panel":
                    at_b[row[6][0]] = a[1:3]
            count: dict = {}
            out = {}
            for cid, _kind, _p, _l, a, b, lids, *_ in trunks:
                names: dict[tuple, str] = {}
                legs = dict.fromkeys((at_a.get(lid), at_b.get(lid)) for lid in lids)
                for pa, pb in legs:
                    for side, panel in (("a", pa), ("b", pb)):
                        k = count[panel] = count.get(panel, 0) + 1
                        names.setdefault((side, panel), f"T{k}")
                out[cid] = (names.get(("a", a[1:3]), str(a[-1])), names.get(("b", b[1:3]), str(b[-1])))
            self._trunk_ports = out
        return self._trunk_ports

    def _trunk_ends(self, cid: int, ca: tuple, cb: tuple) -> tuple[tuple, tuple]:
        pa, pb = self.trunk_ports()[cid]
        return (ca[0], pa, *ca[2:]), (cb[0], pb, *cb[2:])

    def _device_lists(self) -> tuple[list, list]:
        """Every device's EndRenderer.device() facts, and its port template's bound format (None when unplaced),
        as lists: the per-cable loops index them instead of asking the memo."""
        if self._devices is None:
            ends = self.ends
            self._devices = [ends.by_device.get(d) or ends.device(d) for d in range(len(self.result.devices))]
            self._formats = [None if k[0] is None else k[0].format for k in self._devices]
        return self._devices, self._formats

    def _labelled_ends(self, cid: int, kind: str, a: Any, b: Any) -> tuple[str, str, tuple, tuple]:
        """(label at a, label at b, a's cells, b's cells) of any cable: a trunk's from its panels' ports
        (trunk_labels), any other's from its two ends (cable_labels_of). db_rows and the schedule's rows share it."""
        ends = self.ends
        if kind == "trunk":
            la, lb = trunk_labels(self.template, f"C{cid:06d}", ends.label_end(a), ends.label_end(b))
            ca, cb = self._trunk_ends(cid, ends(a)[1], ends(b)[1])
            return la, lb, ca, cb
        near_a, ca = ends(a)
        near_b, cb = ends(b)
        la, lb = cable_labels_of(self.template, near_a, near_b, f"C{cid:06d}")
        return la, lb, ca, cb

    def _row(self, row: Any) -> tuple:
        """One SCHEDULE_COLUMNS row, any kind of cable and end (the reference for the loops above and below)."""
        cid, kind, part, length, a, b, lids, tier, network = row
        ends = self.ends
        la, lb, ca, cb = self._labelled_ends(cid, kind, a, b)
        m = self.media(kind, lids[0], a[0] == "panel", b[0] == "panel")
        links = " ".join(f"L{x:06d}" for x in lids)
        head = (f"C{cid:06d}", network, tier, kind, part, length)
        return head + ca + cb + (la, lb, links) + ends.place(a) + ends.place(b) + m

    def panel_label(self, rack_i: int, u: int) -> str:
        """The label of the patch panel at `u` of a rack (no port)."""
        return self.template.panel_label(self.ends._panel_end(rack_i, u, ""))

    def panel_port_label(self, rack_i: int, u: int, port: Any) -> str:
        """The label of one port of a patch panel, as a cord's end label names it."""
        return self.template.end_label(self.ends._panel_end(rack_i, u, port))

    # ----- the installer's rows as CSV lines ------------------------------------------------------------
    def schedule_csv_lines(self, indexes: Sequence[int] | None = None, *, raw: bool = False) -> Iterator[str]:
        """SCHEDULE_COLUMNS data lines (no header), byte-identical to csv.writer's (lineterminator "\\n") for
        schedule_rows(indexes), text cells beginning with a formula character neutralized unless `raw`
        (csvcells.py)."""
        line = _csv_line if raw else _csv_line_safe
        if self._fast is False:
            self._fast = self._fast_setup()
        if self._fast is None:  # something many rows share would need quoting: every row through csv.writer
            yield from map(line, self.schedule_rows(indexes))
            return
        yield from self._fast_lines(self._fast, indexes, line)

    def _device_splits(self) -> tuple[list[str | None], list[str | None], Any] | None:
        """(heads, tails, spec): a placed device's end label is heads[d] + format(port_label(port), spec) +
        tails[d] (its port template split at the port); None in heads and tails for an unplaced device. None
        when the end template does not name the port exactly once."""
        port_index = str(LabelEnd._fields.index("port"))
        fields = [(f, fs) for _, f, fs, _ in _FORMATTER.parse(self.template._end) if f is not None]
        if [f for f, _ in fields].count(port_index) != 1:
            return None
        spec = next(fs for f, fs in fields if f == port_index) or ""
        heads: list[str | None] = []
        tails: list[str | None] = []
        for known in self._device_lists()[0]:
            fmt = known[0]
            if fmt is None:
                heads.append(None)
                tails.append(None)
                continue
            if "{{" not in fmt and "}}" not in fmt:  # no escaped brace: the one field is the only "{...}"
                i = fmt.index("{")
                heads.append(fmt[:i])
                tails.append(fmt[fmt.index("}", i) + 1 :])
                continue
            head: list[str] = []
            tail: list[str] = []
            seen = False
            for literal, fname, _, _ in _FORMATTER.parse(fmt):
                (tail if seen else head).append(literal)
                seen = seen or fname is not None
            heads.append("".join(head))
            tails.append("".join(tail))
        return heads, tails, spec

    def _fast_setup(self) -> tuple[Any, set[str], Any] | None:
        """What the one-f-string loop needs, or None when something shared by many rows (a device's facts, a
        template literal, a kind, tier or network) would need quoting or is not a string."""
        splits = self._device_splits()
        if splits is None:
            return None
        heads, tails, _ = splits
        placed = [h for h in heads if h is not None]
        cols = [self.ends.by_device[d][1:] for d, h in enumerate(heads) if h is not None]
        unsafe = _UNSAFE.search
        if (
            unsafe("".join(placed))
            or unsafe("".join(t for t in tails if t is not None))
            or None in chain.from_iterable(cols)
            or unsafe("\x00".join(map(str, chain.from_iterable(cols))))
        ):
            return None
        cable_compiled = self.template._cable
        if unsafe(_FIELD.sub("", cable_compiled)):
            return None
        # Formula characters (csvcells.py), checked once on what many rows share: a device's cells, and what a
        # label can begin with. Ports, parts and media are checked once each in the loop.
        if any(isinstance(x, str) and starts_unsafe(x) for x in chain.from_iterable(cols)):
            return None
        if _label_may_start_unsafe(cable_compiled, placed):
            return None
        src = self.ph.cable_rows
        combos = set(map(_ROW_SHARED, src))  # (kind, part, length, tier, network): a few hundred
        shared = {x for c in combos for x in (c[0], c[3], c[4])}
        if (
            not all(isinstance(x, str) for x in shared)
            or unsafe("\x00".join(shared))
            or not all(type(c[2]) in (int, float) for c in combos)
            or any(map(starts_unsafe, shared))
        ):
            return None
        if not self._plain_ids():
            return None
        parts = {c[1] for c in combos if isinstance(c[1], str) and not unsafe(c[1]) and not starts_unsafe(c[1])}
        return splits, parts, _label_pair(cable_compiled, self.template.own_end_first)

    def _fast_lines(self, fast: Any, indexes: Sequence[int] | None, line: Callable[[Sequence], str]) -> Iterator[str]:
        (heads, tails, spec), safe_parts, labels = fast
        no_tails = not any(tails)
        by_device = self.ends.by_device
        # per placed device: (name, "rack,u", "room,row") as they stand in a line
        pre = [None if h is None else _cells(by_device[d]) for d, h in enumerate(heads)]
        unsafe = _UNSAFE.search

        class PortText(dict):
            """port -> its text in a label; None for a port that is not a string or would need quoting or
            neutralizing (its row goes through csv.writer)."""

            def __missing__(self, port: object) -> str | None:
                text = None
                if isinstance(port, str) and not unsafe(port) and not starts_unsafe(port):
                    text = format(port_label(port), spec)
                    if starts_unsafe(text):  # it may begin a label
                        text = None
                self[port] = text
                return text

        ptext = PortText()
        media = self.media
        mjoin: dict = {}
        choices = self.ph.choices
        ident = self._link_index is None
        li = self.link_index
        src = self.ph.cable_rows
        it = src if indexes is None else (src[i] for i in indexes)
        generic = self._row
        for row in it:
            cid, kind, part, length, a, b, lids, tier, network = row
            a0, b0 = a[0], b[0]
            if a0 == "panel" or b0 == "panel" or kind == "trunk" or part not in safe_parts:
                yield line(generic(row))
                continue
            ha, hb = heads[a0], heads[b0]
            if ha is None or hb is None:
                yield line(generic(row))
                continue
            pa, pb = a[1], b[1]
            ta, tb = ptext[pa], ptext[pb]
            if ta is None or tb is None:
                yield line(generic(row))
                continue
            first = lids[0]
            ch = choices[first - 1] if ident else choices[li(first)]
            mk = (id(ch), kind)
            m = mjoin.get(mk)
            if m is None:
                mt = media(kind, first, False, False)
                m = mjoin[mk] = ",".join(mt) if not any(unsafe(x) or starts_unsafe(x) for x in mt) else False
            if m is False:
                yield line(generic(row))
                continue
            # str(n).zfill(6) == f"{n:06d}" for a plain int (_plain_ids, checked in _fast_setup), at half the cost
            cs = f"C{str(cid).zfill(6)}"
            an, apost, aroom = pre[a0]
            bn, bpost, broom = pre[b0]
            links = f"L{str(first).zfill(6)}" if len(lids) == 1 else " ".join([f"L{x:06d}" for x in lids])
            if no_tails:
                na, nb = ha + ta, hb + tb
            else:
                na, nb = ha + ta + tails[a0], hb + tb + tails[b0]
            # two f-strings: one of more than 30 parts compiles to a list and str.join (slower)
            yield (
                f"{cs},{network},{tier},{kind},{part},{length},{an},{pa},{apost},{bn},{pb},{bpost},"
                + f"{labels(na, nb, cs)},{links},{aroom},{broom},{m}\n"
            )


def _cells(known: tuple) -> tuple[str, str, str]:
    _, name, rack, u, room, row = known
    return name, f"{rack},{u}", f"{room},{row}"


class _Line:
    def __init__(self) -> None:
        self.buf = io.StringIO()
        self.w = csv.writer(self.buf, lineterminator="\n")

    def __call__(self, row: Sequence[Any]) -> str:
        self.buf.seek(0)
        self.buf.truncate()
        self.w.writerow(row)
        return self.buf.getvalue()


def _csv_line(row: Sequence) -> str:
    return _Line()(row)


def _csv_line_safe(row: Sequence) -> str:
    return _Line()(neutralize_row(row))


def _label_pair(compiled: str, own_end_first: bool) -> Any:
    """``(near, far, cable) -> "<label at A>,<label at B>"``: both labels of a cable, comma-joined as they
    stand in a CSV line, from one f-string when the compiled cable template can be one (the tier is empty, as
    on every cable label). The B label swaps near and far when each end's label names its own end first."""

    def slow(near: str, far: str, cable: str) -> str:
        la = compiled.format(near, far, cable, "")
        return f"{la},{compiled.format(far, near, cable, '') if own_end_first else la}"

    def body(names: Sequence[str]) -> str:
        return _FIELD.sub(
            lambda m: "{" + names[int(m.group(1))] + (":" + m.group(2) if m.group(2) else "") + "}", compiled
        )

    try:
        a = body(("_n", "_f", "_c", "_t"))
        b = body(("_f", "_n", "_c", "_t")) if own_end_first else a
        fn = eval(f"lambda _n, _f, _c, _t='': f{a + ',' + b!r}", {"__builtins__": {}})  # noqa: S307
        if fn("x0", "x1", "x2") != slow("x0", "x1", "x2"):
            raise ValueError("mismatch")
        return fn
    except Exception:  # noqa: BLE001  # pragma: no cover - any template the f-string path cannot express
        return slow


def _label_may_start_unsafe(compiled: str, heads: list[Any]) -> bool:
    """Whether a cable label from the compiled cable template could begin with a formula character: its leading
    literal, or the end label it starts with (a device's head; a port text is checked per port), or the tier."""
    m = _FIELD.match(compiled)
    if m is None:
        return compiled[:1] in TRIGGERS
    if m.group(1) in ("0", "1"):
        return any(h[:1] in TRIGGERS for h in heads if h)
    return m.group(1) != "2"  # the cable id (C000001) is safe; an empty tier leaves the rest to begin it


class _PortLabels(dict):
    """port -> how a label prints it (port_label, in the end template's format spec for the port), worked out
    once per port name."""

    def __init__(self, spec: str = "") -> None:
        super().__init__()
        self.spec = spec

    def __missing__(self, port: str) -> str:
        text = self[port] = format(port_label(port), self.spec)
        return text


def _panel_cells(ends: EndRenderer, end: tuple, hall: dict, memo: dict) -> tuple:
    """(the panel's port template format, (name, rack id, U, hall)) of a panel end, remembered in `memo`."""
    _, rack_i, u, _port = end
    known = ends.by_panel.get((rack_i, u)) or ends.panel(rack_i, u)
    cells = memo[(rack_i, u)] = (known[0].format, (known[1], known[2], u, hall.get(known[2])))
    return cells


def _stored_row(head: tuple, end_a: tuple, end_b: tuple, label_a: str, label_b: str, links: str) -> tuple:
    """A stored cable row (apps/designs/adapters.CABLE_DB_COLUMNS) from its head (revision, id, network, tier, kind,
    part, length), each end's (device, port, rack, unit, hall), its labels and link ids, cut to the columns'
    widths. db_rows' loop spells the same tuple inline, as it is the hot path (one more Python call per row, for
    511,000 cables at 128K GPUs); a test holds every row of either path equal to cables.csv's."""
    name_a, port_a, rack_a, u_a, hall_a = end_a
    name_b, port_b, rack_b, u_b, hall_b = end_b
    return (
        *head,
        name_a,
        port_a,
        rack_a,
        u_a,
        name_b,
        port_b,
        rack_b,
        u_b,
        label_a[:128],
        label_b[:128],
        links[:256],
        hall_a,
        hall_b,
    )
