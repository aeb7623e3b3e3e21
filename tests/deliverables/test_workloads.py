"""The training-workload report shows the engine's own figures: verdicts, bytes per NIC, charts."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader

from deliverables.workloads import chart_svgs, render_workloads_pdf
from engine.pipeline import compute_design
from engine.presets import load_preset
from engine.spec import parse_spec


@pytest.fixture(scope="module")
def result():
    spec = load_preset("dgx-h100-superpod-4su")
    spec["workloads"] = ["llama-70b-dp512", "llama-70b-tp8-pp4-dp16"]
    return compute_design(parse_spec(spec))


def test_it_reports_each_workloads_verdict_and_per_nic_bytes(result):
    buf = io.BytesIO()
    pages = render_workloads_pdf(result, buf, revision_label="r7")
    text = "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(buf.getvalue())).pages)
    assert pages == 2
    for name, analysis in result.summary["workloads"].items():
        assert f"Workload {name}: {analysis['verdict']['status']}" in text
        for c in analysis["collectives"]:
            if c.get("per_nic_bytes"):
                assert f"{c['per_nic_bytes'] / 1e9:,.3f}" in text
    assert "Page 1 of 2" in text and "r7" in text
    assert "heuristic" in text.lower()


def test_the_70b_pure_data_parallel_example_is_tight_on_the_network_and_does_not_fit_memory(result):
    a = result.summary["workloads"]["llama-70b-dp512"]
    checks = {r["check"]: r["status"] for r in a["verdict"]["reasons"]}
    assert checks["network-share"] == "tight" and a["verdict"]["status"] == "does-not-fit"


def test_charts_render_as_svg_for_the_page(result):
    svgs = chart_svgs(result.summary["workloads"]["llama-70b-dp512"])
    for svg in svgs.values():
        assert svg.lstrip().startswith("<svg") and "</svg>" in svg
        # The page's Content-Security-Policy drops style= attributes: colours are presentation attributes.
        assert "style=" not in svg and 'transform=""' not in svg
        assert 'fill="rgb(' in svg and 'font-family="sans-serif"' in svg


def test_a_design_without_workloads_has_no_report():
    r = compute_design(parse_spec(load_preset("gb200-nvl72-1su")))
    with pytest.raises(ValueError, match="no workloads"):
        render_workloads_pdf(r, io.BytesIO())
