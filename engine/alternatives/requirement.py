"""What a team needs, stated once: the input of a design-alternatives study (docs/alternatives.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from ..errors import FieldError, SpecError
from ..schema import parse_ratio
from ..traffic.workload import parse_workloads

NETWORKS = ("storage", "inband", "oob")  # the compute fabric is always built
OBJECTIVES = ("cost", "power", "cables", "blast_radius")
TECHNOLOGIES = ("infiniband", "ethernet")
# A study computes whole designs; this many is what one worker does in about a minute at 16K GPUs
# (bench/bench_alternatives.py). A user may ask for fewer or more, up to MAX_CANDIDATES_LIMIT.
DEFAULT_MAX_CANDIDATES = 12
MAX_CANDIDATES_LIMIT = 64


@dataclass(frozen=True)
class Requirement:
    server_model: str
    servers: int
    workloads: tuple[Any, ...] = ()  # preset names or workload mappings, as a spec's `workloads` takes them
    networks: tuple[str, ...] = ()
    technology: str | None = None  # None: either
    max_oversubscription: tuple[tuple[str, float], ...] = (("compute", 1.0),)  # network -> down/up at most
    rack_power_kw: float | None = None
    reach_limits_m: tuple[tuple[str, float], ...] = ()
    budget: Decimal | None = None
    prices: tuple[tuple[str, Decimal], ...] = ()
    currency: str | None = None
    objectives: tuple[str, ...] = OBJECTIVES
    max_candidates: int = DEFAULT_MAX_CANDIDATES

    def max_ratio(self, network: str) -> float:
        return dict(self.max_oversubscription).get(network, 1.0)

    @property
    def price_map(self) -> dict[str, Decimal]:
        return dict(self.prices)

    def to_dict(self) -> dict:
        return {
            "server_model": self.server_model,
            "servers": self.servers,
            "workloads": list(self.workloads),
            "networks": list(self.networks),
            "technology": self.technology,
            "max_oversubscription": {k: _ratio_text(v) for k, v in self.max_oversubscription},
            "rack_power_kw": self.rack_power_kw,
            "reach_limits_m": dict(self.reach_limits_m),
            "budget": None if self.budget is None else str(self.budget),
            "objectives": list(self.objectives),
            "max_candidates": self.max_candidates,
        }


def _ratio_text(v: float) -> str:
    return f"{v:g}:1"


def parse_requirement(
    data: Any, *, gpus_per_server: Mapping[str, int], prices: Mapping[str, Any] | None = None, currency=None
) -> Requirement:
    """Validate a plain mapping (API/form input) into a Requirement; SpecError names every bad field.

    Either `servers` or `gpus` (rounded up to whole servers of the model); `gpus_per_server` is the
    catalog's {server model: GPUs}."""
    if not isinstance(data, Mapping):
        raise SpecError.at("requirement", "must be an object")
    errors: list[FieldError] = []
    model = data.get("server_model")
    if not isinstance(model, str) or model not in gpus_per_server:
        errors.append(FieldError("server_model", f"unknown server model (known: {', '.join(sorted(gpus_per_server))})"))
    servers = _servers(data, model, gpus_per_server, errors)
    workloads = data.get("workloads") or []
    if not isinstance(workloads, list) or len(workloads) > 8:
        errors.append(FieldError("workloads", "must be a list of at most 8 workload presets or profiles"))
    networks = data.get("networks") or []
    if not isinstance(networks, list) or any(n not in NETWORKS for n in networks):
        errors.append(FieldError("networks", f"must be a list of {', '.join(NETWORKS)}"))
    tech = data.get("technology")
    if tech is not None and tech not in TECHNOLOGIES:
        errors.append(FieldError("technology", f"must be one of {', '.join(TECHNOLOGIES)}"))
    ratios = _ratios(data.get("max_oversubscription") or {}, errors)
    power = _positive(data.get("rack_power_kw"), "rack_power_kw", errors)
    reach = _reach(data.get("reach_limits_m") or {}, errors)
    budget = _budget(data.get("budget"), prices, errors)
    objectives = data.get("objectives") or list(OBJECTIVES)
    if not isinstance(objectives, list) or not objectives or any(o not in OBJECTIVES for o in objectives):
        errors.append(FieldError("objectives", f"must be a list of {', '.join(OBJECTIVES)}"))
    most = data.get("max_candidates", DEFAULT_MAX_CANDIDATES)
    if not isinstance(most, int) or isinstance(most, bool) or not 1 <= most <= MAX_CANDIDATES_LIMIT:
        errors.append(FieldError("max_candidates", f"must be a whole number from 1 to {MAX_CANDIDATES_LIMIT}"))
    if not errors and workloads:
        try:  # checked once here, against the GPU count, rather than refused by every candidate alike
            parse_workloads(workloads, design_gpus=int(servers or 0) * gpus_per_server[str(model)])
        except SpecError as exc:
            errors += exc.errors
    if errors:
        raise SpecError(errors)
    return Requirement(
        server_model=str(model),
        servers=int(servers or 0),
        workloads=tuple(workloads),
        networks=tuple(n for n in NETWORKS if n in networks),
        technology=tech,
        max_oversubscription=tuple(sorted(ratios.items())),
        rack_power_kw=power,
        reach_limits_m=tuple(sorted(reach.items())),
        budget=budget,
        prices=tuple(sorted((str(k), Decimal(str(v))) for k, v in (prices or {}).items())),
        currency=currency,
        objectives=tuple(o for o in OBJECTIVES if o in objectives),
        max_candidates=most,
    )


def _servers(data: Mapping, model: Any, gpus_per_server: Mapping[str, int], errors: list[FieldError]) -> Any:
    """`servers` as given, or `gpus` in whole servers of the model (once nothing before it was refused)."""
    servers = data.get("servers")
    gpus = data.get("gpus")
    if (servers is None) == (gpus is None):
        errors.append(FieldError("servers", "give either servers or gpus"))
        return servers
    n = servers if servers is not None else gpus
    fld = "servers" if servers is not None else "gpus"
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 200_000:
        errors.append(FieldError(fld, "must be a whole number from 1 to 200000"))
    elif gpus is not None and not errors:
        servers = -(-n // gpus_per_server[str(model)])
    return servers


def _ratios(raw: Any, errors: list[FieldError]) -> dict[str, float]:
    """{network: the highest oversubscription allowed}, the compute fabric's 1:1 unless given."""
    ratios: dict[str, float] = {}
    if not isinstance(raw, Mapping):
        errors.append(FieldError("max_oversubscription", "must map a network to a ratio such as 2:1"))
    else:
        for net, text in raw.items():
            r = parse_ratio(text)
            if net not in ("compute", *NETWORKS) or r is None or r[0] < r[1]:
                errors.append(FieldError(f"max_oversubscription.{net}", "must be a ratio such as 1:1 or 2:1"))
            else:
                ratios[net] = r[0] / r[1]
    ratios.setdefault("compute", 1.0)
    return ratios


def _reach(raw: Any, errors: list[FieldError]) -> dict[str, float]:
    reach: dict[str, float] = {}
    if not isinstance(raw, Mapping):
        errors.append(FieldError("reach_limits_m", "must map a medium to metres"))
        return reach
    for medium, m in raw.items():
        v = _positive(m, f"reach_limits_m.{medium}", errors)
        if v is not None:
            reach[str(medium)] = v
    return reach


def _budget(raw: Any, prices: Mapping[str, Any] | None, errors: list[FieldError]) -> Decimal | None:
    if raw in (None, ""):
        return None
    try:
        budget = Decimal(str(raw))
        if budget <= 0 or not budget.is_finite():
            raise InvalidOperation
    except InvalidOperation:
        errors.append(FieldError("budget", "must be a positive amount"))
        return None
    if not prices:
        errors.append(FieldError("budget", "a budget needs a price list to price the candidates with"))
    return budget


def _positive(v, fld: str, errors: list[FieldError]) -> float | None:
    if v in (None, ""):
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v < 1e6:
        errors.append(FieldError(fld, "must be a positive number"))
        return None
    return float(v)
