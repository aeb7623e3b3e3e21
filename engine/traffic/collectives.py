"""Where a parallel group's GPUs sit, and what one collective costs on that placement.

Placement model: the job's ranks are laid on the design's GPUs in order, starting at GPU 0 (the
first SU of the first pod). Rank r sits on GPU r, so its NVLink domain is r // nvlink_domain_gpus,
its SU r // gpus_per_su and its pod r // gpus_per_pod. Within a rank, the parallel dimensions vary
in `rank_order`, innermost first: with the Megatron default tp-cp-dp-pp a tensor-parallel group is
t consecutive ranks, a data-parallel group has stride t·c, and a pipeline group stride t·c·d.

Byte formulas (reference fabrics-qos-traffic.md D.1, NCCL-tests definitions; S = the operation's
buffer, n = group size):

  all-reduce      each rank sends 2(n-1)/n · S
  reduce-scatter  each rank sends (n-1)/n · S   (S = the whole array, NCCL's "total array")
  all-gather      each rank sends (n-1)/n · S   (S = the whole gathered array)
  all-to-all      each rank sends (n-1)/n · S   (S = the rank's own buffer)
  send/recv       each rank sends S per message

Rail-aligned hierarchical version (D.1, derived): with k group members per NVLink domain and
N = n/k domains, the ring/tree across domains runs on each rail separately and carries only 1/k of
the buffer: a NIC sends 2(N-1)/N · S/k for an all-reduce (about 2S/g for a whole node), (N-1)/N · S/k
for reduce-scatter or all-gather. The NVLink phases (reduce-scatter / all-gather inside the domain)
move 2(k-1)/k · S resp. (k-1)/k · S per GPU. An all-to-all cannot be reduced: the bytes for the
n-k peers outside the domain, (n-k)/n · S, leave through the NIC.

"Flat ring" is the topology-unaware model of the seed articles: every byte a rank sends in the
collective crosses its NIC, i.e. per NIC = 2(n-1)/n · S for an all-reduce. (NCCL builds node-aware
multi-channel rings, which come close to the hierarchical figure; the flat figure is the upper bound
a design must survive when collectives are not topology-aware.)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import pairwise

from .fabric import FabricFacts

KINDS = ("all-reduce", "reduce-scatter", "all-gather", "all-to-all", "send-recv")


def rank_strides(sizes: dict[str, int], order: tuple[str, ...]) -> dict[str, int]:
    """Stride of each dimension: the product of the sizes of the dimensions inside it."""
    stride, out = 1, {}
    for dim in order:
        out[dim] = stride
        stride *= sizes[dim]
    return out


def group_ranks(axes: list[tuple[int, int]]) -> list[int]:
    """Ranks of the group that contains rank 0; `axes` = [(stride, size), ...]."""
    ranks = [0]
    for stride, size in axes:
        ranks = [r + i * stride for r in ranks for i in range(size)]
    return sorted(ranks)


@dataclass(frozen=True)
class Geometry:
    """How one group (the one containing rank 0; all groups are alike) spreads over the fabric."""

    size: int
    per_nvlink: int  # k: members per NVLink domain (largest count over the domains it touches)
    nvlink_domains: int  # N: NVLink domains touched
    sus: int
    per_su: int
    pods: int
    per_pod: int
    ring_crossings: dict  # send/recv groups: fraction of neighbour pairs that cross nvlink/su/pod

    def to_dict(self) -> dict:
        return {
            "size": self.size,
            "members_per_nvlink_domain": self.per_nvlink,
            "nvlink_domains": self.nvlink_domains,
            "scalable_units": self.sus,
            "pods": self.pods,
        }


def geometry(ranks: list[int], facts: FabricFacts) -> Geometry:
    def spread(width: int) -> tuple[int, int]:
        if width <= 0:
            return 1, len(ranks)
        c = Counter(r // width for r in ranks)
        return len(c), max(c.values())

    nd, k = spread(facts.nvlink_domain_gpus)
    ns, qs = spread(facts.gpus_per_su)
    npod, qp = spread(facts.gpus_per_pod) if facts.gpus_per_pod else (1, len(ranks))
    pairs = list(pairwise(ranks))
    cross = {}
    for key, width in (("nvlink", facts.nvlink_domain_gpus), ("su", facts.gpus_per_su), ("pod", facts.gpus_per_pod)):
        if not pairs or not width:
            cross[key] = 0.0
        else:
            cross[key] = sum(1 for a, b in pairs if a // width != b // width) / len(pairs)
    return Geometry(
        size=len(ranks), per_nvlink=k, nvlink_domains=nd, sus=ns, per_su=qs, pods=npod, per_pod=qp, ring_crossings=cross
    )


def wire_factor(kind: str, n: int) -> float:
    """Bytes each rank sends per byte of buffer S (NCCL-tests busbw factors, reference D.1)."""
    if n <= 1:
        return 0.0
    if kind == "all-reduce":
        return 2 * (n - 1) / n
    if kind in ("reduce-scatter", "all-gather", "all-to-all"):
        return (n - 1) / n
    if kind == "send-recv":
        return 1.0
    raise ValueError(kind)


def hierarchical_split(kind: str, g: Geometry) -> tuple[float, float]:
    """(NIC bytes, NVLink bytes) per GPU per byte of buffer S for the rail-aligned hierarchical algorithm."""
    n, k, N = g.size, g.per_nvlink, g.nvlink_domains
    if n <= 1:
        return 0.0, 0.0
    if kind == "send-recv":
        # The worst GPU is one at a stage boundary that leaves the NVLink domain.
        return (1.0, 0.0) if g.ring_crossings["nvlink"] > 0 else (0.0, 1.0)
    if N <= 1:
        return 0.0, wire_factor(kind, n)
    if kind == "all-reduce":
        return 2 * (N - 1) / N / k, 2 * (k - 1) / k
    if kind in ("reduce-scatter", "all-gather"):
        return (N - 1) / N / k, (k - 1) / k
    if kind == "all-to-all":
        return (n - k) / n, (k - 1) / n
    raise ValueError(kind)


def flat_nic_factor(kind: str, g: Geometry) -> float:
    """NIC bytes per GPU per byte of S when the collective ignores the topology (flat ring)."""
    if g.size <= 1:
        return 0.0
    if kind == "send-recv":
        return 1.0 if g.ring_crossings["nvlink"] > 0 else 0.0
    if g.nvlink_domains <= 1:
        return 0.0
    return wire_factor(kind, g.size)


def tier_fractions(kind: str, g: Geometry, hierarchical: bool) -> dict[str, float]:
    """Share of a GPU's NIC bytes that leave its SU ("su") and its pod ("pod").

    Uniform-peer model (derived, L): a member talks to its peers evenly, so the share leaving the SU is
    (peers outside the SU) / (peers reached through the NIC). For the hierarchical all-reduce the peers
    are the N domains on the rail, q = per_su/k of them inside the SU: (N - q) / (N - 1). Pipeline
    send/recv uses the share of neighbouring stage pairs that cross the boundary.
    """
    out = {}
    for tier, count, per in (("su", g.sus, g.per_su), ("pod", g.pods, g.per_pod)):
        if count <= 1 or g.size <= 1:
            out[tier] = 0.0
        elif kind == "send-recv":
            out[tier] = g.ring_crossings[tier] / g.ring_crossings["nvlink"] if g.ring_crossings["nvlink"] else 0.0
        elif hierarchical and kind != "all-to-all":
            N, q = g.nvlink_domains, per / g.per_nvlink
            out[tier] = (N - q) / (N - 1) if N > 1 else 0.0
        else:
            k = g.per_nvlink if hierarchical else 1
            out[tier] = (g.size - per) / (g.size - k) if g.size > k else 0.0
    return out


def slowdown(fractions: dict[str, float], facts: FabricFacts) -> tuple[float, str | None]:
    """Stretch of a scale-out collective by oversubscribed uplinks, and the tier that causes it.

    When every NIC under a leaf sends the same pattern at once (all data-parallel groups synchronise
    together), a leaf's uplinks carry a share f of its downlink traffic but have 1/R of its capacity,
    so the NICs can only run at 1/(f·R) of line rate when f·R > 1. Traffic leaving a pod also passes
    the spine uplinks: their capacity per NIC is 1/(R_leaf·R_spine).
    """
    r_leaf = facts.tier_ratios.get("leaf", 1.0)
    r_spine = facts.tier_ratios.get("spine", 1.0) if facts.gpus_per_pod else 1.0
    candidates = [
        (1.0, None),
        (fractions.get("su", 0.0) * r_leaf, "leaf"),
        (fractions.get("pod", 0.0) * r_leaf * r_spine, "spine"),
    ]
    value, tier = max(candidates, key=lambda x: x[0])
    return (value, tier) if value > 1.0 else (1.0, None)
