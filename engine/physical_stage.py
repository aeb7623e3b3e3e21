"""The physical stage of compute_design: media per cage, cables, channels, loss budgets, fibers, BOM.

Work is done once per distinct key and shared by every link with that key, so the cost per link
is a few dictionary look-ups (a 128K-GPU design has ~400,000 links but a few hundred distinct
media decisions):
- media: one decision per cage pair kind (tier, both cages, alignment, run rounded UP to a whole
  metre: every reach limit in the catalog is a whole number of metres, so rounding up never
  changes which media fit);
- channel + polarity checks: one per (choice, structured);
- loss budget: one per (channel, fiber length ordered).
Labels are rendered when rows are written (cables.csv, the database), not held in memory.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cache, partial
from itertools import compress, islice, repeat
from math import ceil
from operator import and_, attrgetter, contains, countOf, gt, is_, itemgetter, ne, not_, or_
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from .cable_schedule import CableSchedule
from .catalog import Catalog
from .columns import LINK_PHYSICAL_COLUMNS
from .model import APPLIANCE_ROLES, Device, Link, Place, Rack
from .orders.orderable import device_lines
from .physical import (
    CageEnd,
    LegRun,
    LegRuns,
    LinkSlot,
    MediaPolicy,
    MediaRequest,
    MediaSelectionError,
    TrunkDemand,
    TrunkPlan,
    build_channel,
    cable_for_run,
    check_channel,
    describe,
    fiber_totals,
    link_fibers,
    loss_budget,
    plan_panels,
    plan_trunks,
    select_media,
)
from .physical.constants import FORM_FACTORS
from .physical.panel_layout import PanelOverflow, PanelUnits
from .summary import tier_runs

if TYPE_CHECKING:
    from collections.abc import Callable

    from engine.physical.loss import LossBudget
    from engine.physical.policy import LossPolicy

_new_tuple = tuple.__new__  # a NamedTuple made without its Python-level __new__

# Appliance NICs are not in the reference; a single-port QSFP112 flat-top cage is the default (data gap).
APPLIANCE_CAGE = ("qsfp112", "flat")


class BomSplit(NamedTuple):
    """The BOM's transceivers and cables split by network and scalable unit, counted by ``_bom`` in the
    passes that count them for the BOM lines (so a renderer never walks 400,000 links again). Keys are
    sorted; an SU of 0 means no SU. The quantities per part add up to the BOM lines' quantities."""

    transceivers: dict  # (module sku, network of the link, SU of the device holding the cage) -> modules
    cables: dict  # (part, network, SU of the A-end device; 0 for a panel end) -> cables
    cable_lengths: dict  # part -> ordered length (m) of its first cable row


@dataclass
class PhysicalResult:
    """Per-link physical facts (parallel lists) and per-cable rows, plus roll-ups for the summary."""

    policy: MediaPolicy
    choices: list  # per link: MediaChoice or None (no medium / not modelled)
    cords: list  # per link: (sku, ordered length m) of the link's own cable, or None
    cables: list  # per link: tuple of cable ids (ints) in channel order
    budgets: list  # per link: LossBudget or None
    statuses: list  # per link: pass | marginal | fail | n/a | no-medium
    cable_rows: list  # (id, link index of the first link, kind, part, length, a_end, b_end, link ids)
    trunks: list  # (network, TrunkRun)
    panels: tuple
    fibers: Any
    bom: list
    loss_counts: dict
    issues: list = field(default_factory=list)  # (link id, message) for broken channels
    racks_by_id: dict = field(default_factory=dict)
    bom_split: BomSplit | None = None  # transceivers and cables of the BOM by network and SU
    missing: dict = field(default_factory=dict)  # (network, tier) -> links without a part
    completeness: dict = field(default_factory=dict)  # set by roll_up(): see _completeness
    cable_kinds: dict = field(default_factory=dict)  # set by roll_up(): (network, tier, kind) -> cable rows
    distinct_choices: list = field(default_factory=list)  # each MediaChoice once (a few hundred at most)
    panel_places: list = field(default_factory=list)  # PanelPlace per panel placed (physical/panel_layout.py)
    site: dict = field(default_factory=dict)  # halls and what runs between them; empty for a one-hall design

    _roll_up: Any = field(default=None, repr=False, compare=False)  # set by run_physical, run by roll_up()

    def roll_up(self, runs: list | None = None) -> list[str]:
        """Work out the fiber totals, the BOM and the worst links, and return the physical layer's warnings.

        Only the summary and the BOM need these, not the link and cable rows: engine.pipeline.finish_design
        calls it, while a job's rows are being stored. It runs once; a second call returns no warnings. `runs`:
        summary.tier_runs of the links, when the caller has it.
        """
        step, self._roll_up = self._roll_up, None
        return step(runs=runs) if step is not None else []

    def wants_row_counts(self) -> bool:
        """Whether the roll-up is yet to run: a caller walking the cable rows anyway (verify_cabling's first
        check, which engine.pipeline.finish_design runs before the roll-up) may then count them as _row_counts
        does and hand the counts over (hand_row_counts), so that the roll-up does not walk the rows again."""
        return self._roll_up is not None

    def hand_row_counts(self, counts: dict) -> None:
        """Give the roll-up `counts`, _row_counts(self.cable_rows) as a caller worked it out in a whole pass over
        the rows; ignored once the roll-up has started (the store runs the checks and the roll-up in threads:
        the roll-up that finds no counts handed over counts the rows itself)."""
        step = self._roll_up
        if step is not None:
            step.keywords["row_counts"].append(counts)

    # ----- rows for outputs -----------------------------------------------------------------
    def link_columns(self) -> tuple[str, ...]:
        return LINK_PHYSICAL_COLUMNS

    def link_fields_all(self) -> Iterator[tuple]:
        """The LINK_PHYSICAL_COLUMNS of every link, in link order."""
        return self._per_link(db=False)

    def link_db_fields_all(self) -> Iterator[tuple]:
        """Every link's physical fields as the database stores them, in link order: medium, parts, cable ids
        (128 characters at most), fibers, polarity, loss and margin (NULL where there is no figure), status."""
        return self._per_link(db=True)

    def link_rows(self, result: Any) -> Iterator[tuple]:
        for row, fields in zip(result.link_rows(), self.link_fields_all()):
            yield row + fields

    def _per_link(self, *, db: bool) -> Iterator[tuple]:
        # A 400,000-link design has a few hundred distinct (medium choice, budget, cord) triples, so their
        # fields are worked out once each; only the cable ids and the status differ from link to link.
        memo: dict = {}
        plain = _first_ids_plain(self.cables)
        for c, b, cord, cable_ids, status in zip(self.choices, self.budgets, self.cords, self.cables, self.statuses):
            if len(cable_ids) != 1:  # only a joined list can outgrow the stored column's 128 characters
                cables = " ".join([f"C{x:06d}" for x in cable_ids])
                if db:
                    cables = cables[:128]
            elif plain:  # "C" + str(n).zfill(6) is f"C{n:06d}" of a plain int at ~60 % of its cost (~0.03 s at 128K)
                cables = "C" + str(cable_ids[0]).zfill(6)
            else:
                cables = f"C{cable_ids[0]:06d}"
            key = (id(c), id(b), cord[0] if cord else None)
            parts = memo.get(key)
            if parts is None:
                parts = memo[key] = _link_parts(c, b, cord, db)
            medium, a_part, b_part, fibers, polarity, loss, margin = parts
            yield medium, a_part, b_part, cables, fibers, polarity, loss, margin, status

    def cable_rows_out(self, result: Any) -> Iterator[tuple[Any, ...]]:
        """cables.csv rows (CABLE_COLUMNS), labels rendered on the fly (own end first, TIA-606 style)."""
        return CableSchedule(result).rows()

    def cable_db_rows(self, result: Any, revision_id: int) -> Iterator[tuple[Any, ...]]:
        """Every cable as the database stores it, led by `revision_id` (CableSchedule.db_rows)."""
        return CableSchedule(result).db_rows(revision_id)

    def summary_sections(self) -> dict:
        f = self.fibers
        fc = lambda x: {"active": x.active, "installed": x.installed, "dark": x.dark, "spare": x.spare}  # noqa: E731
        return {
            "fibers": {
                "total": fc(f.total),
                "per_network": {k: fc(v) for k, v in f.per_network},
                "per_tier": {k: fc(v) for k, v in f.per_tier},
            },
            "bom": self.bom,
            "loss_budget": self.loss_counts,
            "cables_total": len(self.cable_rows),
            "trunks_total": len(self.trunks),
            "worst_links": self.worst,
            "completeness": self.completeness,
        } | ({"site": self.site} if self.site else {})

    worst: list = field(default_factory=list)


def _first_ids_plain(cables: list) -> bool:
    """Whether the first cable id of every link with a cable is a plain int (not a bool or another int subclass,
    whose str() may differ from its digits): checked in C, about 0.015 s for 400,000 links."""
    return set(map(type, map(_FIRST_ID, filter(None, cables)))) <= {int}


_FIRST_ID = itemgetter(0)


def _link_parts(c: Any, b: Any, cord: Any, db: bool) -> tuple:
    """(medium, a part, b part, fibers, polarity, loss, margin) of a link with medium choice `c`, loss budget
    `b` and own cable `cord`; loss and margin are "" without a figure, None for the database. Flat: one unpack
    per link."""
    none = None if db else ""
    if c is None:
        return "", "", "", 0, "", none, none
    a_part = c.a_module or (cord[0] if cord else c.cable_sku)
    b_part = c.b_module or (cord[0] if cord else c.cable_sku)
    loss = none if b is None or b.status == "n/a" else round(b.loss_db, 2)
    margin = none if b is None or b.margin_db is None else round(b.margin_db, 2)
    return c.medium, a_part, b_part, c.fibers_per_link, "type-b" if c.optical else "", loss, margin


# Lane rate of a form factor whose name fixes it (QSFP28 = 4 x 25G NRZ, QSFP56 = 4 x 50G PAM4).
_FORM_FACTOR_LANES = {"qsfp28": 25, "qsfp56": 50}


def _cage_end(
    d: Device, cage: str, speed: int, catalog: Catalog, server_cages: dict, ufm_module: Any | None
) -> CageEnd | None:
    if speed == 1:
        # 1G OOB: every managed end (BMC, switch management port, PDU) and the OOB switch ports are RJ45.
        return CageEnd(
            "switch" if d.role in ("oob", "leaf", "spine", "core", "oob-agg") else "server", "rj45", "flat", False, 1, 1
        )
    if d.role in APPLIANCE_ROLES:
        if d.role == "server":
            info = server_cages.get(cage)
            if info is None:
                return None
            ff, top, twin, lanes = info[:4]
            nic, accepts = info[4:] if len(info) > 4 else ("", ())
            return CageEnd("server", ff, top, twin, speed, lanes, nic=nic, accepts=accepts)
        if d.role == "ufm" and ufm_module is not None:
            # The UFM appliance's cage is the one its module (physical.ufm_module) plugs into.
            t = ufm_module
            return CageEnd("server", t.form_factor, t.top, t.ports > 1, speed, t.lane_gbps, module=t.sku)
        ff, top = APPLIANCE_CAGE
        return CageEnd("server", ff, top, False, speed, 200 if speed >= 800 else 100)
    sw = catalog.switches.get(d.model)
    if sw is None or sw.form_factor not in FORM_FACTORS:
        return None
    per = sw.ports_per_cage(speed)
    if per is None:
        # An OOB switch's uplink ports are not the cages of its radix: they have their own form factor.
        up = sw.uplinks or {}
        ff = up.get("form_factor")
        if up.get("speed_gbps") == speed and ff in FORM_FACTORS:
            return CageEnd("switch", ff, sw.top, False, speed, _FORM_FACTOR_LANES.get(ff, sw.lanes_gbps))
        return None
    if per == 4 and sw.ports_per_cage(2 * speed) == 2:
        # A twin-port cage at a quarter of its rate: each of the module's two ports runs as two ports of
        # half its speed (port k/1 and k/2 on the module's first connector, k/3 and k/4 on its second).
        # The cage is described at the module's port speed; the links' speed marks the split.
        return CageEnd("switch", sw.form_factor, sw.top, True, 2 * speed, sw.lanes_gbps)
    return CageEnd("switch", sw.form_factor, sw.top, per > 1, speed, sw.lanes_gbps)


def _connector_of(port: str) -> int:
    """Which module connector of a quarter-rate twin-port cage a port uses: "17/1", "17/2" -> 0; "17/3",
    "17/4" -> 1."""
    _, _, sub = port.rpartition("/")
    return (int(sub) - 1) // 2 if sub.isdigit() else 0


def _split_pairs(links: list[Link], speed_ok: Callable[[Any], bool]) -> dict:
    """{(device, cage, connector): set of far (device, cage, connector)} over the links between two
    quarter-rate cages (speed_ok(link) true): two ports that share a module connector can share one straight
    cord only when they reach the same far connector."""
    far: dict = defaultdict(set)
    for link in links:
        if speed_ok(link):
            ka = (link.a, link.a_cage, _connector_of(link.a_port))
            kb = (link.b, link.b_cage, _connector_of(link.b_port))
            far[ka].add(kb)
            far[kb].add(ka)
    return far


def _paired(choice: Any) -> Any:
    """A choice between two quarter-rate cages: each straight cord carries the two half-speed links of one
    module connector (a twin-port copper cable the four links of the cage), so a module serves four links and
    a cord's fibers are shared by two."""
    from dataclasses import replace

    def per(p: Any, n: int) -> Any:
        return None if p is None else p / n

    return replace(
        choice,
        cable_carries_links=choice.cable_carries_links * 2,
        a_links_per_module=choice.a_links_per_module * 2,
        b_links_per_module=choice.b_links_per_module * 2,
        a_power_w_per_link=per(choice.a_power_w, choice.a_links_per_module * 2),
        b_power_w_per_link=per(choice.b_power_w, choice.b_links_per_module * 2),
        link_gbps=choice.link_gbps // 2,
        fibers_per_link=choice.fibers_per_link // 2,
        fibers_installed_per_link=choice.fibers_installed_per_link // 2,
    )


def _per_connector(choice: Any, split: bool, quarter: bool) -> bool:
    """Whether a shared cable is shared by the links of one module connector (a 1:2 splitter, or a straight
    cord between quarter-rate cages) rather than by the links of a cage pair (twin-port copper)."""
    return split or (quarter and choice.optical)


def _ufm_module(policy: MediaPolicy, media: Any, devices: list[Device]) -> Any:
    """The transceiver of the fabric managers' cages (physical.ufm_module), None without fabric managers."""
    if not any(d.role == "ufm" for d in devices):
        return None
    module = media.transceivers.get(policy.ufm_module)
    if module is None:
        from .errors import SpecError

        raise SpecError.at(
            "physical.ufm_module",
            f"{policy.ufm_module!r} is not a transceiver in the catalog "
            "(add it as a custom part or name one the catalog lists)",
        )
    return module


def _server_cages(spec: Any, server: Any) -> dict[str, tuple]:
    """Server cage facts by cage name: compute cages (twin when they carry 2 ports, or 1 port split over 2
    planes), plus the storage / in-band ports, one per cage, and the OOB port.
    (form factor, top, twin, lanes[, NIC, accepted plugs])"""
    planes = spec.compute.planes
    lanes = 200 if server.nic_speed_gbps >= 800 else 100
    server_cages: dict[str, tuple] = {
        c.name: (c.form_factor, c.top, len(c.ports) * planes > 1, lanes) for c in server.cages
    }
    if planes > 1:
        # A NIC split over two planes runs each port at half speed on 100G lanes (the Spectrum-4
        # switches it meets have 100G SerDes); 200G lanes are XDR's, at 800G per port.
        server_cages = {
            k: (ff, top, twin, 100 if server.nic_speed_gbps // planes < 800 else lanes)
            for k, (ff, top, twin, lanes) in server_cages.items()
        }
    for group in (server.storage, server.inband):
        for port in group.ports:
            server_cages[port] = (
                group.form_factor if group.form_factor in FORM_FACTORS else "qsfp112",
                "flat",
                False,
                100,
                group.nic,
                group.accepts,
            )
    for port in server.oob.ports:
        server_cages[port] = ("rj45", "flat", False, 1)
    return server_cages


class Measure(Protocol):
    """engine/runlength.py measure_runs with the links and their geometry bound: `(only, out, gathers=None)`."""

    def __call__(
        self,
        only: Sequence[int] | None,
        out: list[float],
        gathers: tuple[Callable[[Sequence], tuple], Callable[[Sequence], tuple]] | None = None,
    ) -> None: ...


class LinkEnds:
    """The A and B device of each link as two lists (`columns`), for the column work over every link of
    place_panels (_panel_flags, _cage_sharers, _first_rack_overflow): read from the link tuples, an end costs a pass
    over 400,000 tuples scattered in memory (8-12 ms at 128K GPUs), read from a list of ints about half that.

    engine.pipeline keeps one per wiring, with `stable` its number of links: those links are the same objects in
    each pass of start_design (_rewind drops only what came after them), so their ends are read once; the links
    after them (the OOB network, wired again each pass) are read each time. A list whose link at `stable` - 1 is
    not the one read before is read whole again."""

    def __init__(self, stable: int = 0) -> None:
        self.stable = stable
        self.head: tuple[list[int], list[int]] = ([], [])
        self.last: Link | None = None  # the link at stable - 1 when `head` was read
        # gathers' answer, with the A column it was made from
        self.gathered: tuple[list[int], Callable[[Sequence], tuple], Callable[[Sequence], tuple]] | None = None

    def columns(self, links: list[Link]) -> tuple[list[int], list[int]]:
        stable = min(self.stable, len(links))
        if not stable or links[stable - 1] is not self.last:
            self.head = (list(map(_LINK_A, islice(links, stable))), list(map(_LINK_B, islice(links, stable))))
            self.last = links[stable - 1] if stable else None
        if len(links) == stable:
            return self.head
        tail = links[stable:]
        return self.head[0] + list(map(_LINK_A, tail)), self.head[1] + list(map(_LINK_B, tail))

    def gathers(
        self, columns: tuple[list[int], list[int]]
    ) -> tuple[Callable[[Sequence], tuple], Callable[[Sequence], tuple]]:
        """For the links' ends `columns` (as `columns` gave them), two functions of a per-device table: the tuple of
        each link's A (B) device's entry. An itemgetter of the whole column gathers in one C call, about a quarter of
        the CPU of map(table.__getitem__, column): 3 ms against 13 ms for 400,000 links. Kept while `columns` is
        the same object: the same pass, or a pass over the wired links alone (`head`)."""
        if self.gathered is None or self.gathered[0] is not columns[0]:
            self.gathered = (columns[0], _gather(columns[0]), _gather(columns[1]))
        return self.gathered[1], self.gathered[2]


def _gather(indexes: Sequence[int]) -> Callable[[Sequence], tuple]:
    """A function of a table: the tuple of its entries at `indexes` (itemgetter returns an entry, not a tuple, for
    one index, and cannot be made for none)."""
    if len(indexes) > 1:
        return itemgetter(*indexes)
    return lambda table: tuple(map(table.__getitem__, indexes))


def _per_link_state(p: _Pass, sparse: bool) -> None:
    """The pass's per-link lists (choices, cords, cables, budgets, statuses: parallel to the links), or, `sparse`,
    dicts by link index for a pass that looks at a few links (a probe, or place_panels' pass until its first rack
    is checked): a list of 400,000 entries costs about 1 ms of page faults at 128K GPUs, five of them 5 ms."""
    if sparse:
        p.choices, p.cords, p.cables, p.budgets, p.statuses = _dicts(5)
        return
    n = len(p.links)
    p.choices, p.cords, p.cables, p.budgets, p.statuses = (
        [None] * n,
        [None] * n,
        [()] * n,
        [None] * n,
        ["no-medium"] * n,
    )


def _dicts(k: int) -> Any:
    """`k` empty dicts, typed as the lists they stand in for (_per_link_state)."""
    return [{} for _ in range(k)]


def _link_ends(p: _Pass) -> tuple[list[int], list[int]]:
    """The A and B device of each of the pass's links (LinkEnds.columns), read once a pass."""
    if p.end_columns is None:
        p.end_columns = p.link_ends.columns(p.links)
    return p.end_columns


def _end_gathers(p: _Pass) -> tuple[Callable[[Sequence], tuple], Callable[[Sequence], tuple]]:
    """Per-device tables gathered at the pass's links' A and B devices (LinkEnds.gathers)."""
    return p.link_ends.gathers(_link_ends(p))


class _Pass:
    """The state one run_physical builds up: the per-link lists (parallel to the links), the cable rows numbered
    as they are made, and the memos that make the cost per link a few dictionary look-ups."""

    def __init__(
        self,
        spec: Any,
        catalog: Catalog,
        devices: list[Device],
        links: list[Link],
        lengths: list[float],
        places: list[Place | None],
        racks: list[Rack],
        ends: LinkEnds | None = None,
        like: _Pass | None = None,
        sparse: bool = False,
    ) -> None:
        """`ends`: the columns of the links' ends, kept across the passes of one wiring (see LinkEnds); `like`: a
        pass over the same design whose policy, device facts and link ends this one shares (_first_rack_overflow's
        probe), rather than working them out again; `sparse`: the per-link state as dicts (_per_link_state)."""
        self.spec, self.catalog, self.devices, self.links = spec, catalog, devices, links
        self.lengths, self.places, self.racks = lengths, places, racks
        if like is None:
            self.policy = policy = MediaPolicy.from_dict(spec.physical or {})  # SpecError at its path
            self.ufm_module = _ufm_module(policy, catalog.media, devices)
            self.server_cages = _server_cages(spec, catalog.servers[spec.servers.model])
            self.appliance = [d.role in APPLIANCE_ROLES for d in devices]
            self.link_ends = LinkEnds() if ends is None else ends
        else:
            policy, self.ufm_module, self.server_cages = like.policy, like.ufm_module, like.server_cages
            self.policy, self.appliance, self.link_ends = policy, like.appliance, like.link_ends
        self.choices: list = []
        self.cords: list = []
        self.cables: list = []
        self.budgets: list = []
        self.statuses: list = []
        _per_link_state(self, sparse)
        self.cable_rows: list = []
        # a tier's trunk rows, made as its links reach them and put before its cords (ids: trunks, then cords)
        self.trunk_rows: list = []
        self.next_id = 1
        self.issues: list = []
        self.failures: dict[str, str] = {}
        self.missing: Counter = Counter()  # (network, tier) -> links without a part; counted only when it happens
        self.budget_of = _Budgets(policy)
        self.direct_memo: dict = {}  # (id(choice), ordered length, leg) -> (budget, status, problem)
        self.run_memo: dict = {}  # (id(choice), run length) -> (cable part, ordered length)
        # Cage ends are memoized per switch device (one speed per network) and per appliance cage name and
        # role (`appliance`, above: per device, whether its cage ends go by role and cage name); memo keys use id()
        # of the memoized objects: hashing a frozen dataclass walks all its fields.
        self.dev_end: dict = {}
        self.intern: dict = {}  # equal CageEnds -> one object, so id() keys hit
        # a switch's cage end (interned, or False) by (model, role, speed): _cage_end reads nothing else of a
        # device that is not an appliance, so the 5,000 switches of a 128K-GPU design make a handful of CageEnds
        self.model_end: dict = {}
        self.choice_memo: dict = {}
        self.shared: dict[tuple, int] = {}  # cage pair or module connector -> cable id, for shared cables
        self.split_far: dict | None = None  # built on the first link between two quarter-rate cages
        # Panel-mode links by (tier, network, rack A, rack B, id of the choice, diversity group): ids, as hashing a
        # frozen dataclass walks all its fields; equal choices share one id (`demand_choice` maps it back).
        self.demands: dict[tuple, list[int]] = defaultdict(list)
        self.demand_choice: dict[int, Any] = {}  # id -> the first of the equal choices a demand key names
        self.demand_id: dict[int, int] = {}  # id(choice) -> id of the first choice equal to it
        self.demand_first: dict = {}  # choice -> the first choice equal to it
        # Links cabled directly, in link order, with their cables made once the panels fit (see run_physical):
        # the index i, or ~i when the link runs between two quarter-rate cages.
        self.direct = array("i")
        # Links between halls run through patch panels at both ends and a single-mode trunk (docs/site-model.md).
        self.hall_of = [r.hall for r in racks] if any(r.hall for r in racks) else None
        self.inter_hall = 0  # links between halls
        self.trunks_out: list = []  # (network, TrunkRun)
        self.plans: list = []
        self.panel_units: PanelUnits | None = None
        # The media assignment runs in two passes (the links through panels first: _assign_panel_media); what is
        # kept in order of first occurrence records the link index of each key's first occurrence, so that the
        # two passes' entries merge into link order: failures and missing per network/tier, choice_memo's keys
        # (2 * index, and 2 * index + 1 for a paired choice made after the plain one of the same link).
        self.media: Any = None  # _MediaTables
        self.fail_at: dict[str, int] = {}
        self.missing_at: dict[tuple, int] = {}
        self.memo_at: dict = {}
        self.early: tuple = ({}, Counter(), array("i"), {}, {})  # the first pass's failures, missing, direct, *_at
        # Run lengths are measured in two goes (place_panels, then measure_rest): `measure(indexes, out)` writes
        # those of the links at `indexes` (every link's for None) into self.lengths. `tiers`: _panel_mode's answer.
        self.measure: Measure = _unmeasured
        self.panel_flags: list[bool] | None = None  # per link, through patch panels (None: no link is)
        self.measured: list[bool] | None = None  # per link, measured by place_panels (None: none was)
        self.rest: bool = True  # measure_rest is still to run
        self.tiers: list[tuple[str, list, Any, dict]] = []
        # The optical modules' cages, marked by the media pass as it chooses each link's medium (_media_links),
        # not found by a pass of their own at roll-up (_module_cages: 0.2-0.3 s at 128K GPUs, most of it adding
        # 800,000 link ends to sets far larger than the CPU caches): per _media_links call {network: {id(choice):
        # module_group's entry}}; each (network, module) mark once; whether a cage was marked two ways.
        self.module_groups: list[dict[str, dict[int, list]]] = []
        self.module_marks: dict[tuple[str, str], tuple[str, str]] = {}
        self.module_clash = False
        self.module_cages: tuple | None = None  # _media_pass_cages' answer, None on a clash
        # the links' A and B devices (_link_ends), shared with a probe
        self.end_columns: tuple[list[int], list[int]] | None = None if like is None else like.end_columns

    def cage_end(self, dev: int, cage: str, speed: int) -> Any:
        d = self.devices[dev]
        if d.role not in APPLIANCE_ROLES:
            key = (d.model, d.role, speed)
            known = self.model_end.get(key)
            if known is not None:
                return known
        end = _cage_end(d, cage, speed, self.catalog, self.server_cages, self.ufm_module) or False
        end = self.intern.setdefault(end, end) if end else False
        if d.role not in APPLIANCE_ROLES:
            self.model_end[key] = end
        return end

    def demand_key(self, choice: Any) -> int:
        """The id that stands for `choice` in demand keys: that of the first choice equal to it (hashed once per
        distinct choice object, a few hundred, not once per link)."""
        first = self.demand_first.setdefault(choice, choice)
        self.demand_choice[id(first)] = first
        self.demand_id[id(choice)] = id(first)
        return id(first)

    def cage_ends(self, link: Link, ea: Any, eb: Any, ends: list, app_ends: list) -> tuple[Any, Any]:
        """The cage ends of `link`, of which `ea` or `eb` (what the memos held) is None: memoized per appliance cage
        (dev_end, and `app_ends`: its speed's ends by cage name per appliance) or per switch (`ends`: its speed's
        list; dev_end too, for quarter_rate_pair). A link's B end is a switch's."""
        _lid, _net, _plane, _tier, a, _a_port, a_cage, b, _b_port, b_cage, speed = link
        if ea is None:
            ea = self.cage_end(a, a_cage, speed)
            if self.appliance[a]:
                self.dev_end[(a_cage, speed, self.devices[a].role)] = app_ends[a][a_cage] = ea
            else:
                ends[a] = self.dev_end[(a, speed)] = ea
        eb = ends[b]  # read again: a link from a switch to itself has just memoized its end as the A end
        if eb is None:
            eb = ends[b] = self.dev_end[(b, speed)] = self.cage_end(b, b_cage, speed)
        return ea, eb

    def choose(self, key: tuple, ea: Any, eb: Any, policy: MediaPolicy, where: str, at: int) -> tuple:
        """_choose's answer for a choice_memo key first met at link index `at`, memoized."""
        memo = self.choice_memo[key] = _choose(key, ea, eb, policy, self.catalog.media, self.failures, where)
        self.memo_at[key] = 2 * at
        if where in self.failures:
            self.fail_at.setdefault(where, at)
        return memo

    def module_group(self, groups: dict, network: str, choice: Any, at: int) -> list:
        """The entry of `choice`'s links of `network` in a media pass's `groups`, first met at link index `at`:
        [A end's mark, B end's mark, first index, last index, choice]; a mark is the one (network, module) tuple
        of that end's module, None where the end takes none."""
        marks = self.module_marks
        ends = [marks.setdefault((network, m), (network, m)) if m else None for m in (choice.a_module, choice.b_module)]
        entry = groups[network][id(choice)] = [*ends, at, at, choice]
        return entry

    def no_cage_model(self, dev: int, network: str, tier: str, speed: int) -> None:
        self.failures.setdefault(
            f"{network}/{tier}",
            f"no cage model for {self.devices[dev].model} at {speed} Gb/s in the media catalog "
            "(add parts for this form factor; see docs/data-gaps.md)",
        )
        self.missing[(network, tier)] += 1

    def quarter_rate_pair(self, link: Link, choice: Any, optical: bool, at: int) -> Any:
        """Both ends are quarter-rate twin-port cages: a straight cord per module connector carries two links,
        which must both reach the same far connector. The paired choice, or None (counted as missing). `at`: the
        link's index (memo_at keeps the first index that used the paired choice)."""
        _lid, network, _plane, tier, a, a_port, a_cage, b, b_port, b_cage, speed = link
        if self.split_far is None:
            appliance, dev_end = self.appliance, self.dev_end

            def quarter(dev: int, spd: int) -> bool:
                if appliance[dev]:
                    return False
                e = dev_end.get((dev, spd))
                if e is None:
                    e = dev_end[(dev, spd)] = self.cage_end(dev, "", spd)
                return bool(e) and e.port_speed_gbps == 2 * spd

            self.split_far = _split_pairs(
                self.links, lambda lk: quarter(lk.a, lk.speed_gbps) and quarter(lk.b, lk.speed_gbps)
            )
        split_far = self.split_far
        conn_a = (a, a_cage, _connector_of(a_port))
        conn_b = (b, b_cage, _connector_of(b_port))
        if optical and (len(split_far.get(conn_a, ())) != 1 or len(split_far.get(conn_b, ())) != 1):
            self.failures.setdefault(
                f"{network}/{tier}",
                (
                    f"tier {tier}: the two {speed}G ports on one connector of a {self.devices[a].model} twin-port cage "
                    f"go to different far connectors; no NVIDIA part joins them (each connector needs one straight "
                    f"cord to one far connector, or a 1:2 splitter to two single-port modules). Run this tier at "
                    f"{2 * speed}G or wire the ports in connector pairs"
                ),
            )
            self.missing[(network, tier)] += 1
            return None
        pk = ("paired", id(choice))
        paired = self.choice_memo.get(pk)
        if paired is None:
            paired = self.choice_memo[pk] = _paired(choice)
            self.memo_at[pk] = 2 * at + 1
        elif 2 * at + 1 < self.memo_at[pk]:  # first used by a link of the second pass before the first's
            self.memo_at[pk] = 2 * at + 1
        return paired

    def direct_cable(
        self, i: int, link: Link, length: float, choice: Any, shared: bool, split: bool, quarter: bool
    ) -> Any:
        """Link `i`'s own cable (or the one it shares) between its two ports, and its loss budget."""
        cords, cable_rows = self.cords, self.cable_rows
        if shared:
            cords[i] = (choice.cable_sku, choice.ordered_length_m)
            cid = self.shared_cable(link, choice, split, quarter)
        else:
            rk = (id(choice), length)
            cord = self.run_memo.get(rk)
            if cord is None:
                cord = self.run_memo[rk] = cable_for_run(choice, length, self.policy)
            cords[i] = cord
            cid = self.next_id
            self.next_id += 1
            lid, network, _plane, tier, a, a_port, _a_cage, b, b_port, _b_cage, _speed = link
            cable_rows.append(
                [cid, choice.cable_kind, cord[0], cord[1], (a, a_port), (b, b_port), [lid], tier, network]
            )
        self.cables[i] = (cid,)
        # The two links of a 1:2 splitter cable use its legs 1 and 2.
        leg = min(len(cable_rows[cid - 1][6]), 2) if split else 1
        bk = (id(choice), cords[i][1], leg)
        entry = self.direct_memo.get(bk)
        if entry is None:
            entry = self.direct_memo[bk] = self.budget_of(choice, False, cords[i][1], leg=leg)
        self.budgets[i], self.statuses[i], problem = entry
        if problem is not None:
            self.issues.append((link.id, problem))

    def shared_cable(self, link: Link, choice: Any, split: bool, quarter: bool) -> int:
        """The id of the cable `link` shares: a 1:2 splitter or paired cord per module connector, twin-port copper
        per cage pair; the first link of a cable makes its row."""
        lid, network, _plane, tier, a, a_port, a_cage, b, b_port, b_cage, _speed = link
        ck: tuple[int | str, ...]
        if _per_connector(choice, split, quarter):
            ck = (b, b_cage, _connector_of(b_port)) if choice.split_end == "b" else (a, a_cage, _connector_of(a_port))
        else:
            ck = (a, a_cage, b, b_cage)
        cid = self.shared.get(ck)
        if cid is not None:
            self.cable_rows[cid - 1][6].append(lid)
            return cid
        cid = self.shared[ck] = self.next_id
        self.next_id += 1
        self.cable_rows.append(
            [
                cid,
                choice.cable_kind,
                choice.cable_sku,
                choice.ordered_length_m,
                (a, a_port),
                (b, b_port),
                [lid],
                tier,
                network,
            ]
        )
        return cid


def place_panels(
    *,
    spec: Any,
    catalog: Catalog,
    devices: list[Device],
    links: list[Link],
    places: list[Place | None],
    racks: list[Rack],
    measure: Measure,
    partial: bool = True,
    ends: LinkEnds | None = None,
) -> _Pass:
    """The first half of the physical layer, run with placement: the medium of each link through patch panels,
    their trunks, and the panels stacked in their racks. A rack whose panels do not fit raises PanelOverflow, and
    engine.pipeline places the design again: so only what the panels need is done here. `measure(indexes, out)`
    (engine/runlength.py measure_runs) gives run lengths; only the panel links and the links sharing their cages
    (whose longest runs choose the panel links' media) are measured here, the others by measure_rest. Finding
    which links those are costs about 40 % of what it saves (column work over every link: 0.13 s at 128K GPUs,
    docs/scale-benchmarks.md), so a pass expected to fit (`partial` False: a retry, at the cap an overflow
    implied) measures every link here.

    Before the media of a partial pass are chosen, the rack stacked first is checked from its own links
    (_first_rack_overflow): at 128K GPUs and up that is the first core rack, whose panels overflow, and the pass
    ends there. A retry does not check it: the check's column work (0.07 s of CPU at 128K) would be spent on a
    pass that fits, and a retry that overflows is still caught by the stacking of every rack.

    `ends`: the links' ends as columns, kept by the caller across passes over the same links (LinkEnds).

    The pass it returns goes on to measure_rest and run_physical, which reuse what was done here."""
    p = _Pass(spec, catalog, devices, links, [0.0] * len(links), places, racks, ends, sparse=partial)
    p.measure = measure
    p.media = _media_tables(p)
    flags = _panel_flags(p, p.media)
    if not partial:
        measure_rest(p)
    else:
        if flags is not None:
            _first_rack_overflow(p, flags)
        _per_link_state(p, sparse=False)  # the pass goes on: every link's entries
    _assign_panel_media(p, flags)
    p.tiers = _panel_mode(p)
    return p


def measure_rest(p: _Pass) -> list[float]:
    """The run lengths of the links place_panels left unmeasured, and the longest runs of their cages: then every
    link's run length (the list returned, parallel to the links)."""
    if p.rest:
        p.rest = False
        links, lengths, measured = p.links, p.lengths, p.measured
        if measured is None:
            # every link: through the gathered geometry columns when the pass has read the link ends already
            # (_panel_flags does between halls), not at the cost of reading them here
            p.measure(None, lengths, None if p.end_columns is None else _end_gathers(p))
            if p.media is None:  # measured before the media tables are made (place_panels, not partial)
                p.media = _media_tables(p)
            _cage_runs(links, lengths, p.media.cage_run)
        else:
            left = array("i", compress(range(len(links)), map(not_, measured)))
            p.measure(left, lengths)
            _cage_runs(map(links.__getitem__, left), map(lengths.__getitem__, left), p.media.cage_run)
    return p.lengths


def run_physical(p: _Pass, progress: Any) -> tuple[PhysicalResult, list[str]]:
    """The physical layer of a placed design whose panels fit (`p`, from place_panels), in named stages: the
    medium of every other link, the direct links' cables (in link order), the panel links' cords and trunks (tier
    by tier), then the result (its BOM and fiber totals wait for roll_up())."""
    measure_rest(p)
    _assign_media(p, progress)
    _direct_cables(p)
    for tier, groups, plan, units in p.tiers:
        _tier_cables(p, tier, groups, plan, units)
    result = _physical_result(p)
    n = len(p.links)
    progress("physical", n, n)
    return result, []


class _MediaTables(NamedTuple):
    """What both passes of the media assignment look up per link (built once, by the first)."""

    cage_run: list  # per device {cage: [far device, far cage, longest run, module mark]} (_cage_runs)
    structured_tiers: dict[str, bool]  # tier -> cabled through patch panels (_OnDemand: filled as tiers are read)
    policies: tuple  # (policy, policy between halls)
    technology: dict[str, str]  # network -> technology (_OnDemand: filled as networks are read)
    spine_group: dict  # (tier, lower, upper device) -> trunk diversity half
    rack_of: list[int]  # per device its rack index, -1 unplaced
    hall_dev: list[int]  # per device its hall, -1 unplaced (all 0 or -1 in one hall)
    ends_at: dict[int, list]  # link speed -> per device its switch cage end at that speed
    app_ends_at: dict[int, list]  # link speed -> per appliance its role's cage ends by cage name (_ends_at)


class _OnDemand(dict):
    """{key: value}, each value worked out by `value_of(key)` when the key is first looked up (dict.__getitem__
    calls __missing__) and kept: a table of the tiers or networks the links have without a pass over 400,000 link
    tuples to find which those are (about 8 ms each at 128K GPUs, twice a design that is placed again). Only
    indexing reads it: iterating gives the keys looked up so far."""

    def __init__(self, value_of: Callable[[Any], Any]) -> None:
        super().__init__()
        self.value_of = value_of

    def __missing__(self, key: Any) -> Any:
        value = self[key] = self.value_of(key)
        return value


def _media_tables(p: _Pass) -> _MediaTables:
    links, policy, hall_of = p.links, p.policy, p.hall_of
    rack_of = [-1 if pl is None else pl.rack for pl in p.places]
    technology_of = {"compute": p.spec.compute.technology, "storage": p.spec.storage.technology}
    return _MediaTables(
        cage_run=[None] * len(p.devices),
        structured_tiers=_OnDemand(lambda tier: policy.tier(tier).cabling == "panels"),
        policies=(policy, _inter_hall_policy(policy) if hall_of else policy),
        technology=_OnDemand(lambda net: technology_of.get(net, "ethernet")),
        spine_group=_spine_groups(links) if policy.trunk_diversity else {},
        rack_of=rack_of,
        hall_dev=[-1 if r < 0 or hall_of is None else hall_of[r] for r in rack_of],
        ends_at={},
        app_ends_at={},
    )


def _no_progress(*_args: Any) -> None:
    return None


def _unmeasured(only: Sequence[int] | None, out: list[float], gathers: Any = None) -> None:
    del only, out, gathers
    raise AssertionError("a _Pass measures its run lengths with the measure place_panels was given")


def _assign_panel_media(p: _Pass, flags: list[bool] | None) -> None:
    """The first pass of the media assignment: the links through patch panels only (`flags`, _panel_flags': those
    of panel-cabled tiers and those between halls), so that run_physical can stack the panels (and a rack whose
    panels do not fit can raise PanelOverflow) before the other links cost anything. Their run lengths and cages'
    longest runs are worked out first, for them and the links sharing their cages only. _assign_media does the
    rest."""
    if p.media is None:
        p.media = _media_tables(p)
    t = p.media
    links, lengths = p.links, p.lengths
    p.panel_flags = flags
    if flags is not None:
        panel = array("i", compress(range(len(links)), flags))
        if p.rest:  # else every link is measured and in the cage runs already
            p.measure(panel, lengths)
            _cage_runs(map(links.__getitem__, panel), map(lengths.__getitem__, panel), t.cage_run)
            p.measured = _with_cage_sharers(p, t, flags)
        _media_links(p, t, panel, _no_progress, panel=True)
    # what the pass found missing waits for _assign_media, which merges it into link order
    p.early = (p.failures, p.missing, p.direct, p.fail_at, p.missing_at)
    p.failures, p.missing, p.direct, p.fail_at, p.missing_at = {}, Counter(), array("i"), {}, {}


def _panel_flags(p: _Pass, t: _MediaTables) -> list[bool] | None:
    """Per link, whether it runs through patch panels (its tier's cabling, or between halls); None when no link
    does. Worked out over whole columns (map), not with a Python step per link."""
    links, structured, hall_dev = p.links, t.structured_tiers, t.hall_dev
    # Whether the policy cables any tier through panels (the tiers of the links are not listed: _OnDemand). When
    # that tier has no link here, every link's look-up below says False, and the flags are those of no tier.
    by_tier = _panels_by_tier(p.policy)
    if not by_tier and p.hall_of is None:
        return None
    if p.hall_of is None:
        flags = list(map(structured.__getitem__, map(_LINK_TIER, links)))
    else:
        gather_a, gather_b = _end_gathers(p)
        a_hall, b_hall = gather_a(hall_dev), gather_b(hall_dev)
        # a link to an unplaced device (hall -1) runs between no halls; with every device placed (the rule: the
        # devices, not the link ends, are scanned for one) a plain comparison says it
        cross = map(_between_halls if -1 in hall_dev else ne, a_hall, b_hall)
        flags = list(map(or_, map(structured.__getitem__, map(_LINK_TIER, links)), cross) if by_tier else cross)
    return flags if True in flags else None


def _panels_by_tier(policy: MediaPolicy) -> bool:
    """Whether the policy cables any tier through patch panels (a tier the links may not have)."""
    return policy.default_tier.cabling == "panels" or any(tp.cabling == "panels" for _, tp in policy.tiers)


def _between_halls(ha: int, hb: int) -> bool:
    return ha != hb and ha >= 0 and hb >= 0


def _with_cage_sharers(p: _Pass, t: _MediaTables, flags: list[bool]) -> list[bool]:
    """`flags` (the panel links, whose cage runs are in `t`) and the other links on one of their cages, measured
    and added to the cage runs here (_cage_sharers)."""
    extra = _cage_sharers(p, t, flags.__getitem__)
    if not extra:
        return flags
    on = flags.copy()
    for i in extra:
        on[i] = True
    return on


def _cage_sharers(p: _Pass, t: _MediaTables, listed: Callable[[int], bool]) -> array:
    """The indexes of the links not `listed` (by index: those whose cage runs are in `t`) on a cage of a listed
    link, measured and added to the cage runs here: a medium is chosen from the longest run of a link's two cages,
    so the listed links' media need every link of their cages (at 128K GPUs there are none: the spine-core links
    between halls fill their cages)."""
    links, lengths = p.links, p.lengths
    cages = [_NO_CAGES if d is None else d for d in t.cage_run]
    # Only a link with an end on a device that has cage runs can share a cage: those are found first, by device
    # (at 128K GPUs the probe of _first_rack_overflow has 30 such devices, which 2,996 of 397,184 links touch).
    has = bytes(map(bool, cages))
    gather_a, gather_b = _end_gathers(p)
    # those few links found by C scans (tuple.index) of the gathered columns (32 ms to 7 ms at 128K GPUs)
    near = sorted({*_positions(gather_a(has), 1), *_positions(gather_b(has), 1)})
    cand = list(map(links.__getitem__, near))
    shares = map(
        or_,
        map(contains, map(cages.__getitem__, map(_LINK_A, cand)), map(_LINK_A_CAGE, cand)),
        map(contains, map(cages.__getitem__, map(_LINK_B, cand)), map(_LINK_B_CAGE, cand)),
    )
    extra = array("i", compress(near, map(gt, shares, map(listed, near))))
    if extra:
        p.measure(extra, lengths)
        _cage_runs(map(links.__getitem__, extra), map(lengths.__getitem__, extra), t.cage_run)
    return extra


_NO_CAGES: dict = {}


def _first_rack_overflow(p: _Pass, flags: list[bool]) -> None:
    """Raise the PanelOverflow _panel_mode would raise for the first rack it stacks, worked out from that rack's
    links alone (about 1,600 of 400,000 at 128K GPUs: the first core rack's, which overflows at 128K, 512K and 1M
    GPUs); return when that rack's panels fit, and _panel_mode stacks every rack as before.

    Why this rack's overflow is the one _panel_mode raises first, and why its figures are the same:
    - tiers are stacked in name order, and a tier has panels only where it has a panel link (`flags`) between two
      placed devices in two racks: the first such tier is the first stacked (`tier`);
    - PanelUnits.add_plan stacks the racks of a tier in name order (TrunkPlan.usage is sorted), and a rack with
      panels in `tier` has such a link: the rack of least name among their ends (`first`) comes first, with
      nothing stacked in it before;
    - its panels count the positions of the demands that end in it only: the same links, in the same order (link
      order of first occurrence), with media chosen from the same cage runs (_cage_sharers completes the
      runs of every cage they use), so plan_trunks gives it the same usage (trunk diversity's empty positions
      depend on its group-0 positions only, as groups are stacked group 0 first).
    The pass's own tables are left as they were (a pass of its own chooses the media; the run lengths it
    measures are those every link gets later)."""
    links, t = p.links, p.media
    rack_of, racks = t.rack_of, p.racks
    a_dev, b_dev = _link_ends(p)
    panel = list(compress(range(len(links)), flags))
    a_rack = list(map(rack_of.__getitem__, map(a_dev.__getitem__, panel)))
    b_rack = list(map(rack_of.__getitem__, map(b_dev.__getitem__, panel)))
    tier_set = set(map(_LINK_TIER, map(links.__getitem__, panel)))
    in_tier: list[bool] | None = None  # per panel link, in `tier` and between two racks (None: every one is)
    if _panels_by_tier(p.policy):
        # both ends placed (rack -1: unplaced), in two racks: the test of _between_halls, as C-level column work
        # when every end is placed
        apart = list(map(_between_halls if -1 in a_rack or -1 in b_rack else ne, a_rack, b_rack))
        tiers = list(map(_LINK_TIER, map(links.__getitem__, panel)))
        stacked = set(compress(tiers, apart))
        if not stacked:
            return
        tier = min(stacked)
        in_tier = apart if len(tier_set) == 1 else list(map(and_, apart, map(tier.__eq__, tiers)))
        del apart, tiers
    else:
        # No tier is cabled through panels: the panel links are those between halls (_panel_flags), whose ends are
        # placed (hall >= 0) in two halls, so in two racks. The column work above is not needed (0.03 s at 512K).
        tier = min(tier_set)
        if len(tier_set) > 1:
            in_tier = list(map(tier.__eq__, map(_LINK_TIER, map(links.__getitem__, panel))))
    ends = {*a_rack, *b_rack} if in_tier is None else {*compress(a_rack, in_tier), *compress(b_rack, in_tier)}
    first = min(ends, key=lambda r: racks[r].id)
    # the rack's few links (1,600 of 98,000 panel links at 128K GPUs) found by C scans (list.index), not compared
    # one by one
    at_first = sorted({*_positions(a_rack, first), *_positions(b_rack, first)})
    at_first_in_tier = at_first if in_tier is None else compress(at_first, map(in_tier.__getitem__, at_first))
    mine = array("i", map(panel.__getitem__, at_first_in_tier))
    del panel, a_rack, b_rack, in_tier
    probe = _Pass(p.spec, p.catalog, p.devices, links, p.lengths, p.places, racks, like=p, sparse=True)
    probe.measure, lengths = p.measure, p.lengths
    pt = probe.media = t._replace(cage_run=[None] * len(p.devices), ends_at={}, app_ends_at={})
    probe.measure(mine, lengths)
    _cage_runs(map(links.__getitem__, mine), map(lengths.__getitem__, mine), pt.cage_run)
    _cage_sharers(probe, pt, set(mine).__contains__)
    _media_links(probe, pt, mine, _no_progress, panel=True)
    groups = [(key, idxs) for key, idxs in probe.demands.items() if key[0] == tier]
    if not groups:
        return
    plan = _tier_plan(probe, tier, groups)
    name = racks[first].id
    units = PanelUnits(
        p.spec.layout.rack_units - (1 if p.spec.oob.enabled else 0),
        p.spec.layout.panel_units,
        _device_tops(p.devices, p.places, p.spec.layout.rack_units, rack=first),
    )
    usage = tuple(u for u in plan.usage if u.rack == name)
    try:
        units.add_plan(TrunkPlan(tier, (), (), usage), {name: first}, [r.id for r in racks])
    except PanelOverflow as exc:
        _devices_under(p, exc)
        raise


def _positions(values: Sequence[int], value: int) -> Iterator[int]:
    """The indexes at which `values` holds `value`, in order."""
    at = -1
    find = values.index
    try:
        while True:
            at = find(value, at + 1)
            yield at
    except ValueError:  # no more
        return


def _assign_media(p: _Pass, progress: Any) -> None:
    """The medium of each link (one decision per distinct cage-pair kind), in link order; after
    _assign_panel_media, whose links it passes over. Links cabled directly wait in `p.direct` (their cables are
    made by _direct_cables), links through patch panels in `p.demands`.

    Whatever is kept in order of first occurrence (the failures and missing counts per network and tier, the
    distinct choices) comes out as one pass in link order would have made it."""
    flags = p.panel_flags
    others = range(len(p.links)) if flags is None else array("i", compress(range(len(p.links)), map(not_, flags)))
    _direct_in_bulk(p.direct, others, *_media_links(p, p.media, others, progress, panel=False))
    p.module_cages = None if p.module_clash else _media_pass_cages(p, p.media.cage_run)
    p.media = None  # its cage runs (a table per device) are not needed past here: free them before the cables
    failures, missing, early_direct, fail_at, missing_at = p.early
    if early_direct:  # the first pass's links cabled directly (same rack, or copper) join in link order
        p.direct = array("i", sorted((*early_direct, *p.direct), key=_direct_index))
    if failures or missing:
        p.failures = _in_first_order((failures, fail_at), (p.failures, p.fail_at), lambda x, _y: x)
        p.missing = Counter(_in_first_order((missing, missing_at), (p.missing, p.missing_at), lambda x, y: x + y))
    memo_at = p.memo_at
    ordered = sorted(p.choice_memo.items(), key=lambda kv: memo_at[kv[0]])
    p.choice_memo.clear()
    p.choice_memo.update(ordered)


def _direct_index(k: int) -> int:
    """The link index of an entry of `_Pass.direct` (~i for a link between two quarter-rate cages)."""
    return k if k >= 0 else ~k


def _in_first_order(first: tuple[dict, dict], second: tuple[dict, dict], combine: Callable) -> dict:
    """Two passes' {key: value} with {key: link index of its first occurrence}, as one pass in link order would
    have made them: keys by first occurrence, the values of a key in both combined (earlier first)."""
    (va, at_a), (vb, at_b) = first, second
    at = {k: min(at_a.get(k, 1 << 62), at_b.get(k, 1 << 62)) for k in (*va, *vb)}
    out: dict = {}
    for k in sorted(at, key=at.__getitem__):
        if k in va and k in vb:
            out[k] = combine(va[k], vb[k]) if at_a[k] < at_b[k] else combine(vb[k], va[k])
        else:
            out[k] = va[k] if k in va else vb[k]
    return out


def _media_links(p: _Pass, t: _MediaTables, idx: Sequence[int], progress: Any, *, panel: bool) -> _LeftDirect:
    """One pass in link order over the links at indexes `idx` (ascending): those through patch panels (`panel`),
    or the others (_panel_flags). A link runs through panels when its tier is cabled so or it crosses halls, which
    is what _panel_flags sorted the links by: so the others cross no hall and none is structured, and the pass
    over them (three links in four at 128K GPUs) reads no hall and cables each link directly: it returns what
    its caller adds them to p.direct from (_direct_in_bulk), rather than append each there."""
    links = p.links
    cage_run, policies, technology = t.cage_run, t.policies, t.technology
    spine_group, rack_of, hall_dev = t.spine_group, t.rack_of, t.hall_dev
    appliance, choice_memo, choices = p.appliance, p.choice_memo, p.choices
    fail_at, missing_at, demands, demand_id, direct = p.fail_at, p.missing_at, p.demands, p.demand_id, p.direct
    inter_hall, n = 0, len(links)
    module_groups: dict[str, dict[int, list]] = defaultdict(dict)
    p.module_groups.append(module_groups)
    choice_now, net_now, mg, mark_a, mark_b, clash = None, None, [], None, None, p.module_clash
    # the cage ends at the speed of the link before (links come in long runs of one speed); per device, the
    # switch's end, or an appliance's ends by cage name (dev_end's, shared by the appliances of one role)
    speed_now: int | None = None
    ends, app_ends = _NO_ENDS
    # choice_memo's answers per (tier, network, A end, B end), by an int of the rest of its key (whole metres,
    # aligned, structured, between halls): links come in long runs of one tier, network and pair of cage ends, so
    # a link costs a look-up by a small int, not the 8-tuple key built and hashed (0.07 s of 0.19 at 128K GPUs).
    near: dict[int, tuple] = {}
    by_ends: dict[tuple, dict[int, tuple]] = {}
    ea_now = eb_now = tier_now = net_memo = None
    quarter = both_quarter = structured = cross = False
    # `structured`, `cross` (between halls) and `sc` (2 x structured + cross): set per link in the pass of the panel
    # links only, so the pass of the others (three links in four at 128K GPUs) tests a flag, not four hall look-ups
    report_at = 0  # the next link index at or after which to look for a multiple of 50,000 to report
    # the panel links' demand (its list in p.demands) of the link before and its racks (`d_ra`, `d_rb`): links come
    # in runs of one demand (103,680 in 7,940 at 128K GPUs), so a link costs two comparisons, not a 6-tuple key
    # hashed; None when its choice, network or tier changed since (or demands split by spine group)
    demand: list[int] | None = None
    sc, ra, rb, d_ra, d_rb = 0, -1, -1, -1, -1
    left: _LeftDirect = ([], [])  # for _direct_in_bulk (see it)
    skipped, runs = left
    for i in idx:
        _lid, network, _plane, tier, a, _a_port, a_cage, b, _b_port, b_cage, speed = links[i]
        if panel:
            ha, hb = hall_dev[a], hall_dev[b]
            cross = ha != hb and ha >= 0 and hb >= 0
            structured = a != b
            inter_hall += cross
            sc = 2 * structured + cross
            ra, rb = rack_of[a], rack_of[b]
        if speed != speed_now:
            speed_now, ea_now = speed, None
            ends, app_ends = _ends_at(p, t, speed)
        # an appliance's cage end depends on its cage, not the device
        ea = app_ends[a].get(a_cage) if appliance[a] else ends[a]
        eb = ends[b]
        if not ea or not eb:  # an end not looked up yet (None: cage_ends), or without a cage model (False)
            ea, eb = p.cage_ends(links[i], ea, eb, ends, app_ends)
            if not ea or not eb:
                p.no_cage_model(a if not ea else b, network, tier, speed)
                fail_at.setdefault(f"{network}/{tier}", i)
                missing_at.setdefault((network, tier), i)
                skipped.append(i)
                continue
        if ea is not ea_now or eb is not eb_now or tier != tier_now or network != net_memo:
            ea_now, eb_now, tier_now, net_memo = ea, eb, tier, network
            near = by_ends.setdefault((tier, network, id(ea), id(eb)), {})
            quarter = ea.port_speed_gbps != speed
            both_quarter = quarter and eb.port_speed_gbps != speed
            runs.append((i, quarter))
            demand = None
        # every device a link ends on has its table (None only for devices without links)
        cage_a, cage_b = cage_run[a][a_cage], cage_run[b][b_cage]
        far_a, _far_cage, run_a, _mark = cage_a
        far_b, _far_cage, run_b, _mark = cage_b
        # The run rounded UP to a whole metre: every reach limit in the catalog is a whole number of metres,
        # so rounding up never changes which media fit, and one decision serves many lengths.
        metres = ceil((run_a if run_a > run_b else run_b) - 1e-9)
        aligned = 4 if far_a != MULTI and far_b != MULTI else 0  # near's term: an int, not a bool's arithmetic
        memo = near.get(8 * metres + aligned + sc)
        if memo is None:
            key = (tier, technology[network], id(ea), id(eb), aligned > 0, metres, structured, cross)
            memo = choice_memo.get(key) or p.choose(key, ea, eb, policies[cross], f"{network}/{tier}", i)
            near[8 * metres + aligned + sc] = memo
        choice, optical, _shared, split = memo
        if i >= report_at:  # a test of two ints per link, not a modulo
            report_at = _report_progress(progress, i, n)
        # no choice, or between two quarter-rate cages: the paired choice (_none_or_paired), if there is one
        if (choice is None or (both_quarter and not split)) and (
            choice := _none_or_paired(p, links[i], choice, optical, i)
        ) is None:
            skipped.append(i)
            continue
        choices[i] = choice
        # One optical module per cage end: each cage is marked with its (network, module), and a cage marked
        # two ways (two modules, or a module and none) is a clash (_media_pass_cages). Links come in long runs of
        # one choice, so the marks are looked up when it changes.
        if choice is not choice_now or network != net_now:
            choice_now, net_now = choice, network
            mg = module_groups[network].get(id(choice)) or p.module_group(module_groups, network, choice, i)
            mark_a, mark_b = mg[0], mg[1]
            demand = None
        mg[3] = i
        # a twin-port cage's second link finds the mark its first left (331,648 of 462,720 cages at 128K GPUs)
        if cage_a[3] is not mark_a or cage_b[3] is not mark_b:
            # marked before, another way (a mark is None or a (network, module) tuple, never empty)
            clash = clash or (cage_a[3] or mark_a) is not mark_a or (cage_b[3] or mark_b) is not mark_b
            cage_a[3], cage_b[3] = mark_a, mark_b
        if not panel:  # cabled directly: p.direct gets the pass's links after it (_direct_in_bulk)
            continue
        if optical and ra != rb and ra >= 0 and rb >= 0:
            if demand is None or ra != d_ra or rb != d_rb:
                cid = demand_id.get(id(choice)) or p.demand_key(choice)
                group = spine_group.get((tier, a, b), 0) if spine_group else 0
                demand = None if spine_group else demands[(tier, network, ra, rb, cid, group)]
                d_ra, d_rb = ra, rb
                demands[(tier, network, ra, rb, cid, group)].append(i)
            else:
                demand.append(i)
        else:
            direct.append(~i if quarter else i)
    p.inter_hall += inter_hall
    p.module_clash = clash
    return left


_NO_ENDS: tuple[list, list] = ([], [])  # _media_links' cage ends before its first link's speed is known

# _media_links' answer for _direct_in_bulk: the links skipped, and (link index, quarter-rate) where each run starts
_LeftDirect = tuple[list[int], list[tuple[int, bool]]]


def _direct_in_bulk(direct: array, idx: Sequence[int], skipped: list[int], runs: list[tuple[int, bool]]) -> None:
    """Add to `direct` the links at `idx` (ascending; _media_links' pass of the links not through panels) but those
    it `skipped`, each as its index or, between two quarter-rate cages, as ~index (`runs`: where each run of one
    pair of cage ends starts, and whether its cages are quarter-rate): what the pass would have appended one by one
    (23 ms of its 0.19 s at 128K GPUs, where every link is added as it is)."""
    if not skipped and not any(q for _i, q in runs):
        direct.extend(idx)
        return
    skip = set(skipped)
    starts = [at for at, _q in runs]
    direct.extend(~i if runs[bisect_right(starts, i) - 1][1] else i for i in idx if i not in skip)


def _report_progress(progress: Any, i: int, n: int) -> int:
    """Report the media pass's progress at link index `i` when it is a multiple of 50,000 (of `n` links); the next
    multiple, the first index at which there can be one to report."""
    if i % 50000 == 0:
        progress("physical", i, n)
    return i - i % 50000 + 50000


def _none_or_paired(p: _Pass, link: Link, choice: Any, optical: bool, i: int) -> Any:
    """The medium of link `i` (`link`) whose memo gave no `choice` (None, counted missing) or one between two
    quarter-rate cages (its paired choice, or None where no part joins them: quarter_rate_pair counts it); what is
    missing is recorded at `i` in the pass's tables of first occurrence."""
    network, tier = link[1], link[3]
    if choice is None:
        p.missing[(network, tier)] += 1
    else:
        choice = p.quarter_rate_pair(link, choice, optical, i)
        if choice is not None:
            return choice
        p.fail_at.setdefault(f"{network}/{tier}", i)
    p.missing_at.setdefault((network, tier), i)
    return None


def _ends_at(p: _Pass, t: _MediaTables, speed: int) -> tuple[list, list]:
    """The cage ends at link speed `speed`: per device the switch's end (None until met), and per appliance its
    role's ends by cage name (a dict shared by the appliances of one role: _Pass.dev_end's (cage, speed, role)
    entries, without building that key per link)."""
    ends = t.ends_at.get(speed)
    if ends is None:
        ends = t.ends_at[speed] = [None] * len(p.devices)
    app_ends = t.app_ends_at.get(speed)
    if app_ends is None:
        by_role: dict[str, dict] = {}
        app_ends = t.app_ends_at[speed] = [
            by_role.setdefault(d.role, {}) if app else None for d, app in zip(p.devices, p.appliance)
        ]
    return ends, app_ends


def _direct_cables(p: _Pass) -> None:
    """The cable and loss budget of every link cabled directly, in link order (cable ids follow it). A cable of
    its own per link is made here (direct_cable's work, with its look-ups hoisted out of the loop); a shared
    one by _Pass.direct_cable."""
    links, lengths, choices, cords, cables = p.links, p.lengths, p.choices, p.cords, p.cables
    budgets, statuses, issues, cable_rows = p.budgets, p.statuses, p.issues, p.cable_rows
    # id(choice) -> {run length: _own_cable's answer} for a cable of its own per link, None for
    # a cable shared by links; a dict per choice, looked up when the choice changes (links come in long runs of
    # one), so a link costs one look-up by length (no key tuple built per link)
    own: dict[int, dict[float, tuple] | None] = {}
    choice_now, by_length, split = None, None, False
    next_id = p.next_id
    for k in p.direct:
        i = k if k >= 0 else ~k
        choice = choices[i]
        if choice is not choice_now:
            choice_now = choice
            if id(choice) not in own:
                own[id(choice)] = _own_lengths(choice)
            by_length = own[id(choice)]
            split = choice.breakout == "split-1:2"
        if by_length is None:
            p.next_id = next_id
            p.direct_cable(i, links[i], lengths[i], choice, True, split, k < 0)
            next_id = p.next_id
            continue
        length = lengths[i]
        made = by_length.get(length)
        if made is None:
            made = by_length[length] = _own_cable(p, choice, length)
        cords[i], cable_kind, sku, ordered, budgets[i], statuses[i], problem = made
        lid, network, _plane, tier, a, a_port, _a_cage, b, b_port, _b_cage, _speed = links[i]
        cable_rows.append([next_id, cable_kind, sku, ordered, (a, a_port), (b, b_port), [lid], tier, network])
        cables[i] = (next_id,)
        next_id += 1
        if problem is not None:
            issues.append((lid, problem))
    p.next_id = next_id


def _own_lengths(choice: Any) -> dict | None:
    """_direct_cables' memo by run length for a choice of a cable of its own per link; None for a shared cable."""
    return {} if choice.cable_carries_links <= 1 else None


def _own_cable(p: _Pass, choice: Any, length: float) -> tuple:
    """(cord, cable kind, cord SKU, ordered length, budget_of's three answers) of a link on a cable of its own, of
    `choice` over a `length` m run (a 1:2 splitter's first link uses its leg 1); memoised in the pass's tables, as
    _Pass.direct_cable does."""
    rk = (id(choice), length)
    cord = p.run_memo.get(rk)
    if cord is None:
        cord = p.run_memo[rk] = cable_for_run(choice, length, p.policy)
    bk = (id(choice), cord[1], 1)
    entry = p.direct_memo.get(bk)
    if entry is None:
        entry = p.direct_memo[bk] = p.budget_of(choice, False, cord[1], leg=1)
    return (cord, choice.cable_kind, *cord, *entry)


def _panel_mode(p: _Pass) -> list[tuple[str, list, Any, dict]]:
    """Panel mode: cord A + panel + trunk + panel + cord B, trunks sized per rack pair, tier by tier. The trunks
    and panels of each tier: (tier, its demand groups, its TrunkPlan, its panels' units by (rack, kind))."""
    spec, racks, devices, places = p.spec, p.racks, p.devices, p.places
    by_tier: dict[str, list] = defaultdict(list)
    tier_set = set(map(itemgetter(0), p.demands))
    if len(tier_set) == 1:  # one tier's demands (spine-core between halls: 178,750 at 512K GPUs) taken whole
        by_tier[tier_set.pop()] = list(p.demands.items())
    else:
        for key, idxs in p.demands.items():
            by_tier[key[0]].append((key, idxs))
    rack_index = {r.id: r.idx for r in racks}
    # Panels stack down from the top free unit, below the OOB switch, tier after tier (panel_layout.py).
    p.panel_units = PanelUnits(
        spec.layout.rack_units - (1 if spec.oob.enabled else 0),
        spec.layout.panel_units,
        _device_tops(devices, places, spec.layout.rack_units) if p.demands else None,
    )
    rack_names = [r.id for r in racks]
    tiers: list[tuple[str, list, Any, dict]] = []
    for tier, groups in sorted(by_tier.items()):
        plan = _tier_plan(p, tier, groups)
        p.plans.append(plan)
        try:
            p.panel_units.add_plan(plan, rack_index, rack_names)
        except PanelOverflow as exc:  # engine.pipeline spreads the network racks and tries again
            _devices_under(p, exc)
            raise
        # add_plan hands each tier a new units table, so this one stays the tier's
        tiers.append((tier, groups, plan, p.panel_units.units))
    return tiers


def _tier_plan(p: _Pass, tier: str, groups: list) -> Any:
    """The TrunkPlan of one tier's demand groups ((key, link indexes), in link order of first occurrence; sorted
    here by diversity group when the policy asks for trunk diversity)."""
    racks, length, policy, choice_of = p.racks, p.lengths.__getitem__, p.policy, p.demand_choice
    if policy.trunk_diversity:  # one half of the spines' demands after the other: one panel change per rack
        groups.sort(key=lambda g: g[0][5])
    dem: list[TrunkDemand] = []
    for k, idxs in groups:
        choice = choice_of[k[4]]
        if choice.breakout == "split-1:2":  # its legs paired: -1 marks an empty splitter leg
            _pair_split_legs(p.links, choice.split_end, idxs)
            run = max(map(length, filter((0).__le__, idxs)))
        else:
            run = max(map(length, idxs))
        # a TrunkDemand made from C, not through its Python-level __new__ (178,750 demands at 512K GPUs)
        dem.append(_new_tuple(TrunkDemand, (racks[k[2]].id, racks[k[3]].id, len(idxs), run, choice, k[5])))
    return plan_trunks(tier, dem, policy, own_panels=policy.trunk_diversity)


def _pair_split_legs(links: list[Link], split_end: str, idxs: list[int]) -> None:
    """Order one 1:2 splitter demand's links (in place) so that a trunk leg's two slots hold the two links of one
    module connector at the split end: plan_trunks fills legs two links at a time in list order, and a run of
    ports in link order can change switch (or start on a connector's second port) between two links. A connector
    with one link of the demand gets a leg of its own: -1 fills the other slot (an empty splitter leg)."""

    def connector(i: int) -> tuple:
        lk = links[i]
        return (
            (lk.b, lk.b_cage, _connector_of(lk.b_port))
            if split_end == "b"
            else (lk.a, lk.a_cage, _connector_of(lk.a_port))
        )

    by_connector: dict[tuple, list[int]] = {}
    for i in idxs:
        if i >= 0:  # a list paired before keeps its pairs (its -1 are dropped and made again)
            by_connector.setdefault(connector(i), []).append(i)
    paired: list[int] = []
    for group in by_connector.values():  # connectors in order of their first link
        for n in range(0, len(group), 2):
            pair = group[n : n + 2]
            paired += pair if len(pair) == 2 else [pair[0], -1]
    idxs[:] = paired


def _devices_under(p: _Pass, exc: PanelOverflow) -> None:
    """Fill in what engine.pipeline's retry needs of the overflowing rack: its kind, devices and their units."""
    exc.rack_kind = p.racks[exc.rack].kind
    in_rack = [
        d
        for d, pl in zip(p.devices, p.places)
        if pl is not None and pl.rack == exc.rack and d.role not in ("oob", "pdu")
    ]
    exc.devices, exc.device_units = len(in_rack), sum(d.rack_units for d in in_rack)


def _tier_cables(p: _Pass, tier: str, groups: list, plan: Any, units: dict) -> None:
    """The cable rows of one tier's panel-mode links: the trunk ids first (plan order), then per demand group two
    cords per link and each trunk's row as its first link reaches it (its panel units are those of that link's
    slot), put before the tier's cords at the end, so the rows stay in id order without a sort (0.03 s at 128K
    GPUs). `units`: the tier's panel units by (rack, kind)."""
    # plan_trunks makes a demand's trunks in the order its links fill them, demand after demand, so the links
    # meet the trunks in plan order: a group takes the next (cable id, run) when its slots change trunk. Past
    # 128K GPUs a spine-core demand is a trunk of 1-5 links (178,750 of them at 512K), so what a trunk or a
    # group costs to set up counts as much as what a link costs: _panel_links takes the groups in one call.
    runs = enumerate(plan.trunks, p.next_id)
    p.next_id += len(plan.trunks)
    start = len(p.cable_rows)
    # What a choice's groups share (cords, panel kind, fiber metres -> budgets by leg or port), set up once per
    # choice (a few hundred) rather than once per group.
    shared: dict[int, tuple] = {}
    slot_runs = plan.slot_runs
    at, end = 0, len(groups)
    while at < end:
        at = _panel_links(p, tier, groups, slot_runs, at, units, runs, shared)
        if at < end:  # a group of a 1:2 splitter choice
            key, idxs = groups[at]
            _split_panel_links(p, tier, key, idxs, slot_runs[at], units, runs, shared[key[4]])
            at += 1
    left = next(runs, None)
    if left is not None:
        raise ValueError(f"tier {tier}: trunk {left[1].id} carries no link")
    # the trunks' ids come before the cords' (and after every row made before): the rows stay in id order
    p.cable_rows[start:start] = p.trunk_rows
    p.trunk_rows.clear()


def _next_trunk(runs: Iterator[tuple[int, Any]], tid: str) -> tuple[int, Any]:
    """The next (cable id, TrunkRun) of the plan, which must be trunk `tid` (see _tier_cables)."""
    trunk_cid, run = next(runs)
    if run.id != tid:
        raise ValueError(f"trunk {tid} reached out of plan order (expected {run.id})")
    return trunk_cid, run


def _choice_cabling(p: _Pass, choice: Any) -> tuple:
    """What every panel-mode demand group of `choice` shares: (whether it is a 1:2 splitter's, the choice, its
    panel kind, A cord SKU and length, B cord SKU and length, a budget memo by fiber metres, budget_of)."""
    sp = choice.structured
    if choice.breakout == "split-1:2":
        straight, splitter = (sp.cord_a_sku, sp.cord_a_length_m), (sp.cord_b_sku, sp.cord_b_length_m)
        (sku_a, len_a), (sku_b, len_b) = (splitter, straight) if choice.split_end == "b" else (straight, splitter)
        return (True, choice, sp.panel.kind, sku_a, len_a, sku_b, len_b, {}, p.budget_of)
    return (
        False,
        choice,
        sp.panel.kind,
        sp.cord_a_sku,
        sp.cord_a_length_m,
        sp.cord_b_sku,
        sp.cord_b_length_m,
        {},
        p.budget_of,
    )


def _trunk_row(
    cid: int, run: Any, ra: int, unit_a: int, rb: int, unit_b: int, lids: list, tier: str, network: str
) -> list:
    """A trunk's cable row between the two panels' trunk sides ("T"); `lids` fills as its links are cabled."""
    return [
        cid,
        "trunk",
        run.sku,
        run.length_m,
        ("panel", ra, unit_a, "T"),
        ("panel", rb, unit_b, "T"),
        lids,
        tier,
        network,
    ]


def _panel_links(
    p: _Pass, tier: str, groups: list, slot_runs: Sequence, at: int, units: dict, runs: Iterator, shared: dict
) -> int:
    """The demand groups ((demand key, link indexes)) from `at` on through panels, on their slots (`slot_runs`,
    TrunkPlan's), up to the first group of a 1:2 splitter choice, whose index it returns (or len(groups)): each
    link's two equipment cords (rows), its cables (cord, trunk, cord) and loss budget, and the row of each trunk
    they fill; `runs`: _tier_cables' (cable id, TrunkRun) of the plan; `shared`: _choice_cabling's by choice.

    A group whose slots are a LegRun (one trunk, one MPO link a leg: nearly every group past 128K GPUs, 178,750
    of ~3 links at 512K) has its trunk, its budget (one fiber length, leg 1) and its panel ports stepped here,
    not read from a LinkSlot per link; the others go through _slot_links."""
    links, cable_rows, cords, cables, trunks_out = p.links, p.cable_rows, p.cords, p.cables, p.trunks_out
    budgets, statuses, issues, trunk_rows = p.budgets, p.statuses, p.issues, p.trunk_rows
    choice_of, next_id = p.demand_choice, p.next_id
    for g in range(at, len(groups)):
        key, idxs = groups[g]
        ctx = shared.get(key[4])
        if ctx is None:
            ctx = shared[key[4]] = _choice_cabling(p, choice_of[key[4]])
        split, choice, kind, sku_a, len_a, sku_b, len_b, memo, budget_of = ctx
        if split:
            p.next_id = next_id
            return g
        # One demand group joins one rack pair and one network (_media_links' key: tier, network, rack A, rack B,
        # ...): their panels' units are looked up once per group.
        network, ra, rb = key[1], key[2], key[3]
        units_a, units_b = units[(ra, kind)], units[(rb, kind)]
        slots = slot_runs[g]
        if type(slots) is LegRun:
            legs: Sequence = (slots,)
        elif type(slots) is LegRuns:  # several trunks, a LegRun each: their links one after the other in idxs
            legs = slots
        else:
            next_id = _slot_links(p, tier, key, idxs, slots, units_a, units_b, runs, ctx, next_id)
            continue
        first = 0
        for n, tid, pos_a, pos_b, per_panel, _base in legs:
            trunk_cid, run = next(runs)
            if run.id != tid:
                raise ValueError(f"trunk {tid} reached out of plan order (expected {run.id})")
            fiber_m = len_a + len_b + run.length_m
            by_sub = memo.get(fiber_m)
            if by_sub is None:
                by_sub = memo[fiber_m] = {}
            entry = by_sub.get(1)
            if entry is None:
                entry = by_sub[1] = budget_of(choice, True, fiber_m, leg=1, port=1)
            budget, status, problem = entry
            # _leg_slots' walk: link j takes the j-th position after the trunk's first at both ends
            pa, sa = divmod(pos_a, per_panel)
            pb, sb = divmod(pos_b, per_panel)
            lids: list[int] = []
            trunk_rows.append(_trunk_row(trunk_cid, run, ra, units_a[pa], rb, units_b[pb], lids, tier, network))
            trunks_out.append((network, run))
            cord = (sku_a, len_a)  # the link's own cable: its A-end cord, one tuple for the group
            for j in idxs if n == len(idxs) else idxs[first : first + n]:
                if sa == per_panel:
                    pa, sa = pa + 1, 0
                if sb == per_panel:
                    pb, sb = pb + 1, 0
                sa += 1
                sb += 1
                lid, _network, _plane, _tier, a, a_port, _a_cage, b, b_port, _b_cage, _speed = links[j]
                cable_rows.append(
                    [next_id, "cord", sku_a, len_a, (a, a_port), ("panel", ra, units_a[pa], sa), [lid], tier, network]
                )
                cable_rows.append(
                    [
                        next_id + 1,
                        "cord",
                        sku_b,
                        len_b,
                        ("panel", rb, units_b[pb], sb),
                        (b, b_port),
                        [lid],
                        tier,
                        network,
                    ]
                )
                cords[j] = cord
                cables[j] = (next_id, trunk_cid, next_id + 1)
                next_id += 2
                budgets[j] = budget
                statuses[j] = status
                if problem is not None:
                    issues.append((lid, problem))
                lids.append(lid)
            first += n
    p.next_id = next_id
    return len(groups)


def _slot_links(
    p: _Pass,
    tier: str,
    key: tuple,
    idxs: list[int],
    slots: Sequence[LinkSlot],
    units_a: tuple,
    units_b: tuple,
    runs: Iterator,
    ctx: tuple,
    next_id: int,
) -> int:
    """_panel_links for one group whose slots are LinkSlots (a demand of several trunks, or of several links a leg
    or a cassette's LC ports); `units_a`, `units_b`: the panel units of its racks; `next_id`: the next cable id,
    returned as it is after the group's cords."""
    links, cable_rows, cords, cables, trunks_out = p.links, p.cable_rows, p.cords, p.cables, p.trunks_out
    budgets, statuses, issues, trunk_rows = p.budgets, p.statuses, p.issues, p.trunk_rows
    _split, choice, _kind, sku_a, len_a, sku_b, len_b, memo, budget_of = ctx
    cord = (sku_a, len_a)  # the link's own cable: its A-end cord, one tuple for the group
    network, ra, rb = key[1], key[2], key[3]
    # the trunk of the link before, its cable id, its budgets by leg, the links it carries; the leg of the link
    # before and its budget
    tid, trunk_cid, by_sub, sub_now = None, 0, memo, None
    lids: list[int] = []
    entry: tuple = ()
    for j, slot in zip(idxs, slots):
        lid, _network, _plane, _tier, a, a_port, _a_cage, b, b_port, _b_cage, _speed = links[j]
        # a LinkSlot read as the tuple it is (one unpack, not an attribute look-up per field)
        slot_trunk, _leg, _first, _last, panel_a, port_a, panel_b, port_b, sub = slot
        if slot_trunk != tid:  # links fill a trunk's legs in order, so the trunk changes a few times a group
            tid = slot_trunk
            trunk_cid, run = _next_trunk(runs, tid)
            fiber_m = len_a + len_b + run.length_m
            by_sub = memo.get(fiber_m)
            if by_sub is None:
                by_sub = memo[fiber_m] = {}
            sub_now = None
            lids = []
            trunk_rows.append(
                _trunk_row(trunk_cid, run, ra, units_a[panel_a], rb, units_b[panel_b], lids, tier, network)
            )
            trunks_out.append((network, run))
        cable_rows.append(
            [next_id, "cord", sku_a, len_a, (a, a_port), ("panel", ra, units_a[panel_a], port_a), [lid], tier, network]
        )
        cable_rows.append(
            [
                next_id + 1,
                "cord",
                sku_b,
                len_b,
                ("panel", rb, units_b[panel_b], port_b),
                (b, b_port),
                [lid],
                tier,
                network,
            ]
        )
        cords[j] = cord
        cables[j] = (next_id, trunk_cid, next_id + 1)
        next_id += 2
        # build_channel's leg is a 1:2 splitter's leg (slot.sub), not the trunk leg (slot.leg).
        if sub != sub_now:
            sub_now = sub
            sub = sub or 1
            known = by_sub.get(sub)
            if known is None:
                known = by_sub[sub] = budget_of(choice, True, fiber_m, leg=1, port=sub)
            entry = known
        budgets[j], statuses[j], problem = entry
        if problem is not None:
            issues.append((lid, problem))
        lids.append(lid)
    return next_id


def _split_panel_links(
    p: _Pass, tier: str, key: tuple, idxs: list[int], slots: Sequence[LinkSlot], units: dict, runs: Iterator, ctx: tuple
) -> None:
    """_panel_links for a 1:2 splitter channel. The two links of a trunk leg share its MPO port at both panels,
    so each end has one cord per leg, carrying both links: at the end whose module port the splitter divides
    (choice.split_end: the switch's twin-port module) a straight cord from that port to the panel, at the other
    end the splitter, from the panel port to both links' ports (the channel's loss budget, build_channel, already
    puts them so). A cord row per link put two cords on one panel port (verify_cabling refused such designs).

    Both links of a leg must leave the same module connector; a leg whose second link comes from another one
    cannot be cabled so, and its link is listed in the issues (the demand's links fill legs in link order, and a
    connector's links are consecutive ports)."""
    links, cable_rows, cords, cables, trunks_out = p.links, p.cable_rows, p.cords, p.cables, p.trunks_out
    budgets, statuses, issues, trunk_rows = p.budgets, p.statuses, p.issues, p.trunk_rows
    _split, choice, kind, sku_a, len_a, sku_b, len_b, _memo, budget_of = ctx
    split_at_b = choice.split_end == "b"
    ra, rb = key[2], key[3]
    units_a, units_b = units[(ra, kind)], units[(rb, kind)]
    leg_rows: dict[tuple[str, int], tuple[list, list, tuple]] = {}  # (trunk, leg) -> its two cord rows, connector
    next_id = p.next_id
    tid_now, trunk_cid, trunk_m = None, 0, 0.0
    lids: list[int] = []
    for j, slot in zip(idxs, slots):
        if j < 0:  # the empty leg of a splitter whose connector has one link here (_pair_split_legs)
            continue
        lid, network, _plane, _tier, a, a_port, a_cage, b, b_port, b_cage, _speed = links[j]
        tid = slot.trunk_id
        if tid != tid_now:  # a trunk's first link (a leg's first slot is never an empty one)
            tid_now = tid
            trunk_cid, run = _next_trunk(runs, tid)
            trunk_m, lids = run.length_m, []
            trunk_rows.append(
                _trunk_row(trunk_cid, run, ra, units_a[slot.panel_a], rb, units_b[slot.panel_b], lids, tier, network)
            )
            trunks_out.append((network, run))
        connector = (b, b_cage, _connector_of(b_port)) if split_at_b else (a, a_cage, _connector_of(a_port))
        shared = leg_rows.get((tid, slot.leg))
        if shared is None:
            row_a = [next_id, "cord", sku_a, len_a, (a, a_port), ("panel", ra, units_a[slot.panel_a], slot.port_a)]
            row_b = [next_id + 1, "cord", sku_b, len_b, ("panel", rb, units_b[slot.panel_b], slot.port_b), (b, b_port)]
            row_a += [[lid], tier, network]
            row_b += [[lid], tier, network]
            cable_rows += (row_a, row_b)
            leg_rows[(tid, slot.leg)] = (row_a, row_b, connector)
            next_id += 2
        else:
            row_a, row_b, leg_connector = shared
            row_a[6].append(lid)
            row_b[6].append(lid)
            if connector != leg_connector:
                issues.append((lid, f"shares trunk leg {tid} leg {slot.leg} with a link of another module connector"))
        cords[j] = (row_a[2], row_a[3])
        cables[j] = (row_a[0], trunk_cid, row_b[0])
        fiber_m = len_a + len_b + trunk_m
        budgets[j], statuses[j], problem = budget_of(choice, True, fiber_m, leg=slot.sub or 1, port=1)
        if problem is not None:
            issues.append((lid, problem))
        lids.append(lid)
    p.next_id = next_id


def _physical_result(p: _Pass) -> PhysicalResult:
    """The PhysicalResult of a finished pass, with its roll-up (fibers, BOM, worst links) set up to run later."""
    racks, panel_units = p.racks, p.panel_units
    loss_counts = Counter(p.statuses)
    result = PhysicalResult(
        policy=p.policy,
        choices=p.choices,
        cords=p.cords,
        cables=p.cables,
        budgets=p.budgets,
        statuses=p.statuses,
        cable_rows=p.cable_rows,
        trunks=p.trunks_out,
        panels=plan_panels(p.plans) if p.plans else (),
        fibers=None,
        bom=[],
        bom_split=None,
        loss_counts={
            "pass": loss_counts.get("pass", 0),
            "marginal": loss_counts.get("marginal", 0),
            "fail": loss_counts.get("fail", 0),
            "copper": loss_counts.get("n/a", 0),
            "no_medium": loss_counts.get("no-medium", 0),
        },
        issues=p.issues,
        missing=dict(p.missing),
        panel_places=panel_units.places if panel_units is not None else [],
        site=_site_section(racks, p.hall_of, p.trunks_out, p.inter_hall) if p.hall_of else {},
        distinct_choices=[
            m if k[0] == "paired" else m[0] for k, m in p.choice_memo.items() if k[0] == "paired" or m[0] is not None
        ],
    )
    over = {racks[r].id: n for r, n in panel_units.over.items()} if panel_units is not None else {}
    result._roll_up = partial(
        _roll_up,
        result,
        spec=p.spec,
        catalog=p.catalog,
        devices=p.devices,
        links=p.links,
        places=p.places,
        racks=racks,
        failures=p.failures,
        over=over,
        module_cages=p.module_cages,
        known_budgets=list(p.budget_of.budgets.values()),
        direct=p.direct,
        gathers=None if p.end_columns is None else _end_gathers(p),
        row_counts=[],  # filled by PhysicalResult.hand_row_counts
    )
    return result


def _media_pass_cages(p: _Pass, cage_run: list) -> tuple:
    """_cage_counts' answer from the marks the media pass left on the cages (`cage_run`, _cage_runs' tables)
    when no cage was marked two ways: networks and each network's modules in the order of their first link,
    modules in the order of first use and each module's watts its last link's, as _module_cages' one pass in link
    order makes them (the media pass runs twice, the links through panels first; a link marks its A end before
    its B end). A cage has one mark, so it counts under one network and module, and none is mixed."""
    # network, (network, module) and module -> (link index, end) of its first use
    first_net: dict[Any, tuple] = {}
    first_in_net: dict[Any, tuple] = {}
    first: dict[Any, tuple] = {}
    last: dict[str, tuple] = {}  # module -> (last link index, end, watts)
    for groups in p.module_groups:
        for net, by_choice in groups.items():
            for _mark_a, _mark_b, at, end, choice in by_choice.values():
                for side, module, watts in (
                    (0, choice.a_module, choice.a_power_w),
                    (1, choice.b_module, choice.b_power_w),
                ):
                    if not module:
                        continue
                    order = (at, side)
                    for table, key in ((first_net, net), (first_in_net, (net, module)), (first, module)):
                        if order < table.get(key, _NEVER):
                            table[key] = order
                    if (end, side) > last.get(module, _NEVER_LAST)[:2]:
                        last[module] = (end, side, watts)
    devices_of = _cages_per_mark(cage_run)
    in_net = sorted(first_in_net, key=first_in_net.__getitem__)
    split = {
        net: {m: devices_of[(n, m)] for n, m in in_net if n == net}
        for net in sorted(first_net, key=first_net.__getitem__)
    }
    by_module: dict[str, Counter] = {m: Counter() for m in sorted(first, key=first.__getitem__)}
    for by_m in split.values():
        for m, devs in by_m.items():
            by_module[m].update(devs)
    return split, by_module, {m: last[m][2] for m in by_module}, 0


_NEVER, _NEVER_LAST = (1 << 62, 0), (-1, 0)


def _cages_per_mark(cage_run: list) -> dict[tuple, Counter]:
    """Per mark, its cages per device (devices in index order; marks in order of first use, devices by index and
    a device's cages in table order). A device's cages nearly always carry one mark (a server's eight, a switch's
    at one tier and speed), so they are counted by its table's size: a (mark, device) tuple counted per cage took
    twice as long (0.066 against 0.032 s at 128K GPUs, 460,000 cages). Whether they do is asked by counting the
    first cage's mark among them (countOf: identity, then ==) rather than by a set of them, which hashes each
    mark tuple (0.040 against 0.054 s at 128K GPUs)."""
    devices_of: dict[tuple, Counter] = defaultdict(Counter)
    for dev, table in enumerate(cage_run):
        if not table:
            continue
        values = table.values()
        n = len(table)
        mark = next(iter(values))[3]
        if countOf(map(_CAGE_MARK, values), mark) == n:
            if mark is not None:
                devices_of[mark][dev] = n
            continue
        for mark, n in Counter(map(_CAGE_MARK, values)).items():
            if mark is not None:
                devices_of[mark][dev] = n
    return devices_of


def _roll_up(
    result: PhysicalResult,
    *,
    spec: Any,
    catalog: Catalog,
    devices: Any,
    links: Any,
    places: Any,
    racks: Any,
    failures: dict,
    over: dict,
    module_cages: tuple | None = None,
    known_budgets: list | None = None,
    direct: Sequence[int] = (),
    gathers: tuple[Callable[[Sequence], tuple], Callable[[Sequence], tuple]] | None = None,
    runs: list | None = None,
    row_counts: list | None = None,
) -> list[str]:
    """Fill in `result`'s fiber totals, BOM and worst links, and return the physical layer's warnings. `direct`:
    the pass's links cabled directly (_Pass.direct), `gathers` its _end_gathers when made, `runs` tier_runs,
    `row_counts` what PhysicalResult.hand_row_counts was given (the cable rows' _row_counts), if anything."""
    choices, trunks_out = result.choices, result.trunks
    # Optical links on a cable of their own (the links cabled directly: one cable id each) counted by (network,
    # tier, rack A, rack B, fiber figures): the choices' FiberCounts by their four figures, so that choices of
    # one figures (at 128K GPUs 201 choices, one figures) make one row. fiber_totals sums the rows per network,
    # tier and rack: neither the order of the rows nor which choice a row stands for is seen.
    figures: dict[tuple, int] = {}  # four figures -> their number
    fibers: list = []  # per number, a FiberCount of those figures
    numbers: dict[int, int] = {}  # id of an optical choice -> the number of its figures
    for c in result.distinct_choices:
        if c.optical:
            fc = link_fibers(c, False)
            f = (fc.active, fc.installed, fc.dark, fc.spare)
            if f not in figures:
                figures[f] = len(fibers)
                fibers.append(fc)
            numbers[id(c)] = figures[f]
    counted: dict[tuple, int] = {}
    if direct and numbers:
        rack_of = [p.rack if p else -1 for p in places]
        gather_a, gather_b = gathers or (_gather(list(map(_LINK_A, links))), _gather(list(map(_LINK_B, links))))
        ends = (gather_a(rack_of), gather_b(rack_of))
        counted = _links_by_rack_pair(choices, direct, ends, tier_runs(links) if runs is None else runs, numbers)
    rack_ids = [r.id for r in racks] + [""]  # index -1 (no place): ""
    rows = [(k[0], k[1], rack_ids[k[2]], rack_ids[k[3]], fibers[k[4]], v) for k, v in counted.items() if k[4] >= 0]
    result.fibers = fiber_totals(rows, trunks_out)
    bom_warnings: list[str] = []
    result.bom, result.bom_split = _bom(
        devices,
        links,
        choices,
        result.cable_rows,
        trunks_out,
        result.panels,
        catalog,
        bom_warnings,
        result.policy.ufm_module,
        result.distinct_choices,
        spec.procurement,
        result.policy.loss,
        cable_kinds=result.cable_kinds,
        module_cages=module_cages,
        row_counts=row_counts[0] if row_counts else None,
    )
    result.completeness = _completeness(result.missing, failures, result.bom)
    worst = _worst_links(links, result.budgets, 20, known_budgets)
    result.worst = [{"link": f"L{lid:06d}", "margin_db": round(m, 2)} for m, lid in worst]
    warnings = [f"no medium for {k}: {msg}" for k, msg in sorted(failures.items())] + bom_warnings
    if over:
        rack_id, needed = max(over.items(), key=lambda kv: kv[1])
        warnings.append(
            f"{len(over)} rack(s) need more panel units than layout.panel_units "
            f"({spec.layout.panel_units}) and use free units below them; e.g. {rack_id} needs {needed}"
        )
    issues = result.issues
    if issues:
        warnings.append(f"{len(issues)} link(s) have a broken channel, e.g. L{issues[0][0]:06d}: {issues[0][1]}")
    fails = result.loss_counts["fail"]
    if fails:
        warnings.append(f"{fails} optical link(s) fail their loss budget or component checks")
        mated = _mated_pair_warning(links, result.budgets, places, racks)
        if mated:
            warnings.append(mated)
    return warnings


def _links_by_rack_pair(
    choices: list, direct: Sequence[int], racks: tuple[Sequence[int], Sequence[int]], runs: list, numbers: dict
) -> dict[tuple, int]:
    """The links cabled directly (`direct`, _Pass.direct: ascending link indexes, ~i for a quarter-rate pair)
    counted by (network, tier, rack A, rack B, number of the choice: `numbers` by the choice's id, -1 when not
    there); `racks`: each link's A and B rack index (-1 unplaced), `runs`: summary.tier_runs of the links.

    A Python step per link over runs sharing the rack pair and choice within a tier run, on those links' columns
    gathered in C: the links through panels (three cables each) are not read, nor is any link tuple. At 128K GPUs
    0.072 s against 0.09 s for a pass over every link tuple and its cables (a Counter of the three columns
    zipped: 0.079 s; of an int per rack pair and the choice ids: 0.10 s)."""
    number = numbers.get
    counted: dict[tuple, int] = {}
    idx = direct if min(direct) >= 0 else list(map(_direct_index, direct))
    pick = _gather(idx)
    ra_col, rb_col, by_choice = pick(racks[0]), pick(racks[1]), pick(choices)
    for (net, tier), start, stop in runs:
        start, stop = bisect_left(idx, start), bisect_left(idx, stop)
        choice: Any = _NO_RUN
        ra = rb = n = 0
        for a, b, c in zip(ra_col[start:stop], rb_col[start:stop], by_choice[start:stop]):
            if c is not choice or a != ra or b != rb:
                if n:
                    key = (net, tier, ra, rb, number(id(choice), -1))
                    counted[key] = counted.get(key, 0) + n
                ra, rb, choice, n = a, b, c, 0
            n += 1
        if n:
            key = (net, tier, ra, rb, number(id(choice), -1))
            counted[key] = counted.get(key, 0) + n
    return counted


def _mated_pair_warning(links: Any, budgets: list[Any], places: Any, racks: Any, named: int = 8) -> str | None:
    """The links whose channel has more mated pairs than the transceiver vendor assumes, named: duplex-LC optics
    (FR4/LR4) between halls reach their panels' trunk through MPO-LC cassettes, 6 mated pairs against NVIDIA's 4
    [S9], and the catalog has no LC adapter panel with a public part number and loss figure to cable them
    otherwise (docs/data-gaps.md "Site and campus"). Runs only when some link fails its checks."""
    flagged = {
        id(b)
        for b in {id(b): b for b in budgets if b is not None and b.component_issues}.values()
        if any(c.rule == "mated-pairs" for c in b.component_issues)
    }
    if not flagged:
        return None
    hit = [i for i, b in enumerate(budgets) if id(b) in flagged]
    hall = [r.hall for r in racks]

    def between(i: int) -> bool:
        pa, pb = places[links[i].a], places[links[i].b]
        return pa is not None and pb is not None and hall[pa.rack] != hall[pb.rack]

    cross = sum(map(between, hit))
    ids = ", ".join(f"L{links[i].id:06d}" for i in hit[:named])
    more = f" and {len(hit) - named:,} more" if len(hit) > named else ""
    return (
        f"{len(hit):,} link(s) ({cross:,} between halls) have more mated pairs than NVIDIA's 4 [S9]: duplex-LC "
        f"optics through MPO-LC cassettes at both panels make 6, and the catalog has no LC adapter panel with a "
        f"public part and loss figure (docs/data-gaps.md): {ids}{more} (status fail in links.csv and "
        f"loss-budget.csv)"
    )


def _worst_links(links: Any, budgets: list[Any], k: int, known: list | None = None) -> list[tuple[float, int]]:
    """The k links with the smallest margin: rank the few distinct budgets (in order of first use among equal
    margins), then find their links. `known`: every budget the pass made (_Budgets: each is some link's), ranked
    without looking for the distinct budgets over every link (0.035 s at 128K GPUs); that ranking is kept when
    none of the budgets it used ties another's margin, as then the order of first use cannot change it."""
    if known is not None:
        ranked = sorted((b for b in known if b is not None and b.margin_db is not None), key=_MARGIN)
        out, used = _links_of(ranked, links, budgets, k)
        margins = Counter(map(_MARGIN, ranked))
        if all(margins[b.margin_db] == 1 for b in ranked[:used]):
            return out
    distinct = {id(b): b for b in budgets if b is not None and b.margin_db is not None}
    return _links_of(sorted(distinct.values(), key=_MARGIN), links, budgets, k)[0]


def _links_of(ranked: list, links: Any, budgets: list[Any], k: int) -> tuple[list[tuple[float, int]], int]:
    """(margin, link id) of the first k links on the `ranked` budgets, budget by budget in link order; and how
    many budgets that took."""
    out: list[tuple[float, int]] = []
    for n, b in enumerate(ranked, 1):
        # the links on `b`, found in C (a Python step per link took 0.027 s at 128K GPUs, the worst budgets'
        # links being the last: between halls)
        out += [(b.margin_db, link.id) for link in islice(compress(links, map(is_, budgets, repeat(b))), k - len(out))]
        if len(out) >= k:
            return out, n
    return out, len(ranked)


_MARGIN = attrgetter("margin_db")


def _spine_groups(links: list[Link]) -> dict[tuple[str, int, int], int]:
    """(tier, lower device, upper device) -> 0 or 1: the half of the spines (leaf-spine) or cores (spine-core) a
    leaf (spine) reaches that the upper device is in, by device order. Halves are taken per lower device, so a
    leaf of a pod splits its own pod's spines. Trunk diversity gives each half trunks and panels of its own, so a
    switch reaching two or more spines has its uplinks in at least two trunks and on two panels at each end."""
    uppers: dict[tuple[str, int], set[int]] = defaultdict(set)
    for lk in links:
        if lk.tier in ("leaf-spine", "spine-core"):
            uppers[(lk.tier, lk.a)].add(lk.b)
    out: dict[tuple[str, int, int], int] = {}
    for (tier, a), devs in uppers.items():
        ordered = sorted(devs)
        for rank, d in enumerate(ordered):
            out[(tier, a, d)] = 0 if 2 * rank < len(ordered) else 1
    return out


def _device_tops(
    devices: list[Device], places: list[Place | None], rack_units: int, rack: int | None = None
) -> dict[int, int]:
    """{rack index: highest unit a device takes}, for racks panels must not overlap (only `rack`'s when given).
    The OOB switch (above the panels' units) and zero-U PDUs take none of them; a rack-scale system's record spans
    its whole rack (its trays' own units are not modelled), so it leaves the top units placement reserved for
    panels."""
    tops: dict[int, int] = {}
    for d, p in zip(devices, places):
        if p is None or d.role in ("oob", "pdu") or d.rack_units >= rack_units or (rack is not None and p.rack != rack):
            continue
        top = p.u + d.rack_units - 1
        if top > tops.get(p.rack, 0):
            tops[p.rack] = top
    return tops


class _Budgets:
    """budget_of(choice, structured, fiber metres, leg, port) -> (LossBudget, status, first channel problem or None).

    One channel per (choice, structured, leg, port) and one budget per channel and fiber length to the centimetre:
    the same objects for every link that shares them. The polarity and component checks (check_channel, a pure
    function of the channel's value) run once per distinct channel value: choices that differ only in their run
    length or cord build equal channels (411 channels, 126 distinct, at 128K GPUs).
    """

    def __init__(self, policy: MediaPolicy) -> None:
        self.policy = policy
        self.channels: dict = {}
        self.budgets: dict = {}
        self.checked: dict = {}  # channel (by value) -> tuple(check_channel(channel))

    def __call__(
        self, choice: Any, structured: bool, fiber_m: float, *, leg: int = 1, port: int = 1
    ) -> tuple[LossBudget | Any, str | Any, str | None]:
        ck = (id(choice), structured, leg, port)
        entry = self.channels.get(ck)
        if entry is None:
            channel = build_channel(choice, structured, self.policy, leg=leg, port=port)
            problems = self.checked.get(channel)
            if problems is None:
                problems = self.checked[channel] = tuple(check_channel(channel))
            entry = self.channels[ck] = (channel, problems)
        channel, problems = entry
        bk = (id(channel), round(fiber_m, 2))
        b = self.budgets.get(bk)
        if b is None:
            b = self.budgets[bk] = loss_budget(channel, fiber_m, choice.pmd_spec, self.policy)
        # a channel that breaks a polarity or component rule fails whatever its loss
        status = "fail" if problems or (b.status == "pass" and b.component_issues) else b.status
        return b, status, (str(problems[0]) if problems else None)


def _cage_runs(links: Iterable[Link], lengths: Iterable[float], state: list) -> None:
    """Per device, {cage: [far device, far cage, longest run, module mark]}: the far cage every link of the cage
    reaches (far device MULTI when they reach more than one), the longest of their runs in metres, and the mark
    _media_links gives the cage (None until then); `links` (with their run `lengths`) added to `state` (a list per device, None where no link was added yet). Adding links in any order,
    in one call or several, gives the same table: a cage's entry is right once all its links are in.

    Held per device in a list rather than in one dict keyed by (device, cage): a tuple key is built and hashed
    per link end, and one table of 3 million entries at 512K GPUs misses the CPU caches on most lookups; the
    per-device tables took 2.78/1.31 s against 4.54/3.74 s at 1,577,792 links (0.31 against 0.60-0.67 s at
    397,184), so the cost per link stays flat. The far cage is held as two items of the entry, not a tuple made
    per cage."""
    for (_id, _net, _plane, _tier, a, _ap, a_cage, b, _bp, b_cage, _speed), length in zip(links, lengths):
        da = state[a]
        if da is None:
            da = state[a] = {}
        sa = da.get(a_cage)
        if sa is None:
            da[a_cage] = [b, b_cage, length, None]
        else:
            if sa[0] != b or sa[1] != b_cage:
                sa[0] = MULTI
            if sa[2] < length:
                sa[2] = length
        db = state[b]
        if db is None:
            db = state[b] = {}
        sb = db.get(b_cage)
        if sb is None:
            db[b_cage] = [a, a_cage, length, None]
        else:
            if sb[0] != a or sb[1] != a_cage:
                sb[0] = MULTI
            if sb[2] < length:
                sb[2] = length


MULTI = -1  # the far device of a cage whose links reach more than one far cage (no device index)
_CAGE_MARK = itemgetter(3)  # of a _cage_runs entry


def _site_section(racks: list[Rack], hall_of: list[int], trunks_out: list, inter_hall: int) -> dict:
    """The summary's `site` section: racks per hall and the links and trunks between halls."""
    per_hall = Counter(hall_of)
    hall_by_id = {r.id: r.hall for r in racks}
    between = [run for _net, run in trunks_out if hall_by_id[run.rack_a] != hall_by_id[run.rack_b]]
    return {
        "halls": len(per_hall),
        "racks_per_hall": [per_hall[h] for h in range(max(per_hall) + 1)],
        "inter_hall_links": inter_hall,
        "inter_hall_trunks": len(between),
        "inter_hall_trunk_m": round(sum(run.length_m for run in between), 2),
    }


def _inter_hall_policy(policy: MediaPolicy) -> MediaPolicy:
    """The policy for links between halls: every tier through patch panels (its media pins kept)."""
    return replace(
        policy,
        tiers=tuple((k, replace(t, cabling="panels")) for k, t in policy.tiers),
        default_tier=replace(policy.default_tier, cabling="panels"),
    )


def _choose(key: tuple, ea: CageEnd, eb: CageEnd, policy: MediaPolicy, media: Any, failures: dict, where: str) -> tuple:
    """(choice or None, optical, cable shared by links, 1:2 splitter) for one choice_memo key; a cage pair no
    medium fits is recorded in `failures` under `where` (network/tier), once."""
    tier, technology, _a, _b, aligned, run, _structured, _cross = key
    try:
        c = select_media(MediaRequest(tier, technology, ea, eb, aligned, float(run)), policy, media)
    except MediaSelectionError as exc:
        failures.setdefault(where, str(exc))
        return None, False, False, False
    return c, c.optical, c.cable_carries_links > 1, c.breakout == "split-1:2"


_CABLE_CATEGORY = {
    "trunk": "trunk",
    "cord": "fiber",
    "dac": "copper",
    "acc": "copper",
    "aoc": "aoc",
    "splitter": "fiber",
    "rj45": "copper",
}
# Every BOM line category, in the order a BOM lists them (a closed set: the API and summary schemas enumerate it);
# "cable" takes a cable of a kind without a category of its own.
BOM_CATEGORIES = (
    "switch",
    "appliance",
    "transceiver",
    "copper",
    "aoc",
    "fiber",
    "trunk",
    "panel",
    "panel-insert",
    "cable",
)
CABLE_KINDS = tuple(_CABLE_CATEGORY)  # every kind a cable row can have (the cable table's filter offers them)
_FIRST = itemgetter(0)
_LINK_NETWORK, _LINK_TIER, _LINK_A, _LINK_B = itemgetter(1), itemgetter(3), itemgetter(4), itemgetter(7)
_LINK_A_CAGE, _LINK_B_CAGE = itemgetter(6), itemgetter(9)


def _bom(
    devices: Any,
    links: Any,
    choices: Any,
    cable_rows: Any,
    trunks: Any,
    panels: Any,
    catalog: Any,
    warnings: list[str],
    ufm_module: str = "",
    distinct_choices: list[Any] | None = None,
    procurement: Any | None = None,
    loss: LossPolicy | None = None,
    cable_kinds: dict | None = None,
    module_cages: tuple | None = None,
    row_counts: dict | None = None,
) -> tuple[list[dict], BomSplit]:
    """BOM lines: switches, appliances, transceivers (one per cage end), cables by part, trunks, panels;
    and the transceivers and cables split by network and SU (BomSplit), from the same counts. `cable_kinds`, when
    given, gets the cable rows by (network, tier, kind) from the same pass (the summary's counting section);
    `module_cages`, when given, is _cage_counts' answer, from the media pass's marks (_media_pass_cages);
    `row_counts`, when given, _row_counts(cable_rows)."""
    lines: dict[tuple, dict] = {}

    def add(
        category: str,
        sku: str,
        description: str,
        qty: float = 1,
        watts: float | None = None,
        network: str = "",
        unconfirmed: str = "",
    ) -> None:
        key = (category, sku)
        line = lines.get(key)
        if line is None:
            line = lines[key] = {
                "sku": sku,
                "description": description,
                "category": category,
                "quantity": 0,
                "watts": 0.0 if watts is not None else None,
                "unit_watts": watts,
                "unconfirmed": unconfirmed,
            }
        elif unconfirmed and not line["unconfirmed"]:
            line["unconfirmed"] = unconfirmed
        line["quantity"] += qty
        if watts is not None:
            line["watts"] = round((line["watts"] or 0) + watts * qty, 2)

    by_model: dict = {}
    for d in devices:
        key = (d.role, d.model)
        parts = by_model.get(key)
        if parts is None:
            parts = by_model[key] = device_lines(d.role, d.model, catalog, procurement)
        for category, p, watts in parts:
            add(category, p.sku, p.description, 1, watts, "", p.unconfirmed)
    media = catalog.media
    su_of = [d.su for d in devices]
    modules_split = _transceiver_lines(
        add, devices, su_of, media, ufm_module, warnings, module_cages or _cage_counts(*_module_cages(links, choices))
    )
    describe_cable = _cable_describer(choices if distinct_choices is None else distinct_choices, trunks, media, loss)
    cables_split, cable_lengths = _cable_lines(add, cable_rows, su_of, describe_cable, cable_kinds, row_counts)
    _panel_lines(add, panels, media)
    order = {c: i for i, c in enumerate(BOM_CATEGORIES)}
    out = sorted(lines.values(), key=lambda x: (order[x["category"]], x["sku"]))
    for line in out:
        line.pop("unit_watts", None)
    return out, BomSplit(_sorted(modules_split), _sorted(cables_split), cable_lengths)


def _cable_lines(
    add: Callable[..., None],
    rows: Any,
    su_of: list,
    describe_cable: Any,
    kinds: dict | None = None,
    counts: dict | None = None,
) -> tuple[Counter, dict]:
    """_bom's cable lines (by part, through `add`), the cables split by (part, network, SU) and each part's
    ordered length (its first row's); `kinds` (when given) gets the rows by (network, tier, kind); `counts`:
    _row_counts(rows), when the caller has it (verify_cabling's pass over the rows counts them)."""
    # Lines are added in first-row order, so each line's description is its first row's, as row by row. The tier
    # is counted for `kinds` (counting_section), which would otherwise take a pass over the rows of its own.
    cables_split: Counter = Counter()
    cable_lengths: dict = {}
    by_kind: dict = {}
    # a line is added once per (kind, part, length), in first-row order: 248,798 keys at 1M GPUs for 2,000 lines
    by_line: dict[tuple, int] = {}
    for (kind, part, length, net, tier), by_a_end in (_row_counts(rows) if counts is None else counts).items():
        n = sum(by_a_end.values())
        key = (net, tier, kind)
        by_kind[key] = by_kind.get(key, 0) + n
        line = (kind, part, length)
        by_line[line] = by_line.get(line, 0) + n
        for a_dev, k in by_a_end.items():
            cables_split[(part, net, 0 if a_dev == "panel" else su_of[a_dev])] += k
    for (kind, part, length), n in by_line.items():
        desc, why = describe_cable(kind, part, length)
        add(_CABLE_CATEGORY.get(kind, "cable"), part, desc, n, unconfirmed=why)
        if part not in cable_lengths:
            cable_lengths[part] = length
    if kinds is not None:
        kinds.update(by_kind)
    return cables_split, cable_lengths


_NO_RUN = object()  # no row's field: the run before the first row


def _row_counts(rows: Any) -> dict[tuple, dict]:
    """The cable rows counted by (kind, part, length, network, tier), in first-row order, each with {its rows' first
    A-end field (device index, or "panel"): rows}, in first-row order within the key.

    A Python step per row: the physical stage makes its rows in long runs sharing these objects (a tier's direct
    cables from one memo entry per choice and length, a demand group's cords), so a row costs a few identity
    tests and a count; a new run (a field not the object the run's first row has: an equal value in another
    object, or a key coming back) looks its key up once. Keys are few (about 1,600 at 512K GPUs) but runs are
    not: every trunk row is one (178,750 of 264,775 runs at 512K GPUs, 10,100 of 36,921 at 128K), so a run adds to
    its key's counts rather than making a record and a dict for _cable_lines to fold (_cable_lines 0.62 -> 0.38 s
    at 512K GPUs, 0.105 -> 0.077 s at 128K). At 128K GPUs a Counter of (kind, part, length, network, A-end device,
    tier) keys counted in C took 0.12 s (a six-field tuple hashed per row). When the checks run before the roll-up
    (engine.pipeline.finish_design), verify_cabling's pass over the rows counts them the same way and hands the
    counts over (PhysicalResult.hand_row_counts): this pass is then not made."""
    # columns of cable_rows: id, kind, part, ordered length, a end, b end, link ids, tier, network
    counts: dict[tuple, dict] = {}
    kind = part = length = net = tier = _NO_RUN
    by_a_end: dict = {}
    for row in rows:
        if row[2] is not part or row[3] is not length or row[1] is not kind or row[8] is not net or row[7] is not tier:
            kind, part, length, net, tier = key = row[1], row[2], row[3], row[8], row[7]
            by_a_end = counts.get(key)  # type: ignore[assignment]
            if by_a_end is None:
                by_a_end = counts[key] = {}
        a = row[4][0]
        by_a_end[a] = by_a_end.get(a, 0) + 1
    return counts


def _panel_lines(add: Callable[..., None], panels: Any, media: Any) -> None:
    """_bom's panel and panel-insert lines, through `add`."""
    for p in panels:
        entry = media.panels.get(p.panel_sku)
        add(
            "panel",
            p.panel_sku,
            describe.panel(entry) if entry else f"patch panel ({p.panel_kind})",
            p.panels,
            unconfirmed=entry.unconfirmed if entry else "",
        )
        for insert, count in p.inserts:
            entry = media.adapters.get(insert) or media.cassettes.get(insert)
            text = (
                "panel adapter / cassette"
                if entry is None
                else (describe.adapter(entry) if insert in media.adapters else describe.cassette(entry))
            )
            add("panel-insert", insert, text, count, unconfirmed=entry.unconfirmed if entry else "")


def _transceiver_lines(
    add: Callable[..., None],
    devices: Any,
    su_of: list,
    media: Any,
    ufm_module: str,
    warnings: list[str],
    module_cages: tuple,
) -> Counter:
    """_bom's transceiver lines (one module per cage end, through `add`) and warning; the modules split by
    (module, network, SU). `module_cages`: _cage_counts' answer."""
    split, by_module, watts_of, mixed = module_cages
    at_storage_appliance = [d.role == "storage-appliance" for d in devices]  # by device index
    any_storage = any(at_storage_appliance)
    for module, devs in by_module.items():
        t = media.transceivers.get(module) if hasattr(media.transceivers, "get") else None
        why = t.unconfirmed if t is not None else ""
        if module == ufm_module and any(devices[dev].role == "ufm" for dev in devs):
            why = "; ".join(x for x in (why, UFM_UNCONFIRMED) if x)
        at_storage = sum(n for dev, n in devs.items() if at_storage_appliance[dev]) if any_storage else 0
        if at_storage:
            why = "; ".join(x for x in (why, STORAGE_UNCONFIRMED.format(n=at_storage)) if x)
        add(
            "transceiver",
            module,
            describe.transceiver(t) if t is not None else module,
            sum(devs.values()),
            watts_of[module],
            unconfirmed=why,
        )
    # per network and SU: a cage counts in the network of its links (one module per network it serves)
    modules_split: Counter = Counter()
    for net, by_m in split.items():
        for module, devs in by_m.items():
            for dev, n in devs.items():
                modules_split[(module, net, su_of[dev])] += n
    # Both ports of a twin-port module must take the same module [S12][S16]; two links of one cage
    # whose far ends sit at different distances could straddle a reach threshold.
    if mixed:
        warnings.append(
            f"{mixed} cage(s) would need two different modules for their two ports; "
            "pin the tier's medium (physical.tiers.<tier>.medium) to make them agree"
        )
    return modules_split


def _module_cages(links: Any, choices: Any) -> tuple[dict[str, dict[str, set]], dict[str, float | None]]:
    """One module per cage end that carries optics: the cages (device, cage) per network and module SKU (a
    module's count is its distinct cages over all networks), and each module's watts (its last link's), in the
    order the modules are first used. run_physical's passes mark the cages instead (_media_pass_cages); this pass
    over the links serves _bom's other callers and a pass whose cages were marked two ways."""
    cages_by_net: dict[str, dict[str, set]] = {}
    watts_of: dict[str, float | None] = {}
    for link, choice in zip(links, choices):
        if not choice:
            continue
        am, bm = choice.a_module, choice.b_module
        if not (am or bm):
            continue
        by_module = cages_by_net.get(link.network)
        if by_module is None:
            by_module = cages_by_net[link.network] = defaultdict(set)
        if am:
            by_module[am].add((link.a, link.a_cage))
            watts_of[am] = choice.a_power_w
        if bm:
            by_module[bm].add((link.b, link.b_cage))
            watts_of[bm] = choice.b_power_w
    return cages_by_net, watts_of


def _cage_counts(cages_by_net: dict[str, dict[str, set]], watts_of: dict[str, float | None]) -> tuple:
    """What _transceiver_lines counts, from _module_cages' sets: per network and module {device: cages}, per
    module {device: cages} over all networks (in first-use order), the watts, and the cages counted under more
    than one module (each module beyond a cage's first adds one)."""
    split = {net: {m: Counter(map(_FIRST, cages)) for m, cages in by_m.items()} for net, by_m in cages_by_net.items()}
    unions: dict[str, set] = {}
    for module in watts_of:
        sets = [by_m[module] for by_m in cages_by_net.values() if module in by_m]
        unions[module] = sets[0] if len(sets) == 1 else set().union(*sets)
    mixed = sum(map(len, unions.values())) - len(set().union(*unions.values())) if len(unions) > 1 else 0
    by_module = {m: Counter(map(_FIRST, cages)) for m, cages in unions.items()}
    return split, by_module, watts_of, mixed


def _completeness(missing: dict, failures: dict, bom: list[dict]) -> dict:
    """Whether the BOM is complete (every link has a part) and which lines to verify before ordering.

    `missing`: (network, tier) -> links without a part; `failures`: "network/tier" -> the first reason."""
    rows = [
        {"network": net, "tier": tier, "links": n, "reason": failures.get(f"{net}/{tier}", "")}
        for (net, tier), n in sorted(missing.items())
    ]
    total = sum(missing.values())
    verify = [
        {"sku": line["sku"], "category": line["category"], "reason": line["unconfirmed"]}
        for line in bom
        if line.get("unconfirmed")
    ]
    return {"complete": total == 0, "links_without_part": total, "missing": rows, "unconfirmed": verify}


STORAGE_UNCONFIRMED = (
    "{n} of these sit in storage appliances, whose NIC and cage the storage vendor chooses (a default "
    "QSFP112 flat cage here, docs/data-gaps.md): confirm the module with the appliance vendor"
)
UFM_UNCONFIRMED = (
    "UFM-side module not named by NVIDIA text (parts-beyond-ndr.md section 5): a user-settable "
    "default, physical.ufm_module"
)


def _cable_families(choices: Any, trunks: Any, media: Any) -> dict:
    """{cable kind: [catalog family entries]} of the distinct media choices (a few hundred at most), to
    describe each cable part by the family whose pattern renders it."""
    out: dict = defaultdict(dict)
    seen = set()
    for c in choices:
        if c is None or id(c) in seen or not hasattr(c, "cable_kind"):
            continue
        seen.add(id(c))
        if c.cable_kind in ("cord", "splitter"):
            out[c.cable_kind][c.cord.family] = c.cord
        elif c.cable_kind == "rj45":
            cc = media.copper_cords.get(c.cable_family)
            if cc is not None:
                out["rj45"][cc.family] = cc
        else:
            cab = media.cables.get(c.cable_family)
            if cab is not None:
                out[c.cable_kind][cab.family] = cab
        sp = c.structured
        if sp is not None:
            out["cord"][sp.cord_a.family] = sp.cord_a
            out["cord"][sp.cord_b.family] = sp.cord_b
    for _net, run in trunks:
        t = media.trunks.get(run.family)
        if t is not None:
            out["trunk"][run.sku] = t
    return out


def _cable_describer(choices: Any, trunks: Any, media: Any, loss: Any) -> Any:
    """_describe_cable of (kind, part, length), each worked out once: _bom's keys also differ by network and A-end
    device (32,598 of them at 128K GPUs for a few hundred parts)."""
    return cache(partial(_describe_cable, _cable_families(choices, trunks, media), loss=loss))


def _describe_cable(families: dict, kind: str, part: str, length: float, loss: Any | None = None) -> tuple[str, str]:
    """(supplier-grade description, unconfirmed reason) of one cable part of `kind` at `length`."""
    from .physical.catalog import sku_for_length

    if kind == "trunk":
        t = families["trunk"].get(part)
        return (describe.trunk(t, part, length), t.unconfirmed) if t else (f"trunk {length:g} m", "")
    # a panel channel's switch-side cord is a straight cord even when the link's own cable is a splitter
    pools = [families.get(kind, {})] + [families.get(k, {}) for k in ("cord", "splitter") if k != kind]
    for pool in pools:
        for fam in pool.values():
            try:
                rendered = sku_for_length(fam.sku_pattern, length)
            except (KeyError, IndexError, ValueError):
                continue
            if rendered != part or not (fam.made_to_order or length in fam.lengths_m):
                continue
            if kind == "rj45":
                return describe.copper_cord(fam, part, length), fam.unconfirmed
            if kind in ("cord", "splitter") or hasattr(fam, "fiber_type"):
                return describe.cord(fam, part, length, loss), fam.unconfirmed
            return describe.cable(fam, part, length), fam.unconfirmed
    return f"{kind} {length:g} m", ""


def _sorted(counts: dict) -> dict:
    """(sku, network, su) -> n in key order (deterministic whatever the set order it was counted in)."""
    return dict(sorted(counts.items(), key=lambda kv: (str(kv[0][0]), str(kv[0][1]), kv[0][2])))
