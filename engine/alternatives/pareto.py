"""The Pareto front: the candidates no other candidate beats on every objective at once."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def dominates(a: Sequence[float], b: Sequence[float]) -> bool:
    """a is no worse than b on every objective (all minimised) and better on one."""
    return all(x <= y for x, y in zip(a, b, strict=True)) and any(x < y for x, y in zip(a, b, strict=True))


def pareto_front(items: Sequence[T], key: Callable[[T], Sequence[float | None]]) -> list[bool]:
    """For each item, whether it is on the front. An item with a missing value (None) on some objective is
    judged on the objectives every item has, so an unpriced price list still gives a front."""
    vectors = [list(key(i)) for i in items]
    usable = [j for j in range(len(vectors[0]) if vectors else 0) if all(v[j] is not None for v in vectors)]
    pts = [tuple(float(v[j]) for j in usable) for v in vectors]  # type: ignore[arg-type]
    return [not any(dominates(q, p) for q in pts if q is not p) for p in pts]
