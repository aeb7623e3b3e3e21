"""compute_design(spec) -> DesignResult: the whole engine, stage by stage.

It runs in two halves, start_design (topology to physical layer: all the link and cable rows need) and
finish_design (invariant checks, the physical layer's BOM and fiber totals, summary), so that a caller
storing the rows can do the second half while its database builds indexes (apps/designs/services.py);
compute_design runs both. The checks can also run on their own first (check_design).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Any

from .catalog import Catalog, ServerModel, load_catalog
from .counting import counting_section
from .errors import EngineInvariantError, SpecError
from .gcpause import cyclic_gc_paused
from .guard import Limits, check_spec
from .model import Place, Rack
from .physical.panel_layout import PanelOverflow
from .placement import RackRecord, _Floor, plan_floor
from .rack_power import RackBudgets, rack_budgets, rack_power_report
from .result import ENGINE_VERSION, DesignDraft, DesignResult, ProgressFn, no_progress
from .runlength import device_geometry, measure_runs
from .spec import DesignSpec
from .summary import summarize, tier_runs
from .topology.access import AccessPlan, build_access, plan_access, storage_ufm_links
from .topology.advice import reserved_slot_warning, spine_choices
from .topology.builder import Builder
from .topology.compute import ComputePlan, build_compute, plan_compute
from .topology.oob import agg_pairs_needed, build_oob, endpoints_by_rack, oob_switches_per_rack
from .topology.subnet import subnet_manager_warnings
from .verify import verify
from .verify_cabling import label_warning, verify_cabling

if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import ModuleType

    from engine.catalog import ServerModel, SwitchModel
    from engine.model import Rack

STAGES = ("topology", "placement", "run-lengths", "physical", "verification", "summary")


def _server_prefix(model_key: str) -> str:
    return model_key.split("-")[0].upper()


def _physical_stage() -> ModuleType | None:
    """engine.physical_stage (place_panels, measure_rest, run_physical), or None when it is not in this build."""
    try:
        from . import physical_stage
    except ImportError:  # the physical layer is not part of this build
        return None
    return physical_stage


def _uses_panels(spec: DesignSpec) -> bool:
    """Whether any tier of the physical policy asks for patch panels (then racks keep units free for them)."""
    phys = spec.physical or {}
    tiers = [phys.get("default_tier") or {}, *(phys.get("tiers") or {}).values()]
    return any(isinstance(t, dict) and t.get("cabling") == "panels" for t in tiers)


def _build_oob(
    spec: DesignSpec,
    catalog: Catalog,
    b: Builder,
    racks: list[Rack],
    places: list[Place | None],
    oob_model: SwitchModel,
    server: ServerModel,
    reserved_u: int,
    network_rack_kw: float | None = None,
) -> tuple[list[Rack], list[Place | None]]:
    """OOB after placement: aggregation switches get their own services rack first, so they, like every
    other rack, get PDUs and an OOB switch of their own."""
    if spec.oob.aggregation_switch:
        agg_model = catalog.switch(spec.oob.aggregation_switch, "oob.aggregation_switch")
    else:
        agg_model = catalog.switch(spec.inband.switch, "inband.switch")
    # Rack-scale systems fill their rack; their BMCs use the OOB switch of a network rack in their row.
    host_rack: dict[int, int] = {}
    if server.rack_scale:
        by_row: dict[int, list[int]] = {}
        for r in racks:
            if r.kind != "server":
                by_row.setdefault(r.row, []).append(r.idx)
        others = [r.idx for r in racks if r.kind != "server"]
        for r in racks:
            if r.kind == "server":
                candidates = by_row.get(r.row) or others
                if not candidates:
                    raise SpecError.at("oob.enabled", "a rack-scale design needs a network rack for its OOB switches")
                host_rack[r.idx] = min(candidates, key=lambda c: abs(racks[c].position - r.position))
    pairs = _agg_pairs(spec, catalog, b, racks, places, oob_model, agg_model, server, host_rack)
    aggs = [
        b.device(
            f"OOB-AGG{i + 1:02d}",
            "oob-agg",
            agg_model.key,
            network="oob",
            rack_units=agg_model.rack_units,
            power_kw=agg_model.power_kw,
        )
        for i in range(2 * pairs)
    ]
    places = places + [None] * (len(b.devices) - len(places))
    floor = _Floor(spec.layout, len(b.devices), reserved_u, None, network_rack_kw)
    floor.racks, floor.row, floor.places = racks, racks[-1].row, places
    # A services row of the MDA: in hall 1 (0-based hall 0), behind the rows that hall already has.
    floor.hall_first_row = racks[-1].row + 1 - len({r.row for r in racks if r.hall == 0})
    floor.new_row()
    floor.stack([b.devices[i] for i in aggs], "services")
    racks, places = floor.racks, floor.places
    out = build_oob(
        b=b,
        racks=racks,
        places=places,
        oob=oob_model,
        agg=agg_model,
        aggs=aggs,
        switches=catalog.switches,
        server_oob_ports=server.oob.ports,
        pdus_per_rack=spec.oob.pdus_per_rack,
        rack_units=spec.layout.rack_units,
        host_rack=host_rack,
    )
    places = places + [None] * (len(b.devices) - len(places))
    for dev, place in out["places"].items():
        places[dev] = place
    return racks, places


def _agg_pairs(
    spec: DesignSpec,
    catalog: Catalog,
    b: Builder,
    racks: list[Rack],
    places: list[Place | None],
    oob_model: SwitchModel,
    agg_model: SwitchModel,
    server: ServerModel,
    host_rack: dict[int, int],
) -> int:
    """Aggregation pairs for every OOB switch build_oob will place: those of the racks placed so far (a rack
    hosting rack-scale systems' BMCs can need several) and of the services rack the pairs themselves go in."""
    counts = endpoints_by_rack(
        b.devices, places, catalog.switches, server.oob.ports, spec.oob.pdus_per_rack, racks, host_rack
    )
    placed = sum(oob_switches_per_rack(n, oob_model) for n in counts.values())
    pairs = agg_pairs_needed(placed + 1, oob_model, agg_model)
    while True:  # more pairs put more management ports in the services rack; this only ever grows, so it ends
        services = 2 * pairs * agg_model.mgmt_ports + spec.oob.pdus_per_rack
        needed = agg_pairs_needed(placed + oob_switches_per_rack(services, oob_model), oob_model, agg_model)
        if needed <= pairs:
            return pairs
        pairs = needed


def _longest_row(racks: Sequence[Rack | RackRecord], kind: str) -> int:
    """Most racks in one row holding racks of `kind`."""
    rows: dict[int, int] = {}
    for r in racks:
        rows[r.row] = max(rows.get(r.row, 0), r.position)
    return max((rows[r.row] for r in racks if r.kind == kind), default=max(rows.values(), default=1))


def compute_design(
    spec: DesignSpec, catalog: Catalog | None = None, progress: ProgressFn = no_progress, limits: Limits | None = None
) -> DesignResult:
    """Compute a design, with the cyclic garbage collector paused (engine/gcpause.py says why)."""
    with cyclic_gc_paused():
        return finish_design(start_design(spec, catalog, progress, limits), progress)


def _stage(progress: ProgressFn, name: str) -> None:
    progress(name, STAGES.index(name), len(STAGES))


PANEL_RETRIES = 4  # tries at fewer devices per network rack before a rack's patch panels are called unfittable


def start_design(
    spec: DesignSpec, catalog: Catalog | None = None, progress: ProgressFn = no_progress, limits: Limits | None = None
) -> DesignDraft:
    """Topology, placement, run lengths and the physical layer: all a design's link and cable rows need.

    The save-time checks (engine/guard.py: catalog keys, feasibility, size against `limits`) run first, from
    the plans alone, so nothing is built for a spec that would be refused.

    When a network rack's patch panels would reach its devices' units and `layout.network_rack_devices` is
    auto, the design is placed again with fewer devices per network rack (the cap the overflowing rack
    implies), at most PANEL_RETRIES times; the summary's notes say so. The draft keeps the spec as given.
    """
    catalog = catalog or load_catalog()
    check_spec(spec, catalog, limits)
    tried = spec
    overflow: PanelOverflow | None = None
    wiring = _wire(spec, catalog, progress)
    for _ in range(PANEL_RETRIES + 1):
        try:
            draft = _start_design(tried, catalog, progress, wiring, first=tried is spec)
        except PanelOverflow as exc:
            # without its traceback: its frames hold the abandoned pass (devices, links, the physical layer)
            overflow = exc.with_traceback(None)
            tried = _spread_network_racks(spec, tried, exc)
            continue
        if tried is spec:
            return draft
        cap = tried.layout.network_rack_devices
        notes = [
            *draft.extra_summary.get("notes", ()),
            f"network racks hold at most {cap} devices each so that their patch panels fit above them "
            f"(layout.network_rack_devices: auto; set it to choose)",
        ]
        return replace(draft, spec=spec, extra_summary={**draft.extra_summary, "notes": notes})
    if overflow is None:  # every pass that did not return overflowed, and PANEL_RETRIES >= 0 makes one
        raise EngineInvariantError("no placement was tried")
    raise SpecError.at(
        "layout.network_rack_devices",
        f"the patch panels of {overflow.rack_name} do not fit even "
        f"with {tried.layout.network_rack_devices} devices per network "
        "rack: cable a tier directly (physical.tiers.<tier>.cabling)",
    )


def _spread_network_racks(spec: DesignSpec, tried: DesignSpec, exc: PanelOverflow) -> DesignSpec:
    """`tried` with fewer devices per network rack, so the rack of `exc` would have room for its panels; or the
    SpecError that says what to change when that cannot help."""
    where = f"{exc.rack_name} needs {exc.needed} rack units of patch panels and has {exc.free} free above its devices"
    if exc.rack_kind == "server" or exc.devices < 2:
        raise SpecError.at(
            "layout.panel_units",
            f"{where}: raise layout.panel_units or cable the tier directly (physical.tiers.<tier>.cabling: direct)",
        )
    if spec.layout.network_rack_devices is not None:
        raise SpecError.at(
            "layout.network_rack_devices",
            f"{where}: lower layout.network_rack_devices (now {spec.layout.network_rack_devices}) or leave it auto",
        )
    # Panels grow with the devices they serve: keep the rack's units per device (device + its panels).
    room = exc.free + exc.device_units
    cap = min(exc.devices - 1, room * exc.devices // (exc.device_units + exc.needed))
    if cap < 1:
        raise SpecError.at(
            "layout.panel_units",
            f"{where}, and one device per rack would not leave room either: "
            "cable the tier directly (physical.tiers.<tier>.cabling: direct)",
        )
    return replace(tried, layout=replace(tried.layout, network_rack_devices=cap))


@dataclass
class _Wiring:
    """What the topology stage hands on: the builder with every device and link, and the groups placement needs."""

    plan: ComputePlan
    server: ServerModel
    b: Builder
    servers: list[int]
    ufms: list[int]
    compute_devs: dict
    warnings: list[str]
    other_switches: list[int] = field(default_factory=list)
    appliances: list[int] = field(default_factory=list)
    storage_plan: AccessPlan | None = None
    inband_plan: AccessPlan | None = None
    wired: tuple[int, int, int] = (0, 0, 0)  # devices, links and warnings when the topology stage ended
    # physical_stage.LinkEnds of the wired links, made by the first pass that places panels and kept for the retries
    link_ends: Any = None


def _wire(spec: DesignSpec, catalog: Catalog, progress: ProgressFn) -> _Wiring:
    """The topology stage: every network's devices and links. Nothing in it reads `spec.layout`, so the wiring
    of a spec serves every retry of start_design (each at another layout.network_rack_devices)."""
    _stage(progress, "topology")
    w = _wire_compute(spec, catalog)
    if spec.storage.enabled:
        _wire_storage(spec, catalog, w)
    if spec.inband.enabled:
        _wire_inband(spec, catalog, w)
    w.wired = (len(w.b.devices), len(w.b.links), len(w.warnings))
    return w


def _rewind(w: _Wiring) -> _Wiring:
    """`w` as the topology stage left it: the OOB network (wired after placement) and the warnings of a former
    pass dropped. Placement and the later stages only append to the builder (devices and links are frozen)."""
    n_devices, n_links, n_warnings = w.wired
    del w.b.devices[n_devices:], w.b.links[n_links:], w.warnings[n_warnings:]
    return w


def _start_design(
    spec: DesignSpec, catalog: Catalog, progress: ProgressFn, wiring: _Wiring, first: bool = True
) -> DesignDraft:
    """The stages of a draft, in order: topology (done once by _wire: `wiring`), placement (with the patch panels:
    physical_stage.place_panels, partial when `first`: see there), run lengths, physical layer."""
    w = _rewind(wiring)

    _stage(progress, "placement")
    racks, places, budgets = _place(spec, catalog, w)
    devices, links = w.b.devices, w.b.links
    measure = partial(
        measure_runs, links, device_geometry(devices, places, racks, spec.layout), spec.layout, spec.site, racks
    )
    stage = _physical_stage() if catalog.media is not None else None
    # The patch panels are placed with the racks, before anything else is worked out for this placement: when a
    # rack's panels do not fit, PanelOverflow sends start_design back to place the design again, and only the
    # panel links (and those sharing their cages) have been measured and given media.
    panels = None
    if stage is not None:
        if w.link_ends is None:
            w.link_ends = stage.LinkEnds(w.wired[1])
        panels = stage.place_panels(
            spec=spec,
            catalog=catalog,
            devices=devices,
            links=links,
            places=places,
            racks=racks,
            measure=measure,
            partial=first,
            ends=w.link_ends,
        )
    warnings = w.warnings
    extra_summary: dict = {}
    extra_summary["rack_power"], power_warnings = rack_power_report(devices, places, racks, budgets)
    warnings += power_warnings
    extra_summary["spine_choices"], notes = spine_choices(w.plan, [w.storage_plan, w.inband_plan])
    extra_summary["notes"] = notes

    _stage(progress, "run-lengths")
    if stage is None or panels is None:
        lengths: list[float] = []
        measure(None, lengths)
    else:  # those place_panels left: then every link's
        lengths = stage.measure_rest(panels)

    _stage(progress, "physical")
    physical = None
    if stage is not None and panels is not None:
        physical, phys_warnings = stage.run_physical(panels, progress)
        warnings += phys_warnings

    return DesignDraft(
        spec=spec,
        engine_version=ENGINE_VERSION,
        catalog_version=catalog.version,
        devices=tuple(devices),
        racks=tuple(racks),
        places=tuple(places),
        links=tuple(links),
        lengths_m=tuple(lengths),
        warnings=tuple(warnings),
        physical=physical,
        catalog=catalog,
        plan=w.plan,
        storage_plan=w.storage_plan,
        inband_plan=w.inband_plan,
        server=w.server,
        n_servers=len(w.servers),
        extra_summary=extra_summary,
    )


def _wire_compute(spec: DesignSpec, catalog: Catalog) -> _Wiring:
    """Topology, compute fabric: the plan's warnings, the servers, the fabric managers and the switch tiers."""
    plan = plan_compute(spec, catalog)
    warnings: list[str] = []
    extra_su = reserved_slot_warning(spec, plan, catalog)
    if extra_su:
        warnings.append(extra_su)
    warnings += subnet_manager_warnings(spec, plan, catalog)
    server = catalog.server(spec.servers.model)
    b = Builder()
    servers = _servers(b, spec.servers.count, plan, server)
    ufm_model = catalog.appliances.get("ufm")
    ufms = [
        b.device(
            f"UFM-{i + 1:02d}",
            "ufm",
            "ufm",
            network="compute",
            plane=i // max(1, plan.fabric_managers),
            rack_units=ufm_model.rack_units if ufm_model else 1,
        )
        for i in range(plan.fabric_managers * plan.planes)
    ]
    compute_devs = build_compute(plan, servers, server, b, ufms)
    return _Wiring(plan, server, b, servers, ufms, compute_devs, warnings)


def _servers(b: Builder, count: int, plan: ComputePlan, server: ServerModel) -> list[int]:
    """The servers, SU by SU (named <prefix>-SU<su>-N<slot>), added to `b` by column (Builder.devices_by_column):
    their names are joined from each SU's prefix and each slot's suffix, made once (16,384 servers at 128K GPUs)."""
    su = plan.su_size
    sus = range(1, -(-count // su) + 1)
    prefix = _server_prefix(server.key)
    slots = [f"{slot:02d}" for slot in range(1, su + 1)]
    names = [head + slot for head in [f"{prefix}-SU{s:02d}-N" for s in sus] for slot in slots][:count]
    su_of = [s for s in sus for _ in slots][:count]
    each: dict[str, Sequence] = {"su": su_of}
    if plan.tiers == 3:
        each["pod"] = [(s - 1) // plan.su_per_pod + 1 for s in su_of]
    # 2 tiers: pod 0, Device's default
    return b.devices_by_column(
        names, "server", server.key, each, rack_units=server.rack_units, power_kw=server.power_kw
    )


def _wire_storage(spec: DesignSpec, catalog: Catalog, w: _Wiring) -> None:
    """Topology, storage fabric: its appliances, leaves and spines."""
    st, server, b = spec.storage, w.server, w.b
    app_model = catalog.appliances.get("storage")
    apps = [
        b.device(
            f"STOR-{i + 1:02d}",
            "storage-appliance",
            "storage",
            network="storage",
            rack_units=app_model.rack_units if app_model else 2,
        )
        for i in range(st.appliances)
    ]
    w.appliances += apps
    w.storage_plan = plan_access(
        network="storage",
        path="storage_fabric",
        switch_key=st.switch,
        technology=st.technology,
        ratio=st.ratio,
        speed_gbps=server.storage.speed_gbps,
        servers=len(w.servers),
        server_ports=len(server.storage.ports),
        appliance_ports_total=st.appliances * st.ports_per_appliance,
        catalog=catalog,
        reserved_ports=storage_ufm_links(spec, w.plan),
    )
    names = tuple(f"p{j + 1}" for j in range(st.ports_per_appliance))
    # UFM Enterprise manages the storage InfiniBand fabric too (H100-RA Tables 1 and 7, fabrics-qos-traffic.md
    # A.8): each appliance's second port on a storage leaf; the compute fabric has its first (ib0).
    devs = build_access(
        w.storage_plan,
        b,
        "SF",
        w.servers,
        server.storage.ports,
        [(a, names) for a in apps],
        "appliance-leaf",
        tuple((u, "ib1") for u in w.ufms),
    )
    w.other_switches += devs["leaf"] + devs["spine"]


def _wire_inband(spec: DesignSpec, catalog: Catalog, w: _Wiring) -> None:
    """Topology, in-band management network: its management servers, leaves and spines."""
    ib, server, b = spec.inband, w.server, w.b
    mgmt_model = catalog.appliances.get("management-server")
    mgmts = [
        b.device(
            f"MGMT-{i + 1:02d}",
            "mgmt-server",
            "management-server",
            network="inband",
            rack_units=mgmt_model.rack_units if mgmt_model else 1,
        )
        for i in range(ib.management_servers)
    ]
    w.appliances += mgmts
    w.inband_plan = plan_access(
        network="inband",
        path="inband",
        switch_key=ib.switch,
        technology="ethernet",
        ratio=ib.ratio,
        speed_gbps=server.inband.speed_gbps,
        servers=len(w.servers),
        server_ports=len(server.inband.ports),
        appliance_ports_total=2 * ib.management_servers,
        catalog=catalog,
    )
    devs = build_access(
        w.inband_plan, b, "IB", w.servers, server.inband.ports, [(m, ("p1", "p2")) for m in mgmts], "mgmt-leaf"
    )
    w.other_switches += devs["leaf"] + devs["spine"]


def _place(spec: DesignSpec, catalog: Catalog, w: _Wiring) -> tuple[list[Rack], list[Place | None], RackBudgets]:
    """Placement: servers and leaves by SU, spines by pod, the rest in services racks; then the OOB network,
    which is wired after placement because it has a switch per rack."""
    plan, devices = w.plan, w.b.devices
    leaves_by_su: list[list[int]] = [[] for _ in range(plan.n_su)]
    for plane_leaves in w.compute_devs["leaf"]:
        for leaf in plane_leaves:
            leaves_by_su[devices[leaf].su - 1].append(leaf)
    spines = [s for plane in w.compute_devs["spine"] for s in plane]
    cores = [c for plane in w.compute_devs["core"] for c in plane]
    spines_by_pod: list[list[int]] = []
    services = cores + w.other_switches + w.ufms + w.appliances
    if plan.tiers == 3:
        spines_by_pod = [[] for _ in range(plan.n_pods)]
        for s in spines:
            spines_by_pod[devices[s].pod - 1].append(s)
    else:
        services = spines + services
    reserved_u = (1 if spec.oob.enabled else 0) + (spec.layout.panel_units if _uses_panels(spec) else 0)
    oob_model = catalog.switch(spec.oob.switch, "oob.switch") if spec.oob.enabled else None
    max_mgmt = None
    if oob_model is not None:
        max_mgmt = (oob_model.radix(1) or oob_model.cages) - spec.oob.pdus_per_rack
    budgets = rack_budgets(spec.layout, w.server)
    place = partial(
        plan_floor,
        layout=spec.layout,
        devices=devices,
        server=w.server,
        su_size=plan.su_size,
        servers=w.servers,
        leaves_by_su=leaves_by_su,
        spines_by_pod=spines_by_pod,
        su_per_pod=plan.su_per_pod,
        core_and_services=services,
        mgmt_ports_per_rack=max_mgmt,
        network_rack_kw=budgets.network_kw,
        site=spec.site,
    )
    floor = place(reserved_u=reserved_u)
    if floor.records and floor.records[-1].hall:
        # Over several halls (docs/site-model.md): links between halls run through patch panels, so every rack
        # keeps their units free, and the MDA's core rows are as long as the longest SU row, not one long row.
        reserved_u += 0 if _uses_panels(spec) else spec.layout.panel_units
        floor = place(reserved_u=reserved_u, mda_row_racks=_longest_row(floor.records, "server"))
    racks, places = floor.racks, floor.places
    if oob_model is not None:
        racks, places = _build_oob(
            spec, catalog, w.b, racks, places, oob_model, w.server, reserved_u, budgets.network_kw
        )
    return racks, places, budgets


def check_design(draft: DesignDraft, runs: list | None = None) -> tuple[str, ...]:
    """The draft's invariant checks (EngineInvariantError on a broken one): the names of the checks run. `runs`:
    summary.tier_runs(draft.links), when the caller has it."""
    catalog, plan, server = draft.catalog, draft.plan, draft.server
    checks = verify(
        devices=draft.devices,
        links=draft.links,
        switches=catalog.switches,
        compute_plan=plan,
        server_model=server,
        n_servers=draft.n_servers,
        gpus=draft.n_servers * server.gpus,
        runs=runs,
    )
    physical = draft.physical
    if physical is not None:
        from .cable_schedule import EndRenderer

        checks += verify_cabling(
            devices=draft.devices,
            places=draft.places,
            racks=draft.racks,
            physical=physical,
            rack_units=draft.spec.layout.rack_units,
            renderer=EndRenderer(draft, physical.policy.labels),
        )
    return tuple(checks)


def finish_design(
    draft: DesignDraft, progress: ProgressFn = no_progress, checks: tuple[str, ...] | None = None
) -> DesignResult:
    """Check the draft's invariants (unless `checks`, what check_design returned for it, are given), roll up
    its physical layer (BOM, fiber totals, worst links, warnings) and summarize it."""
    spec, plan, server = draft.spec, draft.plan, draft.server
    _stage(progress, "verification")
    runs = tier_runs(draft.links)  # the links' (network, tier) runs: for the checks, the summary and diversity
    if checks is None:
        checks = check_design(draft, runs)

    _stage(progress, "summary")
    warnings = list(draft.warnings)
    if draft.physical is not None:
        warnings += draft.physical.roll_up(runs)
        from .cable_schedule import EndRenderer

        clash = label_warning(
            devices=draft.devices, physical=draft.physical, renderer=EndRenderer(draft, draft.physical.policy.labels)
        )
        if clash:
            warnings.append(clash)
    from .physical.diversity import uplink_diversity_warnings

    warnings += uplink_diversity_warnings(draft, runs)
    summary = summarize(
        spec=spec,
        plan=plan,
        storage_plan=draft.storage_plan,
        inband_plan=draft.inband_plan,
        devices=draft.devices,
        links=draft.links,
        lengths=draft.lengths_m,
        racks=draft.racks,
        server=server,
        physical=draft.physical,
        warnings=warnings,
        runs=runs,
    )
    summary.update(draft.extra_summary)
    summary["counting"], count_notes = counting_section(
        spec=spec, plan=plan, server=server, networks=summary["networks"], physical=draft.physical
    )
    summary["notes"] = list(summary.get("notes", ())) + count_notes
    if spec.workloads:
        from .traffic import analyze_design_workloads

        summary["workloads"] = analyze_design_workloads(spec.workloads, summary, server, su_per_pod=plan.su_per_pod)
    summary["engine_version"] = draft.engine_version
    summary["catalog_version"] = draft.catalog_version
    progress("done", len(STAGES), len(STAGES))
    return DesignResult(
        spec=spec,
        engine_version=draft.engine_version,
        catalog_version=draft.catalog_version,
        devices=draft.devices,
        racks=draft.racks,
        places=draft.places,
        links=draft.links,
        lengths_m=draft.lengths_m,
        summary=summary,
        warnings=tuple(warnings),
        checks=checks,
        physical=draft.physical,
        catalog=draft.catalog,
    )


__all__ = ["compute_design", "start_design", "check_design", "finish_design", "STAGES", "Place"]
