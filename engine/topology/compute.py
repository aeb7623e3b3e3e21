"""The rail-optimized compute fabric: scalable units, leaves per rail, spines, pods and cores.

Rail rule (H100-RA p.11): port *i* of every server in an SU lands on leaf *i* of that SU, so
same-rail traffic is one switch hop. Partial SUs still get their full leaves and leaf-spine cabling
(ready for growth). With `planes: 2` every NIC is split into two ports and each plane is its own
independent fat tree (DGX B300 Spectrum-X, Alibaba HPN).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from itertools import chain, repeat
from math import ceil

from ..catalog import Catalog, ServerModel, SwitchModel
from ..errors import EngineInvariantError, SpecError
from ..model import Link
from ..spec import ComputeFabricSpec, DesignSpec
from . import sizing
from .builder import Builder, switch_port_names

P = "compute_fabric"


@dataclass(frozen=True)
class ComputePlan:
    """Every count the compute fabric's wiring follows; plain numbers, derived from the spec alone."""

    speed_gbps: int
    planes: int
    leaf: SwitchModel
    spine: SwitchModel
    core: SwitchModel
    su_size: int  # server slots per SU
    ports_per_rail: int  # ports of one server on one rail (per plane)
    rails: int
    n_su: int
    reserved_slots: int
    fabric_managers: int  # per plane
    leaf_down: int
    leaf_up: int
    tiers: int
    spines_per_pod: int  # 2 tiers: all spines of the plane
    su_per_pod: int  # 2 tiers: n_su
    n_pods: int  # 2 tiers: 1
    spine_down: int  # 3 tiers only
    spine_up: int
    cores_per_group: int  # 3 tiers only: cores reached by spine j of every pod
    servers: int

    @property
    def leaves_per_su(self) -> int:
        return self.rails

    @property
    def leaves_per_plane(self) -> int:
        return self.n_su * self.rails

    @property
    def links_per_spine_per_leaf(self) -> int:
        return self.leaf_up // self.spines_per_pod

    @property
    def cores_per_plane(self) -> int:
        return self.spines_per_pod * self.cores_per_group if self.tiers == 3 else 0


def _technology_ok(sw: SwitchModel, technology: str, path: str) -> None:
    if technology not in sw.technology:
        raise SpecError.at(
            path, f"{sw.key} is a {'/'.join(sw.technology)} switch, but the fabric technology is {technology}"
        )


def _speed(sw: SwitchModel, speed: int, path: str) -> int:
    radix = sw.radix(speed)
    if radix is None:
        offered = ", ".join(str(s) for s in sorted(sw.speeds, reverse=True))
        raise SpecError.at(path, f"{sw.key} has no {speed} Gb/s ports (it offers {offered} Gb/s)")
    return radix


def plan_compute(spec: DesignSpec, catalog: Catalog) -> ComputePlan:
    cf: ComputeFabricSpec = spec.compute
    server: ServerModel = catalog.server(spec.servers.model)
    leaf = catalog.switch(cf.switch, f"{P}.switch")
    spine = catalog.switch(cf.spine_switch or cf.switch, f"{P}.spine_switch")
    core = catalog.switch(cf.core_switch or cf.spine_switch or cf.switch, f"{P}.core_switch")
    for sw, field in ((leaf, "switch"), (spine, "spine_switch"), (core, "core_switch")):
        _technology_ok(sw, cf.technology, f"{P}.{field}")

    if cf.port_speed_gbps is None:
        if server.nic_speed_gbps % cf.planes:
            raise SpecError.at(
                f"{P}.planes", f"a {server.nic_speed_gbps} Gb/s NIC cannot be split into {cf.planes} planes"
            )
        speed = server.nic_speed_gbps // cf.planes
    else:
        speed = cf.port_speed_gbps
        if speed * cf.planes > server.nic_speed_gbps:
            raise SpecError.at(
                f"{P}.port_speed_gbps",
                f"{speed} Gb/s x {cf.planes} plane(s) exceeds the {server.key} NIC speed of {server.nic_speed_gbps} Gb/s",
            )
    leaf_radix = _speed(leaf, speed, f"{P}.switch")
    spine_radix = _speed(spine, speed, f"{P}.spine_switch")
    core_radix = _speed(core, speed, f"{P}.core_switch")

    k = server.ports_per_rail
    rails = server.rails
    up: int | None
    if cf.scalable_unit is None:
        split = sizing.split_auto(leaf_radix, cf.leaf_ratio, step=k)
        if split is None:
            raise SpecError.at(
                f"{P}.oversubscription.leaf",
                f"no split of a {leaf_radix}-port {leaf.key} gives exactly {cf.leaf_ratio}",
            )
        down, up = split
        su = down // k
    else:
        su = cf.scalable_unit
        down = su * k
        up = sizing.uplinks_for(down, cf.leaf_ratio)
        if up is None or down + up > leaf_radix:
            near = sizing.nearest_valid_su(su, k, leaf_radix, cf.leaf_ratio)
            best = sizing.split_auto(leaf_radix, cf.leaf_ratio, step=k)
            why = f"{su} servers x {k} port(s) = {down} leaf downlinks need " + (
                f"{up} uplinks at {cf.leaf_ratio}, {down + up} ports in all, but a {leaf.key} has {leaf_radix}"
                if up is not None
                else f"a non-whole number of uplinks at {cf.leaf_ratio}"
            )
            hint = f"; nearest valid SU sizes: {', '.join(map(str, near))}" if near else ""
            hint += f"; largest at this ratio: {best[0] // k}" if best else ""
            raise SpecError.at(f"{P}.scalable_unit", why + hint)

    slots = spec.servers.count + cf.reserved_node_slots
    n_su = ceil(slots / su)
    if cf.fabric_managers > cf.reserved_node_slots * rails * k:
        raise SpecError.at(
            f"{P}.fabric_managers",
            f"{cf.fabric_managers} fabric-manager links need reserved leaf ports; "
            f"{cf.reserved_node_slots} reserved node slot(s) give {cf.reserved_node_slots * rails * k}",
        )

    leaves = n_su * rails
    plan = partial(
        ComputePlan,
        speed_gbps=speed,
        planes=cf.planes,
        leaf=leaf,
        spine=spine,
        core=core,
        su_size=su,
        ports_per_rail=k,
        rails=rails,
        n_su=n_su,
        reserved_slots=cf.reserved_node_slots,
        fabric_managers=cf.fabric_managers,
        leaf_down=down,
        leaf_up=up,
        servers=spec.servers.count,
    )

    two_tier_spines = sizing.smallest_even_stripe(up, leaves, spine_radix)
    if cf.tiers == 2 and two_tier_spines is None:
        raise SpecError.at(
            f"{P}.tiers",
            f"{leaves} leaves with {up} uplinks each cannot be striped over {spine.key} spines in 2 tiers "
            f"(at most {spine_radix} leaves at one link per spine); use 3 tiers",
        )
    if two_tier_spines is not None and cf.tiers != 3:
        return plan(
            tiers=2,
            spines_per_pod=two_tier_spines,
            su_per_pod=n_su,
            n_pods=1,
            spine_down=leaves * (up // two_tier_spines),
            spine_up=0,
            cores_per_group=0,
        )

    split = sizing.split_auto(spine_radix, cf.spine_ratio)
    if split is None:
        raise SpecError.at(
            f"{P}.oversubscription.spine",
            f"no split of a {spine_radix}-port {spine.key} gives exactly {cf.spine_ratio}",
        )
    spine_down, spine_up = split
    su_per_pod = spine_down // rails
    if su_per_pod < 1:
        raise SpecError.at(
            f"{P}.scalable_unit", f"one SU's {rails} leaves exceed a {spine.key} spine's {spine_down} downlinks"
        )
    su_per_pod = min(su_per_pod, n_su)
    spines_per_pod = sizing.smallest_even_stripe(up, su_per_pod * rails, spine_down)
    if spines_per_pod is None:  # one link per spine always fits: su_per_pod * rails <= spine_down above
        raise EngineInvariantError(f"{su_per_pod * rails} leaves cannot be striped over {spine.key} spines")
    n_pods = ceil(n_su / su_per_pod)
    cores_per_group = sizing.smallest_even_stripe(spine_up, n_pods, core_radix)
    if cores_per_group is None:
        gpus_per_pod = su_per_pod * su * server.gpus
        ports_per_plane = n_su * su * rails * k
        max_ports = core_radix * su_per_pod * su * rails * k
        raise SpecError.at(
            f"{P}.tiers",
            f"{ports_per_plane:,} GPU ports per plane need {n_pods} pods of {su_per_pod} SUs ({gpus_per_pod:,} GPUs each), "
            f"but {core.key} cores of {core_radix} ports reach at most {core_radix} pods in 3 tiers "
            f"({max_ports:,} ports per plane) at leaf {cf.leaf_ratio} / spine {cf.spine_ratio}; "
            "use switches with more ports, a second plane, or oversubscription",
        )
    return plan(
        tiers=3,
        spines_per_pod=spines_per_pod,
        su_per_pod=su_per_pod,
        n_pods=n_pods,
        spine_down=spine_down,
        spine_up=spine_up,
        cores_per_group=cores_per_group,
    )


def plane_label(plane: int, planes: int) -> str:
    return f"-{'AB'[plane]}" if planes > 1 else ""


def build_compute(
    plan: ComputePlan, server_idx: list[int], server: ServerModel, b: Builder, ufm_idx: list[int] | None = None
) -> dict:
    """Wire the compute fabric into `b`. Returns device index lists per role (leaf/spine/core per plane)."""
    speed = plan.speed_gbps
    leaf_ports, leaf_cages = switch_port_names(plan.leaf, speed)
    spine_ports, spine_cages = switch_port_names(plan.spine, speed)
    core_ports, core_cages = switch_port_names(plan.core, speed)
    k, rails, su = plan.ports_per_rail, plan.rails, plan.su_size
    m1 = plan.links_per_spine_per_leaf
    out: dict[str, list[list[int]]] = {"leaf": [], "spine": [], "core": []}

    # Per-plane server port names: with two planes each NIC port splits into two sub-ports.
    ports = server.compute_ports
    rail_slot = {}  # (rail, j) -> port, j-th port of that rail on one server
    seen: dict[int, int] = {}
    for p in ports:
        j = seen.get(p.rail, 0)
        seen[p.rail] = j + 1
        rail_slot[(p.rail, j)] = p

    for plane in range(plan.planes):
        pl = plane_label(plane, plan.planes)
        sub = f"/{plane + 1}" if plan.planes > 1 else ""
        leaves = [
            [
                b.device(
                    f"CF{pl}-SU{s + 1:02d}-L{r + 1:02d}",
                    "leaf",
                    plan.leaf.key,
                    network="compute",
                    plane=plane,
                    su=s + 1,
                    pod=s // plan.su_per_pod + 1,
                    rack_units=plan.leaf.rack_units,
                    power_kw=plan.leaf.power_kw,
                )
                for r in range(rails)
            ]
            for s in range(plan.n_su)
        ]
        out["leaf"].append([x for row in leaves for x in row])

        # node-leaf: server slot n of SU s, j-th port of rail r -> leaf (s, r) port n*k + j
        server_ports = [(r, j, port.name + sub, port.cage) for (r, j), port in rail_slot.items()]
        _node_leaf(b.links, plane, speed, server_idx, su, k, server_ports, leaves, leaf_ports, leaf_cages)
        # Fabric managers sit on the reserved (last) slots of the last SU, slot-major then rail.
        if ufm_idx:
            first_reserved = plan.n_su * su - plan.reserved_slots
            spots = [
                (slot, r, j) for slot in range(first_reserved, plan.n_su * su) for r in range(rails) for j in range(k)
            ]
            for dev, (slot, r, j) in zip(
                ufm_idx[plane * plan.fabric_managers : (plane + 1) * plan.fabric_managers], spots
            ):
                s, local = divmod(slot, su)
                lp = local * k + j
                b.link(
                    "compute", plane, "ufm-leaf", dev, "ib0", "ib0", leaves[s][r], leaf_ports[lp], leaf_cages[lp], speed
                )

        # leaf-spine, per pod: leaf i of the pod sends m1 links to each spine, contiguous ports.
        spines_by_pod = []
        for pod in range(plan.n_pods):
            if plan.tiers == 2:
                names = [f"CF{pl}-S{j + 1:02d}" for j in range(plan.spines_per_pod)]
            else:
                names = [f"CF{pl}-POD{pod + 1:02d}-S{j + 1:02d}" for j in range(plan.spines_per_pod)]
            spines = [
                b.device(
                    nm,
                    "spine",
                    plan.spine.key,
                    network="compute",
                    plane=plane,
                    pod=pod + 1 if plan.tiers == 3 else 0,
                    rack_units=plan.spine.rack_units,
                    power_kw=plan.spine.power_kw,
                )
                for nm in names
            ]
            spines_by_pod.append(spines)
            pod_leaves = [
                leaf
                for s in range(pod * plan.su_per_pod, min((pod + 1) * plan.su_per_pod, plan.n_su))
                for leaf in leaves[s]
            ]
            for i, leaf in enumerate(pod_leaves):
                _uplinks(
                    b.links,
                    plane,
                    "leaf-spine",
                    speed,
                    (leaf, leaf_ports, leaf_cages, plan.leaf_down, m1 * i),
                    (spines, spine_ports, spine_cages),
                    m1,
                )
        out["spine"].append([x for row in spines_by_pod for x in row])

        if plan.tiers == 3:
            # Core group j serves spine j of every pod; each spine stripes its uplinks evenly over the group.
            m2 = plan.spine_up // plan.cores_per_group
            cores = [
                [
                    b.device(
                        f"CF{pl}-C{j * plan.cores_per_group + c + 1:03d}",
                        "core",
                        plan.core.key,
                        network="compute",
                        plane=plane,
                        rack_units=plan.core.rack_units,
                        power_kw=plan.core.power_kw,
                    )
                    for c in range(plan.cores_per_group)
                ]
                for j in range(plan.spines_per_pod)
            ]
            out["core"].append([x for row in cores for x in row])
            for pod, spines in enumerate(spines_by_pod):
                for j, spine in enumerate(spines):
                    _uplinks(
                        b.links,
                        plane,
                        "spine-core",
                        speed,
                        (spine, spine_ports, spine_cages, plan.spine_down, pod * m2),
                        (cores[j], core_ports, core_cages),
                        m2,
                    )
        else:
            out["core"].append([])
    return out


# The link records are made as Builder.link makes them (ids follow the list), column by column in C: a link is a
# zip of its fields' columns (ports and cages are slices of the switches' name tuples) turned into a Link by
# tuple.__new__, without a Python step per link.

_new = tuple.__new__


def _extend(links: list[Link], n: int, tier: str, plane: int, *columns: Iterable) -> None:
    """Append `n` compute links of `tier` whose a-device, port, cage, b-device, port, cage and speed are `columns`."""
    lid = len(links)
    links.extend(
        map(
            _new,
            repeat(Link),
            zip(range(lid + 1, lid + n + 1), repeat("compute"), repeat(plane), repeat(tier), *columns),
        )
    )


def _node_leaf(
    links: list[Link],
    plane: int,
    speed: int,
    server_idx: list[int],
    su: int,
    k: int,
    server_ports: list[tuple[int, int, str, str]],
    leaves: list[list[int]],
    leaf_ports: tuple[str, ...],
    leaf_cages: tuple[str, ...],
) -> None:
    """node-leaf links: server slot n of SU s, its j-th port of rail r -> leaf (s, r) port n*k + j;
    `server_ports`: (rail, j, port name, cage) per compute port of a server. Made SU by SU: every SU's slots
    take the same leaf ports, so the columns of a full SU are built once."""
    per = len(server_ports)
    names = tuple(p[2] for p in server_ports)
    cages = tuple(p[3] for p in server_ports)
    # per slot, its ports' leaf port and cage (rail r, j-th port: leaf port slot * k + j), slot after slot
    at = [slot * k + j for slot in range(min(su, len(server_idx))) for _r, j, _n, _c in server_ports]
    su_ports = tuple(map(leaf_ports.__getitem__, at))
    su_cages = tuple(map(leaf_cages.__getitem__, at))
    rails = [p[0] for p in server_ports]
    for s, first in enumerate(range(0, len(server_idx), su)):
        devs = server_idx[first : first + su]
        n = len(devs) * per
        _extend(
            links,
            n,
            "node-leaf",
            plane,
            chain.from_iterable(map(repeat, devs, repeat(per))),
            names * len(devs),
            cages * len(devs),
            tuple(map(leaves[s].__getitem__, rails)) * len(devs),
            su_ports[:n],
            su_cages[:n],
            repeat(speed),
        )


def _uplinks(links: list[Link], plane: int, tier: str, speed: int, lower: tuple, uppers: tuple, m: int) -> None:
    """One lower switch's uplinks, `m` contiguous ports to each upper switch in turn: `lower` is (device, port
    names, cage names, first uplink port, first port it takes on each upper switch), `uppers` (devices, port
    names, cage names)."""
    dev, ports, cages, first_up, first_down = lower
    upper_devs, upper_ports, upper_cages = uppers
    n_up = len(upper_devs)
    n = n_up * m
    up = slice(first_up, first_up + n)
    down = slice(first_down, first_down + m)
    if first_up + n > len(ports) or first_down + m > len(upper_ports):
        raise IndexError(f"{tier}: uplinks past the last port of a switch")
    _extend(
        links,
        n,
        tier,
        plane,
        repeat(dev),
        ports[up],
        cages[up],
        chain.from_iterable(map(repeat, upper_devs, repeat(m))),
        upper_ports[down] * n_up,
        upper_cages[down] * n_up,
        repeat(speed),
    )
