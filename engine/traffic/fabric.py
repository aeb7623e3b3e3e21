"""What the traffic analysis needs to know about a design's compute fabric.

`FabricFacts` is a small frozen record built from the engine's summary dict
(`FabricFacts.from_summary`) or written by hand in tests. Units: bandwidths in Gb/s (the
summary's unit), memory in GB (10^9 bytes), counts in GPUs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from math import ceil
from typing import Any

from ..errors import SpecError
from ..schema import parse_ratio


@dataclass(frozen=True)
class FabricFacts:
    """The compute fabric as the traffic model sees it.

    gpus                GPUs in the design (all servers).
    gpus_per_node       GPUs per server (72 for a GB200 NVL72 rack, which the catalog models as one server).
    nvlink_domain_gpus  GPUs joined by NVLink (8 for HGX/DGX, 72 for NVL72). Collectives whose group fits
                        inside one domain never touch the NICs.
    gpu_memory_gb       HBM per GPU, GB (10^9 bytes).
    nic_gbps_per_gpu    Compute-fabric injection per GPU over all planes, Gb/s (400 for one NDR NIC per GPU).
    gpus_per_su         GPUs under one scalable unit's leaves. Rail-aligned traffic between GPUs of the same
                        SU turns at the rail leaf and never uses a leaf uplink.
    gpus_per_pod        GPUs under one pod's spines (3-tier fabrics); 0 for 2-tier fabrics.
    tier_ratios         {"leaf": down/up, "spine": down/up} as floats; 1.0 = non-blocking. The spine entry
                        only matters when gpus_per_pod > 0.
    bisection_gbps      The design's bisection bandwidth as the summary reports it, Gb/s.
    """

    gpus: int
    gpus_per_node: int
    nvlink_domain_gpus: int
    gpu_memory_gb: float
    nic_gbps_per_gpu: float
    gpus_per_su: int
    gpus_per_pod: int = 0
    tier_ratios: Mapping[str, float] = field(default_factory=lambda: {"leaf": 1.0})
    bisection_gbps: float = 0.0

    def __post_init__(self) -> None:
        # A frozen dataclass must not hold a caller's mutable dict: copy it into a plain, sorted dict.
        object.__setattr__(self, "tier_ratios", {k: float(v) for k, v in sorted(dict(self.tier_ratios).items())})
        for name in ("gpus", "gpus_per_node", "nvlink_domain_gpus", "gpus_per_su"):
            if getattr(self, name) < 1:
                raise ValueError(f"FabricFacts.{name} must be >= 1")
        if self.nic_gbps_per_gpu <= 0 or self.gpu_memory_gb <= 0:
            raise ValueError("FabricFacts.nic_gbps_per_gpu and gpu_memory_gb must be > 0")

    @property
    def nic_gbytes_per_s(self) -> float:
        """Injection per GPU in GB/s: Gb/s / 8 (400 Gb/s -> 50 GB/s)."""
        return self.nic_gbps_per_gpu / 8.0

    def with_changes(self, **changes: Any) -> FabricFacts:
        data = {f: getattr(self, f) for f in self.__dataclass_fields__}
        data.update(changes)
        return FabricFacts(**data)

    def to_dict(self) -> dict:
        return {
            f: (dict(getattr(self, f)) if f == "tier_ratios" else getattr(self, f)) for f in self.__dataclass_fields__
        }

    @classmethod
    def from_summary(
        cls,
        summary: Mapping[str, Any],
        server_gpus: int,
        nvlink_domain_gpus: int,
        gpu_memory_gb: float,
        *,
        su_per_pod: int | None = None,
    ) -> FabricFacts:
        """Build the facts from `summary` (engine/summary.py) and the server model's figures.

        The summary gives servers per SU (`scalable_unit`), the SU and pod counts, but not SUs per pod.
        Pass `su_per_pod` (ComputePlan.su_per_pod) when you have it; otherwise it is taken as
        ceil(scalable_units / pods), which is exact whenever the last pod is full.
        """
        try:
            c = summary["networks"]["compute"]
            gpus = int(summary["gpus"])
            tiers = int(c["tiers"])
            ratios = {"leaf": _ratio(c["oversubscription"]["leaf"])}
            spine = c["oversubscription"].get("spine")
            if tiers == 3 and spine is not None:
                ratios["spine"] = _ratio(spine)
            gpus_per_su = int(c["scalable_unit"]) * int(server_gpus)
            gpus_per_pod = 0
            if tiers == 3:
                if su_per_pod is None:
                    su_per_pod = ceil(int(c["scalable_units"]) / max(1, int(c["pods"])))
                gpus_per_pod = int(su_per_pod) * gpus_per_su
            return cls(
                gpus=gpus,
                gpus_per_node=int(server_gpus),
                nvlink_domain_gpus=int(nvlink_domain_gpus),
                gpu_memory_gb=float(gpu_memory_gb),
                nic_gbps_per_gpu=float(c["injection_gbps_per_gpu"]),
                gpus_per_su=gpus_per_su,
                gpus_per_pod=gpus_per_pod,
                tier_ratios=ratios,
                bisection_gbps=float(c.get("bisection_gbps", 0.0)),
            )
        except (KeyError, TypeError) as exc:
            raise SpecError.at("workloads", f"the design summary lacks a compute-fabric figure ({exc})") from None


def _ratio(text: str) -> float:
    """'3:1' -> 3.0 (downlink : uplink bandwidth)."""
    parsed = parse_ratio(text)
    if parsed is None:
        raise SpecError.at("workloads", f"cannot read oversubscription {text!r}")
    return parsed[0] / parsed[1]
