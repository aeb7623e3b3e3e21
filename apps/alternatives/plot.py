"""The scatter plot's geometry: cost (x) against worst blast radius (y), in SVG user units, computed here so
the template draws plain SVG with presentation attributes (no inline style, no script)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from engine.alternatives.judge import objective_value

from .models import Candidate

W, H, PAD = 640, 360, 48


def _scale(values: list[float], lo_px: float, hi_px: float) -> Callable[[float], float]:
    lo, hi = min(values), max(values)
    span = (hi - lo) or 1.0
    return lambda v: lo_px + (v - lo) / span * (hi_px - lo_px)


def scatter(candidates: Iterable[Candidate]) -> dict:
    """{points: [{index, x, y, verdict, pareto, label}], x_axis, y_axis}; the x axis is cost when every
    candidate is priced, else power (kW), and says which."""
    cands = list(candidates)
    if not cands:
        return {"points": [], "width": W, "height": H}
    priced = all(c.figures.get("cost") is not None for c in cands)
    x_name, x_title = ("cost", "cost (priced BOM)") if priced else ("power", "power (kW): not every line is priced")
    xs = [float(objective_value(c.figures, x_name) or 0) for c in cands]
    ys = [float(c.figures.get("blast_radius_gpus") or 0) for c in cands]
    sx = _scale(xs, PAD, W - PAD / 2)
    sy = _scale([0.0, *ys], H - PAD, PAD / 2)
    points = [
        {
            "index": c.index,
            "x": round(sx(x), 1),
            "y": round(sy(y), 1),
            "verdict": c.figures.get("traffic_worst") or "none",
            "pareto": c.pareto,
            "label": f"#{c.index} {c.label}: {x_title.split(' (')[0]} {x:,.2f}, {int(y)} GPUs",
        }
        for c, x, y in zip(cands, xs, ys, strict=True)
    ]
    front = sorted((p for p in points if p["pareto"]), key=lambda p: p["x"])
    return {
        "points": points,
        "front": " ".join(f"{p['x']},{p['y']}" for p in front),
        "width": W,
        "height": H,
        "x_title": x_title,
        "x_min": f"{min(xs):,.0f}",
        "x_max": f"{max(xs):,.0f}",
        "y_max": int(max(ys)),
        "pad": PAD,
        "x_axis_y": H - PAD,
        "y_axis_top": PAD / 2,
        "x_axis_end": W - PAD / 2,
    }
