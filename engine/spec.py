"""The design spec: the one schema behind the web form, the REST API and the CLI.

`parse_spec(data)` takes a plain dict (from YAML, JSON or a form) and returns a frozen
`DesignSpec`, or raises `SpecError` listing every bad field with its dotted path.
The `qos` and `physical` sections are free-form in the schema but are checked here by their
own parsers (`QosPolicy.from_dict` for the compute fabric's technology, `MediaPolicy.from_dict`),
so a bad policy is refused with its path (`qos.roce.dscp[0]`) wherever a spec comes in; the
sections are kept exactly as written (sparse), only validated.
Whether the spec can actually be *built* (radix, ratios, tiers) is checked later by the
topology code, which raises `SpecError` with the same kind of field path.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .errors import FieldError, SpecError
from .physical.policy import MediaPolicy
from .qos.policy import TECHNOLOGIES as QOS_TECHNOLOGIES
from .qos.policy import QosPolicy
from .schema import Field, json_schema, normalize, parse_ratio
from .yamlsafe import DEFAULT_MAX_CHARS, UserYamlError, load_user_yaml

SCHEMA_VERSION = 1

# Text bounds: no longer than the database column each lands in. Design.name is varchar(200); catalog keys
# match the custom parts' key column (64). A rack id is "<site>.<row letters><position>" in varchar(32)
# columns (a_rack, b_rack): 16 characters of site leave room for 3 row letters and 3-digit positions.
NAME_LENGTH = 200
DESCRIPTION_LENGTH = 2000
KEY_LENGTH = 64
SITE_LENGTH = 16
SITE_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_-]*"
# Catalog keys users add (custom parts): they name device types and parts in CSVs and NetBox imports.
CATALOG_KEY_PATTERN = r"[A-Za-z0-9][A-Za-z0-9._+/-]{0,63}"

_RATIO_HELP = 'Downlink : uplink bandwidth, e.g. "1:1" (non-blocking) or "3:1".'

OVERSUBSCRIPTION = Field(
    "object",
    shorthand="leaf",
    default={},
    help="Oversubscription per tier. A single ratio applies to the leaf tier; the spine tier defaults to 1:1.",
    fields={
        "leaf": Field("ratio", default="1:1", help="At the leaf: node-facing : spine-facing bandwidth. " + _RATIO_HELP),
        "spine": Field(
            "ratio",
            default="1:1",
            help="At the spine of a 3-tier fabric: leaf-facing : core-facing bandwidth. " + _RATIO_HELP,
        ),
    },
)

COMPUTE_FABRIC = {
    "technology": Field("enum", choices=("infiniband", "ethernet"), help="Fabric technology."),
    "switch": Field("str", max_length=KEY_LENGTH, help="Leaf switch model (catalog key, e.g. qm9700)."),
    "spine_switch": Field(
        "str",
        default=None,
        nullable=True,
        max_length=KEY_LENGTH,
        help="Spine switch model; defaults to the leaf switch.",
    ),
    "core_switch": Field(
        "str",
        default=None,
        nullable=True,
        max_length=KEY_LENGTH,
        help="Core switch model; defaults to the spine switch.",
    ),
    "scalable_unit": Field(
        "int",
        default="auto",
        allow_auto=True,
        minimum=1,
        maximum=4096,
        help="Servers per scalable unit (SU), or auto to fill the leaf's downlinks at the chosen ratio.",
    ),
    "oversubscription": OVERSUBSCRIPTION,
    "tiers": Field(
        "int",
        default="auto",
        allow_auto=True,
        minimum=2,
        maximum=3,
        help="Switch tiers: 2 (leaf-spine), 3 (leaf-spine-core), or auto (the fewest that fit).",
    ),
    "planes": Field(
        "int",
        default=1,
        minimum=1,
        maximum=2,
        help="Independent fabric planes; with 2, each NIC is split into two ports, one per plane.",
    ),
    "port_speed_gbps": Field(
        "int",
        default="auto",
        allow_auto=True,
        minimum=1,
        maximum=3200,
        help="Link speed per fabric port; auto = the server NIC speed divided by the planes.",
    ),
    "reserved_node_slots": Field(
        "int",
        default=0,
        minimum=0,
        maximum=1024,
        help="Node slots held back on the last SU's leaves for fabric-manager appliances or gateways "
        "(NVIDIA's tables hold one: 31 nodes in a 32-node SU).",
    ),
    "fabric_managers": Field(
        "int",
        default=0,
        minimum=0,
        maximum=1024,
        help="Fabric-manager (UFM) appliance links placed on the reserved leaf ports.",
    ),
}

STORAGE_FABRIC = {
    "enabled": Field("bool", default=False, help="Build a separate storage fabric."),
    "technology": Field(
        "enum", default="infiniband", choices=("infiniband", "ethernet"), help="Storage fabric technology."
    ),
    "switch": Field("str", default="qm9700", max_length=KEY_LENGTH, help="Storage leaf and spine switch model."),
    "oversubscription": Field(
        "ratio", default="4:3", help="Server-facing leaf ratio; the H100 RA runs DGX storage links about 4:3."
    ),
    "appliances": Field(
        "int", default=0, minimum=0, maximum=100_000, help="Storage appliances (or storage-node controllers)."
    ),
    "ports_per_appliance": Field("int", default=2, minimum=1, maximum=64, help="Fabric ports per storage appliance."),
}

INBAND = {
    "enabled": Field("bool", default=False, help="Build the in-band management Ethernet network."),
    "switch": Field("str", default="sn4600c", max_length=KEY_LENGTH, help="In-band leaf and spine switch model."),
    "oversubscription": Field("ratio", default="1:1", help="Server-facing leaf ratio. " + _RATIO_HELP),
    "management_servers": Field(
        "int", default=0, minimum=0, maximum=100_000, help="Head and management nodes on the in-band network."
    ),
}

OOB = {
    "enabled": Field("bool", default=False, help="Build the out-of-band (1G copper) management network."),
    "switch": Field(
        "str", default="sn2201", max_length=KEY_LENGTH, help="OOB switch model, one or more per rack as ports require."
    ),
    "pdus_per_rack": Field(
        "int",
        default=2,
        minimum=0,
        maximum=8,
        help="PDU management ports per rack (user default; no reference figure).",
    ),
    "aggregation_switch": Field(
        "str",
        default=None,
        nullable=True,
        max_length=KEY_LENGTH,
        help="Switch model of the OOB aggregation pair the OOB switches' uplinks land on; defaults to the "
        "in-band switch (set it when the in-band switch has no port at the OOB uplinks' speed).",
    ),
}

LAYOUT = {
    "servers_per_rack": Field(
        "int",
        default="auto",
        allow_auto=True,
        minimum=1,
        maximum=256,
        help="Servers per rack; auto = the server model's reference default, limited by space and power.",
    ),
    "rack_units": Field("int", default=48, minimum=10, maximum=60, help="Usable rack units per rack."),
    "rack_power_kw": Field(
        "float",
        default=None,
        nullable=True,
        minimum=1,
        maximum=2000,
        help="Power budget per rack in kW: limits servers per rack, fills network racks up to it "
        "(unless layout.network_rack_power_kw says otherwise) and warns about every rack "
        "above it; null = no budget for server racks.",
    ),
    "rack_width_mm": Field(
        "int", default=600, minimum=400, maximum=1200, help="Rack width: the spacing of racks along a row."
    ),
    "rack_depth_mm": Field(
        "int", default=1200, minimum=600, maximum=1600, help="Rack depth: with the aisle, the spacing of rows."
    ),
    "aisle_mm": Field("int", default=1200, minimum=600, maximum=3000, help="Aisle width between rows."),
    "racks_per_row": Field(
        "int",
        default="auto",
        allow_auto=True,
        minimum=2,
        maximum=999,
        help="Racks per row; auto = one SU's server racks plus its network racks.",
    ),
    "network_racks": Field(
        "enum",
        default="end-of-row",
        choices=("end-of-row", "middle-of-row"),
        help="Where each SU's leaf switches stand.",
    ),
    "tray_drop_m": Field(
        "float",
        default=0.5,
        minimum=0,
        maximum=3,
        help="Vertical run from the rack top to the overhead tray (heuristic 0.3-0.6 m).",
    ),
    "slack_per_end_m": Field(
        "float", default=0.5, minimum=0, maximum=5, help="Service slack per cable end (heuristic 0.3-0.5 m)."
    ),
    "in_rack_allowance_m": Field(
        "float", default=0.5, minimum=0, maximum=5, help="Extra length for routing inside one rack (cable managers)."
    ),
    "site": Field(
        "str",
        default="DC1",
        max_length=SITE_LENGTH,
        pattern=SITE_PATTERN,
        pattern_help="must start with a letter or digit and hold only letters, digits, - and _ "
        "(it names racks in labels, CSVs and NetBox imports)",
        help=f"Site/room prefix used in rack ids and labels (up to {SITE_LENGTH} letters, digits, - or _).",
    ),
    "row_letters": Field(
        "enum",
        default="all",
        choices=("all", "skip-io"),
        help="Row letters of rack ids: all (A-Z, then AA) or skip-io (no I or O, which read as 1 and 0 on "
        "labels: DC1.AO09 reads A009). A site naming setting; changing it renames the racks of designs with "
        "more than 8 rows.",
    ),
    "panel_units": Field(
        "int",
        default=2,
        minimum=0,
        maximum=20,
        help="Rack units kept free at the top of every rack for patch panels when a tier uses "
        "structured cabling (user default; no reference figure).",
    ),
    "network_rack_power_kw": Field(
        "float",
        default="auto",
        allow_auto=True,
        minimum=1,
        help="Power budget per network rack (leaves, spines, cores, other networks' "
        "switches) in kW; racks are filled up to it. auto = layout.rack_power_kw when "
        "set, else one reference server rack's draw (servers per rack x server power; "
        "user default, docs/data-gaps.md).",
    ),
    "network_rack_devices": Field(
        "int",
        default="auto",
        allow_auto=True,
        minimum=1,
        help="Most devices per network rack; auto = as many as rack units, the power budget "
        "and the rack's OOB switch allow.",
    ),
}

# The site above the rows (docs/site-model.md): halls filled pod by pod, the main distribution area (MDA) at the
# front of hall 1, and a pathway from every other hall to the MDA.
MAX_HALLS = 999
MAX_PATHWAY_M = 20_000
SITE = {
    "max_racks_per_hall": Field(
        "int",
        default=1536,
        minimum=10,
        maximum=100_000,
        help="Most racks in one data hall; a design needing more is placed over several halls, pod by pod. "
        "Default 1,536: the racks of Meta's Llama 3 cluster in one building (8 pods x 192 racks, "
        "fabrics-qos-traffic.md; user default, docs/data-gaps.md).",
    ),
    "pathway_m": Field(
        "float",
        default=100.0,
        minimum=0,
        maximum=MAX_PATHWAY_M,
        help="Length of the cable pathway from each hall's entry to the MDA in hall 1 (tray and duct run between "
        "the rooms), unless site.pathways_m names the hall (user default, no reference figure).",
    ),
    "pathways_m": Field(
        "any",
        default={},
        help='Pathway length in metres per hall number (2, 3, ...) to the MDA, e.g. {"2": 150, "3": 420}; other '
        "halls use site.pathway_m.",
    ),
    "split_pods": Field(
        "bool",
        default=False,
        help="Allow a pod larger than one hall to continue in the next hall (SU by SU); without it such a "
        "design is refused.",
    ),
}

# NetBox release series the netbox/ export files are written for: the 4.4 series and 4.5 and later differ
# (4.5 gave front ports their own `positions` column, required). Keep in step with
# apps/exports/renderers/data/netbox_import_fields.json, which holds each series' import fields.
NETBOX_VERSIONS = ("4.4", "4.5", "4.6")
NETBOX_DEFAULT_VERSION = "4.6"

EXPORTS = {
    "netbox_version": Field(
        "enum",
        default=NETBOX_DEFAULT_VERSION,
        choices=NETBOX_VERSIONS,
        help="NetBox release series (major.minor) the netbox/ import files are written for; "
        "the current release by default.",
    ),
}

# The variants a buyer must choose that change a switch's orderable part number (engine/catalog AIRFLOWS).
PROCUREMENT = {
    "airflow": Field(
        "enum",
        default="p2c",
        choices=("p2c", "c2p"),
        help="Switch airflow ordered: p2c = power-to-connector (air in at the PSUs, out at the ports; NVIDIA's "
        '"F" part numbers, the variant the reference architectures list) or c2p = connector-to-power ("R").',
    ),
    "rail_kits": Field(
        "bool",
        default=True,
        help="Order a rail kit line per switch whose catalog kit is sold separately (a kit in the package is "
        "named on the switch line).",
    ),
}

SPEC_FIELDS = {
    "name": Field("str", max_length=NAME_LENGTH, help="Design name."),
    "description": Field(
        "str", default=None, nullable=True, max_length=DESCRIPTION_LENGTH, help="Free text about the design."
    ),
    "servers": Field(
        "object",
        help="The servers (or rack-scale systems) the fabrics connect.",
        fields={
            "model": Field("str", max_length=KEY_LENGTH, help="Server model (catalog key, e.g. dgx-h100)."),
            "count": Field(
                "int", minimum=1, maximum=1_000_000, help="Number of servers (for rack-scale systems: racks)."
            ),
        },
    ),
    "compute_fabric": Field(
        "object",
        fields=COMPUTE_FABRIC,
        help="The compute fabric on the servers' compute NICs: technology, switches, tiers, planes, oversubscription.",
    ),
    "storage_fabric": Field(
        "object", default={}, fields=STORAGE_FABRIC, help="A separate storage fabric (built only when enabled)."
    ),
    "inband": Field(
        "object", default={}, fields=INBAND, help="The in-band management network (built only when enabled)."
    ),
    "oob": Field(
        "object", default={}, fields=OOB, help="The out-of-band management network (built only when enabled)."
    ),
    "layout": Field(
        "object",
        default={},
        fields=LAYOUT,
        help="Racks, rows and floor, and the allowances that turn rack positions into cable run lengths.",
    ),
    "site": Field(
        "object",
        default={},
        fields=SITE,
        help="Halls, the main distribution area and the pathways between them (docs/site-model.md).",
    ),
    "physical": Field(
        "any",
        default=None,
        nullable=True,
        help="Physical-layer policy (media per tier, structured cabling and trunk diversity, loss thresholds, labels).",
    ),
    "qos": Field(
        "any",
        default=None,
        nullable=True,
        help="Congestion-control and QoS policy (traffic classes, DSCP, PFC, ECN, DCQCN); defaults per technology.",
    ),
    "workloads": Field(
        "any",
        default=None,
        nullable=True,
        help="Training workloads to check against the fabric (list of profiles or preset names).",
    ),
    "monitoring": Field(
        "any",
        default=None,
        nullable=True,
        help="Monitoring rules and utilization targets: average/peak utilization, loss, PFC and ECN limits, "
        "counter thresholds, windows, and exporter metric names (docs/monitoring.md).",
    ),
    "exports": Field("object", default={}, fields=EXPORTS, help="Settings of the exported files."),
    "procurement": Field(
        "object",
        default={},
        fields=PROCUREMENT,
        help="Ordering variants printed on the BOM's switch lines (airflow) and whether rail kits are listed.",
    ),
}


@dataclass(frozen=True)
class Ratio:
    down: float
    up: float

    @classmethod
    def parse(cls, text: str) -> Ratio:
        parsed = parse_ratio(text)
        if parsed is None:  # the schema checked every ratio first
            raise ValueError(f"not a ratio: {text!r}")
        return cls(*parsed)

    @property
    def value(self) -> float:
        return self.down / self.up

    def __str__(self) -> str:
        f = lambda x: str(int(x)) if float(x).is_integer() else str(x)  # noqa: E731
        return f"{f(self.down)}:{f(self.up)}"


@dataclass(frozen=True)
class ServersSpec:
    model: str
    count: int


@dataclass(frozen=True)
class ComputeFabricSpec:
    technology: str
    switch: str
    spine_switch: str | None
    core_switch: str | None
    scalable_unit: int | None  # None = auto
    leaf_ratio: Ratio
    spine_ratio: Ratio
    tiers: int | None  # None = auto
    planes: int
    port_speed_gbps: int | None  # None = auto
    reserved_node_slots: int
    fabric_managers: int


@dataclass(frozen=True)
class StorageFabricSpec:
    enabled: bool
    technology: str
    switch: str
    ratio: Ratio
    appliances: int
    ports_per_appliance: int


@dataclass(frozen=True)
class InbandSpec:
    enabled: bool
    switch: str
    ratio: Ratio
    management_servers: int


@dataclass(frozen=True)
class OobSpec:
    enabled: bool
    switch: str
    pdus_per_rack: int
    aggregation_switch: str | None = None


@dataclass(frozen=True)
class LayoutSpec:
    servers_per_rack: int | None
    rack_units: int
    rack_power_kw: float | None
    rack_width_mm: int
    rack_depth_mm: int
    aisle_mm: int
    racks_per_row: int | None
    network_racks: str
    tray_drop_m: float
    slack_per_end_m: float
    in_rack_allowance_m: float
    site: str
    panel_units: int
    network_rack_power_kw: float | None = None  # None = auto
    network_rack_devices: int | None = None  # None = auto
    row_letters: str = "all"  # all | skip-io (placement.row_name)


@dataclass(frozen=True)
class SiteSpec:
    max_racks_per_hall: int = 1536
    pathway_m: float = 100.0
    pathways_m: tuple[tuple[int, float], ...] = ()  # (hall number 2.., metres to the MDA)
    split_pods: bool = False

    def pathway_of(self, hall: int) -> float:
        """Metres from the entry of `hall` (0-based) to the MDA; hall 0 holds the MDA."""
        return 0.0 if hall == 0 else float(dict(self.pathways_m).get(hall + 1, self.pathway_m))


@dataclass(frozen=True)
class ExportsSpec:
    netbox_version: str = NETBOX_DEFAULT_VERSION


@dataclass(frozen=True)
class ProcurementSpec:
    airflow: str = "p2c"
    rail_kits: bool = True


@dataclass(frozen=True)
class DesignSpec:
    name: str
    description: str | None
    servers: ServersSpec
    compute: ComputeFabricSpec
    storage: StorageFabricSpec
    inband: InbandSpec
    oob: OobSpec
    layout: LayoutSpec
    physical: Mapping[str, Any] | None
    qos: Mapping[str, Any] | None
    workloads: Any
    normalized: str  # canonical JSON of the normalized spec, for hashing and storage
    exports: ExportsSpec = ExportsSpec()
    monitoring: Mapping[str, Any] | None = None
    procurement: ProcurementSpec = ProcurementSpec()
    site: SiteSpec = SiteSpec()

    def to_dict(self) -> dict:
        return json.loads(self.normalized)


def _auto(v):
    return None if v == "auto" else v


_LAYOUT_AUTO = ("servers_per_rack", "racks_per_row", "network_rack_power_kw", "network_rack_devices")


def parse_spec(data: Any) -> DesignSpec:
    """Validate and normalize a spec dict. Raises SpecError naming every bad field."""
    if isinstance(data, Mapping) and "schema_version" in data:
        if data["schema_version"] != SCHEMA_VERSION:
            raise SpecError.at(
                "schema_version",
                f"this fabricdesign reads schema version {SCHEMA_VERSION}, not {ascii(data['schema_version'])[:40]}",
            )
        data = {k: v for k, v in data.items() if k != "schema_version"}
    norm, errors = normalize(SPEC_FIELDS, data)
    if norm:
        # A section already refused (too deep, too big, not plain data) is not handed to its parser.
        failed = {e.path.split(".")[0].split("[")[0] for e in errors}
        errors += _policy_errors({k: (None if k in failed else v) for k, v in norm.items()})
    if errors:
        raise SpecError(errors)
    cf = norm["compute_fabric"]
    ov = cf["oversubscription"]
    st, ib, oob, lay = norm["storage_fabric"], norm["inband"], norm["oob"], norm["layout"]
    return DesignSpec(
        name=norm["name"],
        description=norm["description"],
        servers=ServersSpec(**norm["servers"]),
        compute=ComputeFabricSpec(
            technology=cf["technology"],
            switch=cf["switch"],
            spine_switch=cf["spine_switch"],
            core_switch=cf["core_switch"],
            scalable_unit=_auto(cf["scalable_unit"]),
            leaf_ratio=Ratio.parse(ov["leaf"]),
            spine_ratio=Ratio.parse(ov["spine"]),
            tiers=_auto(cf["tiers"]),
            planes=cf["planes"],
            port_speed_gbps=_auto(cf["port_speed_gbps"]),
            reserved_node_slots=cf["reserved_node_slots"],
            fabric_managers=cf["fabric_managers"],
        ),
        storage=StorageFabricSpec(
            enabled=st["enabled"],
            technology=st["technology"],
            switch=st["switch"],
            ratio=Ratio.parse(st["oversubscription"]),
            appliances=st["appliances"],
            ports_per_appliance=st["ports_per_appliance"],
        ),
        inband=InbandSpec(
            enabled=ib["enabled"],
            switch=ib["switch"],
            ratio=Ratio.parse(ib["oversubscription"]),
            management_servers=ib["management_servers"],
        ),
        oob=OobSpec(**oob),
        layout=LayoutSpec(**{k: _auto(v) if k in _LAYOUT_AUTO else v for k, v in lay.items()}),
        physical=norm["physical"],
        qos=norm["qos"],
        workloads=norm["workloads"],
        exports=ExportsSpec(**norm["exports"]),
        monitoring=norm["monitoring"],
        procurement=ProcurementSpec(**norm["procurement"]),
        site=_site(norm["site"]),
        normalized=json.dumps(
            {"schema_version": SCHEMA_VERSION, **_hashed_sections(norm)}, sort_keys=True, separators=(",", ":")
        ),
    )


# Sections added after designs were stored, left out of the normalized text while unset: a spec that does not
# use them keeps the hash it had before they existed, so compute de-duplication still finds its old revisions.
_HASHED_ONLY_WHEN_SET = ("monitoring",)


# Sections added later that stay out of the normalized text while they hold only their defaults (same reason).
_HASHED_ONLY_WHEN_CHANGED = {
    "procurement": {k: f.default for k, f in PROCUREMENT.items()},
    "site": {k: f.default for k, f in SITE.items()},
}


def _site(site: dict) -> SiteSpec:
    raw = site["pathways_m"] if site["pathways_m"] is not None else {}
    if not isinstance(raw, Mapping):
        raise SpecError.at("site.pathways_m", 'must be a mapping of hall number to metres, e.g. {"2": 150}')
    pathways = {}
    for k, v in raw.items():
        k = str(k)
        if not k.isdigit() or not 2 <= int(k) <= MAX_HALLS:
            raise SpecError.at(
                f"site.pathways_m.{k[:20]}", f"must name a hall number from 2 to {MAX_HALLS} (hall 1 holds the MDA)"
            )
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= MAX_PATHWAY_M:
            raise SpecError.at(f"site.pathways_m.{k}", f"must be a number of metres from 0 to {MAX_PATHWAY_M:,}")
        pathways[int(k)] = float(v)
    return SiteSpec(
        max_racks_per_hall=site["max_racks_per_hall"],
        pathway_m=float(site["pathway_m"]),
        pathways_m=tuple(sorted(pathways.items())),
        split_pods=site["split_pods"],
    )


def _hashed_sections(norm: dict) -> dict:
    return {
        k: v
        for k, v in norm.items()
        if not (k in _HASHED_ONLY_WHEN_SET and v is None) and _HASHED_ONLY_WHEN_CHANGED.get(k, object()) != v
    } | {k: _without_unset(norm[k], keys) for k, keys in _FIELDS_HASHED_ONLY_WHEN_SET.items() if k in norm}


# Fields added to a section after designs were stored: out of the normalized text while null (same reason).
_FIELDS_HASHED_ONLY_WHEN_SET = {"oob": ("aggregation_switch",)}


def _without_unset(section, keys: tuple[str, ...]):
    if not isinstance(section, dict):
        return section
    return {k: v for k, v in section.items() if not (k in keys and v is None)}


def _policy_errors(norm: dict) -> list[FieldError]:
    """The `physical` and `qos` sections checked by the parsers that read them at compute time.

    Only validated: the spec keeps what the user wrote. The QoS policy is read for the compute fabric's
    technology; when that technology is itself wrong (reported by normalize), the policy waits for it.
    """
    errors: list[FieldError] = []
    physical = norm.get("physical")
    if physical is not None:
        if not isinstance(physical, Mapping):
            errors.append(FieldError("physical", "must be a mapping"))
        else:
            try:
                MediaPolicy.from_dict(physical)
            except SpecError as exc:
                errors += exc.errors
    monitoring = norm.get("monitoring")
    if monitoring is not None:
        from .monitoring.settings import MonitoringSettings

        try:
            MonitoringSettings.from_dict(monitoring)
        except SpecError as exc:
            errors += exc.errors
    qos = norm.get("qos")
    cf = norm.get("compute_fabric")
    technology = cf.get("technology") if isinstance(cf, Mapping) else None
    if qos is not None and technology in QOS_TECHNOLOGIES:
        try:
            QosPolicy.from_dict(qos, technology)
        except SpecError as exc:
            errors += exc.errors
    return errors


def load_spec_text(text: str, max_chars: int = DEFAULT_MAX_CHARS) -> DesignSpec:
    """Parse YAML or JSON text (JSON is YAML) into a DesignSpec: plain data only, no aliases, bounded
    depth and size (engine/yamlsafe.py); a refusal names its line and column."""
    try:
        data = load_user_yaml(text, max_chars=max_chars)
    except UserYamlError as exc:
        raise SpecError([FieldError("", str(exc))]) from None
    return parse_spec(data)


def spec_json_schema() -> dict:
    schema = json_schema(SPEC_FIELDS, title="fabricdesign design spec")
    schema["properties"]["schema_version"] = {
        "const": SCHEMA_VERSION,
        "description": f"Version of the spec layout; may be left out, and only {SCHEMA_VERSION} is read.",
    }
    return schema
