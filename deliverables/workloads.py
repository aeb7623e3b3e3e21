"""Training-workload report: verdicts, per-collective traffic, memory fit, fixes and two charts.

The figures come from `summary["workloads"]` (engine/traffic); nothing is recomputed here, so the
PDF, the page and the API show the same numbers. Charts are reportlab drawings: the same drawing
goes into the PDF and, as SVG, into the design page.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import IO, Any

from reportlab.graphics.charts.barcharts import HorizontalBarChart
from reportlab.graphics.charts.lineplots import LinePlot
from reportlab.graphics.shapes import Drawing, Line, String
from reportlab.lib import colors

from engine.result import DesignResult

from ._pdf import SANS, Column, DocInfo, FlowDoc, Graphic, Heading, Lines, PageBreak, Table, page_size, register_fonts
from .options import ExportOptions

SCOPE_COLOURS = {
    "gpu": colors.HexColor("#9aa5b1"),
    "nvlink": colors.HexColor("#3e7cb1"),
    "scale-out": colors.HexColor("#d9822b"),
}


def _gb(x: float | None) -> str:
    return "-" if x is None else f"{x / 1e9:,.3f}"


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f} %"


def step_time_chart(analysis: dict, width: float = 420, height: float = 150) -> Drawing:
    """Horizontal bars: seconds per part of the optimizer step (compute, then each collective)."""
    register_fonts()  # charts may be drawn (as SVG) before any PDF registered the embedded fonts
    chart = analysis["charts"]["step_time_breakdown"]
    bars = chart["bars"]
    d = Drawing(width, height)
    bc = HorizontalBarChart()
    bc.x, bc.y = 110, 20
    bc.width, bc.height = width - 130, height - 40  # type: ignore[assignment]  # stubs say int; any number works
    bc.data = [[b["seconds"] for b in bars]]
    bc.categoryAxis.categoryNames = [f"{b['label']} ({b['scope']})" for b in bars]
    bc.categoryAxis.labels.fontName = SANS
    bc.categoryAxis.labels.fontSize = 7
    bc.valueAxis.labels.fontName = SANS
    bc.valueAxis.labels.fontSize = 7
    bc.valueAxis.valueMin = 0
    bc.bars.strokeColor = None
    for i, b in enumerate(bars):
        bc.bars[(0, i)].fillColor = SCOPE_COLOURS.get(b["scope"], colors.grey)
    d.add(bc)
    step = chart.get("step_time_s")
    title = "Step time by part, seconds" + (f" (target step {step} s)" if step else "")
    d.add(String(10, height - 12, title, fontName=SANS, fontSize=8))
    return d


def network_share_chart(analysis: dict, width: float = 420, height: float = 170) -> Drawing:
    """Network share of the step against the data-parallel size, with the heuristic limit as a line."""
    register_fonts()
    chart = analysis["charts"]["network_share_vs_data_parallel"]
    xs = chart["x"]
    d = Drawing(width, height)
    title = f"Network share of the step (%) vs {chart.get('x_label', 'data-parallel size')}"
    if not xs or any(v is None for v in chart["no_overlap"]) or any(v is None for v in chart["with_overlap"]):
        # No step time (neither target_step_time_s nor achieved_tflops_per_gpu): there is no share to draw.
        d.add(String(10, height - 12, title, fontName=SANS, fontSize=8))
        d.add(
            String(
                width / 2,
                height / 2,
                "not evaluated: the workload gives no step time (target_step_time_s or achieved_tflops_per_gpu)",
                fontName=SANS,
                fontSize=8,
                textAnchor="middle",
                fillColor=colors.grey,
            )
        )
        return d
    lp = LinePlot()
    lp.x, lp.y = 45, 30
    lp.width, lp.height = width - 70, height - 55  # type: ignore[assignment]  # stubs say int; any number works
    series = [list(zip(xs, [100 * v for v in chart["no_overlap"]]))]
    if chart.get("with_overlap") != chart.get("no_overlap"):
        series.append(list(zip(xs, [100 * v for v in chart["with_overlap"]])))
    lp.data = series
    lp.lines[0].strokeColor = SCOPE_COLOURS["scale-out"]
    if len(series) > 1:
        lp.lines[1].strokeColor = SCOPE_COLOURS["nvlink"]
    for axis in (lp.xValueAxis, lp.yValueAxis):
        axis.labels.fontName = SANS
        axis.labels.fontSize = 7
    lp.yValueAxis.valueMin = 0
    threshold = 100 * (chart.get("threshold") or 0)
    lp.yValueAxis.valueMax = max([threshold * 1.2] + [y for s in series for _, y in s] + [1])
    d.add(lp)
    if threshold:
        y = lp.y + lp.height * threshold / lp.yValueAxis.valueMax
        d.add(Line(lp.x, y, lp.x + lp.width, y, strokeColor=colors.red, strokeDashArray=[3, 2]))
        d.add(
            String(
                lp.x + lp.width - 2,
                y + 2,
                f"heuristic limit {threshold:.0f} %",
                fontName=SANS,
                fontSize=7,
                textAnchor="end",
                fillColor=colors.red,
            )
        )
    d.add(
        String(
            10,
            height - 12,
            f"Network share of the step (%) vs {chart.get('x_label', 'data-parallel size')}",
            fontName=SANS,
            fontSize=8,
        )
    )
    return d


def chart_svgs(analysis: dict) -> dict[str, str]:
    """Both charts as SVG text for the design page, without inline styles (the page's CSP forbids them)."""
    from reportlab.graphics import renderSVG

    from .svg_csp import csp_safe_svg

    return {
        "step_time": csp_safe_svg(renderSVG.drawToString(step_time_chart(analysis))),
        "network_share": csp_safe_svg(renderSVG.drawToString(network_share_chart(analysis))),
    }


def _collective_rows(analysis: dict) -> Iterator[tuple]:
    for c in analysis.get("collectives", []):
        yield (
            str(c.get("name", "")),
            str(c.get("group_size", "")),
            str(c.get("scope", "")),
            _gb(c.get("message_bytes")),
            _gb(c.get("wire_bytes_per_gpu")),
            _gb(c.get("per_nic_bytes")),
            f"{c.get('time_s', 0):.4f}",
        )


def _memory_lines(mem: dict) -> list[str]:
    out = []
    for k, v in mem.items():
        if isinstance(v, (dict, list)):
            continue
        label = k.replace("_", " ")
        if k.endswith("_bytes") and isinstance(v, (int, float)):
            out.append(f"{label[:-6]}: {v / 1e9:,.1f} GB")
        elif "fraction" in k and isinstance(v, (int, float)):
            out.append(f"{label}: {100 * v:.0f} %")
        else:
            out.append(f"{label}: {v:,}" if isinstance(v, (int, float)) else f"{label}: {v}")
    return out


def _fix_line(fix: dict) -> str:
    """ "change: status; network share 17 % (was ...), memory 1514 %" from a fix's computed effect."""
    e = fix.get("effect") or {}
    parts = [str(e.get("status", ""))]
    if "network_share_with_overlap" in e:
        parts.append(f"network share {_pct(e['network_share_with_overlap'])}")
    if "per_nic_bytes" in e:
        parts.append(f"{_gb(e['per_nic_bytes'])} GB per NIC")
    if "step_time_s" in e:
        parts.append(f"step {e['step_time_s']:g} s")
    if "memory_fraction" in e:
        parts.append(f"memory {_pct(e['memory_fraction'])} of the GPU")
    return f"{fix.get('change', '')}: " + "; ".join(p for p in parts if p)


def render_workloads_pdf(
    result: DesignResult,
    fh: IO[bytes],
    options: ExportOptions | Mapping[str, Any] | None = None,
    *,
    revision_label: str = "r1",
) -> int:
    """One section per workload; returns the page count. Raises ValueError when the design has no workloads."""
    workloads: dict[str, Any] = result.summary.get("workloads") or {}
    if not workloads:
        raise ValueError("the design has no workloads (spec section `workloads`)")
    opts = ExportOptions.from_any(options)
    info = DocInfo("Training-traffic analysis", result.spec.name, revision_label, opts.date)
    doc = FlowDoc(info, page_size(opts.page_size, "portrait"), margin=36.0)
    w = doc.width
    first = True
    for name, a in workloads.items():
        if not first:
            doc.add(PageBreak())
        first = False
        verdict = a.get("verdict", {})
        doc.add(Heading(f"Workload {name}: {verdict.get('status', '-')}", 1, section=name))
        lines = [f"{r['check']}: {r['status']} - {r['message']}" for r in verdict.get("reasons", [])]
        lines += [f"throughput: warning - {w}" for w in (a.get("throughput") or {}).get("warnings", [])]
        lines.append("Thresholds are heuristics (user settings), not standards: see docs/traffic.md.")
        doc.add(Lines(lines, font=SANS, size=8, leading=10.5))
        doc.add(Graphic(step_time_chart(a, width=w)))
        doc.add(Graphic(network_share_chart(a, width=w)))
        cols = [
            Column("Collective", w * 0.22),
            Column("Group", w * 0.08, "right"),
            Column("Scope", w * 0.12),
            Column("Message GB", w * 0.14, "right"),
            Column("Wire GB/GPU", w * 0.15, "right"),
            Column("GB per NIC", w * 0.14, "right"),
            Column("Time s", w * 0.15, "right"),
        ]
        rows = list(_collective_rows(a))
        doc.add(Table(cols, len(rows), rows, title="Bytes per GPU per optimizer step"))
        mem_lines = _memory_lines(a.get("memory") or {})
        if mem_lines:
            doc.add(Heading("Memory fit", 2))
            doc.add(Lines(mem_lines, font=SANS, size=8, leading=10.5))
        fixes = a.get("fixes") or []
        if fixes:
            doc.add(Heading("What would fix it", 2))
            doc.add(Lines([_fix_line(f) for f in fixes], font=SANS, size=8, leading=10.5))
    return doc.render(fh)
