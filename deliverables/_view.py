"""One read-only index over a computed DesignResult, shared by every renderer: racks in order, where each
device stands, which cables and links belong to a row or rack and in what order they are installed.

Cable rows and labels are the engine's (engine/cable_schedule.py), the same code that wrote the revision's stored
cable rows; nothing here renders a label. Everything here is O(devices + racks) to build; per-cable facts are
produced on the fly (a 128K-GPU design has ~400,000 cables; nothing holds them twice).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from typing import Any

from engine.cable_schedule import SCHEDULE_COLUMNS, CableSchedule
from engine.columns import HALL_COLUMNS
from engine.result import DesignResult

# cables.csv of the deliverables (cable-schedule.csv): the engine's cable columns, then the installer's.
CABLE_CSV_COLUMNS = SCHEDULE_COLUMNS
CI = {name: i for i, name in enumerate(CABLE_CSV_COLUMNS)}


class DesignView:
    def __init__(self, result: DesignResult) -> None:
        self.result = result
        self.schedule = CableSchedule(result)  # raises ValueError without a physical layer
        self.ph = result.physical
        racks = result.racks
        self.racks = racks
        order = sorted(range(len(racks)), key=lambda i: (racks[i].row, racks[i].position, racks[i].id))
        self.rack_order = order
        self.rack_rank = [0] * len(racks)
        for rank, i in enumerate(order):
            self.rack_rank[i] = rank
        self.rack_site = [r.id.split(".", 1)[0] for r in racks]
        self.rack_grid = [r.id.split(".", 1)[-1] for r in racks]
        self.rack_by_id = {r.id: r.idx for r in racks}
        # 0-based data hall of each rack (docs/site-model.md); a one-hall design has only hall 0
        self.rack_hall = [r.hall for r in racks]
        self.halls = max(self.rack_hall, default=0) + 1
        devs, places = result.devices, result.places
        self.devices = devs
        self.dev_rack = [p.rack if p is not None else -1 for p in places]
        self.dev_u = [p.u if p is not None else 0 for p in places]
        self.links = result.links
        self.link_index = self.schedule.link_index

    # ----- the engine's cable rows and labels ---------------------------------------------------------------
    def cable_rows(self, indexes: Sequence[int] | None = None) -> Iterator[tuple]:
        """cable-schedule rows (CABLE_CSV_COLUMNS) in cable-id order, or in the order of ``indexes``
        (positions in physical.cable_rows)."""
        return self.schedule.schedule_rows(indexes)

    def cable_csv_lines(self, indexes: Sequence[int] | None = None, *, raw: bool = False) -> Iterator[str]:
        """The same rows as CSV lines (no header), as csv.writer writes them."""
        return self.schedule.schedule_csv_lines(indexes, raw=raw)

    @property
    def cable_csv_columns(self) -> tuple[str, ...]:
        """cables.csv's columns for this design: CABLE_CSV_COLUMNS, and the hall of each end over several halls."""
        return CABLE_CSV_COLUMNS + HALL_COLUMNS if self.halls > 1 else CABLE_CSV_COLUMNS

    def cable_halls(self, indexes: Sequence[int] | None = None) -> Iterator[tuple[int | str, int | str]]:
        """The 1-based hall of each end of every cable ("" for an unplaced device), in the order of
        cable_rows(indexes)."""
        src = self.ph.cable_rows
        hall, dev_rack = self.rack_hall, self.dev_rack

        def of(e: tuple) -> int | str:
            ri = e[1] if e[0] == "panel" else dev_rack[e[0]]
            return hall[ri] + 1 if ri >= 0 else ""

        for row in src if indexes is None else (src[i] for i in indexes):
            yield of(row[4]), of(row[5])

    def panel_port_label(self, ri: int, u: int, port: Any) -> str:
        return self.schedule.panel_port_label(ri, u, port)

    def panel_label(self, ri: int, u: int) -> str:
        return self.schedule.panel_label(ri, u)

    # ----- scope (whole design, one row or one rack) and installation order -----------------
    def scope(self, row: str | None = None, rack: str | None = None) -> frozenset[int] | None:
        """A predicate over rack indexes, or None for the whole design. Raises ValueError for an
        unknown row or rack."""
        if rack is not None:
            ri = self.rack_by_id.get(rack)
            if ri is None:
                raise ValueError(f"rack {rack!r} is not in this design (racks look like {self.racks[0].id!r})")
            if row is not None and self.racks[ri].row_name != row:
                raise ValueError(f"rack {rack!r} is in row {self.racks[ri].row_name!r}, not {row!r}")
            return frozenset((ri,))
        if row is not None:
            sel = frozenset(r.idx for r in self.racks if r.row_name == row)
            if not sel:
                rows = sorted({r.row_name for r in self.racks}, key=lambda s: (len(s), s))
                raise ValueError(
                    f"row {row!r} is not in this design (rows: {', '.join(rows[:12])}"
                    f"{', ...' if len(rows) > 12 else ''})"
                )
            return sel
        return None

    def install_order(self, racks_in_scope: Collection[int] | None = None) -> tuple[list[int], list[tuple[int, int]]]:
        """Cable positions in installation order, and the sections [(rack index or -1, count)].

        Each cable is listed once, under its anchor end: the A end (the lower tier: server, or the
        leaf of a leaf-spine cable) when that end is in scope, else the B end. Within a rack:
        rack unit from the top down, then device, then cable id."""
        rank = self.rack_rank
        dev_rack, dev_u = self.dev_rack, self.dev_u
        n_racks = len(self.racks)
        ndev = len(self.devices)
        keys: list[int] = []
        append = keys.append
        for i, row in enumerate(self.ph.cable_rows):
            a, b = row[4], row[5]
            if a[0] == "panel":
                ra, ua, da = a[1], a[2], ndev + a[2]
            else:
                da = a[0]
                ra, ua = dev_rack[da], dev_u[da]
            if racks_in_scope is None:
                if ra < 0:
                    if b[0] == "panel":
                        ra, ua, da = b[1], b[2], ndev + b[2]
                    else:
                        da = b[0]
                        ra, ua = dev_rack[da], dev_u[da]
            elif ra not in racks_in_scope:
                if b[0] == "panel":
                    ra, ua, da = b[1], b[2], ndev + b[2]
                else:
                    da = b[0]
                    ra, ua = dev_rack[da], dev_u[da]
                if ra not in racks_in_scope:
                    continue
            r = rank[ra] if ra >= 0 else n_racks
            append((((r << 7 | (127 - ua)) << 24 | da) << 24) | i)
        return self._order_and_sections(keys)

    def link_order(
        self, racks_in_scope: Collection[int] | None = None, predicate: Callable[[int], bool] | None = None
    ) -> tuple[list[int], list[tuple[int, int]]]:
        """Link indexes in the same rack-by-rack order (anchor: A end, else B end in scope)."""
        rank = self.rack_rank
        dev_rack, dev_u = self.dev_rack, self.dev_u
        n_racks = len(self.racks)
        keys = []
        for i, lk in enumerate(self.links):
            if predicate is not None and not predicate(i):
                continue
            d = lk.a
            ra = dev_rack[d]
            if (racks_in_scope is None and ra < 0) or (racks_in_scope is not None and ra not in racks_in_scope):
                d = lk.b
                ra = dev_rack[d]
                if racks_in_scope is not None and ra not in racks_in_scope:
                    continue
            r = rank[ra] if ra >= 0 else n_racks
            keys.append((((r << 7 | (127 - dev_u[d])) << 24 | d) << 24) | i)
        return self._order_and_sections(keys)

    def _order_and_sections(self, keys: list[int]) -> tuple[list[int], list[tuple[int, int]]]:
        """Sorted packed keys ((rack rank << 7 | 127 - U) << 24 | device) << 24 | index, as install_order and
        link_order build them, to the indexes in order and (rack index or -1, count) per rack section."""
        keys.sort()
        mask = (1 << 24) - 1
        order = [k & mask for k in keys]
        sections: list[list] = []
        last = None
        for k in keys:
            r = k >> 55  # the rack rank: 7 bits of U and 48 of device and index below it
            if r != last:
                sections.append([r, 0])
                last = r
            sections[-1][1] += 1
        inv, n_racks = self.rack_order, len(self.racks)
        return order, [(inv[r] if r < n_racks else -1, n) for r, n in sections]

    def rack_title(self, ri: int) -> str:
        if ri < 0:
            return "Devices without a rack"
        r = self.racks[ri]
        hall = f"Hall {r.hall + 1} \u00b7 " if self.halls > 1 else ""  # a one-hall design's documents as before
        return f"{hall}Row {r.row_name} \u00b7 Rack {r.id} ({r.kind})"


class RevisionView:
    """What every deliverable renders: a computed design (a stored revision's snapshot, or the CLI's fresh
    compute), the label its documents print ("r3"), and the DesignView index over it, built on first use and
    then shared (a CLI run writes about 25 files from one view). The BOM and the workloads report read only
    the result, so a design without a physical layer (no view possible) still has them."""

    def __init__(self, result: DesignResult, label: str = "r1") -> None:
        self.result = result
        self.label = label
        self._view: DesignView | None = None

    @property
    def view(self) -> DesignView:
        if self._view is None:
            self._view = DesignView(self.result)
        return self._view
