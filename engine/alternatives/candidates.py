"""Candidate fabrics for a Requirement, from the choices a spec already offers.

Each candidate is a spec in the one schema (engine/spec.py). The choices varied, in the order they are
tried (the fabric-shaping ones first, so a capped study still spans different fabrics):

    compute switch model (leaf = spine = core) x leaf oversubscription (up to the requirement's maximum)
    x planes (1, 2) x tiers (auto, 3), then for each of those: cabling of the switch tiers (direct, panels)
    and the media pin (auto by reach, optical only).

A choice the save-time checks refuse (engine/guard.py: plans alone, nothing built) is dropped with the
check's message. Two choices whose plans and every other section are equal (e.g. tiers auto resolving to 3)
are the same fabric: the later one is collapsed into the first.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, fields, is_dataclass
from itertools import product
from typing import Any

from ..catalog import Catalog
from ..errors import SpecError
from ..guard import Limits, check_spec
from ..spec import DesignSpec, parse_spec
from ..topology.compute import plan_compute
from .requirement import Requirement

RATIOS = (("1:1", 1.0), ("3:2", 1.5), ("2:1", 2.0), ("3:1", 3.0))
PLANES = (1, 2)
TIERS = (None, 3)  # None: the fewest tiers that fit (the engine's auto)
CABLING = ("direct", "panels")
MEDIA = ("auto", "optical")
SWITCH_TIERS = ("leaf-spine", "spine-core")


@dataclass(frozen=True)
class Choice:
    switch: str
    ratio: str
    planes: int
    tiers: int | None
    cabling: str
    media: str

    @property
    def label(self) -> str:
        tiers = "auto tiers" if self.tiers is None else f"{self.tiers} tiers"
        planes = "1 plane" if self.planes == 1 else f"{self.planes} planes"
        return f"{self.switch} · {self.ratio} · {planes} · {tiers} · {self.cabling} · media {self.media}"

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class Candidate:
    choice: Choice
    spec_data: dict  # the spec as a user would write it
    spec: DesignSpec
    plan_key: str  # equal for the same fabric


@dataclass(frozen=True)
class Rejected:
    choice: Choice
    reason: str
    same_as: str | None = None  # the label of the candidate it duplicates


def spec_data(req: Requirement, choice: Choice, name: str, technology: str) -> dict:
    """The design spec of one choice (plain data, as parse_spec and the design form take it)."""
    cf: dict[str, Any] = {
        "technology": technology,
        "switch": choice.switch,
        "oversubscription": {"leaf": choice.ratio},
        "tiers": "auto" if choice.tiers is None else choice.tiers,
        "planes": choice.planes,
    }
    data: dict[str, Any] = {
        "name": name,
        "servers": {"model": req.server_model, "count": req.servers},
        "compute_fabric": cf,
        "storage_fabric": {"enabled": "storage" in req.networks},
        "inband": {"enabled": "inband" in req.networks},
        "oob": {"enabled": "oob" in req.networks},
        "physical": {},
    }
    if req.workloads:
        data["workloads"] = list(req.workloads)
    if req.rack_power_kw is not None:
        data["layout"] = {"rack_power_kw": req.rack_power_kw}
    phys: dict[str, Any] = data["physical"]
    if choice.cabling != "direct":
        phys["tiers"] = {t: {"cabling": choice.cabling} for t in SWITCH_TIERS}
    if choice.media != "auto":
        phys["default_tier"] = {"medium": choice.media}
        if "tiers" in phys:
            for t in phys["tiers"].values():
                t["medium"] = choice.media
    if req.reach_limits_m:
        phys["reach_limits_m"] = dict(req.reach_limits_m)
    if not phys:
        del data["physical"]
    return data


def _switches(req: Requirement, catalog: Catalog) -> list[str]:
    """Switch models that can carry the server's NIC speed on some plane count and, for InfiniBand versus
    Ethernet, the requirement's technology; management switches (no port at that speed) drop out here."""
    server = catalog.server(req.server_model)
    speeds = {server.nic_speed_gbps // p for p in PLANES if server.nic_speed_gbps % p == 0}
    out = []
    for key, sw in catalog.switches.items():
        if req.technology and req.technology not in sw.technology:
            continue
        if speeds & set(sw.speeds):
            out.append(key)
    return out


def choices(req: Requirement, catalog: Catalog) -> list[Choice]:
    ratios = [text for text, value in RATIOS if value <= req.max_ratio("compute") + 1e-9]
    shapes = list(product(_switches(req, catalog), ratios, PLANES, TIERS))
    out = [Choice(sw, r, p, t, "direct", "auto") for sw, r, p, t in shapes]
    for cabling, media in product(CABLING, MEDIA):
        if (cabling, media) != ("direct", "auto"):
            out += [Choice(sw, r, p, t, cabling, media) for sw, r, p, t in shapes]
    return out


def _canon(obj: Any) -> Any:
    if is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: _canon(getattr(obj, f.name)) for f in fields(obj)}
    if isinstance(obj, dict):
        return {str(k): _canon(v) for k, v in sorted(obj.items(), key=lambda kv: str(kv[0]))}
    if isinstance(obj, (list, tuple)):
        return [_canon(v) for v in obj]
    return obj if isinstance(obj, (str, int, float, bool, type(None))) else str(obj)


def _plan_key(spec: DesignSpec, catalog: Catalog) -> str:
    """The compute plan (every count the wiring follows) and every other section of the spec: equal keys,
    equal fabric."""
    norm = json.loads(spec.normalized)
    norm.pop("name", None)
    norm.pop("compute_fabric", None)
    blob = json.dumps([_canon(plan_compute(spec, catalog)), norm], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def enumerate_candidates(
    req: Requirement, catalog: Catalog, limits: Limits | None = None
) -> tuple[list[Candidate], list[Rejected]]:
    """Every distinct candidate the save-time checks accept, in the order above, and the rest with why."""
    kept: list[Candidate] = []
    rejected: list[Rejected] = []
    seen: dict[str, Candidate] = {}
    for choice in choices(req, catalog):
        sw = catalog.switches[choice.switch]
        data = spec_data(req, choice, choice.label, req.technology or sw.technology[0])
        try:
            spec = parse_spec(data)
            check_spec(spec, catalog, limits)
            key = _plan_key(spec, catalog)
        except SpecError as exc:
            rejected.append(Rejected(choice, str(exc)))
            continue
        if key in seen:
            rejected.append(Rejected(choice, "the same fabric as another candidate", seen[key].choice.label))
            continue
        cand = Candidate(choice, data, spec, key)
        seen[key] = cand
        kept.append(cand)
    return kept, rejected
