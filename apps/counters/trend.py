"""A link's counter trend as a small inline SVG: per end, the errors counted since its baseline at each reading
(resets do not pull the line down: an interval after a reset adds what accumulated since the reset)."""

from __future__ import annotations

from django.utils.html import escape

ERROR_COUNTERS = ("symbol_errors", "link_error_recovery", "link_downed", "rcv_errors", "fec_uncorrectable")
W, H, PAD = 240, 56, 6
COLOURS = {"a": "#b3261e", "b": "#1f5fa8"}


def trend_points(drift: dict) -> list[tuple[float, int, bool]]:
    """[(time, cumulative errors since the baseline, a reset happened in the interval ending here)]."""
    total = 0
    pts = [(drift["baseline_at"], 0, False)]
    for iv in drift["intervals"]:
        total += sum(iv["deltas"].get(k, 0) for k in ERROR_COUNTERS)
        pts.append((iv["end"], total, bool(iv["resets"])))
    return pts


def trend_svg(link: dict) -> str:
    ends = {end: trend_points(d) for end, d in link["drift"].items()}
    times = [t for pts in ends.values() for t, _, _ in pts]
    top = max([n for pts in ends.values() for _, n, _ in pts] + [1])
    t0, t1 = min(times), max(times)
    span = (t1 - t0) or 1.0

    def xy(t: float, n: int) -> tuple[float, float]:
        return (PAD + (W - 2 * PAD) * (t - t0) / span, H - PAD - (H - 2 * PAD) * n / top)

    parts = [
        f'<svg class="counter-trend" viewBox="0 0 {W} {H}" width="{W}" height="{H}" role="img" '
        f'aria-label="Errors since baseline, {escape(link["link"])}">'
    ]
    for end, pts in ends.items():
        coords = [xy(t, n) for t, n, _ in pts]
        line = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
        parts.append(
            f'<polyline class="end-{end}" data-end="{end}" fill="none" stroke="{COLOURS.get(end, "#444")}" '
            f'stroke-width="1.5" points="{line}"/>'
        )
        for (x, y), (_, n, reset) in zip(coords, pts):
            title = f"end {end}: {n} errors since baseline" + (" (counters reset before this reading)" if reset else "")
            shape = "rect" if reset else "circle"
            if reset:
                parts.append(
                    f'<rect class="reset" x="{x - 3:.1f}" y="{y - 3:.1f}" width="6" height="6" '
                    f'fill="{COLOURS.get(end, "#444")}"><title>{escape(title)}</title></rect>'
                )
            else:
                parts.append(
                    f'<{shape} cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="{COLOURS.get(end, "#444")}">'
                    f"<title>{escape(title)}</title></{shape}>"
                )
    parts.append("</svg>")
    return "".join(parts)
