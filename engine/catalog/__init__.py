"""Hardware catalog: servers, switches and appliances, loaded from the YAML data files beside this module.

Every entry keeps its `sources`. Users add their own models by passing `extra` (same shape as the
files); those entries are validated the same way and may override shipped keys. Entries are checked against
hardware_schema.py, then read into the dataclasses below by the catalog's one loader (loader.py): a field's
annotated type, default and rule are the reader, and a refusal names the file (or "custom parts"), the entry
and the field. A switch names its maker and the OSes it runs with their interface naming (`vendor`, `os`):
nothing downstream reads a platform from a model's key.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import CatalogError
from .hardware_schema import check_entry
from .loader import Where, build, convert, field, read_shipped

if TYPE_CHECKING:
    from ..physical.catalog import MediaCatalog

DATA_DIR = Path(__file__).parent / "data"


# The OSes (config dialects) the engine writes switch configs for (engine/qos renderers; "ib": an InfiniBand
# switch, configured through its subnet manager) and the interface namings it knows (engine/ifnames.py):
# each switch model names the OSes it runs and how each names its ports (`os` in switches.yaml).
SWITCH_OSES = ("nvue", "sonic", "eos", "ib")
INTERFACE_NAMINGS = ("swp", "ethernet-lane", "ethernet-cage-lane", "ib-port")
AIRFLOWS = ("p2c", "c2p")  # power-to-connector ("F" OPNs), connector-to-power ("R")


def _named(value: str, where: Where) -> None:
    if not value.strip():
        raise where.error("is required")


def _check_os(value: Mapping[str, str], where: Where) -> None:
    if not value:
        raise where.error(
            f"must name the OS the model runs and its interface naming, e.g. {{nvue: swp}} "
            f"(OSes: {', '.join(SWITCH_OSES)}; namings: {', '.join(INTERFACE_NAMINGS)})"
        )
    for os_name, naming in value.items():
        if os_name not in SWITCH_OSES:
            raise where.at(os_name).error(f"is not an OS the engine writes configs for ({', '.join(SWITCH_OSES)})")
        if naming not in INTERFACE_NAMINGS:
            raise where.at(os_name).error(
                f"{naming!r} is not an interface naming the engine knows ({', '.join(INTERFACE_NAMINGS)})"
            )


def _check_orderable(value: Mapping[str, Any], where: Where) -> None:
    if set(value) - set(AIRFLOWS):
        raise where.error(f"must map an airflow ({', '.join(AIRFLOWS)}) to its orderable variant")


def _check_port_count(value: int, where: Where) -> None:
    if not 1 <= value <= 255:
        raise where.error("must be a port count from 1 to 255")


def _check_speeds(value: Mapping[int, int], where: Where) -> None:
    if not value or any(k < 1 or v < 1 for k, v in value.items()):
        raise where.error("must map port speeds (Gb/s) to ports per cage")


def _check_netdevs(value: Mapping[str, str], where: Where) -> None:
    if not all(value.values()):
        raise where.error("must map design port names to netdev names")


def _check_rdma_devices(value: Mapping[str, str], where: Where) -> None:
    if not all(re.fullmatch(r"[A-Za-z0-9_]+", v) for v in value.values()):
        raise where.error("must map design port names to RDMA device names (mlx5_0)")
    if len(set(value.values())) != len(value):
        raise where.error("an RDMA device is named for two ports")


@dataclass(frozen=True, slots=True)
class ServerPort:
    name: str
    rail: int
    cage: str = ""  # the cage's name (given by the cage that holds the port)
    u_offset: int = 0  # rack units above the device's base unit (rack-scale systems)


@dataclass(frozen=True, slots=True)
class Cage:
    """A physical module cage on a device: twin-port cages carry two logical ports."""

    name: str
    ports: tuple[ServerPort, ...]
    form_factor: str = "osfp"
    top: str = "flat"

    @property
    def twin_port(self) -> bool:
        return len(self.ports) > 1


@dataclass(frozen=True, slots=True)
class PortGroup:
    speed_gbps: int = 0
    form_factor: str = ""
    ports: tuple[str, ...] = ()
    # The NIC behind the ports and the only plug form factors its cages take, when narrower than the cage's
    # (BlueField-3: "only accepts QSFP112s", parts-beyond-ndr.md section 3); empty = what the form factor takes.
    nic: str = ""
    accepts: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class ServerModel:
    key: str
    name: str
    vendor: str = field(required=True, check=_named, default="")  # the maker NetBox files the device type under
    gpus: int
    gpu_memory_gb: float = 0.0
    nvlink_domain_gpus: int
    rack_units: int
    power_kw: float | None
    default_per_rack: int = 1
    rack_scale: bool = False
    nic_speed_gbps: int
    cages: tuple[Cage, ...]
    storage: PortGroup = PortGroup()
    inband: PortGroup = PortGroup()
    oob: PortGroup = PortGroup()
    sources: tuple[str, ...] = ()
    # Design port -> host netdev name (e.g. {"OSFP1P1": "ibp24s0"}): a setting per server model, used by the
    # interface-name map (engine/ifnames.py). Empty = the design's port names (docs/data-gaps.md).
    netdevs: Mapping[str, str] = field(default_factory=dict, check=_check_netdevs)
    # Design port -> the RDMA device the host's kernel names it (e.g. {"OSFP4P2": "mlx5_0"}): an InfiniBand HCA
    # describes itself as "<hostname> mlx5_N", so this says which rail an as-built discovery found on a port
    # (engine/asbuilt/matching.py). From the vendor's user guide where one gives it (`rdma_source`); empty
    # for the other models (docs/data-gaps.md), where the user supplies the map with the as-built import.
    rdma_devices: Mapping[str, str] = field(default_factory=dict, check=_check_rdma_devices)
    rdma_source: str = ""

    @property
    def compute_ports(self) -> tuple[ServerPort, ...]:
        return tuple(p for c in self.cages for p in c.ports)

    @property
    def rails(self) -> int:
        return len({p.rail for p in self.compute_ports})

    @property
    def ports_per_rail(self) -> int:
        """Compute ports of one server on each rail (1 for a DGX; 4 for an NVL72 rack, one per tray NIC)."""
        ports = self.compute_ports
        return len(ports) // self.rails


@dataclass(frozen=True, slots=True, kw_only=True)
class OrderInfo:
    """One orderable variant of a switch or appliance (or its rail kit): the part number to order, what the
    variant fixes (airflow, PSUs, management), its sources and, when only a secondary text gives it, why it
    needs checking before ordering."""

    opn: str = field(check=_named)
    variant: str = field(also="description", default="")  # a rail kit says "description"
    nvidia_opn: str = ""  # NVIDIA's 9xx- ordering code beside the legacy OPN, when published
    sources: tuple[str, ...] = ()
    unconfirmed: str = ""
    in_package: bool = False  # a rail kit shipped with the system: named on its line, not ordered again


@dataclass(frozen=True, kw_only=True)
class SwitchModel:
    key: str
    name: str
    # The maker (NetBox's manufacturer) and, per OS (config dialect) the model runs, how that OS names its
    # ports: {nvue: swp, sonic: ethernet-lane} for NVIDIA Spectrum, {eos: ethernet-cage-lane} for Arista,
    # {ib: ib-port} for NVIDIA Quantum. The design's qos.ethernet_os chooses among several (os_for). Nothing
    # is read from the model's key or name. (Defaults only for snapshots stored before the fields: os_for.)
    vendor: str = field(required=True, check=_named, default="")
    os: Mapping[str, str] = field(required=True, check=_check_os, default_factory=dict)
    technology: tuple[str, ...] = ("infiniband", "ethernet")
    cages: int
    form_factor: str = "osfp"
    top: str = "finned"
    speeds: Mapping[int, int] = field(check=_check_speeds)  # port speed -> ports per cage
    lanes_gbps: int = 100
    rack_units: int
    power_kw: float | None
    buffer_mb: float | None
    subnet_manager: bool = False
    sharp: bool = False
    mgmt_ports: int = 1
    uplinks: Mapping[str, Any] | None = None
    sources: tuple[str, ...] = ()
    # InfiniBand only: the port count the switch reports (NodeInfo NumPorts, the number after `Switch` in
    # ibnetdiscover). None = the logical front-panel ports (cages x ports per cage at the native speed).
    ib_reported_ports: int | None = field(default=None, check=_check_port_count)
    # airflow (AIRFLOWS) -> the orderable variant; a missing airflow has no published OPN (docs/data-gaps.md)
    orderable: Mapping[str, OrderInfo] = field(default_factory=dict, check=_check_orderable)
    rail_kit: OrderInfo | None = None

    def ports_per_cage(self, speed_gbps: int) -> int | None:
        return self.speeds.get(speed_gbps)

    def radix(self, speed_gbps: int) -> int | None:
        per = self.speeds.get(speed_gbps)
        return None if per is None else per * self.cages

    def os_for(self, technology: str, preferred: str) -> str:
        """The OS this model runs in a `technology` fabric: `preferred` (the design's qos.ethernet_os) when the
        model runs it, else the first OS its catalog entry lists for that technology. CatalogError when the
        entry lists none (an Ethernet-only OS list in an InfiniBand fabric, or the reverse)."""
        oses = self._oses()
        fits = [o for o in oses if (o == "ib") == (technology == "infiniband")]
        if not fits:
            raise CatalogError(
                f"switches.{self.key}.os: names no OS for a {technology} fabric (it names {', '.join(oses)})"
            )
        return preferred if preferred in fits else fits[0]

    def naming(self, os_name: str) -> str:
        """How `os_name` names this model's ports (engine/ifnames.py)."""
        return self._oses()[os_name]

    def _oses(self) -> Mapping[str, str]:
        if self.os:
            return self.os
        # A revision stored before the catalog named OSes: its model's entry in today's shipped catalog.
        shipped = _shipped(False).switches.get(self.key)
        if shipped is None or not shipped.os:
            raise CatalogError(f"switches.{self.key}.os: is required (the OS the model runs and its naming)")
        return shipped.os


@dataclass(frozen=True, kw_only=True)
class ApplianceModel:
    key: str
    name: str
    vendor: str = field(required=True, check=_named, default="")
    rack_units: int = 1
    power_kw: float | None
    sources: tuple[str, ...] = ()
    orderable: Mapping[str, OrderInfo] = field(default_factory=dict, check=_check_orderable)


@dataclass(frozen=True)
class Catalog:
    servers: Mapping[str, ServerModel]
    switches: Mapping[str, SwitchModel]
    appliances: Mapping[str, ApplianceModel]
    version: str
    media: Any = dataclasses.field(default=None, compare=False)  # engine.physical MediaCatalog, when loaded

    def server(self, key: str, path: str = "servers.model") -> ServerModel:
        from ..errors import SpecError

        try:
            return self.servers[key]
        except KeyError:
            raise SpecError.at(
                path, f"unknown server model {key!r} (known: {', '.join(sorted(self.servers))})"
            ) from None

    def switch(self, key: str, path: str) -> SwitchModel:
        from ..errors import SpecError

        try:
            return self.switches[key]
        except KeyError:
            raise SpecError.at(
                path, f"unknown switch model {key!r} (known: {', '.join(sorted(self.switches))})"
            ) from None

    def vendor(self, model: str) -> str:
        """The maker of a server, switch or appliance model, as its catalog entry names it; CatalogError for a
        model the catalog does not hold."""
        for section in ("servers", "switches", "appliances"):
            entry = getattr(self, section).get(model)
            if entry is not None:
                if entry.vendor:
                    return entry.vendor
                # Stored before appliances named their vendor: today's shipped entry of the same key.
                shipped = getattr(_shipped(False), section).get(model)
                if shipped is not None and shipped.vendor:
                    return shipped.vendor
                raise CatalogError(f"{section}.{model}.vendor: is required")
        raise CatalogError(f"{model!r} is not a server, switch or appliance of the catalog (no vendor to name)")


def _server(key: str, raw: Mapping, all_raw: Mapping, where: Where) -> ServerModel:
    ports_from = raw
    if "same_ports_as" in raw:
        ref = raw["same_ports_as"]
        if ref not in all_raw:
            raise where.at("same_ports_as").error(f"unknown server {ref!r}")
        ports_from = all_raw[ref]
    compute = ports_from.get("compute")
    if not isinstance(compute, Mapping):
        raise where.at("compute").error("is required")
    cages = _cages(compute, where.at("compute"))
    given = {k: ports_from.get(k) for k in ("storage", "inband", "oob", "netdevs", "rdma_devices", "rdma_source")}
    merged = {**{k: v for k, v in given.items() if v is not None}, **{k: v for k, v in raw.items() if k in given}}
    gpus = raw.get("gpus")
    return build(
        ServerModel,
        {**raw, **merged, "nvlink_domain_gpus": raw.get("nvlink_domain_gpus") or gpus},
        where,
        key=key,
        cages=cages,
        nic_speed_gbps=convert(int, compute.get("nic_speed_gbps"), where.at("compute.nic_speed_gbps")),
    )


def _cages(compute: Mapping, where: Where) -> tuple[Cage, ...]:
    """The compute cages: listed one by one, or `tray_ports` (rack-scale systems: a NIC per tray, one rail per
    tray, the trays stacked from `first_tray_u`)."""
    cages: list[Cage] = []
    if "tray_ports" in compute:
        tp = compute["tray_ports"]
        at = where.at("tray_ports")
        trays, nics = convert(int, tp.get("trays"), at.at("trays")), convert(int, tp.get("nics_per_tray"), at)
        first_u = convert(int, tp.get("first_tray_u", 1), at.at("first_tray_u"))
        for t in range(trays):
            for n in range(nics):
                name = f"T{t + 1:02d}-NIC{n + 1}"
                port = ServerPort(name, rail=t, cage=name, u_offset=first_u - 1 + t)
                cages.append(build(Cage, tp, at, name=name, ports=(port,)))
    else:
        listed = compute.get("cages")
        if not isinstance(listed, list):
            raise where.at("cages").error("is required")
        for i, c in enumerate(listed):
            at = where.at(f"cages[{i}]")
            name = convert(str, c.get("name"), at.at("name"))
            raw_ports = c.get("ports")
            if not isinstance(raw_ports, list):
                raise at.at("ports").error("is required")
            ports = tuple(build(ServerPort, p, at.at(f"ports[{j}]"), cage=name) for j, p in enumerate(raw_ports))
            cages.append(build(Cage, c, at, ports=ports))
    if not cages:
        raise where.error("has no ports")
    rails = sorted({p.rail for c in cages for p in c.ports})
    if rails != list(range(len(rails))):
        raise where.error(f"rails must be numbered 0..n-1 without gaps (got {rails})")
    per_rail = [sum(1 for c in cages for p in c.ports if p.rail == r) for r in rails]
    if len(set(per_rail)) != 1:
        raise where.error(f"every rail needs the same number of ports per server (got {per_rail})")
    return tuple(cages)


def load_catalog(extra: Mapping | None = None, *, with_media: bool = True) -> Catalog:
    """Load the shipped catalog, merged with user-defined `extra` entries ({servers:…, switches:…, media:…})."""
    if extra is None:
        return _shipped(with_media)
    return _build(extra, with_media)


@lru_cache(maxsize=2)
def _shipped(with_media: bool) -> Catalog:
    return _build(None, with_media)


EXTENSION = "custom parts"  # where a user's entries come from, in messages


def _read(name: str) -> tuple[Any, bytes]:
    return read_shipped(DATA_DIR / name)


def _build(extra: Mapping | None, with_media: bool) -> Catalog:
    servers_doc, b1 = _read("servers.yaml")
    switches_doc, b2 = _read("switches.yaml")
    digest = hashlib.sha256(b1 + b2)
    raw = {
        "servers": dict(servers_doc["servers"]),
        "switches": dict(switches_doc["switches"]),
        "appliances": dict(switches_doc.get("appliances") or {}),
    }
    origin = {"servers": "servers.yaml", "switches": "switches.yaml", "appliances": "switches.yaml"}
    users: set[tuple[str, str]] = set()
    if extra:
        if not isinstance(extra, Mapping):
            raise CatalogError("catalog extension must be a mapping")
        unknown = set(extra) - {"servers", "switches", "media"}
        if unknown:
            raise CatalogError(f"catalog extension: unknown section(s) {', '.join(sorted(unknown))}")
        for section in ("servers", "switches"):
            raw[section].update(extra.get(section) or {})
            users.update((section, k) for k in extra.get(section) or {})
        digest.update(repr(sorted(extra.items(), key=lambda kv: kv[0])).encode())

    def where(section: str, key: str) -> Where:
        return Where(EXTENSION if (section, key) in users else origin[section], f"{section}.{key}")

    for section, entries in raw.items():
        for k, v in entries.items():
            try:
                check_entry(section, k, v)  # the shipped entries' schema, types included (hardware_schema.py)
            except CatalogError as exc:
                raise CatalogError(f"{where(section, k).origin}: {exc}") from None
    try:
        servers = {k: _server(k, v, raw["servers"], where("servers", k)) for k, v in raw["servers"].items()}
        switches = {k: build(SwitchModel, v, where("switches", k), key=k) for k, v in raw["switches"].items()}
        appliances = {k: build(ApplianceModel, v, where("appliances", k), key=k) for k, v in raw["appliances"].items()}
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, CatalogError):
            raise
        raise CatalogError(f"catalog entry is malformed: {exc}") from None
    media: MediaCatalog | None = None
    version = f"{servers_doc['version']}+{digest.hexdigest()[:10]}"
    if with_media:
        try:
            from ..physical.catalog import load_media_catalog
        except ImportError:  # physical layer not installed in this build
            pass
        else:
            media = load_media_catalog((extra or {}).get("media"))
            version = f"{version}/{media.version}"
    return Catalog(servers=servers, switches=switches, appliances=appliances, version=version, media=media)
