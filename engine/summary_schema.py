"""JSON Schema (draft 2020-12) of summary.json: the shape docs/summary.md describes, for clients and the API.

Objects stay open (a later engine may add keys; readers ignore what they do not know); `required` lists only
what every summary has had since schema version 1, so revisions stored by an older engine still conform.
Sections that appear only with a physical layer, workloads or spine choices are typed but optional.
"""

from __future__ import annotations

from .model import ALL_TIERS, NETWORKS
from .physical_stage import BOM_CATEGORIES

_RATIO = "Reduced ratio such as 1:1 or 3:1."


def _int(description: str = "", minimum: int = 0) -> dict:
    return {"type": "integer", "minimum": minimum, **({"description": description} if description else {})}


def _num(description: str = "") -> dict:
    return {"type": "number", **({"description": description} if description else {})}


def _str(description: str = "") -> dict:
    return {"type": "string", **({"description": description} if description else {})}


def _nullable(schema: dict) -> dict:
    description = schema.pop("description", None)
    out: dict = {"anyOf": [schema, {"type": "null"}]}
    if description:
        out["description"] = description
    return out


def _object(properties: dict, required=(), description: str = "") -> dict:
    out: dict = {"type": "object", "properties": properties}
    if required:
        out["required"] = list(required)
    if description:
        out["description"] = description
    return out


def _map(values: dict, description: str) -> dict:
    return {"type": "object", "additionalProperties": values, "description": description}


# What a link of each tier joins; a network's `links` holds only its own tiers (engine/model.py TIERS).
TIER_HELP = {
    "node-leaf": "Server NIC ports to leaves.",
    "ufm-leaf": "Compute and InfiniBand storage: fabric-manager (UFM) appliances to reserved leaf ports.",
    "appliance-leaf": "Storage: storage appliances to leaves.",
    "mgmt-leaf": "In-band: management servers to leaves.",
    "leaf-spine": "Leaves to spines.",
    "spine-core": "Compute, 3-tier fabrics: spines to cores.",
    "device-oob": "OOB: management ports of servers, switches, appliances and PDUs to OOB switches.",
    "oob-uplink": "OOB: OOB switches to the aggregation switches.",
}

# The OOB network fills the leaf and spine roles with its per-rack and aggregation switches.
_ROLE_HELP = {
    "leaf": "leaf (OOB: per-rack OOB switch)",
    "spine": "spine (OOB: aggregation switch)",
    "core": "core (3-tier compute fabrics only)",
}


def _per_role(what: dict, description: str, field: str) -> dict:
    return _object(
        {r: {**what, "description": field.format(role=_ROLE_HELP[r])} for r in ("leaf", "spine", "core")},
        description=description,
    )


def _per_tier(description: str) -> dict:
    # TIER_HELP[t], not .get: a tier added to the engine without a meaning stops the schema from being built
    return _object({t: _int("Links: " + TIER_HELP[t]) for t in ALL_TIERS}, description=description)


_OVERSUBSCRIPTION = _object(
    {"leaf": _nullable(_str(_RATIO)), "spine": _nullable(_str("Null outside 3-tier fabrics. " + _RATIO))},
    required=("leaf", "spine"),
    description="Oversubscription as built, per tier.",
)


def _network(description: str) -> dict:
    return {**_NETWORK, "description": description}


_NETWORK = _object(
    {
        "technology": {"enum": ["infiniband", "ethernet"], "description": "Compute fabric only."},
        "planes": _int("Compute fabric only.", 1),
        "tiers": _int("Switch tiers (1 for a single storage or in-band layer).", 1),
        "port_speed_gbps": _int("Link speed of the fabric ports, Gb/s.", 1),
        "scalable_unit": _int("Compute fabric: servers per scalable unit."),
        "scalable_units": _int("Compute fabric: scalable units."),
        "pods": _int("Compute fabric: pods (0 outside 3-tier fabrics)."),
        "reserved_node_slots": _int("Compute fabric: node slots held back on the last SU's leaves."),
        "switch_models": _per_role(
            _nullable(_str()),
            "Catalog key of the switch model per role (null: none).",
            "Catalog key of the {role} model; null: the network has no such switch.",
        ),
        "switches": _per_role(
            _int(),
            "Switch count per role, all planes (OOB: leaf = per-rack, spine = aggregation).",
            "Switches in the {role} role, all planes.",
        ),
        "links": _per_tier("Link count per tier of this network."),
        "oversubscription": _OVERSUBSCRIPTION,
        "injection_gbps_per_gpu": _num("Compute fabric: NIC bandwidth per GPU, all planes."),
        "bisection_gbps": _num("Compute fabric: bandwidth across the worst cut that halves the GPUs."),
        "pdus": _int("OOB only: PDU management ports."),
    },
    required=("switch_models", "switches", "links", "port_speed_gbps"),
)

_FIBER_COUNTS = _object(
    {
        "active": _int("Lit fibers: 2 per optical lane."),
        "installed": _int(
            "Fibers installed: direct cord fibers, or trunk fibers in panel mode (active + dark + spare)."
        ),
        "dark": _int("Unlit fibers in used legs (e.g. MPO-12 positions 5-8 with 4-lane optics)."),
        "spare": _int("Fibers of unused trunk legs."),
    },
    required=("active", "installed", "dark", "spare"),
    description="Fiber strands counted on end-to-end paths (docs/physical-layer.md, fiber counts).",
)

BOM_LINE = _object(
    {
        "sku": _str("Part number (or catalog key)."),
        "description": _str("Supplier-grade description: vendor, part number, what it is, length."),
        "category": {"enum": list(BOM_CATEGORIES), "description": "BOM category."},
        "quantity": _int("Units needed, before spares."),
        "watts": _nullable(_num("Maximum power of the line (all units); null without a figure.")),
        "unconfirmed": _str("Why to verify before ordering, or empty."),
    },
    required=("sku", "description", "category", "quantity", "watts", "unconfirmed"),
)

NETWORK_HELP = {
    "compute": "The compute fabric.",
    "storage": "The storage fabric (when enabled).",
    "inband": "The in-band management network (when enabled).",
    "oob": "The out-of-band management network (when enabled).",
}

_SUMMARY_PROPERTIES: dict = {
    "name": _str("Design name."),
    "schema_version": {"const": 1, "description": "Version of this summary layout."},
    "engine_version": _str("Version of the engine that computed it."),
    "catalog_version": _str("Version of the catalog data it used."),
    "server_model": _str("Server model (catalog key)."),
    "servers": _int("Servers as specified."),
    "gpus": _int("GPUs of all servers."),
    "networks": _object(
        {n: _network(NETWORK_HELP[n]) for n in NETWORKS},
        description="One entry per network built: compute, and when enabled the others.",
    ),
    "oversubscription": _OVERSUBSCRIPTION,
    "bisection_gbps": _num("The compute fabric's bisection bandwidth, Gb/s."),
    "devices": _int("All devices of all networks (servers, switches, appliances, PDUs)."),
    "links_total": _int("All links of all networks."),
    "racks": {
        "type": "object",
        "properties": {"total": _int("All racks.")},
        "required": ["total"],
        "additionalProperties": _int(),
        "description": "Racks: total, and per kind (server, network, spine, core, services).",
    },
    "rows": _int("Rows on the floor plan."),
    "power_kw": _object(
        description="Maximum power of all devices, as far as their models have a figure.",
        properties={
            "known_total": _num("Summed maximum power of the devices whose model has a figure, kW."),
            "models_without_figure": {"type": "array", "items": _str(), "description": "Models without a figure."},
        },
        required=("known_total", "models_without_figure"),
    ),
    "run_length_m": _map(
        _object(
            {
                "total": _num("Summed run length, m."),
                "min": _num("Shortest run, m."),
                "max": _num("Longest run, m."),
                "mean": _num("Mean run, m."),
                "links": _int("Links of this network and tier."),
            },
            required=("total", "min", "max", "mean", "links"),
        ),
        "Per `<network>/<tier>`: run lengths in metres before rounding to stocked lengths.",
    ),
    "warnings": {"type": "array", "items": _str(), "description": "Design warnings (also shown in the UI)."},
    "notes": {"type": "array", "items": _str(), "description": "Design notes (shown under the warnings)."},
    "rack_power": _object(
        description="Known power draw of the racks against their budgets.",
        properties={
            "budget_kw": _object(
                {
                    "server": _nullable(_num("Server racks' budget (layout.rack_power_kw); null: none.")),
                    "network": _nullable(
                        _num("Network racks' budget (network_budget_from says where it comes from); null: none.")
                    ),
                },
                description="kW budget of server and network racks.",
            ),
            "network_budget_from": _str("Where the network racks' budget comes from."),
            "max_kw": _map(_num(), "Highest known draw of a rack of each kind, kW."),
            "over_budget": {
                "type": "array",
                "items": _object(
                    {
                        "rack": _str("Rack id."),
                        "kind": _str("Rack kind (server, network, spine, core, services)."),
                        "kw": _num("Known draw of the rack (devices with a power figure), kW."),
                        "budget_kw": _num("The rack's budget, kW."),
                    },
                    required=("rack", "kind", "kw", "budget_kw"),
                ),
                "description": "Every rack above its budget.",
            },
        },
    ),
    "spine_choices": _map(
        {
            "type": "object",
            "description": "spines, spine_ports, ports_used_per_spine, uplinks, options (docs/summary.md).",
        },
        "Per network: cheaper valid spine counts than the built one.",
    ),
    "counting": _object(
        {
            "conventions": _map(_str(), "What each count means."),
            "networks": _map({"type": "object"}, "Per network: planes, transceivers, trunks and per tier counts."),
            "references": {
                "type": "array",
                "items": {"type": "object"},
                "description": "Published reference-architecture counts of the same shape, compared.",
            },
        },
        description="What the counts mean and how they compare with published references.",
    ),
    "fibers": _object(
        {
            "total": _FIBER_COUNTS,
            "per_network": _map(_FIBER_COUNTS, "Per network."),
            "per_tier": _map(_FIBER_COUNTS, "Per tier name, all networks together."),
        },
        description="Physical layer: fiber strands.",
    ),
    "bom": {"type": "array", "items": BOM_LINE, "description": "Physical layer: bill of materials, before spares."},
    "loss_budget": _object(
        {
            "pass": _int("Optical links with a margin of at least physical.loss.marginal_threshold_db."),
            "marginal": _int("Optical links with a margin from 0 up to that threshold."),
            "fail": _int("Optical links whose loss exceeds their PMD's channel limit (negative margin)."),
            "copper": _int("Links with no optical budget to check: copper (link status n/a)."),
            "no_medium": _int("Links no catalog part fits (link status no-medium)."),
        },
        description="Physical layer: links per loss-budget verdict.",
    ),
    "cables_total": _int("Physical layer: cables."),
    "trunks_total": _int("Physical layer: trunk cables."),
    "site": _object(
        {
            "halls": _int("Data halls (docs/site-model.md); the section appears only with more than one."),
            "racks_per_hall": {"type": "array", "items": _int(), "description": "Racks in hall 1, 2, ..."},
            "inter_hall_links": _int("Links whose ends stand in different halls."),
            "inter_hall_trunks": _int("Single-mode trunks between halls (each with a patch panel at both ends)."),
            "inter_hall_trunk_m": _num("Total ordered length of those trunks in metres."),
        },
        description="Physical layer, designs over several halls: the halls and what runs between them.",
    ),
    "worst_links": {
        "type": "array",
        "items": _object(
            {
                "link": _str("Link id, as in links.csv (L000001...)."),
                "margin_db": _num("Loss margin, dB: the PMD's channel limit minus the channel's loss."),
            },
            required=("link", "margin_db"),
        ),
        "description": "Physical layer: the links with the least loss margin.",
    },
    "completeness": _object(
        {
            "complete": {"type": "boolean", "description": "Every link has a part."},
            "links_without_part": _int("Links no catalog part fits, all networks."),
            "missing": {
                "type": "array",
                "items": _object(
                    {
                        "network": {"enum": list(NETWORKS), "description": "Network."},
                        "tier": {"enum": list(ALL_TIERS), "description": "Tier."},
                        "links": _int("Links of this network and tier without a part."),
                        "reason": _str("Why no catalog part fits (the first case found)."),
                    },
                    required=("network", "tier", "links", "reason"),
                ),
                "description": "Per network and tier: links and the reason no part fits.",
            },
            "unconfirmed": {
                "type": "array",
                "items": _object(
                    {
                        "sku": _str("Part number of the BOM line."),
                        "category": {"enum": list(BOM_CATEGORIES), "description": "BOM category of the line."},
                        "reason": _str("Why to verify it before ordering."),
                    },
                    required=("sku", "category", "reason"),
                ),
                "description": "Lines to verify before ordering.",
            },
        },
        description="Physical layer: whether every link has a part.",
    ),
    "workloads": _map(
        {"type": "object", "description": "The profile's analysis: settings, figures and verdict (docs/traffic.md)."},
        "With workloads in the spec: per profile name, its analysis.",
    ),
}

# What summarize() has always written; the rest came later or only with a physical layer.
_REQUIRED = (
    "name",
    "schema_version",
    "server_model",
    "servers",
    "gpus",
    "networks",
    "oversubscription",
    "bisection_gbps",
    "devices",
    "links_total",
    "racks",
    "rows",
    "power_kw",
    "run_length_m",
    "warnings",
)


def summary_json_schema() -> dict:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "fabricdesign summary.json",
        "description": "A computed revision's summary (docs/summary.md). Counts are integers; lengths metres; "
        "bandwidths Gb/s.",
        **_object(_SUMMARY_PROPERTIES, required=_REQUIRED),
    }
