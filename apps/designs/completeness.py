"""A revision's BOM completeness as the revision page and the API show it, read from its stored summary."""

from __future__ import annotations


def completeness_of(summary: dict | None) -> dict:
    """A revision's BOM completeness (engine summary "completeness"): complete, links_without_part, missing
    per network and tier, unconfirmed lines. Summaries stored before it existed are read from their loss
    counts ("no_medium" links) without the per-tier split."""
    summary = summary or {}
    c = summary.get("completeness")
    if c:
        return {
            "complete": bool(c.get("complete")),
            "links_without_part": int(c.get("links_without_part") or 0),
            "missing": list(c.get("missing") or []),
            "unconfirmed": list(c.get("unconfirmed") or []),
        }
    n = int(((summary.get("loss_budget") or {}).get("no_medium")) or 0)
    return {"complete": n == 0, "links_without_part": n, "missing": [], "unconfirmed": []}
