"""Hand-made fabrics for the traffic tests."""

from __future__ import annotations

from engine.traffic.fabric import FabricFacts


def h100(
    gpus: int,
    *,
    su_nodes: int = 32,
    pod_sus: int = 0,
    leaf: float = 1.0,
    spine: float = 1.0,
    nic: float = 400.0,
    memory: float = 80.0,
) -> FabricFacts:
    """A DGX-H100-like fabric: 8 GPUs per node and NVLink domain, one 400G NIC per GPU, 32-node SUs."""
    ratios = {"leaf": leaf, **({"spine": spine} if pod_sus else {})}
    return FabricFacts(
        gpus=gpus,
        gpus_per_node=8,
        nvlink_domain_gpus=8,
        gpu_memory_gb=memory,
        nic_gbps_per_gpu=nic,
        gpus_per_su=su_nodes * 8,
        gpus_per_pod=pod_sus * su_nodes * 8 if pod_sus else 0,
        tier_ratios=ratios,
        bisection_gbps=gpus * nic / 2,
    )
