"""Invariants of the cabling plan, checked on every result with a physical layer (engine.pipeline.check_design).

- one cable per end: no device port and no patch-panel front port carries two cables (cords, direct cables);
- panels placed as ordered: every placed panel has units of its own (no panel shares a unit with another panel
  or a device), every panel a cable end names is placed, and the panels placed per rack, tier and kind are the
  panels the BOM orders;
- unique labels: no two cables carry the same end label, and no two trunks.

A failure raises EngineInvariantError (a bug). Labels are held to it with the engine's own templates; the user's
own templates (physical.labels) may drop what tells cables apart, which is a warning (label_warning).

Labels are not rendered for every cable (a 400,000-cable design would pay about a second): an end label is a
device's or panel's port template (labels.port_template) filled with the port, so two end labels can only be
equal when two owners share a template, or a template leaves out the port. Only the cables touching such
owners are compared; every other label is unique because its end is (the first check). With the default
templates rack and unit fix the template, so the owners that share one are those on one unit of one rack
(two zero-U PDUs), and their cables are compared by (rack, unit, port) keys without rendering.
"""

from __future__ import annotations

import string
from collections import Counter, defaultdict
from collections.abc import Iterator
from itertools import islice
from typing import Any

from .errors import EngineInvariantError
from .model import Place
from .physical.labels import END_PLACEHOLDERS, LabelEnd, LabelTemplate, cable_labels_of, trunk_labels
from .verify import _Marks

_FORMATTER = string.Formatter()
_PORT = END_PLACEHOLDERS.index("port")
_RU = END_PLACEHOLDERS.index("ru")
_RACK_NAMES = {END_PLACEHOLDERS.index("grid"), END_PLACEHOLDERS.index("rack")}  # either names the rack in a site


def _fail(msg: str) -> None:
    raise EngineInvariantError(msg)


def _fields(compiled: str) -> set[int]:
    return {int(i) for _lit, i, _spec, _conv in _FORMATTER.parse(compiled) if i is not None}


def verify_cabling(
    *, devices: Any, places: Any, racks: Any, physical: Any, rack_units: int, renderer: Any
) -> list[str]:
    """Raise on the first broken invariant; return the names of the checks run. `renderer` renders cable ends
    (cable_schedule.EndRenderer over the same devices, places and racks)."""
    rows = physical.cable_rows
    checks = []
    placed = physical.panel_places
    units_at: list[set[int]] = [set() for _ in racks]  # per rack, the units its placed panels start at
    for pp in placed:
        units_at[pp.rack].add(pp.u)

    # 1. One cable per end. Trunk ends ("panel", rack, u, "T") are the panels' rear adapters, not ports.
    # the roll-up's count of the rows, made in the same pass when the roll-up is yet to run (PhysicalResult)
    counts: dict | None = {} if physical.wants_row_counts() else None
    trunk_ids, distinct, unplaced = _read_rows(rows, units_at, len(devices), counts)
    if counts is not None:
        physical.hand_row_counts(counts)
    if distinct != 2 * (len(rows) - len(trunk_ids)):
        count = Counter(e for row in _cords(rows) for e in (row[4], row[5]))
        end, k = count.most_common(1)[0]
        if end[0] == "panel":
            _fail(f"patch panel {racks[end[1]].id} U{end[2]} port {end[3]} carries {k} cords")
        _fail(f"port {devices[end[0]].name} {end[1]} carries {k} cables")
    checks.append("one-cable-per-port")

    # 2. Panels: own units, every named panel placed, placed == ordered.
    if placed or physical.panels:
        _check_panels(devices, places, racks, physical, rack_units)
        if unplaced:
            _unplaced_panel(rows, units_at, racks)
        _check_panel_orders(racks, physical)
        checks.append("panels-placed-as-ordered")

    # 3. Unique labels, with the engine's own templates (custom ones: a warning, label_clash below).
    if _default_templates(physical.policy.labels):
        clash = label_clash(physical, renderer, len(devices), trunk_ids)
        if clash:
            _fail(clash)
        checks.append("unique-labels")
    return checks


def _check_panels(devices: Any, places: Any, racks: Any, physical: Any, rack_units: int) -> None:
    """Fail on the first placed panel sharing a unit with a device or another panel, or below U1."""
    taken: dict[int, dict[int, str]] = defaultdict(dict)
    placed = physical.panel_places
    panel_racks = {pp.rack for pp in placed}  # only these racks' units are read: not every server's (164,000)
    for d, p in zip(devices, places):
        # OOB switches sit above the panels' units; PDUs are zero-U; a rack-scale record spans its rack.
        if p is None or p.rack not in panel_racks or d.role in ("oob", "pdu") or d.rack_units >= rack_units:
            continue
        for u in range(p.u, p.u + d.rack_units):
            taken[p.rack][u] = d.name
    for pp in placed:
        for u in range(pp.u, pp.u + pp.rack_units):
            other = taken[pp.rack].get(u)
            if other is not None or u < 1:
                _fail(
                    f"the {pp.tier} patch panel at {racks[pp.rack].id} U{pp.u} shares U{u} with "
                    f"{other or 'nothing: below U1'}"
                )
            taken[pp.rack][u] = f"a {pp.tier} patch panel"


def _check_panel_orders(racks: Any, physical: Any) -> None:
    """Fail on the first (rack, tier, panel kind) whose panels placed are not the panels the BOM orders."""
    ordered: Counter[tuple[str, str, str]] = Counter()
    for rp in physical.panels:
        ordered[(rp.rack, rp.tier, rp.panel_kind)] += rp.panels
    stood = Counter((racks[pp.rack].id, pp.tier, pp.panel_kind) for pp in physical.panel_places)
    if ordered != stood:
        key = next(k for k in dict.fromkeys([*ordered, *stood]) if ordered[k] != stood[k])  # the first, always
        _fail(f"{key[0]} has {stood[key]} {key[1]} {key[2]} patch panel(s) placed and {ordered[key]} ordered")


def _read_rows(
    rows: Any, units_at: list[set[int]], n_devices: int, counts: dict | None = None
) -> tuple[list[int], int, bool]:
    """What checks 1 and 2 read of the cable rows, in one pass: the trunks' cable ids, in row order; how many
    distinct ends the cords (the rows that are not trunks) have; whether some end (a cord's or a trunk's) names a
    patch panel not placed (`units_at`: per rack index, the units of its placed panels). `counts`, when given (an
    empty dict), gets the rows counted as the roll-up counts them (physical_stage._row_counts: by kind, part,
    length, network and tier, then by A-end field), in the same pass.

    A Python step per row, each end read once and marked with a byte (verify's _Marks): a device end by port name
    and device index, a cord's panel end by (unit, port) and rack index; whether the cords' panels are placed is
    read off those marks once, per (unit, port). At 128K GPUs (511,000 rows, a million ends, 207,000 at panels) it
    takes 0.12 s, where a set of the panel ends with a placement look-up per end, and a list of the cords took
    0.134 s (and a set of every end tuple, a pass to split off the trunks and one to find unplaced panels 0.30 s).
    The rows come in runs sharing their kind, part, length, network and tier objects (a tier's direct cables, a
    demand group's cords): whether a row is a trunk is known per run, as is the roll-up's key; counting here
    costs ~0.06 s at 128K GPUs where the roll-up's own pass costs ~0.10 s.
    """
    marks = _Marks(n_devices)
    panel_marks = _Marks(len(units_at))
    trunk_ids: list[int] = []
    trunk = trunk_ids.append
    unplaced = False
    counting = counts is not None
    by_key: dict[tuple, dict] = {} if counts is None else counts
    kind = part = length = net = tier = _NO_RUN
    by_a_end: dict = {}
    is_trunk = False
    try:
        for row in rows:
            if (
                row[2] is not part
                or row[3] is not length
                or row[1] is not kind
                or row[8] is not net
                or row[7] is not tier
            ):
                kind, part, length, net, tier = key = row[1], row[2], row[3], row[8], row[7]
                is_trunk = kind == "trunk"
                if counting:
                    by_a_end = by_key.get(key)  # type: ignore[assignment]
                    if by_a_end is None:
                        by_a_end = by_key[key] = {}
            a, b = row[4], row[5]
            end = a[0]
            if counting:
                by_a_end[end] = by_a_end.get(end, 0) + 1
            if is_trunk:
                trunk(row[0])
                if (end == "panel" and a[2] not in units_at[a[1]]) or (b[0] == "panel" and b[2] not in units_at[b[1]]):
                    unplaced = True
                continue
            if end == "panel":
                panel_marks[a[2], a[3]][a[1]] = 1
            else:
                marks[a[1]][end] = 1
            end = b[0]
            if end == "panel":
                panel_marks[b[2], b[3]][b[1]] = 1
            else:
                marks[b[1]][end] = 1
        unplaced = unplaced or _marked_unplaced(panel_marks, units_at)
    except IndexError:
        _fail("a cable names a device or rack that does not exist")
    return trunk_ids, marks.distinct() + panel_marks.distinct(), unplaced


_NO_RUN = object()  # no row's field: the run before the first row


def _marked_unplaced(panel_marks: _Marks, units_at: list[set[int]]) -> bool:
    """Whether a panel end marked in `panel_marks` (by (unit, port), then rack index) is on a unit no panel of its
    rack is placed at. A bytearray of marks is read as an int (bit 8 x rack set per marked rack) and masked with
    the racks that have a panel at the unit: a few hundred (unit, port) pairs, not a look-up per end. A rack index
    past the last raises IndexError, as a look-up in `units_at` would."""
    placed_at: dict[Any, int] = {}  # unit -> the racks with a panel there, as an int read like the marks
    for (u, _port), racks in panel_marks.items():
        if not isinstance(racks, bytearray):
            if any(u not in units_at[r] for r in racks):
                return True
            continue
        placed = placed_at.get(u)
        if placed is None:
            placed = placed_at[u] = int.from_bytes(bytes(u in at for at in units_at), "little")
        if int.from_bytes(racks, "little") & ~placed:
            return True
    return False


def _unplaced_panel(rows: Any, units_at: list[set[int]], racks: Any) -> None:
    """Fail on the first cable, in row order, that ends on a patch panel not placed (`units_at`: per rack index,
    the units of its placed panels). Both ends read in line, and no (rack, unit) pair built per panel end (600,000
    rows at 128K GPUs)."""
    for row in rows:
        a, b = row[4], row[5]
        if a[0] == "panel" and a[2] not in units_at[a[1]]:
            _fail(f"cable C{row[0]:06d} ends on a patch panel at {racks[a[1]].id} U{a[2]} that is not placed")
        if b[0] == "panel" and b[2] not in units_at[b[1]]:
            _fail(f"cable C{row[0]:06d} ends on a patch panel at {racks[b[1]].id} U{b[2]} that is not placed")


def _default_templates(template: LabelTemplate) -> bool:
    default = LabelTemplate()
    return (template.end, template.cable, template.panel, template.trunk) == (
        default.end,
        default.cable,
        default.panel,
        default.trunk,
    )


def label_warning(*, devices: Any, physical: Any, renderer: Any) -> str | None:
    """The warning when the user's own label templates (physical.labels) give two cables the same label."""
    if _default_templates(physical.policy.labels):
        return None  # verify_cabling holds the engine's templates to it
    clash = label_clash(physical, renderer, len(devices))
    if clash is None:
        return None
    return (
        f"physical.labels: {clash}; the label templates do not tell every cable apart (name the device, "
        "the rack unit or the port)"
    )


def label_clash(physical: Any, renderer: Any, n_devices: int, trunk_ids: list[int] | None = None) -> str | None:
    """Two cables (or two trunks) with the same label, said in words; None when every label is unique.
    `trunk_ids`: the trunk rows' cable ids, when the caller has them (else read from the rows)."""
    template: LabelTemplate = physical.policy.labels
    clash = _cord_label_clash(physical.cable_rows, template, renderer, n_devices, physical.panel_places)
    if clash:
        return clash
    if not physical.trunks:
        return None
    rows = physical.cable_rows
    if _labels_lead_with_cable_id(template._trunk):
        # Two trunks' labels differ when their ids do: no label rendered (10,100 trunks at 128K GPUs).
        ids = [row[0] for row in rows if row[1] == "trunk"] if trunk_ids is None else trunk_ids
        if len(set(ids)) == len(ids):
            return None
    # Both ends of one trunk may read the same (own_end_first off); two trunks may not.
    # dict.fromkeys, not set: the label a warning names must not change with the process's string hashing
    trunk_labels = [label for labels in _trunk_labels(physical, renderer) for label in dict.fromkeys(labels)]
    if len(set(trunk_labels)) != len(trunk_labels):
        return f"two trunks are labelled {Counter(trunk_labels).most_common(1)[0][0]!r}"
    return None


def _labels_lead_with_cable_id(compiled: str) -> bool:
    """Whether a compiled cable or trunk template renders a fixed literal, then the cable id as is ("C" and its
    number's digits), then a literal that is no digit: the id is then read back from the label, so two cables
    with different ids never share a label."""
    parts = list(_FORMATTER.parse(compiled))
    _lit, field, spec, conv = parts[0]
    following = parts[1][0] if len(parts) > 1 else "."  # the label ends with the id
    return field == "2" and not spec and conv is None and following[:1] not in ("", *string.digits)


def _trunk_labels(physical: Any, renderer: Any) -> Iterator[Any]:
    template = physical.policy.labels
    for row in physical.cable_rows:
        if row[1] == "trunk":
            yield trunk_labels(template, f"C{row[0]:06d}", renderer.label_end(row[4]), renderer.label_end(row[5]))


def _cords(rows: Any) -> Iterator[Any]:
    """The cable rows that are not trunks (cords and direct cables), in row order."""
    return (row for row in rows if row[1] != "trunk")


def _cord_label_clash(
    rows: Any, template: LabelTemplate, renderer: Any, n_devices: int, panel_places: Any
) -> str | None:
    """Two cords (`rows`: the cable rows, trunks skipped) with the same label, said in words; None if none."""
    used = _fields(template._cable)
    if 2 in used:  # <cable>: every label carries its cable's own id
        return None
    if not used & {0, 1}:
        if len(list(islice(_cords(rows), 2))) > 1:
            return "the cable label template names neither end nor the cable, so every cable reads the same"
        return None
    # Owners (devices, panels) whose end labels could equal another owner's: O(devices), not O(cables). An owner's
    # labels are its port template filled with a port; the template is fixed by the label fields the end template
    # uses, so owners are grouped by those fields (cheaper than rendering 35,000 templates).
    fields = _fields(template._end)
    if _PORT not in fields:
        risky = set(range(n_devices)) | {("panel", pp.rack, pp.u) for pp in panel_places}
    elif (
        _RU in fields
        and fields & _RACK_NAMES
        and None not in renderer.places
        and len({r.id for r in renderer.racks}) == len(renderer.racks)
    ):
        # The default: one site, so rack and unit name an owner; only owners on one unit of one rack (zero-U
        # PDUs; a panel on a device's unit) can share labels.
        risky = _sharing_a_unit(renderer.places, panel_places)
        if risky:
            return _clash_by_unit(rows, risky, template, renderer, used)
        return None
    else:
        key_fields = sorted(fields - {_PORT})
        racks = renderer.racks
        shared_by: dict = defaultdict(list)
        for dev, (d, p) in enumerate(zip(renderer.devs, renderer.places)):
            if p is None:
                end = LabelEnd(device=d.name)
            else:
                r = racks[p.rack]
                site, _, grid = r.id.partition(".")
                end = LabelEnd(site=site, grid=grid or site, ru=p.u, device=d.name, rack=r.id, row=r.row_name)
            shared_by[tuple(end[i] for i in key_fields)].append(dev)
        for pp in panel_places:
            r = racks[pp.rack]
            site, _, grid = r.id.partition(".")
            end = LabelEnd(site=site, grid=grid or site, ru=pp.u, device="PANEL", rack=r.id, row=r.row_name)
            shared_by[tuple(end[i] for i in key_fields)].append(("panel", pp.rack, pp.u))
        risky = {o for owners in shared_by.values() if len(owners) > 1 for o in owners}
    if not risky:
        return None
    # A first cut on the end's first field (device index, or "panel"), light enough for 400,000 cables.
    first = {o if isinstance(o, int) else "panel" for o in risky}
    labels: dict[str, int] = {}
    for row in [row for row in rows if (row[4][0] in first or row[5][0] in first) and row[1] != "trunk"]:
        a, b = row[4], row[5]
        if (a[:3] if a[0] == "panel" else a[0]) not in risky and (b[:3] if b[0] == "panel" else b[0]) not in risky:
            continue
        for label in dict.fromkeys(cable_labels_of(template, renderer(a)[0], renderer(b)[0], f"C{row[0]:06d}")):
            other = labels.setdefault(label, row[0])
            if other != row[0]:
                return f"cables C{other:06d} and C{row[0]:06d} are both labelled {label!r}"
    return None


def _sharing_a_unit(places: Any, panel_places: Any) -> set:
    """The owners (device indexes, ("panel", rack, u)) on a rack unit that another owner is on too, counted in C
    over the places; the panels are looked at only when some unit is shared."""
    on_unit = Counter(places)
    on_unit.update(Place(pp.rack, pp.u) for pp in panel_places)
    crowded = {place for place, n in on_unit.items() if n > 1}
    if not crowded:
        return set()
    risky: set = {dev for dev, p in enumerate(places) if p in crowded}
    risky |= {("panel", pp.rack, pp.u) for pp in panel_places if Place(pp.rack, pp.u) in crowded}
    return risky


def _clash_by_unit(rows: Any, risky: set, template: LabelTemplate, renderer: Any, cable_fields: set) -> str | None:
    """_cord_label_clash when rack and unit name an end label (`rows`: the cable rows, trunks skipped): compare
    (rack, unit, port) keys of the cables at risky owners instead of rendering their labels; render only the two labels of a clash, to name it."""
    places = renderer.places
    first = {o if isinstance(o, int) else "panel" for o in risky}
    near, far = 0 in cable_fields, 1 in cable_fields

    def key(end: tuple) -> tuple:
        if end[0] == "panel":
            return end[1:]
        p = places[end[0]]
        return (p.rack, p.u, end[1])

    seen: dict = {}
    for row in [row for row in rows if (row[4][0] in first or row[5][0] in first) and row[1] != "trunk"]:
        ka, kb = key(row[4]), key(row[5])
        # in a fixed order (a set of tuples holding None iterates by None's hash, which is its address in 3.11)
        ids = [(ka if near else None, kb if far else None)]
        if template.own_end_first and (kb if near else None, ka if far else None) != ids[0]:
            ids.append((kb if near else None, ka if far else None))
        for ident in ids:
            other = seen.setdefault(ident, row)
            if other is not row:
                a = cable_labels_of(template, renderer(other[4])[0], renderer(other[5])[0], f"C{other[0]:06d}")
                b = cable_labels_of(template, renderer(row[4])[0], renderer(row[5])[0], f"C{row[0]:06d}")
                label = next((x for x in a if x in b), a[0])
                return f"cables C{other[0]:06d} and C{row[0]:06d} are both labelled {label!r}"
    return None
