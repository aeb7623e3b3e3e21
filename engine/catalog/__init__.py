"""Hardware catalog: servers, switches and appliances, loaded from the YAML data files beside this module.

Every entry keeps its `sources`. Users add their own models by passing `extra` (same shape as the
files); those entries are validated the same way and may override shipped keys.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from ..errors import CatalogError
from .hardware_schema import check_entry

if TYPE_CHECKING:
    from ..physical.catalog import MediaCatalog

DATA_DIR = Path(__file__).parent / "data"


@dataclass(frozen=True, slots=True)
class ServerPort:
    name: str
    rail: int
    cage: str
    u_offset: int = 0  # rack units above the device's base unit (rack-scale systems)


@dataclass(frozen=True, slots=True)
class Cage:
    """A physical module cage on a device: twin-port cages carry two logical ports."""

    name: str
    form_factor: str
    top: str
    ports: tuple[ServerPort, ...]

    @property
    def twin_port(self) -> bool:
        return len(self.ports) > 1


@dataclass(frozen=True, slots=True)
class PortGroup:
    speed_gbps: int
    form_factor: str
    ports: tuple[str, ...]
    # The NIC behind the ports and the only plug form factors its cages take, when narrower than the cage's
    # (BlueField-3: "only accepts QSFP112s", parts-beyond-ndr.md section 3); empty = what the form factor takes.
    nic: str = ""
    accepts: tuple[str, ...] = ()


@dataclass(frozen=True)
class ServerModel:
    key: str
    name: str
    vendor: str
    gpus: int
    gpu_memory_gb: float
    nvlink_domain_gpus: int
    rack_units: int
    power_kw: float | None
    default_per_rack: int
    rack_scale: bool
    nic_speed_gbps: int
    cages: tuple[Cage, ...]
    storage: PortGroup
    inband: PortGroup
    oob: PortGroup
    sources: tuple[str, ...]
    # Design port -> host netdev name (e.g. {"OSFP1P1": "ibp24s0"}): a setting per server model, used by the
    # interface-name map (engine/ifnames.py). Empty = the design's port names (docs/data-gaps.md).
    netdevs: Mapping[str, str] = field(default_factory=dict)
    # Design port -> the RDMA device the host's kernel names it (e.g. {"OSFP4P2": "mlx5_0"}): an InfiniBand HCA
    # describes itself as "<hostname> mlx5_N", so this says which rail an as-built discovery found on a port
    # (engine/asbuilt/matching.py). From the vendor's user guide where one gives it (`rdma_source`); empty
    # for the other models (docs/data-gaps.md), where the user supplies the map with the as-built import.
    rdma_devices: Mapping[str, str] = field(default_factory=dict)
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


@dataclass(frozen=True, slots=True)
class OrderInfo:
    """One orderable variant of a switch or appliance (or its rail kit): the part number to order, what the
    variant fixes (airflow, PSUs, management), its sources and, when only a secondary text gives it, why it
    needs checking before ordering."""

    opn: str
    variant: str = ""
    nvidia_opn: str = ""  # NVIDIA's 9xx- ordering code beside the legacy OPN, when published
    sources: tuple[str, ...] = ()
    unconfirmed: str = ""
    in_package: bool = False  # a rail kit shipped with the system: named on its line, not ordered again


AIRFLOWS = ("p2c", "c2p")  # power-to-connector ("F" OPNs), connector-to-power ("R")


@dataclass(frozen=True)
class SwitchModel:
    key: str
    name: str
    vendor: str
    technology: tuple[str, ...]
    cages: int
    form_factor: str
    top: str
    speeds: Mapping[int, int]  # port speed -> ports per cage
    lanes_gbps: int
    rack_units: int
    power_kw: float | None
    buffer_mb: float | None
    subnet_manager: bool
    sharp: bool
    mgmt_ports: int
    uplinks: Mapping[str, Any] | None
    sources: tuple[str, ...]
    # InfiniBand only: the port count the switch reports (NodeInfo NumPorts, the number after `Switch` in
    # ibnetdiscover). None = the logical front-panel ports (cages x ports per cage at the native speed).
    ib_reported_ports: int | None = None
    # airflow (AIRFLOWS) -> the orderable variant; a missing airflow has no published OPN (docs/data-gaps.md)
    orderable: Mapping[str, OrderInfo] = field(default_factory=dict)
    rail_kit: OrderInfo | None = None

    def ports_per_cage(self, speed_gbps: int) -> int | None:
        return self.speeds.get(speed_gbps)

    def radix(self, speed_gbps: int) -> int | None:
        per = self.speeds.get(speed_gbps)
        return None if per is None else per * self.cages


@dataclass(frozen=True)
class ApplianceModel:
    key: str
    name: str
    rack_units: int
    power_kw: float | None
    sources: tuple[str, ...]
    orderable: Mapping[str, OrderInfo] = field(default_factory=dict)


@dataclass(frozen=True)
class Catalog:
    servers: Mapping[str, ServerModel]
    switches: Mapping[str, SwitchModel]
    appliances: Mapping[str, ApplianceModel]
    version: str
    media: Any = field(default=None, compare=False)  # engine.physical MediaCatalog, when loaded

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


def _req(entry: Mapping, key: str, path: str, kind: type | tuple[type, ...] | None = None) -> Any:
    if key not in entry or entry[key] is None:
        raise CatalogError(f"{path}.{key}: is required")
    value = entry[key]
    if kind is not None and not isinstance(value, kind):
        raise CatalogError(f"{path}.{key}: has the wrong type ({type(value).__name__})")
    return value


def _port_group(raw: Mapping | None, path: str) -> PortGroup:
    raw = raw or {}
    return PortGroup(
        int(raw.get("speed_gbps", 0)),
        str(raw.get("form_factor", "")),
        tuple(raw.get("ports") or ()),
        str(raw.get("nic") or ""),
        tuple(str(x) for x in raw.get("accepts") or ()),
    )


def _server(key: str, raw: Mapping, all_raw: Mapping, path: str) -> ServerModel:
    ports_from = raw
    if "same_ports_as" in raw:
        ref = raw["same_ports_as"]
        if ref not in all_raw:
            raise CatalogError(f"{path}.same_ports_as: unknown server {ref!r}")
        ports_from = all_raw[ref]
    compute = _req(ports_from, "compute", path, Mapping)
    cages: list[Cage] = []
    if "tray_ports" in compute:
        tp = compute["tray_ports"]
        for t in range(int(tp["trays"])):
            for n in range(int(tp["nics_per_tray"])):
                name = f"T{t + 1:02d}-NIC{n + 1}"
                port = ServerPort(name, rail=t, cage=name, u_offset=int(tp.get("first_tray_u", 1)) - 1 + t)
                cages.append(Cage(name, tp["form_factor"], tp["top"], (port,)))
    else:
        for i, c in enumerate(_req(compute, "cages", path + ".compute", list)):
            cpath = f"{path}.compute.cages[{i}]"
            ports = tuple(
                ServerPort(str(p["name"]), int(p["rail"]), str(c["name"])) for p in _req(c, "ports", cpath, list)
            )
            cages.append(
                Cage(str(_req(c, "name", cpath)), str(c.get("form_factor", "osfp")), str(c.get("top", "flat")), ports)
            )
    if not cages:
        raise CatalogError(f"{path}.compute: has no ports")
    rails = sorted({p.rail for c in cages for p in c.ports})
    if rails != list(range(len(rails))):
        raise CatalogError(f"{path}.compute: rails must be numbered 0..n-1 without gaps (got {rails})")
    per_rail = [sum(1 for c in cages for p in c.ports if p.rail == r) for r in rails]
    if len(set(per_rail)) != 1:
        raise CatalogError(f"{path}.compute: every rail needs the same number of ports per server (got {per_rail})")
    return ServerModel(
        key=key,
        name=str(_req(raw, "name", path)),
        vendor=str(raw.get("vendor", "")),
        gpus=int(_req(raw, "gpus", path, int)),
        gpu_memory_gb=float(raw.get("gpu_memory_gb") or 0),
        nvlink_domain_gpus=int(raw.get("nvlink_domain_gpus") or raw["gpus"]),
        rack_units=int(_req(raw, "rack_units", path, int)),
        power_kw=raw.get("power_kw"),
        default_per_rack=int(raw.get("default_per_rack") or 1),
        rack_scale=bool(raw.get("rack_scale", False)),
        nic_speed_gbps=int(_req(compute, "nic_speed_gbps", path + ".compute", int)),
        cages=tuple(cages),
        storage=_port_group(ports_from.get("storage"), path + ".storage"),
        inband=_port_group(ports_from.get("inband"), path + ".inband"),
        oob=_port_group(ports_from.get("oob"), path + ".oob"),
        sources=tuple(raw.get("sources") or ()),
        netdevs=_netdevs(raw.get("netdevs", ports_from.get("netdevs")), path),
        rdma_devices=_rdma_devices(raw.get("rdma_devices", ports_from.get("rdma_devices")), path),
        rdma_source=str(raw.get("rdma_source", ports_from.get("rdma_source")) or ""),
    )


def _netdevs(raw: object, path: str) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping) or not all(isinstance(k, str) and isinstance(v, str) and v for k, v in raw.items()):
        raise CatalogError(f"{path}.netdevs: must map design port names to netdev names")
    return dict(raw)


def _rdma_devices(raw: object, path: str) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) and re.fullmatch(r"[A-Za-z0-9_]+", v) for k, v in raw.items()
    ):
        raise CatalogError(f"{path}.rdma_devices: must map design port names to RDMA device names (mlx5_0)")
    if len(set(raw.values())) != len(raw):
        raise CatalogError(f"{path}.rdma_devices: an RDMA device is named for two ports")
    return dict(raw)


def _switch(key: str, raw: Mapping, path: str) -> SwitchModel:
    speeds = _req(raw, "speeds", path, Mapping)
    try:
        speeds = {int(k): int(v) for k, v in speeds.items()}
    except (TypeError, ValueError):
        raise CatalogError(f"{path}.speeds: must map port speeds (Gb/s) to ports per cage") from None
    return SwitchModel(
        key=key,
        name=str(_req(raw, "name", path)),
        vendor=str(raw.get("vendor", "")),
        technology=tuple(raw.get("technology") or ("infiniband", "ethernet")),
        cages=int(_req(raw, "cages", path, int)),
        form_factor=str(raw.get("form_factor", "osfp")),
        top=str(raw.get("top", "finned")),
        speeds=speeds,
        lanes_gbps=int(raw.get("lanes_gbps") or 100),
        rack_units=int(_req(raw, "rack_units", path, int)),
        power_kw=raw.get("power_kw"),
        buffer_mb=raw.get("buffer_mb"),
        subnet_manager=bool(raw.get("subnet_manager", False)),
        sharp=bool(raw.get("sharp", False)),
        mgmt_ports=int(raw.get("mgmt_ports", 1)),
        uplinks=raw.get("uplinks"),
        sources=tuple(raw.get("sources") or ()),
        ib_reported_ports=_optional_int(raw.get("ib_reported_ports"), f"{path}.ib_reported_ports"),
        orderable=_orderable(raw.get("orderable"), f"{path}.orderable"),
        rail_kit=_order_info(raw["rail_kit"], f"{path}.rail_kit") if raw.get("rail_kit") else None,
    )


def _order_info(raw: object, path: str) -> OrderInfo:
    if not isinstance(raw, Mapping) or not isinstance(raw.get("opn"), str) or not raw["opn"].strip():
        raise CatalogError(f"{path}.opn: is required (the part number to order)")
    return OrderInfo(
        opn=raw["opn"].strip(),
        variant=str(raw.get("variant") or raw.get("description") or ""),
        nvidia_opn=str(raw.get("nvidia_opn") or ""),
        sources=tuple(str(x) for x in raw.get("sources") or ()),
        unconfirmed=str(raw.get("unconfirmed") or "").strip(),
        in_package=bool(raw.get("in_package", False)),
    )


def _orderable(raw: object, path: str) -> dict[str, OrderInfo]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping) or set(raw) - set(AIRFLOWS):
        raise CatalogError(f"{path}: must map an airflow ({', '.join(AIRFLOWS)}) to its orderable variant")
    return {k: _order_info(v, f"{path}.{k}") for k, v in raw.items()}


def _optional_int(value: object, path: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 255:
        raise CatalogError(f"{path}: must be a port count from 1 to 255")
    return value


def _read(name: str) -> tuple[dict, bytes]:
    raw = (DATA_DIR / name).read_bytes()
    return yaml.safe_load(raw), raw


def load_catalog(extra: Mapping | None = None, *, with_media: bool = True) -> Catalog:
    """Load the shipped catalog, merged with user-defined `extra` entries ({servers:…, switches:…, media:…})."""
    if extra is None:
        return _shipped(with_media)
    return _build(extra, with_media)


@lru_cache(maxsize=2)
def _shipped(with_media: bool) -> Catalog:
    return _build(None, with_media)


def _build(extra: Mapping | None, with_media: bool) -> Catalog:
    servers_doc, b1 = _read("servers.yaml")
    switches_doc, b2 = _read("switches.yaml")
    digest = hashlib.sha256(b1 + b2)
    raw_servers = dict(servers_doc["servers"])
    raw_switches = dict(switches_doc["switches"])
    if extra:
        if not isinstance(extra, Mapping):
            raise CatalogError("catalog extension must be a mapping")
        unknown = set(extra) - {"servers", "switches", "media"}
        if unknown:
            raise CatalogError(f"catalog extension: unknown section(s) {', '.join(sorted(unknown))}")
        raw_servers.update(extra.get("servers") or {})
        raw_switches.update(extra.get("switches") or {})
        digest.update(repr(sorted(extra.items(), key=lambda kv: kv[0])).encode())
    for section, entries in (("servers", raw_servers), ("switches", raw_switches)):
        for k, v in entries.items():
            check_entry(section, k, v)  # the shipped entries' schema, types included (hardware_schema.py)
    try:
        servers = {k: _server(k, v, raw_servers, f"servers.{k}") for k, v in raw_servers.items()}
        switches = {k: _switch(k, v, f"switches.{k}") for k, v in raw_switches.items()}
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, CatalogError):
            raise
        raise CatalogError(f"catalog entry is malformed: {exc}") from None
    appliances = {
        k: ApplianceModel(
            k,
            v["name"],
            int(v.get("rack_units", 1)),
            v.get("power_kw"),
            tuple(v.get("sources") or ()),
            _orderable(v.get("orderable"), f"appliances.{k}.orderable"),
        )
        for k, v in (switches_doc.get("appliances") or {}).items()
    }
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
