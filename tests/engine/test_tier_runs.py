"""summary.tier_runs: the links' (network, tier) runs, worked out once by finish_design for the checks, the summary
and the uplink diversity check. The engine's builder emits a tier's links together, so its designs have one run per
tier; these links bring a tier back in a second run, and a leaf's uplinks in two runs, which every reader must join
as a pass over the links one by one would:

    compute/leaf-spine (L0, L0, L1) | compute/node-leaf | storage/leaf-spine | compute/leaf-spine (L0, L2, L2)
"""

from __future__ import annotations

from collections import Counter, defaultdict

from engine.model import Link
from engine.physical.diversity import _uplinks
from engine.summary import _per_tier, tier_runs

L0, L1, L2, S0, S1, N0 = 0, 1, 2, 10, 11, 20


def _link(i: int, network: str, tier: str, a: int, b: int) -> Link:
    return Link(i + 1, network, 0, tier, a, f"p{i}", f"c{i}", b, f"q{i}", f"d{i}", 800)


LINKS = [
    _link(i, net, tier, a, b)
    for i, (net, tier, a, b) in enumerate(
        [
            ("compute", "leaf-spine", L0, S0),
            ("compute", "leaf-spine", L0, S1),
            ("compute", "leaf-spine", L1, S0),
            ("compute", "node-leaf", N0, L0),
            ("storage", "leaf-spine", L0, S0),
            ("compute", "leaf-spine", L0, S0),
            ("compute", "leaf-spine", L2, S0),
            ("compute", "leaf-spine", L2, S1),
        ]
    )
]
LENGTHS = [3.0, 5.5, 2.25, 7.0, 1.0, 9.5, 4.0, 6.0]


def test_runs_follow_the_links_and_a_tier_may_come_back():
    assert tier_runs(LINKS) == [
        (("compute", "leaf-spine"), 0, 3),
        (("compute", "node-leaf"), 3, 4),
        (("storage", "leaf-spine"), 4, 5),
        (("compute", "leaf-spine"), 5, 8),
    ]
    assert tier_runs([]) == []


def test_per_tier_from_runs_adds_up_as_link_by_link():
    tier_count, lengths = _per_tier(LINKS, LENGTHS, tier_runs(LINKS))
    assert tier_count == Counter((lk.network, lk.tier) for lk in LINKS)
    one_by_one: dict = {}
    for lk, m in zip(LINKS, LENGTHS):
        s = one_by_one.setdefault(f"{lk.network}/{lk.tier}", [0.0, m, m, 0])
        s[0] += m
        s[1], s[2], s[3] = min(s[1], m), max(s[2], m), s[3] + 1
    assert lengths == one_by_one
    assert _per_tier(LINKS, LENGTHS) == (tier_count, lengths)  # without runs: worked out there


def test_a_leafs_uplinks_in_two_runs_are_joined_in_link_order():
    by_leaf: dict = defaultdict(list)
    for i, lk in enumerate(LINKS):  # the pass link by link the runs replace
        if lk.tier == "leaf-spine" and lk.network == "compute":
            by_leaf[lk.a].append(i)
    expected = {leaf: idx for leaf, idx in by_leaf.items() if len(idx) >= 2}
    assert _uplinks(LINKS, tier_runs(LINKS)) == expected == {L0: [0, 1, 5], L2: [6, 7]}
    assert list(_uplinks(LINKS, tier_runs(LINKS))) == [L0, L2]  # leaves in order of their first uplink
