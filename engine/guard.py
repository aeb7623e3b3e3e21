"""What is checked when a spec is saved, before anything is built: catalog keys, feasibility and cost.

`check_spec(spec, catalog, limits)` runs in milliseconds on any spec the schema admits:

1. catalog keys: the server model, every switch and every workload preset exist (all reported at once);
2. feasibility: the topology's own sizing rules (`plan_compute`, `plan_access`, servers per rack), which
   raise SpecError naming the limit and the field, exactly as a compute would, but from plain numbers;
3. cost: devices and links estimated from those plans, refused above `Limits` (a compute of a design
   10x the largest one anyone builds would hold a worker for minutes and gigabytes);
4. workloads: parsed (unknown presets and fields are errors), and step times implying more than the GPU's
   achievable TFLOP/s returned as warnings at their field.

It returns a `Check` (the estimate and the warnings) or raises SpecError. `start_design` runs the same
check first, so a spec stored before these rules (or edited in the database) still fails fast.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import ceil

from .catalog import Catalog, ServerModel
from .errors import FieldError, SpecError
from .placement import servers_per_rack
from .spec import DesignSpec
from .topology.access import AccessPlan, plan_access, storage_ufm_links
from .topology.compute import ComputePlan, plan_compute


@dataclass(frozen=True)
class Limits:
    """Largest design a compute accepts (settings DESIGN_MAX_DEVICES, DESIGN_MAX_LINKS). A spec estimated above
    either limit is refused before anything is built.

    The defaults admit the 1,048,576-GPU campus design (131,072 DGX B300 on one Q3400 plane, 3 tiers, spine 3:1,
    over the default site's 29 halls; bench/bench_campus.py): 2,462,944 links and 158,384 devices, and the largest
    non-blocking one, 745,920 GPUs with OOB (2,430,807 links, 192,471 devices). Memory, from bench/bench_store.py
    (peak RSS of the process running the compute job: engine, COPY, checks and snapshot; docs/scale-benchmarks.md,
    Stop 47): 757 MB at 397,184 links, 2,037 MB at 1,577,792 (16 halls) and 2,850 MB at 2,462,944 (29 halls,
    2,952,453 cables): 1.2-1.3 KB per link. So the limit needs 3.0-3.3 GB, which JOB_COMPUTE_MEMORY_LIMIT_MB
    (5,120 MB) holds with 1.5x to spare; four such jobs fit a 24 GB machine beside the database.
    131,072 GPUs with all four networks are about 560,000 links."""

    max_devices: int = 200_000
    max_links: int = 2_500_000


@dataclass(frozen=True)
class Estimate:
    devices: int
    links: int
    per_network: dict = field(default_factory=dict)  # network -> {"devices": n, "links": n}


@dataclass(frozen=True)
class Check:
    estimate: Estimate
    warnings: tuple[FieldError, ...] = ()


def check_spec(spec: DesignSpec, catalog: Catalog, limits: Limits | None = None) -> Check:
    """Every save-time check of a parsed spec; SpecError (with field paths) when one fails."""
    _check_keys(spec, catalog)
    compute = plan_compute(spec, catalog)
    server = catalog.server(spec.servers.model)
    storage = inband = None
    if spec.storage.enabled:
        st = spec.storage
        storage = plan_access(
            network="storage",
            path="storage_fabric",
            switch_key=st.switch,
            technology=st.technology,
            ratio=st.ratio,
            speed_gbps=server.storage.speed_gbps,
            servers=spec.servers.count,
            server_ports=len(server.storage.ports),
            appliance_ports_total=st.appliances * st.ports_per_appliance,
            catalog=catalog,
            reserved_ports=storage_ufm_links(spec, compute),
        )
    if spec.inband.enabled:
        ib = spec.inband
        inband = plan_access(
            network="inband",
            path="inband",
            switch_key=ib.switch,
            technology="ethernet",
            ratio=ib.ratio,
            speed_gbps=server.inband.speed_gbps,
            servers=spec.servers.count,
            server_ports=len(server.inband.ports),
            appliance_ports_total=2 * ib.management_servers,
            catalog=catalog,
        )
    _check_names(server, compute)
    reserved_u = (1 if spec.oob.enabled else 0) + (spec.layout.panel_units if _uses_panels(spec) else 0)
    per_rack = servers_per_rack(spec.layout, server, reserved_u)
    est = estimate(spec, catalog, compute, storage, inband, per_rack)
    _check_limits(est, limits or Limits())
    warnings: list[FieldError] = []
    if spec.workloads is not None:
        from .traffic import check_workloads

        warnings = check_workloads(spec.workloads, design_gpus=spec.servers.count * server.gpus, server_key=server.key)
    return Check(est, tuple(warnings))


def _uses_panels(spec: DesignSpec) -> bool:
    phys = spec.physical or {}
    tiers = [phys.get("default_tier") or {}, *(phys.get("tiers") or {}).values()]
    return any(isinstance(t, dict) and t.get("cabling") == "panels" for t in tiers)


def _check_keys(spec: DesignSpec, catalog: Catalog) -> None:
    cf = spec.compute
    wanted = [
        ("servers.model", spec.servers.model, catalog.servers, "server model"),
        ("compute_fabric.switch", cf.switch, catalog.switches, "switch model"),
        ("compute_fabric.spine_switch", cf.spine_switch, catalog.switches, "switch model"),
        ("compute_fabric.core_switch", cf.core_switch, catalog.switches, "switch model"),
    ]
    if spec.storage.enabled:
        wanted.append(("storage_fabric.switch", spec.storage.switch, catalog.switches, "switch model"))
    if spec.inband.enabled or spec.oob.enabled:  # OOB aggregation switches are the in-band model
        wanted.append(("inband.switch", spec.inband.switch, catalog.switches, "switch model"))
    if spec.oob.enabled:
        wanted.append(("oob.switch", spec.oob.switch, catalog.switches, "switch model"))
        wanted.append(("oob.aggregation_switch", spec.oob.aggregation_switch, catalog.switches, "switch model"))
    errors = [
        FieldError(path, f"unknown {what} {key!r} (known: {', '.join(sorted(known))})")
        for path, key, known, what in wanted
        if key is not None and key not in known
    ]
    if errors:
        raise SpecError(errors)


# The link and cable tables' columns for device and port names (apps/designs/models.py): a name that does not
# fit would fail the store with a database error, so it is refused here with the field it comes from.
DEVICE_NAME_LENGTH = 64
PORT_NAME_LENGTH = 32


def _check_names(server: ServerModel, compute: ComputePlan) -> None:
    """Server names are "<first part of the model key>-SU<n>-N<n>" (pipeline.start_design); a custom model's
    long key or port names must still fit their columns."""
    prefix = server.key.split("-")[0]
    longest = len(f"{prefix}-SU{compute.n_su:02d}-N{compute.su_size:02d}")
    if longest > DEVICE_NAME_LENGTH:
        raise SpecError.at(
            "servers.model",
            f"server names would be {longest} characters ({prefix.upper()}-SU…); "
            f"device names hold at most {DEVICE_NAME_LENGTH}: use a shorter model key",
        )
    ports = (
        [p.name for p in server.compute_ports]
        + list(server.storage.ports)
        + list(server.inband.ports)
        + list(server.oob.ports)
    )
    long_port = max(ports, key=len, default="")
    if len(long_port) + 2 > PORT_NAME_LENGTH:  # + "/2": a port split over two planes
        raise SpecError.at(
            "servers.model",
            f"port name {long_port[:40]!r} of {server.key} is longer than {PORT_NAME_LENGTH - 2} characters",
        )


def _access_counts(plan: AccessPlan | None, servers: int, appliances: int) -> tuple[int, int]:
    """(devices, links) of a storage or in-band network: its switches and appliances; node, appliance and
    leaf-spine links (each leaf sends its uplinks, rounded to whole links per spine, to the spines)."""
    if plan is None:
        return 0, 0
    switches = plan.server_leaves + plan.appliance_leaves + plan.spines
    links = plan.server_ports * servers + plan.appliance_ports_total + plan.reserved_ports
    if plan.spines:
        links += plan.server_leaves * (plan.server_up // plan.spines) * plan.spines
        links += plan.appliance_leaves * (plan.appliance_up // plan.spines) * plan.spines
    return switches + appliances, links


def estimate(
    spec: DesignSpec,
    catalog: Catalog,
    compute: ComputePlan,
    storage: AccessPlan | None,
    inband: AccessPlan | None,
    per_rack: int,
) -> Estimate:
    """Devices and links of the design, from its plans (exact for the compute, storage and in-band networks;
    the OOB network is estimated from the rack count, one management port per device and PDU)."""
    n = spec.servers.count
    server = catalog.server(spec.servers.model)
    p = compute
    planes = p.planes
    ufms = p.fabric_managers * planes
    leaves = p.leaves_per_plane * planes
    spines = p.spines_per_pod * p.n_pods * planes
    cores = p.cores_per_plane * planes
    c_links = (
        n * len(server.compute_ports) * planes
        + ufms
        + leaves * p.leaf_up
        + (spines * p.spine_up if p.tiers == 3 else 0)
    )
    nets = {"compute": {"devices": leaves + spines + cores + ufms, "links": c_links}}
    s_dev, s_links = _access_counts(storage, n, spec.storage.appliances if storage else 0)
    if storage:
        nets["storage"] = {"devices": s_dev, "links": s_links}
    i_dev, i_links = _access_counts(inband, n, spec.inband.management_servers if inband else 0)
    if inband:
        nets["inband"] = {"devices": i_dev, "links": i_links}
    devices = n + sum(v["devices"] for v in nets.values())
    if spec.oob.enabled:
        # Racks: the servers' own, plus network racks (half filled: placement keeps rows and pods apart) for
        # every other device. Each rack gets an OOB switch and its PDUs; every device, PDU and OOB switch one
        # management link. An estimate on the high side: it only has to tell a big design from an absurd one.
        half = max(1, (spec.layout.rack_units - 1) // 2)
        racks = ceil(n / per_rack) + ceil((devices - n) / half) + 2
        oob_devices = racks * (1 + spec.oob.pdus_per_rack) + 2
        o_links = n * max(1, len(server.oob.ports)) + (devices - n) + oob_devices
        nets["oob"] = {"devices": oob_devices, "links": o_links}
        devices += oob_devices
    return Estimate(devices=devices, links=sum(v["links"] for v in nets.values()), per_network=nets)


def _check_limits(est: Estimate, limits: Limits) -> None:
    errors = []
    biggest = max(est.per_network, key=lambda k: est.per_network[k]["links"])
    where = {
        "compute": "servers.count",
        "storage": "storage_fabric.appliances",
        "inband": "inband.management_servers",
        "oob": "oob.enabled",
    }[biggest]
    if est.links > limits.max_links:
        errors.append(
            FieldError(
                where,
                f"this design would have about {est.links:,} links (most in the {biggest} "
                f"network); the limit is {limits.max_links:,} (DESIGN_MAX_LINKS)",
            )
        )
    if est.devices > limits.max_devices:
        errors.append(
            FieldError(
                where,
                f"this design would have about {est.devices:,} devices; the limit is "
                f"{limits.max_devices:,} (DESIGN_MAX_DEVICES)",
            )
        )
    if errors:
        raise SpecError(errors)


__all__ = ["Check", "Estimate", "Limits", "check_spec", "estimate"]
