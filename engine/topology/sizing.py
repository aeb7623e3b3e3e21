"""Sizing rules of rail-optimized fat trees (fabrics-qos-traffic.md A.3), as small pure functions.

- A leaf splits its ports into downlinks and uplinks at the leaf ratio (bandwidth, equal speeds).
- Even striping: a leaf sends the same number of links to every spine of its group, so the spine
  count divides the leaf's uplink count; choose the smallest such count whose spines have enough
  ports. The same rule links spines to core groups in three tiers.
"""

from __future__ import annotations

from fractions import Fraction

from ..errors import EngineInvariantError
from ..spec import Ratio


def divisors(n: int) -> list[int]:
    small = [d for d in range(1, int(n**0.5) + 1) if n % d == 0]
    return sorted(set(small + [n // d for d in small]))


def ratio_fraction(r: Ratio) -> Fraction:
    """Down/up as an exact fraction; ratios are given with at most a few decimals."""
    return Fraction(str(r.down)) / Fraction(str(r.up))


def uplinks_for(down: int, r: Ratio) -> int | None:
    """Uplinks that give exactly `down : up == r`, or None when that is not a whole number."""
    up = Fraction(down) / ratio_fraction(r)
    return int(up) if up.denominator == 1 and up >= 1 else None


def split_auto(radix: int, r: Ratio, step: int = 1) -> tuple[int, int] | None:
    """The largest (down, up) with down a multiple of `step`, down:up == r exactly, down + up <= radix."""
    for down in range(radix - (radix % step), 0, -step):
        up = uplinks_for(down, r)
        if up is not None and down + up <= radix:
            return down, up
    return None


def split_one_to_one(radix: int) -> tuple[int, int]:
    """split_auto at 1:1 (appliance leaves): a switch that passed any other split has the two ports it needs."""
    split = split_auto(radix, Ratio(1, 1))
    if split is None:
        raise EngineInvariantError(f"no 1:1 split of a {radix}-port switch")
    return split


def smallest_even_stripe(uplinks: int, senders: int, receiver_ports: int) -> int | None:
    """Fewest receivers such that each sender sends uplinks/receivers links to each and none overflows.

    Example (A.3 worked example): 8 leaves with 32 uplinks onto 64-port spines -> 4 spines, 8 links
    from each leaf to each spine.
    """
    for count in divisors(uplinks):
        if senders * (uplinks // count) <= receiver_ports:
            return count
    return None


def nearest_valid_su(su: int, ports_per_server: int, radix: int, r: Ratio, limit: int = 2) -> list[int]:
    """SU sizes nearest to `su` whose leaf split works at ratio r (for error messages)."""

    def ok(s: int) -> bool:
        down = s * ports_per_server
        up = uplinks_for(down, r)
        return up is not None and down + up <= radix

    below = [s for s in range(su - 1, 0, -1) if ok(s)][:limit]
    above = [s for s in range(su + 1, su + radix + 1) if ok(s)][:limit]
    return sorted(below + above)


def ratio_text(down: int, up: int) -> str:
    f = Fraction(down, up)
    return f"{f.numerator}:{f.denominator}"
